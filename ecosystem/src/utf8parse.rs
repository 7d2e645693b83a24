//! `utf8parse`, the table-driven parser inside alacritty's terminal parser
//! `vte`: a `Parser` advanced one byte at a time, calling its `Receiver`'s
//! `codepoint(char)` when a byte completes a character and
//! `invalid_sequence()` "when an invalid sequence is detected". That is
//! all it tells, and it has no end-of-input call.
//!
//! The mapping reads only those events, byte by byte:
//!
//! * every byte is fed to `advance`, and its event (at most one) is what the
//!   library said about that byte. The bytes from the end of the previous
//!   event through the byte that raised `invalid_sequence` are the sequence
//!   the library reported invalid, so `valid_up_to` is where they begin and
//!   `error_len` is how many they are (`position`, `subpart`): the library
//!   "reports invalid sequences its own way", and this shows that way;
//! * `valid` is no `invalid_sequence` event; `scalars` the `codepoint`s;
//!   `lossy` the `codepoint`s with one U+FFFD per `invalid_sequence`, as
//!   `vte` prints them;
//! * a sequence still open when the input ends raises no event (the parser
//!   has no end of input), so it is reported as the library left it:
//!   nothing was said about it;
//! * streams (`stream-strict`, `stream-lossy`) feed each chunk's bytes to
//!   one `Parser`; the flush makes no call, since the crate has none, and
//!   returns nothing. A strict stream stops at the first `invalid_sequence`;
//! * `reuse`: a `Parser` is a plain value that keeps being advanced, with no
//!   reset but the one it does itself after an invalid sequence; every
//!   run goes to the same parser. A run that starts while the parser still
//!   holds bytes of an earlier, flushed stream and errs in them gets no
//!   `valid_up_to` (the sequence began before the stream).

use crate::{drive, drive_reuse, len_u8};
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{
    Answer, Capabilities, Capability, Failure, StreamAnswer, StreamMode, StreamRun,
};
use utf8parse::{Parser, Receiver};

/// utf8parse.
pub struct Utf8parseDecoder;

/// What the receiver was told about one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Codepoint(char),
    InvalidSequence,
}

/// A receiver that records its calls.
#[derive(Default)]
struct Recorder(Vec<Event>);

impl Receiver for Recorder {
    fn codepoint(&mut self, c: char) {
        self.0.push(Event::Codepoint(c));
    }
    fn invalid_sequence(&mut self) {
        self.0.push(Event::InvalidSequence);
    }
}

/// A parser and the byte accounting of the stream it is in: offsets are
/// whole-stream bytes, and `since` is where the bytes not yet covered by
/// an event begin (negative: in an earlier stream).
struct Feeder {
    parser: Parser,
    recorder: Recorder,
    at: i64,
    since: i64,
}

/// An `invalid_sequence` event: where its bytes begin (if in this stream)
/// and how many they are.
type Invalid = (Option<usize>, u8);

impl Feeder {
    fn new() -> Feeder {
        Feeder {
            parser: Parser::new(),
            recorder: Recorder::default(),
            at: 0,
            since: 0,
        }
    }

    /// Starts counting a new stream at 0, keeping the parser as it is.
    fn new_stream(&mut self) {
        self.since -= self.at;
        self.at = 0;
    }

    /// Advances over one byte; the event it raised, if any.
    fn byte(&mut self, byte: u8) -> Option<Result<char, Invalid>> {
        self.parser.advance(&mut self.recorder, byte);
        self.at += 1;
        let event = self.recorder.0.pop();
        debug_assert!(self.recorder.0.is_empty(), "one event per byte at most");
        self.recorder.0.clear();
        let event = event?;
        let start = self.since;
        self.since = self.at;
        Some(match event {
            Event::Codepoint(c) => Ok(c),
            Event::InvalidSequence => Err((
                usize::try_from(start).ok(),
                len_u8(usize::try_from(self.at - start).unwrap_or(0)),
            )),
        })
    }

    /// Feeds a chunk: the code points it returned go to `out` (with a
    /// U+FFFD per invalid sequence when `lossy`); strict stops at the first
    /// invalid sequence.
    fn chunk(&mut self, chunk: &[u8], lossy: bool, out: &mut Vec<u32>) -> Result<(), Invalid> {
        for &b in chunk {
            match self.byte(b) {
                None => {}
                Some(Ok(c)) => out.push(u32::from(c)),
                Some(Err(_)) if lossy => out.push(0xFFFD),
                Some(Err(invalid)) => return Err(invalid),
            }
        }
        Ok(())
    }

