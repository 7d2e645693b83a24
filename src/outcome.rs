//! The common language: what a decoder may say about an input.
//!
//! Every decoder, ours or a foreign one, answers in the terms of Rust's
//! [`core::str::Utf8Error`] and of Unicode §3.9, "U+FFFD Substitution of
//! Maximal Subparts":
//!
//! * **strict** — either every scalar value, or a [`Utf8Error`]: how many
//!   bytes are valid before the first ill-formed sequence (`valid_up_to`) and
//!   how long that sequence's *maximal subpart* is (`error_len`: 1 to 3, or
//!   `None` when the input ended inside a sequence more bytes could complete);
//! * **lossy** — the scalar values with each maximal subpart replaced by one
//!   U+FFFD;
//! * **encode** — one scalar value in, 1 to 4 bytes out; surrogates and values
//!   above U+10FFFF are refused with an [`EncodeError`].
//!
//! A *foreign* decoder may answer only some of these, and may answer them
//! wrongly: that is what the harness measures. So the type decoders return,
//! [`Answer`], records what a decoder *said* (code points as raw `u32`, since
//! a non-conforming decoder may hand back a surrogate or 0x110000), with every
//! field optional, and [`Capabilities`] records what it claims to answer.
//!
//! Streaming answers ([`StreamAnswer`]) say what each call of a decoder
//! object returned, so that *when* a decoder emits a character or a U+FFFD
//! can be judged, not only what it emits in the end.
//!
//! `Answer` and the stream types are serde types: the protocol's responses,
//! the vector files and the reports all spell an outcome with them.

use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

pub use utf8conform_codec::{EncodeError, Utf8Error, REPLACEMENT};

/// One thing a decoder can claim to answer. Each maps to a conformance level
/// (docs/DESIGN.md): the harness scores a decoder only on what it claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Says whether the whole input is valid (level V).
    Validate,
    /// Gives `valid_up_to` on invalid input (level P).
    Position,
    /// Gives `error_len` on invalid input (level S).
    Subpart,
    /// Gives the scalar values of valid input (checked under level V).
    Decode,
    /// Gives a replacing decode of every input (level R).
    Lossy,
    /// Encodes scalar values, refusing non-scalars (level E).
    Encode,
    /// Decodes input fed in chunks, stopping at the first error (level C).
    StreamStrict,
    /// Decodes input fed in chunks, replacing (level C).
    StreamLossy,
    /// Decodes several inputs in a row on one decoder object (level U).
    Reuse,
}

impl Capability {
    /// Every capability, in a fixed order.
    pub const ALL: [Capability; 9] = [
        Capability::Validate,
        Capability::Position,
        Capability::Subpart,
        Capability::Decode,
        Capability::Lossy,
        Capability::Encode,
        Capability::StreamStrict,
        Capability::StreamLossy,
        Capability::Reuse,
    ];

    /// The name used on the command line and in the protocol's hello.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Validate => "validate",
            Capability::Position => "position",
            Capability::Subpart => "subpart",
            Capability::Decode => "decode",
            Capability::Lossy => "lossy",
            Capability::Encode => "encode",
            Capability::StreamStrict => "stream-strict",
            Capability::StreamLossy => "stream-lossy",
            Capability::Reuse => "reuse",
        }
    }

    /// Whether the protocol's hello may claim it only from protocol 2 on.
    pub fn needs_protocol_2(self) -> bool {
        matches!(
            self,
            Capability::StreamStrict | Capability::StreamLossy | Capability::Reuse
        )
    }
}

/// The set of [`Capability`]s a decoder claims.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Capabilities(u16);

impl Capabilities {
    /// No capability at all.
    pub const NONE: Capabilities = Capabilities(0);
    /// `validate` + `position` + `subpart` + `decode`: everything
    /// `core::str::from_utf8` tells. The protocol calls this `strict`.
    pub const STRICT: Capabilities = Capabilities::NONE
        .with(Capability::Validate)
        .with(Capability::Position)
        .with(Capability::Subpart)
        .with(Capability::Decode);
    /// `stream-strict` + `stream-lossy`. The protocol calls this `stream`.
    pub const STREAM: Capabilities = Capabilities::NONE
        .with(Capability::StreamStrict)
        .with(Capability::StreamLossy);
    /// Everything.
    pub const ALL: Capabilities = Capabilities::STRICT
        .with(Capability::Lossy)
        .with(Capability::Encode)
        .union(Capabilities::STREAM)
        .with(Capability::Reuse);

    /// This set plus `cap`.
    pub const fn with(self, cap: Capability) -> Capabilities {
        Capabilities(self.0 | 1 << cap as u8)
    }

    /// Whether `cap` is claimed.
    pub const fn has(self, cap: Capability) -> bool {
        self.0 & (1 << cap as u8) != 0
    }

