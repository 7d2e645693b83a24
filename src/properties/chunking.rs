//! The chunking property (level C): every streaming decoder, fed an input
//! in chunks, returns call by call what the reference's streaming model
//! says ([`crate::reference::stream`]); and the codec's `StreamDecoder`
//! keeps the rest of its API's promises.

use super::expected::{strict_of, walk_reference, Walk};
use super::fast::builtins;
use super::finding::{chars_u32, fail_plain, show_strict};
use crate::decoder::{Decoder, Path};
use crate::decoders::{drive, drive_reuse};
use crate::differential::{self, show_scalars, Field};
use crate::outcome::{StreamMode, StreamRun};
use crate::reference::{self, Sequence};
use utf8conform_codec as codec;

/// Property (level C): every built-in streaming decoder, fed `bytes` cut
/// at `splits` (offsets in any order; those past the end are ignored),
/// returns call by call what the reference's streaming model says, in
/// every mode it claims; and the codec's [`codec::StreamDecoder`] gives
/// what one-shot decoding gives, emits exactly the scalars before its
/// error, keeps returning the same error once failed, and says it is
/// mid-sequence exactly when the input ends inside one. And, used for
/// several streams in a row (level U: one run per piece, flushed when the
/// piece's length is odd), the codec answers each run as
/// [`reference::stream::expect_reuse`] says.
///
/// ```
/// utf8conform::properties::chunking(b"caf\xC3\xA9 \xE2\x82", &[4, 6]);
/// ```
///
/// # Panics
/// When a chunked decode differs.
pub fn chunking(bytes: &[u8], splits: &[usize]) {
    chunking_with(&builtins(), bytes, splits);
    codec_stream_contract(bytes, splits);
    codec_reuse(bytes, splits);
}

/// Property [`chunking`] for any streaming decoders: each, in each mode it
/// claims, against [`reference::stream`] call by call.
///
/// ```
/// use utf8conform::decoders::EncodingRsDecoder;
/// utf8conform::properties::chunking_with(&[&EncodingRsDecoder], b"\xF0\x9F\x92\xA9", &[3]);
/// ```
///
/// # Panics
/// On the first call that returns otherwise than the reference's.
pub fn chunking_with(decoders: &[&dyn Decoder], bytes: &[u8], splits: &[usize]) {
    let run = StreamRun::new(
        differential::split_at(bytes, splits)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect(),
    );
    for decoder in decoders {
        for mode in decoder.capabilities().stream_modes() {
            let expected = reference::stream::expect(mode, &run);
            let detail = match decoder.stream(mode, &run) {
                Ok(got) => differential::compare_stream(mode, &run, &expected, &got),
                Err(f) => Some(differential::failure_mismatch(
                    differential::Asked::Stream,
                    &f,
                )),
            };
            if let Some(m) = detail {
                let who = format!("{} ({})", decoder.name(), decoder.api(Path::Stream));
                fail_plain(
                    "chunking",
                    &who,
                    m.field,
                    bytes,
                    &format!("reference: {}\n  {}: {}", m.expected, decoder.name(), m.got),
                );
            }
        }
    }
}

