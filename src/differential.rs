//! Running decoders side by side on one input, comparing only what each
//! claims, and explaining a divergence so a person can act on it.
//!
//! The expected answer always comes from [`crate::reference`]; a decoder
//! *diverges* when a field it claims differs from the reference's. Two
//! decoders that claim the same level and disagree with each other therefore
//! cannot both agree with the reference, and each disagreement is reported
//! against the RFC, which is the question a user asks ("who is wrong?").

use crate::decoder::Decoder;
use crate::decoders::ReferenceDecoder;
use crate::hex;
use crate::level::Level;
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, EncodeError, Failure, StreamAnswer, StreamMode,
    StreamRun,
};
use crate::reference;
use std::fmt;

/// The answer field that differed, and the conformance level it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// Valid or not (level V).
    Valid,
    /// The decoded scalars of a valid input (level V).
    Scalars,
    /// `valid_up_to` (level P).
    ValidUpTo,
    /// `error_len` (level S).
    ErrorLen,
    /// Lossy output (level R).
    Lossy,
    /// What the calls of a streaming decode returned (level C).
    Chunking,
    /// A decoder object used again answered otherwise than a fresh one
    /// (level U).
    Reuse,
    /// Encoding a scalar (level E).
    Encode,
    /// The decoder failed to answer this kind of request at all: no level
    /// can be judged on it.
    NoAnswer(Asked),
}

/// The kind of request a decoder failed to answer, which says the levels
/// left unjudged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Asked {
    /// A one-shot decode (levels V P S R).
    Decode,
    /// An encode (level E).
    Encode,
    /// A streaming decode (level C).
    Stream,
    /// Several inputs on one decoder object (level U).
    Reuse,
}

impl Asked {
    /// The claimed levels a request of this kind informs.
    pub fn levels(self, caps: Capabilities) -> Vec<Level> {
        let candidates: &[Level] = match self {
            Asked::Decode => &[
                Level::Validity,
                Level::Position,
                Level::Subpart,
                Level::Replacement,
            ],
            Asked::Encode => &[Level::Encoding],
            Asked::Stream => &[Level::Chunking],
            Asked::Reuse => &[Level::Reuse],
        };
        candidates
            .iter()
            .copied()
            .filter(|l| l.claimed_by(caps))
            .collect()
    }
}

impl Field {
    /// The conformance level the field belongs to; `None` for a failure to
    /// answer, which is no level's (it is an incident, and leaves every
    /// level it touched unanswered).
    pub fn level(self) -> Option<Level> {
        Some(match self {
            Field::Valid | Field::Scalars => Level::Validity,
            Field::ValidUpTo => Level::Position,
            Field::ErrorLen => Level::Subpart,
            Field::Lossy => Level::Replacement,
            Field::Chunking => Level::Chunking,
            Field::Reuse => Level::Reuse,
            Field::Encode => Level::Encoding,
            Field::NoAnswer(_) => return None,
        })
    }

    /// The level's letter, `!` for a failure to answer.
    pub fn letter(self) -> char {
        self.level().map_or('!', Level::letter)
    }

    /// The protocol's name for the field.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Valid => "valid",
            Field::Scalars => "scalars",
            Field::ValidUpTo => "valid_up_to",
            Field::ErrorLen => "error_len",
            Field::Lossy => "lossy",
            Field::Chunking => "chunking",
            Field::Reuse => "reuse",
            Field::Encode => "encode",
            Field::NoAnswer(_) => "no answer",
        }
    }
}

/// One field on which one decoder's answer differs from the reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Which field.
    pub field: Field,
    /// The reference's value, rendered.
    pub expected: String,
    /// The decoder's value, rendered (`(not answered)` if it left it out).
    pub got: String,
}

/// Compares `got` (from a decoder claiming `caps`) with the reference's
/// `expected` answer, on the claimed fields only.
pub fn compare(expected: &Answer, got: &Answer, caps: Capabilities) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut check = |field, e: String, g: String| {
        if e != g {
            out.push(Mismatch {
                field,
                expected: e,
                got: g,
            });
        }
    };
    let truly_valid = expected.valid == Some(true);
    if caps.has(Capability::Validate) {
        check(
            Field::Valid,
            show(&expected.valid, show_bool),
            show(&got.valid, show_bool),
        );
    }
    // Scalars are compared when the input is valid and the decoder says so:
    // a decoder that wrongly rejects was already caught by `Valid`. A decoder
    // that wrongly *accepts* and decodes is caught by `Valid` too, and its
    // scalars are shown in that finding's context by the report.
    if caps.has(Capability::Decode) && truly_valid && got.valid != Some(false) {
        check(
            Field::Scalars,
            show(&expected.scalars, |s| show_scalars(s)),
            show(&got.scalars, |s| show_scalars(s)),
        );
    }
    let says_invalid = got.valid != Some(true);
    if caps.has(Capability::Position) && !truly_valid && says_invalid {
        check(
            Field::ValidUpTo,
            show(&expected.valid_up_to, |n| n.to_string()),
            show(&got.valid_up_to, |n| n.to_string()),
        );
    }
    if caps.has(Capability::Subpart) && !truly_valid && says_invalid {
        check(
            Field::ErrorLen,
            show(&expected.error_len, show_error_len),
            show(&got.error_len, show_error_len),
        );
    }
    if caps.has(Capability::Lossy) {
        check(
            Field::Lossy,
            show(&expected.lossy, |s| show_scalars(s)),
            show(&got.lossy, |s| show_scalars(s)),
        );
    }
    out
}

fn show<T>(value: &Option<T>, render: impl Fn(&T) -> String) -> String {
    value
        .as_ref()
        .map_or_else(|| "(not answered)".to_string(), render)
}

fn show_bool(b: &bool) -> String {
    b.to_string()
}

/// `Some(n)` as `n`, `None` as `null (incomplete)`.
pub fn show_error_len(e: &Option<u8>) -> String {
    match e {
        Some(n) => n.to_string(),
        None => "null (incomplete)".to_string(),
    }
}

