//! The `utf-8` crate (Simon Sapin's; html5ever and tendril grew from it):
//!
//! * `utf8::decode` answers strict one-shot decoding: `Ok(&str)`, or
//!   `DecodeError::Invalid { valid_prefix, invalid_sequence, .. }` (the
//!   position is `valid_prefix.len()`, the length `invalid_sequence.len()`)
//!   or `DecodeError::Incomplete { valid_prefix, .. }` (the input ended
//!   inside a sequence: `error_len` null): `strict`.
//! * `LossyDecoder` (its documented `String::from_utf8_lossy` rewrite:
//!   `feed` the input, then drop the decoder, which "signals the end of the
//!   input") answers `lossy`, and fed chunk by chunk `stream-lossy`.
//! * `decode` on each chunk, carrying the `Incomplete` it returns into
//!   `Incomplete::try_complete` with the next chunk ("Call the
//!   `incomplete_suffix.try_complete` method with more input when
//!   available. If no more input is available, this is an invalid byte
//!   sequence"), answers `stream-strict`. The whole-stream position of an
//!   error is the chunk's offset plus the bytes the library says it
//!   consumed (`valid_prefix`, `try_complete`'s `remaining_input`), or
//!   where the held `Incomplete` began.
//!
//! No `reuse`: `LossyDecoder`'s end of input is its drop, after which it is
//! gone, and the strict API keeps no object: its only state is the
//! caller's `Incomplete`, which belongs to one stream.

use crate::{drive, len_u8, scalars};
use std::cell::RefCell;
use utf8::{DecodeError, Incomplete, LossyDecoder};
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{
    Answer, Capabilities, Capability, Failure, StreamAnswer, StreamMode, StreamRun,
};

/// The `utf-8` crate.
pub struct Utf8CrateDecoder;

/// `LossyDecoder` over one input, fed once and dropped (the crate's own
/// `string_from_utf8_lossy` example).
fn lossy(bytes: &[u8]) -> Vec<u32> {
    let mut text = String::new();
    LossyDecoder::new(|s| text.push_str(s)).feed(bytes);
    scalars(&text).collect()
}

/// One non-final call of the strict stream: `decode` the chunk, after
/// completing a held `Incomplete` (with the stream offset where it began)
/// if there is one. `offset` is the chunk's whole-stream offset.
fn strict_call(
    held: &mut Option<(Incomplete, usize)>,
    chunk: &[u8],
    offset: usize,
    out: &mut Vec<u32>,
) -> Result<(), (usize, u8)> {
    let mut input = chunk;
    let mut at = offset;
    if let Some((mut incomplete, start)) = held.take() {
        match incomplete.try_complete(input) {
            None => {
                *held = Some((incomplete, start));
                return Ok(());
            }
            Some((Ok(s), rest)) => {
                out.extend(scalars(s));
                at = offset + (chunk.len() - rest.len());
                input = rest;
            }
            Some((Err(bad), _)) => return Err((start, len_u8(bad.len()))),
        }
    }
    match utf8::decode(input) {
        Ok(s) => out.extend(scalars(s)),
        Err(DecodeError::Invalid {
            valid_prefix,
            invalid_sequence,
            ..
        }) => {
            out.extend(scalars(valid_prefix));
            return Err((at + valid_prefix.len(), len_u8(invalid_sequence.len())));
        }
        Err(DecodeError::Incomplete {
            valid_prefix,
            incomplete_suffix,
        }) => {
            out.extend(scalars(valid_prefix));
            *held = Some((incomplete_suffix, at + valid_prefix.len()));
        }
    }
    Ok(())
}