/// The rest of the codec's `StreamDecoder` contract, beyond what every
/// streaming decoder is held to.
fn codec_stream_contract(bytes: &[u8], splits: &[usize]) {
    const P: &str = "chunking";
    let chunks = differential::split_at(bytes, splits);
    let offsets = || {
        chunks
            .iter()
            .scan(0, |at, c| {
                *at += c.len();
                Some(*at)
            })
            .take(chunks.len().saturating_sub(1))
            .collect::<Vec<_>>()
    };
    let mut lossy_expected = Vec::new();
    let strict_expected = walk_reference(bytes, Walk::Lossy, &mut lossy_expected, &mut Vec::new());
    let ends_mid_sequence = !bytes.is_empty()
        && matches!(
            reference::decode(&bytes[last_boundary(bytes)..]),
            Err(e) if e.error_len().is_none()
        );

    // Strict.
    let mut strict = codec::StreamDecoder::strict();
    let mut out = Vec::new();
    let mut result = Ok(());
    for chunk in &chunks {
        result = strict.feed_utf32(chunk, &mut out);
        if result.is_err() {
            // Once failed, it keeps failing the same way.
            let again = strict.feed_utf32(b"a", &mut Vec::new());
            if again != result {
                fail_plain(
                    P,
                    "StreamDecoder::feed (strict)",
                    Field::Chunking,
                    bytes,
                    &format!(
                        "failed with {result:?}, then fed more said {again:?}; split at {:?}",
                        offsets()
                    ),
                );
            }
            break;
        }
    }
    // Checked once the outcome is known to be right: a wrong outcome is the
    // finding to report, not its symptom.
    let mid = result.is_ok().then(|| strict.is_mid_sequence());
    if result.is_ok() {
        result = strict.finish_utf32(&mut out);
    } else {
        // Finished after it failed: the same error again.
        let finished = strict.finish_utf32(&mut Vec::new());
        if finished != result {
            fail_plain(
                P,
                "StreamDecoder::finish (strict)",
                Field::Chunking,
                bytes,
                &format!(
                    "a feed failed with {result:?}, then finish said {finished:?}; split at {:?}",
                    offsets()
                ),
            );
        }
    }
    let got = strict_of(result);
    let prefix_len = strict_expected.err().map_or(bytes.len(), |e| e.0);
    let prefix_ok = match strict_expected {
        Ok(()) => out == lossy_expected,
        // The scalars before the error: the lossy output up to the first
        // U+FFFD that replaced the error (its prefix is the same text).
        Err(_) => reference::decode(&bytes[..prefix_len])
            .is_ok_and(|c| c.iter().map(|&ch| u32::from(ch)).eq(out.iter().copied())),
    };
    if got != strict_expected || !prefix_ok {
        fail_plain(
            P,
            "StreamDecoder (strict)",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}\n  reference one-shot: {}, then {} scalars\n  stream: {}, emitted {}",
                offsets(),
                show_strict(&strict_expected),
                prefix_len,
                show_strict(&got),
                show_scalars(&out)
            ),
        );
    }
    let expect_mid = matches!(strict_expected, Err((_, None)));
    if mid.is_some_and(|mid| mid != expect_mid) {
        fail_plain(
            P,
            "StreamDecoder::is_mid_sequence (strict)",
            Field::Chunking,
            bytes,
            &format!(
                "expected {expect_mid} before finish; split at {:?}",
                offsets()
            ),
        );
    }
    let one_shot = strict_of(codec::validate(bytes));
    if got != one_shot {
        fail_plain(
            P,
            "StreamDecoder (strict) vs codec::validate",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}: stream {}, one-shot {}",
                offsets(),
                show_strict(&got),
                show_strict(&one_shot)
            ),
        );
    }

    // Lossy, through the `String` API (the strict run used UTF-32).
    let mut lossy = codec::StreamDecoder::lossy();
    let mut text = String::new();
    for chunk in &chunks {
        if let Err(e) = lossy.feed(chunk, &mut text) {
            fail_plain(
                P,
                "StreamDecoder::feed (lossy)",
                Field::Chunking,
                bytes,
                &format!("a lossy stream failed: {e}; split at {:?}", offsets()),
            );
        }
    }
    if lossy.is_mid_sequence() != ends_mid_sequence {
        fail_plain(
            P,
            "StreamDecoder::is_mid_sequence (lossy)",
            Field::Chunking,
            bytes,
            &format!(
                "expected {ends_mid_sequence}, got {}; split at {:?}",
                lossy.is_mid_sequence(),
                offsets()
            ),
        );
    }
    let finished = lossy.finish(&mut text);
    if finished.is_err() || !chars_u32(&text).eq(lossy_expected.iter().copied()) {
        fail_plain(
            P,
            "StreamDecoder (lossy)",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}\n  reference one-shot: {}\n  stream: {} ({finished:?})",
                offsets(),
                show_scalars(&lossy_expected),
                show_scalars(&chars_u32(&text).collect::<Vec<_>>())
            ),
        );
    }
}

/// Level U: the pieces of the split as runs on one decoder object (a run
/// per piece, flushed when its length is odd: a run left open goes on in
/// the next), each answering as [`reference::stream::expect_reuse`] says.
/// The codec's `StreamDecoder::finish` takes it by value, so the object is
/// a slot that [`drive_reuse`] refills with a new decoder for each new
/// stream, and a run after an open one feeds the same decoder.
fn codec_reuse(bytes: &[u8], splits: &[usize]) {
    let runs: Vec<StreamRun> = differential::split_at(bytes, splits)
        .into_iter()
        .map(|piece| StreamRun {
            chunks: vec![piece.to_vec()],
            flush: piece.len() % 2 == 1,
        })
        .collect();
    for mode in [StreamMode::Strict, StreamMode::Lossy] {
        let expected = reference::stream::expect_reuse(mode, &runs);
        let mut slot: Option<codec::StreamDecoder> = None;
        let got = drive_reuse(
            &mut slot,
            &runs,
            |slot| {
                *slot = Some(match mode {
                    StreamMode::Strict => codec::StreamDecoder::strict(),
                    StreamMode::Lossy => codec::StreamDecoder::lossy(),
                });
            },
            |slot, run| {
                drive(run, |chunk, last, out| {
                    let result = if last {
                        slot.take()
                            .expect("a decoder until the flush")
                            .finish_utf32(out)
                    } else {
                        slot.as_mut()
                            .expect("a decoder until the flush")
                            .feed_utf32(chunk, out)
                    };
                    result.map_err(|e| (Some(e.valid_up_to()), Some(e.error_len())))
                })
            },
        );
        for (i, (run, (want, got))) in runs.iter().zip(expected.iter().zip(&got)).enumerate() {
            if let Some(m) = differential::compare_stream(mode, run, want, got) {
                let flushes: Vec<bool> = runs.iter().map(|r| r.flush).collect();
                fail_plain(
                    "chunking",
                    &format!("codec::StreamDecoder reused ({mode:?})"),
                    Field::Reuse,
                    bytes,
                    &format!(
                        "run {i} of {} (flushed: {flushes:?}), {}:\n  reference: {}\n  codec: {}",
                        runs.len(),
                        m.field.as_str(),
                        m.expected,
                        m.got
                    ),
                );
            }
        }
    }
}

/// The offset of the last place the reference's lossy walk starts a new
/// sequence (a character, a maximal subpart or an incomplete tail).
pub(super) fn last_boundary(bytes: &[u8]) -> usize {
    let mut at = 0;
    let mut last = 0;
    while at < bytes.len() {
        last = at;
        at += match reference::first_sequence(&bytes[at..]) {
            Sequence::Char { len, .. } => len,
            Sequence::IllFormed { subpart } => subpart,
            Sequence::Incomplete { len } => len,
        };
    }
    last
}