    /// The claimed capabilities, in [`Capability::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Capability> {
        Capability::ALL.into_iter().filter(move |&c| self.has(c))
    }

    /// Parses a protocol name; `strict` expands to [`Capabilities::STRICT`]
    /// and `stream` to [`Capabilities::STREAM`].
    pub fn parse_one(name: &str) -> Option<Capabilities> {
        match name {
            "strict" => return Some(Capabilities::STRICT),
            "stream" => return Some(Capabilities::STREAM),
            _ => {}
        }
        Capability::ALL
            .into_iter()
            .find(|c| c.as_str() == name)
            .map(|c| Capabilities::NONE.with(c))
    }

    /// The union of two sets.
    pub const fn union(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 | other.0)
    }

    /// The names, e.g. `["validate", "position", "lossy"]`.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Capability::as_str).collect()
    }

    /// The streaming modes claimed, strict first.
    pub fn stream_modes(self) -> impl Iterator<Item = StreamMode> {
        [
            (Capability::StreamStrict, StreamMode::Strict),
            (Capability::StreamLossy, StreamMode::Lossy),
        ]
        .into_iter()
        .filter(move |(c, _)| self.has(*c))
        .map(|(_, m)| m)
    }
}

impl fmt::Debug for Capabilities {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// What one decoder said about one input. A field is `None` when the decoder
/// did not answer it (it lacks the capability, or the field does not apply).
///
/// Code points are `u32`, not `char`: a non-conforming decoder may return a
/// surrogate or a value above U+10FFFF, and the harness must be able to
/// record exactly that.
///
/// As JSON (the protocol's `decode` response, a vector case, a report), a
/// field not answered is left out, and `"error_len": null` means "the input
/// ended inside a sequence": present and null is an answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// Whether the decoder accepted the whole input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// The decoded code points, when the input was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalars: Option<Vec<u32>>,
    /// Bytes before the first ill-formed sequence, when it was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_up_to: Option<usize>,
    /// `Some(Some(n))`: maximal subpart length; `Some(None)`: incomplete at
    /// the end; `None`: not answered.
    #[serde(
        default,
        deserialize_with = "present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub error_len: Option<Option<u8>>,
    /// The replacing decode of the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy: Option<Vec<u32>>,
}

/// `"error_len": null` is an answer (incomplete input), unlike a missing
/// field: keep the two apart. Used with `#[serde(default)]`, so an absent
/// field is `None` and a present one (`null` included) is `Some`.
pub fn present_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<u8>>, D::Error> {
    Option::<u8>::deserialize(d).map(Some)
}

impl Answer {
    /// The strict part of an answer: validity and, when rejected, the
    /// first error's position and length as far as `verdict` answers them.
    /// Scalars and lossy output are left for the caller to add.
    pub fn from_verdict(verdict: Verdict) -> Answer {
        Answer {
            valid: Some(verdict.valid),
            valid_up_to: verdict.valid_up_to.filter(|_| !verdict.valid),
            error_len: verdict.error_len.filter(|_| !verdict.valid),
            ..Answer::default()
        }
    }

    /// The answer of a decoder that claims `caps` and computes exactly what
    /// RFC 3629 and Unicode §3.9 say, from a strict and a lossy result. Used
    /// by decoders whose native API gives both.
    pub fn from_results(
        caps: Capabilities,
        strict: Result<Vec<char>, Utf8Error>,
        lossy: impl FnOnce() -> Vec<char>,
    ) -> Answer {
        let mut answer = Answer {
            valid: caps.has(Capability::Validate).then_some(strict.is_ok()),
            ..Answer::default()
        };
        match strict {
            Ok(chars) if caps.has(Capability::Decode) => {
                answer.scalars = Some(chars_to_u32(&chars));
            }
            Ok(_) => {}
            Err(e) => {
                if caps.has(Capability::Position) {
                    answer.valid_up_to = Some(e.valid_up_to());
                }
                if caps.has(Capability::Subpart) {
                    answer.error_len = Some(e.error_len());
                }
            }
        }
        if caps.has(Capability::Lossy) {
            answer.lossy = Some(chars_to_u32(&lossy()));
        }
        answer
    }
}

/// A strict verdict without the decoded text: what a decoder says about
/// validity and the first error, cheap enough to ask billions of times (the
/// exhaustive sweep). Fields the decoder does not answer are `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the input was accepted.
    pub valid: bool,
    /// Bytes before the first ill-formed sequence, if answered.
    pub valid_up_to: Option<usize>,
    /// Maximal subpart length (`Some(None)`: incomplete), if answered.
    pub error_len: Option<Option<u8>>,
}

impl Verdict {
    /// The verdict of a decoder that reports `Utf8Error`s in full.
    pub fn from_result(result: Result<(), Utf8Error>) -> Verdict {
        match result {
            Ok(()) => Verdict {
                valid: true,
                ..Verdict::default()
            },
            Err(e) => Verdict {
                valid: false,
                valid_up_to: Some(e.valid_up_to()),
                error_len: Some(e.error_len()),
            },
        }
    }
}

/// What an encoder said about one scalar value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeAnswer {
    /// The bytes it produced.
    Bytes(Vec<u8>),
    /// It refused, with its reason if it gave one.
    Refused(Option<EncodeError>),
}

/// A streaming request's mode: which of the library's incremental decoders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamMode {
    /// Stops at the first error.
    Strict,
    /// Replaces each ill-formed sequence and goes on.
    Lossy,
}

