//! The one interface every decoder under test implements: yours, the
//! built-in ones ([`crate::decoders`]) and decoders in other processes.
//!
//! A decoder states its [`Capabilities`] and answers in the common
//! language of [`crate::outcome`]. Only [`Decoder::name`],
//! [`Decoder::version`], [`Decoder::capabilities`] and [`Decoder::decode`]
//! are required; the rest have defaults:
//!
//! * [`encode`](Decoder::encode), [`stream`](Decoder::stream) and
//!   [`reuse`](Decoder::reuse) answer the `encode`, `stream-*` and `reuse`
//!   claims;
//! * [`ask`](Decoder::ask) answers many requests at once, which a decoder
//!   in another process overrides to pipeline them;
//! * [`verdict`](Decoder::verdict), [`decode_into`](Decoder::decode_into)
//!   [`lossy_into`](Decoder::lossy_into) and
//!   [`lossy_text_into`](Decoder::lossy_text_into) are fast paths: what the fuzz
//!   properties and the exhaustive sweep call millions of times, with no
//!   allocation. Each returns `None`/`false` by default, and the callers
//!   then use `decode`; a decoder that has them overrides them to be
//!   checked faster, never differently.
//!
//! An implementation maps the library's *own* answers into this language
//! and claims only what the library really tells: simdutf8's `basic` API
//! says valid or invalid and nothing more, so its decoder claims `validate`
//! and nothing else. No implementation repairs an answer; a library that
//! disagrees with the RFC must show up as disagreeing.

use crate::outcome::{
    Answer, Capabilities, EncodeAnswer, Failure, FailureKind, Incident, StreamAnswer, StreamMode,
    StreamRun, Verdict,
};

/// Where a decoder lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Called in this process.
    Builtin,
    /// Another process, spoken to over the JSON-lines protocol.
    External,
}

impl Kind {
    /// `builtin` or `external`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Builtin => "builtin",
            Kind::External => "external",
        }
    }
}

/// One question for a decoder, as [`Decoder::ask`] takes them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Request {
    /// Decode these bytes in one call.
    Decode(Vec<u8>),
    /// Encode this number (any `u32`: non-scalars are sent on purpose).
    Encode(u32),
    /// Feed one input in chunks to a new decoder object.
    Stream(StreamMode, StreamRun),
    /// Feed several inputs, one after the other, to one decoder object.
    Reuse(StreamMode, Vec<StreamRun>),
}

/// What a decoder answered to a [`Request`] of the same kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// To [`Request::Decode`].
    Decoded(Answer),
    /// To [`Request::Encode`].
    Encoded(EncodeAnswer),
    /// To [`Request::Stream`].
    Streamed(StreamAnswer),
    /// To [`Request::Reuse`]: one answer per input.
    Reused(Vec<StreamAnswer>),
}

/// Which fast path of a decoder a finding came from, so that a failure
/// message can name the library call ([`Decoder::api`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// [`Decoder::verdict`].
    Verdict,
    /// [`Decoder::decode_into`].
    DecodeInto,
    /// [`Decoder::lossy_into`].
    LossyInto,
    /// [`Decoder::lossy_text_into`].
    LossyText,
    /// [`Decoder::decode`].
    Decode,
    /// [`Decoder::encode`].
    Encode,
    /// [`Decoder::stream`] and [`Decoder::reuse`].
    Stream,
}