impl Decoder for Utf8CrateDecoder {
    fn name(&self) -> &str {
        "utf-8"
    }
    fn version(&self) -> String {
        format!("utf-8 {}", env!("ECOSYSTEM_VERSION_UTF_8"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
            .with(Capability::Lossy)
            .union(Capabilities::STREAM)
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Stream => "utf8::decode + Incomplete::try_complete / utf8::LossyDecoder",
            _ => "utf8::decode + utf8::LossyDecoder",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut answer = Answer {
            lossy: Some(lossy(bytes)),
            ..Answer::default()
        };
        match utf8::decode(bytes) {
            Ok(s) => {
                answer.valid = Some(true);
                answer.scalars = Some(scalars(s).collect());
            }
            Err(DecodeError::Invalid {
                valid_prefix,
                invalid_sequence,
                ..
            }) => {
                answer.valid = Some(false);
                answer.valid_up_to = Some(valid_prefix.len());
                answer.error_len = Some(Some(len_u8(invalid_sequence.len())));
            }
            Err(DecodeError::Incomplete { valid_prefix, .. }) => {
                answer.valid = Some(false);
                answer.valid_up_to = Some(valid_prefix.len());
                answer.error_len = Some(None);
            }
        }
        Ok(answer)
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        Ok(match mode {
            StreamMode::Strict => {
                let mut held = None;
                let mut offset = 0;
                drive(run, |chunk, last, out| {
                    if last {
                        // No more input: a held `Incomplete` is the
                        // library's `DecodeError::Incomplete`.
                        return match held {
                            Some((_, start)) => Err((Some(start), Some(None))),
                            None => Ok(()),
                        };
                    }
                    let result = strict_call(&mut held, chunk, offset, out);
                    offset += chunk.len();
                    result.map_err(|(at, len)| (Some(at), Some(Some(len))))
                })
            }
            StreamMode::Lossy => {
                let pushed = RefCell::new(String::new());
                let mut decoder =
                    Some(LossyDecoder::new(|s: &str| pushed.borrow_mut().push_str(s)));
                let answer = drive(run, |chunk, last, out| {
                    match (last, decoder.as_mut()) {
                        (false, Some(d)) => d.feed(chunk),
                        // The end of input is the drop.
                        (true, _) => drop(decoder.take()),
                        (false, None) => unreachable!("drive makes no call after the last"),
                    }
                    out.extend(scalars(&pushed.borrow()));
                    pushed.borrow_mut().clear();
                    Ok(())
                });
                // An unflushed run must not signal the end of input: the
                // crate's documented way is `mem::forget`.
                if let Some(d) = decoder {
                    std::mem::forget(d);
                }
                answer
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{open, run, FFFD};

    // From the crate's documentation: `decode`'s `Invalid` carries the
    // valid prefix and the invalid sequence; `Incomplete` a suffix more
    // input may complete; `LossyDecoder` is `String::from_utf8_lossy`.
    #[test]
    fn decode_maps_invalid_and_incomplete() {
        let a = Utf8CrateDecoder.decode(b"a\xFFb").unwrap();
        assert_eq!(a.valid, Some(false));
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(Some(1))));
        assert_eq!(a.lossy, Some(vec![0x61, FFFD, 0x62]));
        let a = Utf8CrateDecoder.decode(b"a\xE2\x82").unwrap();
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(None)));
        assert_eq!(a.lossy, Some(vec![0x61, FFFD]));
        let a = Utf8CrateDecoder.decode("é€".as_bytes()).unwrap();
        assert_eq!(a.valid, Some(true));
        assert_eq!(a.scalars, Some(vec![0xE9, 0x20AC]));
    }

    #[test]
    fn lossy_stream_pieces_a_split_code_point_back_together() {
        let a = Utf8CrateDecoder
            .stream(StreamMode::Lossy, &run(&[b"\xE2\x82", b"\xACx"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![], vec![0x20AC, 0x78], vec![]]));
        // Dropping the decoder with an incomplete tail emits one U+FFFD.
        let a = Utf8CrateDecoder
            .stream(StreamMode::Lossy, &run(&[b"x\xF0\x9F"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![0x78], vec![FFFD]]));
        // Not flushed: forgotten, so nothing is emitted for the tail.
        let a = Utf8CrateDecoder
            .stream(StreamMode::Lossy, &open(&[b"x\xF0\x9F"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![0x78]]));
    }

    #[test]
    fn strict_stream_reports_whole_stream_positions() {
        let a = Utf8CrateDecoder
            .stream(StreamMode::Strict, &run(&[b"ab\xE2", b"\x82", b"\xAC\xFF"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![0x61, 0x62], vec![], vec![0x20AC]]));
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (2, Some(5), Some(Some(1)))
        );
        // A held sequence that the next chunk breaks: the error starts
        // where the held bytes began.
        let a = Utf8CrateDecoder
            .stream(StreamMode::Strict, &run(&[b"a\xE2", b"A"]))
            .unwrap();
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (1, Some(1), Some(Some(1)))
        );
        // Held at the end: incomplete.
        let a = Utf8CrateDecoder
            .stream(StreamMode::Strict, &run(&[b"a\xE2"]))
            .unwrap();
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (1, Some(1), Some(None))
        );
    }
}