impl StreamMode {
    /// `strict` or `lossy`, as the protocol spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamMode::Strict => "strict",
            StreamMode::Lossy => "lossy",
        }
    }
}

/// One input fed to a decoder object: its chunks, one call each, then the
/// end-of-input call unless `flush` is false.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamRun {
    /// The chunks, in order; any may be empty.
    pub chunks: Vec<Vec<u8>>,
    /// Whether the end-of-input call is made.
    pub flush: bool,
}

impl StreamRun {
    /// `bytes` cut into `chunks` at the given lengths, then flushed.
    pub fn new(chunks: Vec<Vec<u8>>) -> StreamRun {
        StreamRun {
            chunks,
            flush: true,
        }
    }

    /// Every byte of the run, in order.
    pub fn bytes(&self) -> Vec<u8> {
        self.chunks.concat()
    }

    /// How many calls the run makes: one per chunk, and the flush.
    pub fn calls(&self) -> usize {
        self.chunks.len() + usize::from(self.flush)
    }

    /// The chunks as hex joined by ` | ` (`e0 80 | 80`), and `(open)`
    /// when it is not flushed: how findings show a chunking.
    pub fn show(&self) -> String {
        let mut s = self
            .chunks
            .iter()
            .map(|c| {
                if c.is_empty() {
                    "(empty)".to_string()
                } else {
                    crate::hex::spaced(c)
                }
            })
            .collect::<Vec<_>>()
            .join(" | ");
        if self.chunks.is_empty() {
            s.push_str("(no chunks)");
        }
        if !self.flush {
            s.push_str(" (not flushed)");
        }
        s
    }
}

/// Where a strict stream stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamError {
    /// The index of the call that reported it.
    pub call: usize,
    /// The error's position in whole-stream bytes, if the library tells it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_up_to: Option<usize>,
    /// The maximal subpart's length (`Some(None)`: the input ended inside
    /// a sequence), if the library tells it.
    #[serde(
        default,
        deserialize_with = "present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub error_len: Option<Option<u8>>,
}

/// What one streaming run returned, call by call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamAnswer {
    /// Per call made, the code points it returned; `None` for a validator,
    /// which returns no text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<Vec<u32>>>,
    /// Where a strict run stopped, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StreamError>,
    /// A validator's verdict (decoders that return text leave it out: for
    /// them, valid means no `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
}

impl StreamAnswer {
    /// Whether the run was accepted.
    pub fn is_valid(&self) -> bool {
        self.valid.unwrap_or(self.error.is_none())
    }

    /// Every code point the calls returned, in order.
    pub fn text(&self) -> Option<Vec<u32>> {
        self.calls.as_ref().map(|c| c.concat())
    }
}

/// How a decoder failed to answer at all (external decoders only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The process exited or closed its output.
    Crash,
    /// No answer within the per-request time limit.
    Timeout,
    /// An answer that breaks the protocol (not JSON, wrong id, bad field).
    ProtocolError,
    /// An in-process decoder panicked.
    Panic,
    /// The request was never made: the decoder's time budget ran out, or
    /// it failed so often that asking on would only cost time.
    NotRun,
}

impl FailureKind {
    /// The name used in reports: `crash`, `timeout`, `protocol-error`,
    /// `panic`, `not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::ProtocolError => "protocol-error",
            FailureKind::Panic => "panic",
            FailureKind::NotRun => "not-run",
        }
    }
}

/// A decoder's failure to answer one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// Details for a person (the offending line, the exit status…).
    pub detail: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.detail)
    }
}

/// A decoder failing to answer (crashing, hanging, breaking the
/// protocol, panicking), narrowed where possible to the bytes that cause
/// it: a finding of its own kind, not a conformance level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incident {
    /// How it failed.
    pub kind: FailureKind,
    /// The input that shows it: minimised when `minimized`.
    pub input: Vec<u8>,
    /// Whether `input` was minimised (every input holding it is expected
    /// to fail the same way).
    pub minimized: bool,
    /// The input it was first seen on.
    pub first_seen: Vec<u8>,
    /// What the failure said (exit status, stderr, the bad line…).
    pub detail: String,
    /// Requests that failed this way.
    pub failures: u64,
    /// Requests of the same class not sent, once the class was confirmed.
    pub not_run: u64,
    /// Anything else worth saying.
    pub note: Option<String>,
}

/// `chars` as code point numbers.
pub fn chars_to_u32(chars: &[char]) -> Vec<u32> {
    chars.iter().map(|&c| c as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_strict_is_the_four_from_utf8_answers() {
        let names = Capabilities::STRICT.names();
        assert_eq!(names, ["validate", "position", "subpart", "decode"]);
        assert_eq!(
            Capabilities::parse_one("strict"),
            Some(Capabilities::STRICT)
        );
        assert_eq!(
            Capabilities::parse_one("lossy").map(|c| c.names()),
            Some(vec!["lossy"])
        );
        assert_eq!(Capabilities::parse_one("frobnicate"), None);
    }
}