/// A UTF-8 decoder under test (or serving as an oracle).
///
/// Methods are only called for what [`capabilities`](Decoder::capabilities)
/// claims; an [`Answer`] field outside the claim is not scored (the kit's
/// `check` reports it as a broken claim).
///
/// ```
/// use utf8conform::decoder::Decoder;
/// use utf8conform::outcome::{Answer, Capabilities, Failure};
///
/// /// std's `from_utf8`, claiming what its `Utf8Error` tells.
/// struct Mine;
/// impl Decoder for Mine {
///     fn name(&self) -> &str { "mine" }
///     fn version(&self) -> String { "1.0".into() }
///     fn capabilities(&self) -> Capabilities { Capabilities::STRICT }
///     fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
///         Ok(Answer::from_results(
///             self.capabilities(),
///             std::str::from_utf8(bytes).map(|s| s.chars().collect()).map_err(Into::into),
///             Vec::new,
///         ))
///     }
/// }
/// assert_eq!(Mine.decode(b"\xC0\xAF").unwrap().valid, Some(false));
/// ```
pub trait Decoder: Send + Sync {
    /// Name used on the command line and in reports (`std`, `simdutf8-compat`).
    fn name(&self) -> &str;
    /// The library's version, as precisely as it can be known.
    fn version(&self) -> String;
    /// What the decoder answers.
    fn capabilities(&self) -> Capabilities;
    /// Built in or external.
    fn kind(&self) -> Kind {
        Kind::Builtin
    }
    /// Decodes one input in one call. `Err` only when the decoder failed to
    /// answer at all (an external process crashed, hung or broke the
    /// protocol).
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure>;
    /// Encodes one number (only called with the `encode` capability).
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        let _ = scalar;
        Err(unsupported(self.name(), "encode"))
    }
    /// Feeds `run` to a new decoder object in `mode`, a call per chunk and
    /// then the end-of-input call if `run.flush` (only called with the
    /// matching `stream-*` capability). The answer says what each call
    /// returned.
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        let _ = (mode, run);
        Err(unsupported(self.name(), "stream"))
    }
    /// Feeds every run, in order, to **one** decoder object, never reset
    /// in between unless the library resets itself (only called with the
    /// `reuse` capability).
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        let _ = (mode, runs);
        Err(unsupported(self.name(), "reuse"))
    }
    /// Answers many requests, one result each, in order. The default asks
    /// one at a time; an external decoder pipelines them.
    fn ask(&self, requests: &[Request]) -> Vec<Result<Reply, Failure>> {
        requests
            .iter()
            .map(|request| match request {
                Request::Decode(bytes) => self.decode(bytes).map(Reply::Decoded),
                Request::Encode(scalar) => self.encode(*scalar).map(Reply::Encoded),
                Request::Stream(mode, run) => self.stream(*mode, run).map(Reply::Streamed),
                Request::Reuse(mode, runs) => self.reuse(*mode, runs).map(Reply::Reused),
            })
            .collect()
    }
    /// Fast path: the strict verdict of the decoder's validator, without
    /// allocating; `None` if it has none.
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        let _ = bytes;
        None
    }
    /// Fast path: appends the code points of the longest well-formed prefix
    /// (the whole input when valid) to `out`, which the caller reuses, and
    /// returns the decoding call's own verdict; `None` if it has no such
    /// path.
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        let _ = (bytes, out);
        None
    }
    /// Fast path: appends the lossy decode of `bytes` to `out`; `false` if
    /// it has no such path.
    fn lossy_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> bool {
        let _ = (bytes, out);
        false
    }
    /// Fast path: appends the lossy decode of `bytes` to `out` as UTF-8,
    /// for a library whose lossy output is text (compared byte for byte,
    /// without decoding it again); `false` if it has no such path.
    fn lossy_text_into(&self, bytes: &[u8], out: &mut String) -> bool {
        let _ = (bytes, out);
        false
    }
    /// The library call behind a path, for failure messages.
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict => "Decoder::verdict",
            Path::DecodeInto => "Decoder::decode_into",
            Path::LossyInto => "Decoder::lossy_into",
            Path::LossyText => "Decoder::lossy_text_into",
            Path::Decode => "Decoder::decode",
            Path::Encode => "Decoder::encode",
            Path::Stream => "Decoder::stream",
        }
    }
    /// How many times the decoder had to be restarted (external decoders).
    fn restarts(&self) -> u32 {
        0
    }
    /// The last lines an external decoder wrote to stderr.
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
    /// The failures to answer the decoder narrowed down itself (an
    /// external decoder learns which inputs crash or hang it).
    fn incidents(&self) -> Vec<Incident> {
        Vec::new()
    }
    /// Why the decoder stopped answering before the end, if it did.
    fn stopped(&self) -> Option<String> {
        None
    }
    /// The longest input, in bytes, the library's API can take, when it
    /// has such a limit (Java's `readUTF`: 65,535). Longer inputs are not
    /// asked, and count as no one's failure.
    fn max_input(&self) -> Option<usize> {
        None
    }
}

/// The failure of a request the decoder has no method for.
pub fn unsupported(name: &str, what: &str) -> Failure {
    Failure {
        kind: FailureKind::ProtocolError,
        detail: format!("{name} does not support {what}"),
    }
}

/// Decodes many inputs through [`Decoder::ask`] (pipelined where the
/// decoder pipelines).
pub fn decode_batch(decoder: &dyn Decoder, inputs: &[&[u8]]) -> Vec<Result<Answer, Failure>> {
    let requests: Vec<Request> = inputs.iter().map(|b| Request::Decode(b.to_vec())).collect();
    decoder
        .ask(&requests)
        .into_iter()
        .map(|r| match r {
            Ok(Reply::Decoded(a)) => Ok(a),
            Ok(other) => Err(wrong_reply(&other)),
            Err(f) => Err(f),
        })
        .collect()
}

/// A reply of the wrong kind for its request: a broken [`Decoder::ask`].
pub fn wrong_reply(reply: &Reply) -> Failure {
    Failure {
        kind: FailureKind::ProtocolError,
        detail: format!("a reply of the wrong kind: {reply:?}"),
    }
}