    /// One run on this parser.
    fn run(&mut self, mode: StreamMode, run: &StreamRun) -> StreamAnswer {
        let lossy = mode == StreamMode::Lossy;
        drive(run, |chunk, last, out| {
            if last {
                // utf8parse has no end-of-input call.
                return Ok(());
            }
            self.chunk(chunk, lossy, out)
                .map_err(|(at, len)| (at, Some(Some(len))))
        })
    }
}

impl Decoder for Utf8parseDecoder {
    fn name(&self) -> &str {
        "utf8parse"
    }
    fn version(&self) -> String {
        format!("utf8parse {}", env!("ECOSYSTEM_VERSION_UTF8PARSE"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
            .with(Capability::Lossy)
            .union(Capabilities::STREAM)
            .with(Capability::Reuse)
    }
    fn api(&self, _: Path) -> &'static str {
        "utf8parse::Parser::advance + Receiver"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut feeder = Feeder::new();
        let mut answer = Answer::default();
        let mut lossy = Vec::new();
        let mut strict = Vec::new();
        let mut first: Option<Invalid> = None;
        for &b in bytes {
            match feeder.byte(b) {
                None => {}
                Some(Ok(c)) => {
                    lossy.push(u32::from(c));
                    if first.is_none() {
                        strict.push(u32::from(c));
                    }
                }
                Some(Err(invalid)) => {
                    lossy.push(0xFFFD);
                    first.get_or_insert(invalid);
                }
            }
        }
        answer.valid = Some(first.is_none());
        match first {
            None => answer.scalars = Some(strict),
            Some((at, len)) => {
                answer.valid_up_to = at;
                answer.error_len = Some(Some(len));
            }
        }
        answer.lossy = Some(lossy);
        Ok(answer)
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        Ok(Feeder::new().run(mode, run))
    }
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        Ok(drive_reuse(
            &mut Feeder::new(),
            runs,
            Feeder::new_stream,
            |f, run| f.run(mode, run),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{open, run, FFFD};

    // Written from the crate's state table (src/types.rs): E0 must be
    // followed by A0..BF, a byte that breaks a sequence is consumed with
    // it, and there is no end-of-input event.
    #[test]
    fn a_byte_that_breaks_a_sequence_is_part_of_it() {
        let a = Utf8parseDecoder.decode(b"a\xE2A").unwrap();
        assert_eq!(a.valid, Some(false));
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(Some(2))));
        assert_eq!(a.lossy, Some(vec![0x61, FFFD]));
        let a = Utf8parseDecoder.decode(b"\xE0\x80\x80").unwrap();
        assert_eq!((a.valid_up_to, a.error_len), (Some(0), Some(Some(2))));
        assert_eq!(a.lossy, Some(vec![FFFD, FFFD]));
    }

    #[test]
    fn an_open_sequence_at_the_end_raises_nothing() {
        let a = Utf8parseDecoder.decode(b"a\xE2\x82").unwrap();
        assert_eq!(a.valid, Some(true));
        assert_eq!(a.scalars, Some(vec![0x61]));
        assert_eq!(a.lossy, Some(vec![0x61]));
    }

    #[test]
    fn streams_are_byte_at_a_time_and_the_parser_carries_over() {
        let a = Utf8parseDecoder
            .stream(StreamMode::Lossy, &run(&[b"\xF0\x9F", b"\x98\x80"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![], vec![0x1F600], vec![]]));
        let a = Utf8parseDecoder
            .stream(StreamMode::Strict, &run(&[b"a", b"\xE2", b"b"]))
            .unwrap();
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (2, Some(1), Some(Some(2)))
        );
        // A flushed run leaves its open sequence in the parser; the next
        // run completes it, and the sequence began before that stream.
        let r = Utf8parseDecoder
            .reuse(StreamMode::Strict, &[run(&[b"\xE2"]), run(&[b"\x82\xAC"])])
            .unwrap();
        assert_eq!(r[1].calls, Some(vec![vec![0x20AC], vec![]]));
        let r = Utf8parseDecoder
            .reuse(StreamMode::Strict, &[run(&[b"\xE2"]), run(&[b"A"])])
            .unwrap();
        let e = r[1].error.unwrap();
        assert_eq!((e.valid_up_to, e.error_len), (None, Some(Some(2))));
        // An open run continues in whole-stream offsets.
        let r = Utf8parseDecoder
            .reuse(StreamMode::Strict, &[open(&[b"ab"]), run(&[b"\xFF"])])
            .unwrap();
        assert_eq!(r[1].error.unwrap().valid_up_to, Some(2));
    }
}