/// Code points as `[U+0041 U+FFFD …]`, cut after 24 with a count.
pub fn show_scalars(scalars: &[u32]) -> String {
    let mut s = String::from("[");
    for (i, c) in scalars.iter().take(24).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("U+{c:04X}"));
    }
    if scalars.len() > 24 {
        s.push_str(&format!(" … {} in all", scalars.len()));
    }
    s.push(']');
    s
}

/// The reference's full answer for `bytes`: the expectation every decoder is
/// held to.
pub fn expected(bytes: &[u8]) -> Answer {
    ReferenceDecoder
        .decode(bytes)
        .expect("the reference decoder always answers")
}

/// One decoder disagreeing with the reference on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The decoder's name.
    pub decoder: String,
    /// The input, as found.
    pub input: Vec<u8>,
    /// What differed.
    pub mismatch: Mismatch,
    /// The shortest input found that shows the same divergence, if
    /// minimisation was run.
    pub minimized: Option<Vec<u8>>,
}

impl Divergence {
    /// The level letter of the divergence (`!`: no answer).
    pub fn level(&self) -> char {
        self.mismatch.field.letter()
    }
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.mismatch;
        writeln!(
            f,
            "{} disagrees with the reference on {} (level {})",
            self.decoder,
            m.field.as_str(),
            m.field.letter()
        )?;
        writeln!(
            f,
            "  input ({} bytes): {}",
            self.input.len(),
            marked_hex(&self.input)
        )?;
        writeln!(f, "  reference: {}", m.expected)?;
        writeln!(f, "  {}: {}", self.decoder, m.got)?;
        if let Some(min) = &self.minimized {
            write!(f, "  minimized ({} bytes): {}", min.len(), marked_hex(min))?;
        }
        Ok(())
    }
}

/// Hex with the reference's first ill-formed sequence in brackets:
/// `2f [c0] ae 2e 2f`. Past 48 bytes: 16 bytes either side of the mark, or the first 48.
pub fn marked_hex(bytes: &[u8]) -> String {
    let mark = reference::validate(bytes).err().map(|e| {
        let len = e
            .error_len()
            .map_or(bytes.len() - e.valid_up_to(), usize::from);
        e.valid_up_to()..e.valid_up_to() + len
    });
    let (from, to) = match &mark {
        Some(m) if bytes.len() > 48 => (m.start.saturating_sub(16), (m.end + 16).min(bytes.len())),
        None if bytes.len() > 48 => (0, 48),
        _ => (0, bytes.len()),
    };
    let mut parts = Vec::new();
    if from > 0 {
        parts.push(format!("…({from} bytes)"));
    }
    for (i, b) in bytes.iter().enumerate().take(to).skip(from) {
        let mut s = String::new();
        if mark.as_ref().is_some_and(|m| m.start == i) {
            s.push('[');
        }
        s.push_str(&hex::encode(&[*b]));
        if mark.as_ref().is_some_and(|m| m.end == i + 1) {
            s.push(']');
        }
        parts.push(s);
    }
    if to < bytes.len() {
        parts.push(format!("…({} bytes)", bytes.len() - to));
    }
    parts.join(" ")
}

/// How a decoder's answer for one input compared with the reference.
fn answer_mismatches(decoder: &dyn Decoder, expected: &Answer, bytes: &[u8]) -> Vec<Mismatch> {
    match decoder.decode(bytes) {
        Ok(got) => compare(expected, &got, decoder.capabilities()),
        Err(failure) => vec![failure_mismatch(Asked::Decode, &failure)],
    }
}

/// A failure to answer a request of kind `asked`, as a mismatch of its
/// own kind.
pub fn failure_mismatch(asked: Asked, failure: &Failure) -> Mismatch {
    Mismatch {
        field: Field::NoAnswer(asked),
        expected: "an answer".into(),
        got: failure.to_string(),
    }
}

/// Runs every decoder on `bytes` and returns each divergence from the
/// reference (not minimised).
pub fn check(decoders: &[Box<dyn Decoder>], bytes: &[u8]) -> Vec<Divergence> {
    let expected = expected(bytes);
    let mut out = Vec::new();
    for decoder in decoders {
        for mismatch in answer_mismatches(decoder.as_ref(), &expected, bytes) {
            out.push(Divergence {
                decoder: decoder.name().to_string(),
                input: bytes.to_vec(),
                mismatch,
                minimized: None,
            });
        }
    }
    out
}

/// Every divergence of `decoder` on `inputs`, one-shot and (for a
/// streaming decoder) each input cut at its `splits`: all asked in one
/// batch, so a decoder in another process gets them pipelined.
pub fn check_batch(
    decoder: &dyn Decoder,
    inputs: &[Vec<u8>],
    splits: &[Vec<usize>],
) -> Vec<Divergence> {
    use crate::decoder::{Reply, Request};
    let caps = decoder.capabilities();
    let mut requests: Vec<Request> = inputs.iter().map(|b| Request::Decode(b.clone())).collect();
    let mut owners: Vec<usize> = (0..inputs.len()).collect();
    for mode in caps.stream_modes() {
        for (k, (input, cuts)) in inputs.iter().zip(splits).enumerate() {
            let run = StreamRun::new(
                split_at(input, cuts)
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect(),
            );
            requests.push(Request::Stream(mode, run));
            owners.push(k);
        }
    }
    let mut out = Vec::new();
    for ((request, reply), &k) in requests.iter().zip(decoder.ask(&requests)).zip(&owners) {
        let input = &inputs[k];
        let mismatches = match (request, reply) {
            (Request::Decode(_), Ok(Reply::Decoded(got))) => compare(&expected(input), &got, caps),
            (Request::Stream(mode, run), Ok(Reply::Streamed(got))) => {
                compare_stream(*mode, run, &reference::stream::expect(*mode, run), &got)
                    .into_iter()
                    .collect()
            }
            (Request::Stream(..), Err(f)) => vec![failure_mismatch(Asked::Stream, &f)],
            (_, Err(f)) => vec![failure_mismatch(Asked::Decode, &f)],
            (_, Ok(other)) => vec![failure_mismatch(
                Asked::Decode,
                &crate::decoder::wrong_reply(&other),
            )],
        };
        out.extend(mismatches.into_iter().map(|mismatch| Divergence {
            decoder: decoder.name().to_string(),
            input: input.clone(),
            mismatch,
            minimized: None,
        }));
    }
    out
}

