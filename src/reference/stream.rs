//! What a streaming decoder's calls must return: the reference's answer to
//! a `stream` or `reuse` request, call by call.
//!
//! It is [`first_sequence`] run over what a decoder object holds plus the
//! new chunk, with one rule for *when* (the WHATWG Encoding Standard's
//! streaming decode, which Unicode §3.9's maximal subparts imply): a call
//! returns every character its bytes complete and a U+FFFD for every
//! maximal subpart that can no longer be completed, and keeps back only a
//! sequence that more bytes could still complete (an `Incomplete` at the
//! end of what it holds). The flush call turns what is kept back into one
//! U+FFFD, or a strict error with `error_len` null. So `E0 80 | 80` gives
//! both U+FFFDs of `E0 80` in the first call (80 cannot follow E0), and
//! `F0 9F 92 | A9` gives nothing, then U+1F4A9.
//!
//! A strict run stops at its first error, reported by the call whose bytes
//! made it certain, at its whole-stream offset; the failing call's list
//! holds the characters that call completed before the error.
//!
//! For `reuse`, each run starts afresh (offsets from its own start), except
//! a run after one left unflushed with no error, which continues that
//! stream: its held bytes and its offsets.

use super::{first_sequence, Sequence};
use crate::outcome::{StreamAnswer, StreamError, StreamMode, StreamRun, REPLACEMENT};

/// A decoder object's state between calls.
#[derive(Clone, Debug, Default)]
struct State {
    /// Bytes of a sequence more input could complete.
    held: Vec<u8>,
    /// Whole-stream offset of `held[0]` (or of the next byte).
    offset: usize,
}

/// The reference's answer to one `stream` request.
///
/// ```
/// use utf8conform::outcome::{StreamMode, StreamRun};
/// use utf8conform::reference::stream;
/// let run = StreamRun::new(vec![vec![0xF0, 0x9F, 0x92], vec![0xA9]]);
/// let answer = stream::expect(StreamMode::Lossy, &run);
/// assert_eq!(answer.calls, Some(vec![vec![], vec![0x1F4A9], vec![]]));
/// ```
pub fn expect(mode: StreamMode, run: &StreamRun) -> StreamAnswer {
    expect_run(mode, run, &mut State::default())
}

/// The reference's answer to one `reuse` request: one answer per run.
pub fn expect_reuse(mode: StreamMode, runs: &[StreamRun]) -> Vec<StreamAnswer> {
    let mut state = State::default();
    let mut open = false;
    runs.iter()
        .map(|run| {
            if !open {
                state = State::default();
            }
            let answer = expect_run(mode, run, &mut state);
            open = !run.flush && answer.error.is_none();
            answer
        })
        .collect()
}

fn expect_run(mode: StreamMode, run: &StreamRun, state: &mut State) -> StreamAnswer {
    let mut calls = Vec::with_capacity(run.calls());
    for (call, chunk) in run.chunks.iter().enumerate() {
        let mut out = Vec::new();
        let mut buf = std::mem::take(&mut state.held);
        buf.extend_from_slice(chunk);
        let mut at = 0;
        while at < buf.len() {
            match first_sequence(&buf[at..]) {
                Sequence::Char { scalar, len } => {
                    out.push(u32::from(scalar));
                    at += len;
                }
                Sequence::IllFormed { subpart } => {
                    if mode == StreamMode::Strict {
                        calls.push(out);
                        let error = StreamError {
                            call,
                            valid_up_to: Some(state.offset + at),
                            error_len: Some(Some(subpart as u8)),
                        };
                        return stopped(calls, error);
                    }
                    out.push(u32::from(REPLACEMENT));
                    at += subpart;
                }
                Sequence::Incomplete { .. } => break,
            }
        }
        state.offset += at;
        state.held = buf.split_off(at);
        calls.push(out);
    }
    if run.flush {
        let mut out = Vec::new();
        if !state.held.is_empty() {
            if mode == StreamMode::Strict {
                calls.push(out);
                let error = StreamError {
                    call: run.chunks.len(),
                    valid_up_to: Some(state.offset),
                    error_len: Some(None),
                };
                return stopped(calls, error);
            }
            out.push(u32::from(REPLACEMENT));
            state.offset += state.held.len();
            state.held.clear();
        }
        calls.push(out);
    }
    StreamAnswer {
        calls: Some(calls),
        error: None,
        valid: None,
    }
}

fn stopped(calls: Vec<Vec<u32>>, error: StreamError) -> StreamAnswer {
    StreamAnswer {
        calls: Some(calls),
        error: Some(error),
        valid: None,
    }
}