/// Checks a streaming decoder (level C): `bytes` cut at `splits`
/// (offsets, any order, out-of-range ones ignored), fed in every mode it
/// claims, call by call against [`reference::stream`].
pub fn check_chunked(decoder: &dyn Decoder, bytes: &[u8], splits: &[usize]) -> Vec<Mismatch> {
    let run = StreamRun::new(
        split_at(bytes, splits)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect(),
    );
    decoder
        .capabilities()
        .stream_modes()
        .filter_map(|mode| match decoder.stream(mode, &run) {
            Ok(got) => compare_stream(mode, &run, &reference::stream::expect(mode, &run), &got),
            Err(failure) => Some(failure_mismatch(Asked::Stream, &failure)),
        })
        .collect()
}

/// `bytes` cut at `splits`.
pub fn split_at<'a>(bytes: &'a [u8], splits: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = splits
        .iter()
        .copied()
        .filter(|&s| s <= bytes.len())
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for cut in cuts {
        chunks.push(&bytes[from..cut]);
        from = cut;
    }
    chunks.push(&bytes[from..]);
    chunks
}

/// Calls' outputs as `[U+0041] [] [U+FFFD]`.
pub fn show_calls(calls: &[Vec<u32>]) -> String {
    calls
        .iter()
        .map(|c| show_scalars(c))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_stream(answer: &StreamAnswer) -> String {
    let mut s = match &answer.calls {
        Some(calls) => show_calls(calls),
        None => format!("valid {}", answer.is_valid()),
    };
    if let Some(e) = &answer.error {
        s.push_str(&format!(", error in call {}", e.call));
        if let Some(at) = e.valid_up_to {
            s.push_str(&format!(" at {at}"));
        }
        if let Some(len) = &e.error_len {
            s.push_str(&format!(", error_len {}", show_error_len(len)));
        }
    }
    s
}

/// What is wrong with a streaming answer, if anything: `None` when `got`
/// equals `expected` on what the decoder answered.
///
/// Lossy calls must equal the reference's call by call. A strict stream
/// must stop in the same call, having returned the same before it; the
/// failing call may return nothing (most APIs raise) or what the reference
/// completed before the error; position and `error_len` are compared when
/// the decoder gives them. A validator (no `calls`) is judged on validity.
pub fn stream_difference(expected: &StreamAnswer, got: &StreamAnswer) -> Option<String> {
    let Some(g_calls) = &got.calls else {
        return (got.is_valid() != expected.is_valid()).then(|| {
            format!(
                "says valid {} where the input is {}",
                got.is_valid(),
                if expected.is_valid() {
                    "valid"
                } else {
                    "invalid"
                }
            )
        });
    };
    let e_calls = expected.calls.as_deref().unwrap_or_default();
    match (&expected.error, &got.error) {
        (None, Some(g)) => Some(format!(
            "reports an error in call {} on valid input",
            g.call
        )),
        (Some(e), None) => Some(format!(
            "reports no error; the input is ill-formed (the error is certain in call {})",
            e.call
        )),
        (Some(e), Some(g)) => {
            if g.call != e.call {
                return Some(format!(
                    "reports its error in call {} where it becomes certain in call {} ({})",
                    g.call,
                    e.call,
                    if g.call > e.call {
                        "late"
                    } else {
                        "early: more bytes could still complete the sequence"
                    }
                ));
            }
            let before_ok = g_calls[..g.call] == e_calls[..e.call];
            let failing_ok = g_calls[g.call].is_empty() || g_calls[g.call] == e_calls[e.call];
            if !(before_ok && failing_ok) {
                return Some(timing(e_calls, g_calls));
            }
            if g.valid_up_to.is_some_and(|at| Some(at) != e.valid_up_to) {
                return Some(format!(
                    "puts the error at byte {} of the stream, not {}",
                    g.valid_up_to.unwrap_or_default(),
                    e.valid_up_to.unwrap_or_default()
                ));
            }
            if let Some(len) = g.error_len.filter(|len| Some(*len) != e.error_len) {
                return Some(format!(
                    "gives error_len {} where the maximal subpart is {}",
                    show_error_len(&len),
                    e.error_len.as_ref().map_or("?".into(), show_error_len)
                ));
            }
            None
        }
        (None, None) => (g_calls != e_calls).then(|| timing(e_calls, g_calls)),
    }
}

/// How two lists of calls differ: in what they return in all, or in when.
fn timing(expected: &[Vec<u32>], got: &[Vec<u32>]) -> String {
    let (e_all, g_all): (Vec<u32>, Vec<u32>) = (expected.concat(), got.concat());
    if expected.len() != got.len() {
        return format!(
            "{} calls answered where {} were made",
            got.len(),
            expected.len()
        );
    }
    if e_all != g_all {
        return format!(
            "returns {} in all, not {}",
            show_scalars(&g_all),
            show_scalars(&e_all)
        );
    }
    let (mut e_sum, mut g_sum) = (0, 0);
    for (call, (e, g)) in expected.iter().zip(got).enumerate() {
        e_sum += e.len();
        g_sum += g.len();
        if g_sum < e_sum {
            return format!(
                "holds back in call {call} what is decided by then ({} of {} code points returned)",
                g_sum, e_sum
            );
        }
        if g_sum > e_sum {
            return format!(
                "returns in call {call} a U+FFFD for a sequence the next chunk could still complete"
            );
        }
    }
    "differs call by call".into()
}

/// [`stream_difference`] as a [`Mismatch`] (level C), showing the chunks.
pub fn compare_stream(
    mode: StreamMode,
    run: &StreamRun,
    expected: &StreamAnswer,
    got: &StreamAnswer,
) -> Option<Mismatch> {
    stream_difference(expected, got).map(|why| Mismatch {
        field: Field::Chunking,
        expected: format!(
            "{} stream {}: {}",
            mode.as_str(),
            run.show(),
            show_stream(expected)
        ),
        got: format!("{}: {why}", show_stream(got)),
    })
}

/// Checks an encoder on one value against the reference (level E): the same
/// bytes for a scalar value; a refusal for a surrogate or a value above
/// U+10FFFF, with the same reason if the encoder gives one.
pub fn check_encode(decoder: &dyn Decoder, scalar: u32) -> Option<Mismatch> {
    if !decoder.capabilities().has(Capability::Encode) {
        return None;
    }
    match decoder.encode(scalar) {
        Ok(got) => compare_encode(scalar, &reference::encode(scalar), &got),
        Err(failure) => Some(failure_mismatch(Asked::Encode, &failure)),
    }
}

/// Compares an encoder's answer for `scalar` with the expected one. A
/// refusal without a reason agrees with any expected refusal.
pub fn compare_encode(
    scalar: u32,
    expected: &Result<Vec<u8>, EncodeError>,
    got: &EncodeAnswer,
) -> Option<Mismatch> {
    let agrees = match (expected, got) {
        (Ok(e), EncodeAnswer::Bytes(g)) => e == g,
        (Err(_), EncodeAnswer::Refused(None)) => true,
        (Err(e), EncodeAnswer::Refused(Some(g))) => e == g,
        _ => false,
    };
    (!agrees).then(|| Mismatch {
        field: Field::Encode,
        expected: format!(
            "U+{scalar:04X} → {}",
            match expected {
                Ok(b) => hex::encode(b),
                Err(e) => format!("refused ({})", e.as_str()),
            }
        ),
        got: match got {
            EncodeAnswer::Bytes(b) => hex::encode(b),
            EncodeAnswer::Refused(None) => "refused (no reason given)".into(),
            EncodeAnswer::Refused(Some(e)) => format!("refused ({})", e.as_str()),
        },
    })
}

/// Shrinks `input` while `still_fails` holds: removes ever smaller runs of
/// bytes (halves, quarters, … single bytes), then tries to replace each
/// remaining byte by `a` (0x61) so the bytes left are the ones that matter.
pub fn minimize(input: &[u8], mut still_fails: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut current = input.to_vec();
    let mut chunk = current.len().div_ceil(2).max(1);
    loop {
        let mut at = 0;
        while at < current.len() {
            let end = (at + chunk).min(current.len());
            let mut candidate = current[..at].to_vec();
            candidate.extend_from_slice(&current[end..]);
            if still_fails(&candidate) {
                current = candidate;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    for i in 0..current.len() {
        if current[i] != b'a' {
            let mut candidate = current.clone();
            candidate[i] = b'a';
            if still_fails(&candidate) {
                current = candidate;
            }
        }
    }
    current
}

/// Minimises a divergence: the shortest input on which the same decoder
/// still diverges on the same field.
pub fn minimize_divergence(decoder: &dyn Decoder, divergence: &mut Divergence) {
    let field = divergence.mismatch.field;
    let min = minimize(&divergence.input, |candidate| {
        answer_mismatches(decoder, &expected(candidate), candidate)
            .iter()
            .any(|m| m.field == field)
    });
    divergence.minimized = Some(min);
}

/// The property behind the `differential` fuzz target, the proptests and
/// `utf8conform diff`: every decoder agrees with the reference on every
/// field it claims, and `stream`-capable ones also over `splits`.
///
/// # Panics
/// On a divergence, with a message naming the decoder, the field and the
/// input in hex (a fuzzer records the input as a crash).
pub fn assert_agree(decoders: &[Box<dyn Decoder>], bytes: &[u8], splits: &[usize]) {
    let mut found = check(decoders, bytes);
    for decoder in decoders {
        for mismatch in check_chunked(decoder.as_ref(), bytes, splits) {
            found.push(Divergence {
                decoder: decoder.name().to_string(),
                input: bytes.to_vec(),
                mismatch,
                minimized: None,
            });
        }
    }
    if let Some(first) = found.first() {
        let all: Vec<String> = found.iter().map(ToString::to_string).collect();
        panic!(
            "{} divergence(s); first: {} on {}\n{}",
            found.len(),
            first.decoder,
            first.mismatch.field.as_str(),
            all.join("\n")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Capabilities, StreamError};

    #[test]
    fn compare_ignores_fields_outside_the_claim() {
        let expected = expected(b"\xC0\xAF");
        // A validity-only decoder that says "invalid" and nothing else agrees.
        let got = Answer {
            valid: Some(false),
            ..Answer::default()
        };
        let caps = Capabilities::NONE.with(Capability::Validate);
        assert!(compare(&expected, &got, caps).is_empty());
        // Claiming `position` without answering it is a mismatch.
        let caps = caps.with(Capability::Position);
        let m = compare(&expected, &got, caps);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].field, Field::ValidUpTo);
        assert_eq!(m[0].got, "(not answered)");
    }

    #[test]
    fn a_decoder_that_accepts_an_overlong_diverges_on_validity() {
        let expected = expected(b"\xC0\x80");
        let lax = Answer {
            valid: Some(true),
            scalars: Some(vec![0]),
            ..Answer::default()
        };
        let m = compare(&expected, &lax, Capabilities::STRICT);
        assert_eq!(
            m.iter().map(|m| m.field).collect::<Vec<_>>(),
            [Field::Valid]
        );
    }

    #[test]
    fn marked_hex_brackets_the_maximal_subpart() {
        assert_eq!(marked_hex(b"\x2F\xC0\xAE\x2E\x2F"), "2f [c0] ae 2e 2f");
        assert_eq!(marked_hex(b"a\xE1\x80b"), "61 [e1 80] 62");
        assert_eq!(marked_hex(b"a\xF0\x90"), "61 [f0 90]");
        assert_eq!(marked_hex(b"ok"), "6f 6b");
    }

    #[test]
    fn minimize_keeps_only_what_the_predicate_needs() {
        let input = b"hello \xED\xA0\x80 world";
        // "contains ED A0" is the failure.
        let min = minimize(input, |c| c.windows(2).any(|w| w == [0xED, 0xA0]));
        assert_eq!(min, [0xED, 0xA0]);
    }

    #[test]
    fn split_at_covers_the_input_exactly() {
        let chunks = split_at(b"abcdef", &[4, 1, 1, 99]);
        assert_eq!(chunks, [&b"a"[..], b"bcd", b"ef"]);
    }

    #[test]
    fn stream_differences_name_early_late_and_wrong_output() {
        let run = StreamRun::new(vec![vec![0xE0, 0x80], vec![0x80]]);
        let expected = reference::stream::expect(StreamMode::Lossy, &run);
        let answer = |calls: Vec<Vec<u32>>| StreamAnswer {
            calls: Some(calls),
            ..StreamAnswer::default()
        };
        const F: u32 = 0xFFFD;
        assert_eq!(
            stream_difference(&expected, &answer(vec![vec![F, F], vec![F], vec![]])),
            None
        );
        // Node's StringDecoder: all three one call late.
        let late =
            stream_difference(&expected, &answer(vec![vec![], vec![F, F, F], vec![]])).unwrap();
        assert!(late.contains("holds back in call 0"), "{late}");
        let wrong = stream_difference(&expected, &answer(vec![vec![F], vec![F], vec![]])).unwrap();
        assert!(wrong.contains("in all"), "{wrong}");
        // F0 9F | 98 80: a U+FFFD in the first call is early.
        let run = StreamRun::new(vec![vec![0xF0, 0x9F], vec![0x98, 0x80]]);
        let expected = reference::stream::expect(StreamMode::Lossy, &run);
        let early = stream_difference(&expected, &answer(vec![vec![F], vec![F], vec![]])).unwrap();
        assert!(early.contains("in all"), "{early}");
        let early = stream_difference(&expected, &answer(vec![vec![0x1F600], vec![], vec![]]));
        assert!(early.unwrap().contains("could still complete"));
    }

    #[test]
    fn a_strict_stream_may_raise_with_nothing_returned() {
        let run = StreamRun::new(vec![b"ab\xFFc".to_vec()]);
        let expected = reference::stream::expect(StreamMode::Strict, &run);
        let mut got = expected.clone();
        got.calls = Some(vec![vec![]]);
        assert_eq!(stream_difference(&expected, &got), None);
        got.error = got.error.map(|e| StreamError {
            valid_up_to: Some(3),
            ..e
        });
        assert!(stream_difference(&expected, &got)
            .unwrap()
            .contains("byte 3"));
    }
}

/// Each field's level and name, and what `compare` holds a decoder to, as
/// the docs state them (docs/protocol.md's fields, `Level`'s questions).
#[cfg(test)]
mod rule_tests {
    use super::*;
    use crate::outcome::{Capabilities, StreamError};

    #[test]
    fn each_field_belongs_to_its_level_and_has_its_protocol_name() {
        let fields = [
            (Field::Valid, Some(Level::Validity), 'V', "valid"),
            (Field::Scalars, Some(Level::Validity), 'V', "scalars"),
            (Field::ValidUpTo, Some(Level::Position), 'P', "valid_up_to"),
            (Field::ErrorLen, Some(Level::Subpart), 'S', "error_len"),
            (Field::Lossy, Some(Level::Replacement), 'R', "lossy"),
            (Field::Chunking, Some(Level::Chunking), 'C', "chunking"),
            (Field::Reuse, Some(Level::Reuse), 'U', "reuse"),
            (Field::Encode, Some(Level::Encoding), 'E', "encode"),
            (Field::NoAnswer(Asked::Decode), None, '!', "no answer"),
        ];
        for (field, level, letter, name) in fields {
            assert_eq!(field.level(), level, "{field:?}");
            assert_eq!(field.letter(), letter, "{field:?}");
            assert_eq!(field.as_str(), name, "{field:?}");
        }
    }

    #[test]
    fn a_request_informs_only_the_claimed_levels_of_its_kind() {
        use Level::*;
        assert_eq!(
            Asked::Decode.levels(Capabilities::ALL),
            [Validity, Position, Subpart, Replacement]
        );
        assert_eq!(
            Asked::Decode.levels(Capabilities::STRICT),
            [Validity, Position, Subpart]
        );
        assert_eq!(Asked::Encode.levels(Capabilities::ALL), [Encoding]);
        assert_eq!(Asked::Stream.levels(Capabilities::ALL), [Chunking]);
        assert_eq!(Asked::Reuse.levels(Capabilities::ALL), [Reuse]);
        assert!(Asked::Stream.levels(Capabilities::STRICT).is_empty());
    }

    fn fields(m: &[Mismatch]) -> Vec<Field> {
        m.iter().map(|m| m.field).collect()
    }

    #[test]
    fn scalars_are_held_to_the_reference_where_both_say_valid() {
        let expected = expected(b"A\xE2\x82\xAC");
        let wrong = Answer {
            valid: Some(true),
            scalars: Some(vec![0x41, 0x20AD]),
            ..Answer::default()
        };
        let m = compare(&expected, &wrong, Capabilities::STRICT);
        assert_eq!(fields(&m), [Field::Scalars]);
        assert_eq!(m[0].expected, "[U+0041 U+20AC]");
        assert_eq!(m[0].got, "[U+0041 U+20AD]");
        // A decoder that decodes without saying valid is held to it too.
        let decode = Capabilities::NONE.with(Capability::Decode);
        let unsaid = Answer {
            valid: None,
            ..wrong.clone()
        };
        assert_eq!(
            fields(&compare(&expected, &unsaid, decode)),
            [Field::Scalars]
        );
        // Rejecting valid input is a V failure once, and only a V failure:
        // P and S ask about invalid input.
        let rejects = Answer {
            valid: Some(false),
            valid_up_to: Some(1),
            error_len: Some(Some(1)),
            ..Answer::default()
        };
        assert_eq!(
            fields(&compare(&expected, &rejects, Capabilities::STRICT)),
            [Field::Valid]
        );
    }

    #[test]
    fn position_and_subpart_are_held_to_the_reference_on_input_said_invalid() {
        // C0 AF: invalid from byte 0, maximal subpart 1 (C0 starts nothing).
        let expected = expected(b"\xC0\xAF");
        let answer = |valid_up_to, error_len| Answer {
            valid: Some(false),
            valid_up_to: Some(valid_up_to),
            error_len: Some(error_len),
            ..Answer::default()
        };
        assert!(compare(&expected, &answer(0, Some(1)), Capabilities::STRICT).is_empty());
        let m = compare(&expected, &answer(0, Some(2)), Capabilities::STRICT);
        assert_eq!(fields(&m), [Field::ErrorLen]);
        assert_eq!((m[0].expected.as_str(), m[0].got.as_str()), ("1", "2"));
        let m = compare(&expected, &answer(1, Some(1)), Capabilities::STRICT);
        assert_eq!(fields(&m), [Field::ValidUpTo]);
        assert_eq!((m[0].expected.as_str(), m[0].got.as_str()), ("0", "1"));
        // E2 82 at the end could still be completed: error_len null.
        let m = compare(
            &super::expected(b"\xE2\x82"),
            &answer(0, Some(2)),
            Capabilities::STRICT,
        );
        assert_eq!(fields(&m), [Field::ErrorLen]);
        assert_eq!(m[0].expected, "null (incomplete)");
        // Saying valid is the V failure; no position or subpart to judge.
        let accepts = Answer {
            valid: Some(true),
            scalars: Some(vec![0x2F]),
            ..Answer::default()
        };
        assert_eq!(
            fields(&compare(&expected, &accepts, Capabilities::STRICT)),
            [Field::Valid]
        );
        // A decoder that claims subpart but not validate is still judged.
        let subpart = Capabilities::NONE.with(Capability::Subpart);
        let silent = Answer {
            error_len: Some(Some(2)),
            ..Answer::default()
        };
        assert_eq!(
            fields(&compare(&expected, &silent, subpart)),
            [Field::ErrorLen]
        );
    }

    #[test]
    fn scalars_are_shown_as_code_points_cut_after_24() {
        assert_eq!(show_scalars(&[]), "[]");
        assert_eq!(
            show_scalars(&[0x41, 0xFFFD, 0x1F600]),
            "[U+0041 U+FFFD U+1F600]"
        );
        let a24 = show_scalars(&[0x61; 24]);
        assert_eq!(a24.matches("U+0061").count(), 24);
        assert!(!a24.contains("in all"), "{a24}");
        for n in [25, 26] {
            let shown = show_scalars(&vec![0x61; n]);
            assert_eq!(shown.matches("U+0061").count(), 24, "{shown}");
            assert!(shown.ends_with(&format!(" … {n} in all]")), "{shown}");
        }
        assert_eq!(show_error_len(&Some(3)), "3");
        assert_eq!(show_error_len(&None), "null (incomplete)");
    }

    #[test]
    fn a_divergence_names_decoder_field_level_input_and_both_answers() {
        let d = Divergence {
            decoder: "lax".into(),
            input: b"/\xC0\xAF".to_vec(),
            mismatch: Mismatch {
                field: Field::Valid,
                expected: "false".into(),
                got: "true".into(),
            },
            minimized: Some(b"\xC0\xAF".to_vec()),
        };
        assert_eq!(d.level(), 'V');
        let shown = d.to_string();
        for part in [
            "lax disagrees with the reference on valid (level V)",
            "input (3 bytes): 2f [c0] af",
            "reference: false",
            "lax: true",
            "minimized (2 bytes): [c0] af",
        ] {
            assert!(shown.contains(part), "{part:?} not in {shown}");
        }
    }

    #[test]
    fn a_long_input_is_shown_16_bytes_either_side_of_its_mark() {
        let a16 = vec!["61"; 16].join(" ");
        // C0 at byte 50 of 100: 34 bytes before the window, 33 after.
        let mut input = vec![b'a'; 100];
        input[50] = 0xC0;
        assert_eq!(
            marked_hex(&input),
            format!("…(34 bytes) {a16} [c0] {a16} …(33 bytes)")
        );
        // Near the start, the window starts at the input's.
        let mut input = vec![b'a'; 100];
        input[3] = 0xC0;
        assert_eq!(
            marked_hex(&input),
            format!("61 61 61 [c0] {a16} …(80 bytes)")
        );
        // A sequence cut short by the end is marked to the end.
        let mut input = vec![b'a'; 98];
        input.extend([0xE2, 0x82]);
        assert_eq!(marked_hex(&input), format!("…(82 bytes) {a16} [e2 82]"));
    }

    #[test]
    fn calls_are_shown_call_by_call() {
        assert_eq!(
            show_calls(&[vec![0x41], vec![], vec![0xFFFD]]),
            "[U+0041] [] [U+FFFD]"
        );
        // A chunked mismatch shows the chunks and both answers.
        let run = StreamRun::new(vec![vec![0x41, 0xE2], vec![0x82, 0xAC]]);
        let expected = reference::stream::expect(StreamMode::Lossy, &run);
        let got = StreamAnswer {
            calls: Some(vec![vec![0x41, 0xFFFD], vec![0xFFFD, 0xFFFD], vec![]]),
            ..StreamAnswer::default()
        };
        let m = compare_stream(StreamMode::Lossy, &run, &expected, &got).unwrap();
        assert_eq!(m.field, Field::Chunking);
        assert!(m.expected.contains(&run.show()), "{}", m.expected);
        assert!(
            m.expected.contains("[U+0041] [U+20AC] []"),
            "{}",
            m.expected
        );
        assert!(
            m.got.starts_with("[U+0041 U+FFFD] [U+FFFD U+FFFD] []: "),
            "{}",
            m.got
        );
    }

    #[test]
    fn a_stream_holding_back_after_a_call_in_step_is_named_at_that_call() {
        const F: u32 = 0xFFFD;
        let answer = |calls: Vec<Vec<u32>>| StreamAnswer {
            calls: Some(calls),
            ..StreamAnswer::default()
        };
        let expected = answer(vec![vec![F], vec![F, F], vec![]]);
        let late = stream_difference(&expected, &answer(vec![vec![F], vec![], vec![F, F]]));
        assert_eq!(
            late.as_deref(),
            Some("holds back in call 1 what is decided by then (1 of 3 code points returned)")
        );
        let early = stream_difference(&expected, &answer(vec![vec![F], vec![F, F, F], vec![]]));
        assert!(early.unwrap().contains("in all"));
        let early = stream_difference(&expected, &answer(vec![vec![F, F], vec![F], vec![]]));
        assert!(early.unwrap().starts_with("returns in call 0 a U+FFFD"));
        let fewer = stream_difference(&expected, &answer(vec![vec![F], vec![F, F]]));
        assert!(fewer
            .unwrap()
            .starts_with("2 calls answered where 3 were made"));
    }

    #[test]
    fn a_strict_stream_is_held_to_what_it_returns_before_and_at_its_error() {
        // 41 | 42 FF 43: the error is certain in call 1, after A was returned.
        let run = StreamRun::new(vec![vec![0x41], vec![0x42, 0xFF, 0x43]]);
        let expected = reference::stream::expect(StreamMode::Strict, &run);
        let e = expected.error.expect("FF is an error");
        assert_eq!(e.call, 1);
        let with = |calls: Vec<Vec<u32>>, error_len| StreamAnswer {
            calls: Some(calls),
            error: Some(StreamError { error_len, ..e }),
            valid: None,
        };
        // Raising with nothing, or with what was complete, is right; with
        // anything else, wrong.
        assert_eq!(
            stream_difference(&expected, &with(vec![vec![0x41], vec![0x42]], e.error_len)),
            None
        );
        assert!(
            stream_difference(&expected, &with(vec![vec![0x41], vec![0x43]], e.error_len))
                .is_some()
        );
        assert_eq!(
            stream_difference(&expected, &with(vec![vec![0x41], vec![]], e.error_len)),
            None
        );
        // Returning nothing before the error, though the failing call is
        // right, is wrong.
        let held = stream_difference(&expected, &with(vec![vec![], vec![]], e.error_len));
        assert!(held.is_some());
        // The maximal subpart FF is 1 byte.
        let len = stream_difference(&expected, &with(vec![vec![0x41], vec![]], Some(Some(2))));
        assert_eq!(
            len.as_deref(),
            Some("gives error_len 2 where the maximal subpart is 1")
        );
        // An error on valid input, none on invalid, or in another call.
        let valid = StreamRun::new(vec![vec![0x41]]);
        let ok = reference::stream::expect(StreamMode::Strict, &valid);
        let raised = StreamAnswer {
            error: Some(StreamError {
                call: 0,
                valid_up_to: None,
                error_len: None,
            }),
            ..ok.clone()
        };
        assert!(stream_difference(&ok, &raised)
            .unwrap()
            .contains("on valid input"));
        let silent = StreamAnswer {
            calls: Some(vec![vec![0x41], vec![0x42, 0xFFFD, 0x43]]),
            error: None,
            valid: None,
        };
        assert!(stream_difference(&expected, &silent)
            .unwrap()
            .starts_with("reports no error"));
        let late = StreamAnswer {
            error: Some(StreamError { call: 2, ..e }),
            calls: Some(vec![vec![0x41], vec![], vec![]]),
            valid: None,
        };
        assert!(stream_difference(&expected, &late)
            .unwrap()
            .contains("(late)"));
    }

    #[test]
    fn a_streaming_validator_is_judged_on_validity() {
        let run = StreamRun::new(vec![vec![0xC0], vec![0xAF]]);
        let expected = reference::stream::expect(StreamMode::Strict, &run);
        let says = |valid| StreamAnswer {
            calls: None,
            error: None,
            valid: Some(valid),
        };
        assert_eq!(stream_difference(&expected, &says(false)), None);
        assert_eq!(
            stream_difference(&expected, &says(true)).as_deref(),
            Some("says valid true where the input is invalid")
        );
    }

    #[test]
    fn a_refusal_without_a_reason_agrees_with_any_expected_refusal() {
        let surrogate = Err(EncodeError::Surrogate);
        assert_eq!(
            compare_encode(0xD800, &surrogate, &EncodeAnswer::Refused(None)),
            None
        );
        assert_eq!(
            compare_encode(
                0xD800,
                &surrogate,
                &EncodeAnswer::Refused(Some(EncodeError::Surrogate))
            ),
            None
        );
        let m = compare_encode(
            0xD800,
            &surrogate,
            &EncodeAnswer::Refused(Some(EncodeError::OutOfRange)),
        );
        assert_eq!(m.map(|m| m.field), Some(Field::Encode));
        let m = compare_encode(
            0xD800,
            &surrogate,
            &EncodeAnswer::Bytes(vec![0xED, 0xA0, 0x80]),
        )
        .unwrap();
        assert_eq!(m.expected, "U+D800 → refused (surrogate)");
        assert_eq!(m.got, "eda080");
        assert_eq!(
            compare_encode(0x41, &Ok(vec![0x41]), &EncodeAnswer::Bytes(vec![0x41])),
            None
        );
        assert!(compare_encode(0x41, &Ok(vec![0x41]), &EncodeAnswer::Refused(None)).is_some());
    }

    #[test]
    fn minimize_replaces_the_bytes_that_do_not_matter_by_a() {
        // Fails on any input of two bytes or more holding ED.
        let min = minimize(b"xyz\xED", |c| c.len() >= 2 && c.contains(&0xED));
        assert_eq!(min, b"a\xED");
    }

    #[test]
    fn up_to_48_bytes_an_input_is_shown_whole_past_them_a_window() {
        // marked_hex's doc: past 48 bytes, 16 either side of the mark, or
        // (no mark) the first 48.
        let hex =
            |bytes: &[u8]| -> Vec<String> { bytes.iter().map(|b| format!("{b:02x}")).collect() };
        let mut input = vec![b'a'; 48];
        input[24] = 0xC0;
        let mut whole = hex(&input);
        whole[24] = "[c0]".into();
        assert_eq!(marked_hex(&input), whole.join(" "));
        let mut input = vec![b'a'; 40];
        input[20] = 0xFF;
        let mut whole = hex(&input);
        whole[20] = "[ff]".into();
        assert_eq!(marked_hex(&input), whole.join(" "));
        // Valid: up to 48 whole, then the first 48.
        assert_eq!(marked_hex(&[b'a'; 48]), hex(&[b'a'; 48]).join(" "));
        assert_eq!(
            marked_hex(&[b'a'; 100]),
            format!("{} …(52 bytes)", hex(&[b'a'; 48]).join(" "))
        );
    }

    /// Says every input is valid; encodes every number as if it were a
    /// scalar value, surrogates included (CESU-8's way).
    struct Lax(Capabilities);

    impl Decoder for Lax {
        fn name(&self) -> &str {
            "lax"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            self.0
        }
        fn decode(&self, _: &[u8]) -> Result<Answer, Failure> {
            Ok(Answer {
                valid: Some(true),
                ..Answer::default()
            })
        }
        fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
            assert!(
                self.0.has(Capability::Encode),
                "encode asked without the claim"
            );
            Ok(EncodeAnswer::Bytes(vec![
                0xE0 | (scalar >> 12) as u8,
                0x80 | (scalar >> 6 & 0x3F) as u8,
                0x80 | (scalar & 0x3F) as u8,
            ]))
        }
    }

    #[test]
    fn an_encoder_is_checked_when_it_claims_encode_and_only_then() {
        let encode = Capabilities::NONE.with(Capability::Encode);
        assert_eq!(check_encode(&ReferenceDecoder, 0x20AC), None);
        assert_eq!(check_encode(&ReferenceDecoder, 0xD800), None);
        assert_eq!(check_encode(&Lax(encode), 0x20AC), None);
        let m = check_encode(&Lax(encode), 0xD800).expect("a surrogate is refused");
        assert_eq!(m.field, Field::Encode);
        assert_eq!(m.got, "eda080");
        let validate = Capabilities::NONE.with(Capability::Validate);
        assert_eq!(check_encode(&Lax(validate), 0xD800), None);
    }

    #[test]
    fn a_divergence_is_minimised_to_the_shortest_input_that_shows_it() {
        let lax = Lax(Capabilities::NONE.with(Capability::Validate));
        let input = b"abc\xC0\xAFdef".to_vec();
        let mut found = check(&[Box::new(Lax(lax.0))], &input);
        assert_eq!(found.len(), 1);
        minimize_divergence(&lax, &mut found[0]);
        let min = found[0].minimized.clone().expect("minimised");
        // One byte that is not UTF-8 alone: the empty input is valid.
        assert_eq!(min.len(), 1, "{min:02x?}");
        assert_eq!(expected(&min).valid, Some(false));
    }

    #[test]
    fn assert_agree_panics_naming_the_decoder_and_field() {
        let validate = Capabilities::NONE.with(Capability::Validate);
        let caught = std::panic::catch_unwind(|| {
            assert_agree(&[Box::new(Lax(validate))], b"\xC0\xAF", &[1]);
        });
        let payload = caught.expect_err("lax accepts C0 AF");
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains("first: lax on valid"), "{message}");
        assert!(message.contains("[c0] af"), "{message}");
        assert_agree(&[Box::new(ReferenceDecoder)], b"\xC0\xAF", &[1]);
    }

    /// Says every input is valid, and streams each chunk's bytes back as
    /// code points (no decoding at all).
    struct Raw;

    impl Decoder for Raw {
        fn name(&self) -> &str {
            "raw"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::NONE
                .with(Capability::Validate)
                .with(Capability::StreamLossy)
        }
        fn decode(&self, _: &[u8]) -> Result<Answer, Failure> {
            Ok(Answer {
                valid: Some(true),
                ..Answer::default()
            })
        }
        fn stream(&self, _: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
            let mut calls: Vec<Vec<u32>> = run
                .chunks
                .iter()
                .map(|c| c.iter().map(|&b| u32::from(b)).collect())
                .collect();
            if run.flush {
                calls.push(Vec::new());
            }
            Ok(StreamAnswer {
                calls: Some(calls),
                ..StreamAnswer::default()
            })
        }
    }

    #[test]
    fn a_batch_finds_each_divergence_one_shot_and_in_chunks() {
        let inputs = [b"AB".to_vec(), b"\xC0\xAF".to_vec()];
        let splits = [vec![1], vec![1]];
        let found = check_batch(&Raw, &inputs, &splits);
        let what: Vec<(Field, &[u8])> = found
            .iter()
            .map(|d| (d.mismatch.field, d.input.as_slice()))
            .collect();
        assert_eq!(
            what,
            [
                (Field::Valid, &b"\xC0\xAF"[..]),
                (Field::Chunking, &b"\xC0\xAF"[..])
            ]
        );
        assert!(found.iter().all(|d| d.decoder == "raw"));
        assert!(check_batch(&ReferenceDecoder, &inputs, &splits).is_empty());
    }

    #[test]
    fn a_chunked_input_is_held_to_the_reference_call_by_call() {
        assert!(check_chunked(&Raw, b"AB", &[1]).is_empty());
        let m = check_chunked(&Raw, b"\xC0\xAF", &[1]);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].field, Field::Chunking);
        assert!(check_chunked(&ReferenceDecoder, b"\xC0\xAF", &[1]).is_empty());
    }
}