#[cfg(test)]
mod tests {
    //! Expectations written by hand from the WHATWG streaming rule and
    //! Unicode's maximal subparts (docs/protocol.md's examples among them).
    use super::*;

    const F: u32 = 0xFFFD;

    fn run(chunks: &[&[u8]]) -> StreamRun {
        StreamRun::new(chunks.iter().map(|c| c.to_vec()).collect())
    }

    fn calls(mode: StreamMode, chunks: &[&[u8]]) -> (Vec<Vec<u32>>, Option<StreamError>) {
        let a = expect(mode, &run(chunks));
        (a.calls.unwrap(), a.error)
    }

    #[test]
    fn u_fffd_neither_early_nor_late() {
        use StreamMode::Lossy;
        // WPT: E0 80 | 80 gives both U+FFFDs of E0 80 at once.
        assert_eq!(
            calls(Lossy, &[b"\xE0\x80", b"\x80"]).0,
            [vec![F, F], vec![F], vec![]]
        );
        // F0 9F 92 | A9: nothing until A9.
        assert_eq!(
            calls(Lossy, &[b"\xF0\x9F\x92", b"\xA9"]).0,
            [vec![], vec![0x1F4A9], vec![]]
        );
        // A tail cut at the end: one U+FFFD from the flush.
        assert_eq!(calls(Lossy, &[b"A\xE2\x82"]).0, [vec![0x41], vec![F]]);
        // ED A0 cannot be completed (a surrogate): decided at once.
        assert_eq!(
            calls(Lossy, &[b"\xED\xA0", b"\x80"]).0,
            [vec![F, F], vec![F], vec![]]
        );
        // Empty chunks are calls that return nothing.
        assert_eq!(
            calls(Lossy, &[b"", b"\xC3", b"", b"\xA9"]).0,
            [vec![], vec![], vec![], vec![0xE9], vec![]]
        );
    }

    #[test]
    fn a_strict_stream_stops_where_the_error_became_certain() {
        use StreamMode::Strict;
        let (c, e) = calls(Strict, &[b"A\xF0", b"\x9F", b"A"]);
        assert_eq!(c, [vec![0x41], vec![], vec![]]);
        assert_eq!(
            e,
            Some(StreamError {
                call: 2,
                valid_up_to: Some(1),
                error_len: Some(Some(2))
            })
        );
        let (c, e) = calls(Strict, &[b"A\xE2\x82"]);
        assert_eq!(c, [vec![0x41], vec![]]);
        assert_eq!(
            e,
            Some(StreamError {
                call: 1,
                valid_up_to: Some(1),
                error_len: Some(None)
            })
        );
        // The failing call lists what it completed before the error.
        let (c, e) = calls(Strict, &[b"ab\xFFc"]);
        assert_eq!(c, [vec![0x61, 0x62]]);
        assert_eq!(e.map(|e| (e.call, e.valid_up_to)), Some((0, Some(2))));
    }

    #[test]
    fn reuse_starts_afresh_unless_the_last_run_was_left_open() {
        let mut open = run(&[b"\xF0\x9F"]);
        open.flush = false;
        let runs = [open, run(&[b"\x98", b"\x80"])];
        let answers = expect_reuse(StreamMode::Lossy, &runs);
        assert_eq!(answers[0].calls, Some(vec![vec![]]));
        assert_eq!(answers[1].calls, Some(vec![vec![], vec![0x1F600], vec![]]));
        // After an error, a new stream: offsets from its own start.
        let answers = expect_reuse(StreamMode::Strict, &[run(&[b"\xFF"]), run(&[b"A\xFF"])]);
        assert_eq!(answers[1].error.and_then(|e| e.valid_up_to), Some(1));
    }

    #[test]
    fn reuse_after_a_flushed_run_without_error_starts_afresh() {
        // docs/protocol.md, reuse: "each run answers as the same input does
        // on a fresh decoder", unless the run before was left unflushed.
        // "AB" is flushed with no error, so FF in the next run is at offset
        // 0 of a new stream, not at 2 of the old one.
        let runs = [run(&[b"AB"]), run(&[b"\xFF"])];
        let answers = expect_reuse(StreamMode::Strict, &runs);
        assert_eq!(answers[0].error, None);
        assert_eq!(
            answers[1].error,
            Some(StreamError {
                call: 0,
                valid_up_to: Some(0),
                error_len: Some(Some(1))
            })
        );
    }
}
