//! `encoding` (rust-encoding, Kang Seonghoon's), UTF-8: its "raw
//! incremental interface", `UTF_8.raw_decoder()`, whose `raw_feed` returns
//! "an offset to the first unprocessed byte (that can be zero when the
//! first such byte appeared in the prior calls to `raw_feed`)" and, on an
//! error, a `CodecError` whose `upto` "points to the first remaining
//! bytes"; the problematic sequence is what lies between. `raw_finish`
//! reports "incomplete sequence" for held bytes at the end.
//!
//! * `strict` and `stream-strict`: the raw decoder, the input as one
//!   `raw_feed` (one per chunk when streaming) then `raw_finish`. The
//!   problem's whole-stream start is tracked as the module documentation
//!   tells callers to ("starts to save the unprocessed bytes when the first
//!   offset < the input length, appends any new unprocessed bytes while the
//!   first offset is zero"): `valid_up_to` is that start, `error_len` runs
//!   from it to `upto`; an error from `raw_finish` is an input that ended
//!   inside a sequence (`error_len` null), as the library's cause says.
//! * `lossy`: `UTF_8.decode(bytes, DecoderTrap::Replace)`.
//! * `reuse`: `raw_finish` takes `&mut self` and leaves the decoder ready
//!   for more input, so every run goes to one decoder; a run that starts
//!   while it still holds bytes of an earlier stream (one that stopped at
//!   an error, whose rest a strict caller never feeds) and errs in them
//!   gets no `valid_up_to`.
//!
//! Not `stream-lossy`: replacement is done by `decode`/`decode_to` over a
//! whole input ("This does *not* handle partial characters at the
//! beginning or end of `input`! Use `RawDecoder` for incremental
//! decoding"), and the raw decoder never replaces. Not `encode`: the UTF-8
//! encoder takes a `&str` and copies its bytes.

use crate::{drive, drive_reuse, len_u8, scalars};
use encoding::all::UTF_8;
use encoding::{DecoderTrap, Encoding, RawDecoder};
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{
    Answer, Capabilities, Capability, Failure, StreamAnswer, StreamMode, StreamRun,
};

/// rust-encoding's UTF-8.
pub struct EncodingDecoder;

/// A raw decoder and the caller's bookkeeping of one stream on it.
struct Raw {
    decoder: Box<dyn RawDecoder>,
    /// Whole-stream offset of the next chunk.
    offset: i64,
    /// Whole-stream offset of the first unprocessed byte, if any is held
    /// (negative: held from an earlier stream).
    unprocessed: Option<i64>,
}

/// A strict error: the problem's start (if in this stream) and length
/// (`None`: the input ended inside a sequence).
type RawError = (Option<usize>, Option<u8>);

impl Raw {
    fn new() -> Raw {
        Raw {
            decoder: UTF_8.raw_decoder(),
            offset: 0,
            unprocessed: None,
        }
    }

    /// Counts a new stream from 0, keeping the decoder as it is.
    fn new_stream(&mut self) {
        self.unprocessed = self.unprocessed.map(|u| u - self.offset);
        self.offset = 0;
    }

    fn start(at: i64) -> Option<usize> {
        usize::try_from(at).ok()
    }

    /// One `raw_feed`.
    fn feed(&mut self, chunk: &[u8], text: &mut String) -> Result<(), RawError> {
        let (processed, error) = self.decoder.raw_feed(chunk, text);
        let here = self.offset + processed as i64;
        // "zero when the first such byte appeared in the prior calls".
        let problem = match (processed, self.unprocessed) {
            (0, Some(earlier)) => earlier,
            _ => here,
        };
        if let Some(e) = error {
            let upto = self.offset + e.upto as i64;
            self.unprocessed = None;
            self.offset += chunk.len() as i64;
            let len = usize::try_from(upto - problem).unwrap_or(0);
            return Err((Raw::start(problem), Some(len_u8(len))));
        }
        self.unprocessed = (processed < chunk.len()
            || (processed == 0 && self.unprocessed.is_some()))
        .then_some(problem);
        self.offset += chunk.len() as i64;
        Ok(())
    }

    /// `raw_finish`.
    fn finish(&mut self, text: &mut String) -> Result<(), RawError> {
        let error = self.decoder.raw_finish(text);
        let held = self.unprocessed.take();
        match error {
            None => Ok(()),
            Some(_) => Err((held.and_then(Raw::start), None)),
        }
    }

    /// One strict run on this decoder.
    fn run(&mut self, run: &StreamRun) -> StreamAnswer {
        drive(run, |chunk, last, out| {
            let mut text = String::new();
            let result = if last {
                self.finish(&mut text)
            } else {
                self.feed(chunk, &mut text)
            };
            out.extend(scalars(&text));
            result.map_err(|(at, len)| (at, Some(len)))
        })
    }
}

impl Decoder for EncodingDecoder {
    fn name(&self) -> &str {
        "encoding"
    }
    fn version(&self) -> String {
        format!("encoding {} (UTF_8)", env!("ECOSYSTEM_VERSION_ENCODING"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
            .with(Capability::Lossy)
            .with(Capability::StreamStrict)
            .with(Capability::Reuse)
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Stream => "UTF_8.raw_decoder(): raw_feed + raw_finish",
            _ => "UTF_8.raw_decoder() + UTF_8.decode(DecoderTrap::Replace)",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut raw = Raw::new();
        let mut text = String::new();
        let result = raw
            .feed(bytes, &mut text)
            .and_then(|()| raw.finish(&mut text));
        let lossy = UTF_8
            .decode(bytes, DecoderTrap::Replace)
            .map_err(|cause| Failure {
                kind: utf8conform::outcome::FailureKind::ProtocolError,
                detail: format!("decode with DecoderTrap::Replace failed: {cause}"),
            })?;
        let mut answer = Answer {
            valid: Some(result.is_ok()),
            lossy: Some(scalars(&lossy).collect()),
            ..Answer::default()
        };
        match result {
            Ok(()) => answer.scalars = Some(scalars(&text).collect()),
            Err((at, len)) => {
                answer.valid_up_to = at;
                answer.error_len = Some(len);
            }
        }
        Ok(answer)
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        match mode {
            StreamMode::Strict => Ok(Raw::new().run(run)),
            StreamMode::Lossy => Err(utf8conform::decoder::unsupported(
                self.name(),
                "stream-lossy",
            )),
        }
    }
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        if mode == StreamMode::Lossy {
            return Err(utf8conform::decoder::unsupported(
                self.name(),
                "stream-lossy",
            ));
        }
        Ok(drive_reuse(
            &mut Raw::new(),
            runs,
            Raw::new_stream,
            |raw, run| raw.run(run),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{open, run, FFFD};

    // From the crate's raw-interface documentation (types.rs): the problem
    // lies between the first unprocessed byte and `upto`, and may have
    // begun in a prior `raw_feed`; `raw_finish` reports held bytes.
    #[test]
    fn one_shot_strict_and_lossy() {
        let a = EncodingDecoder.decode(b"a\xE2\x82A").unwrap();
        assert_eq!(a.valid, Some(false));
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(Some(2))));
        assert_eq!(a.lossy, Some(vec![0x61, FFFD, 0x41]));
        let a = EncodingDecoder.decode(b"a\xE2\x82").unwrap();
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(None)));
        let a = EncodingDecoder.decode("é€".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0xE9, 0x20AC]));
    }

    #[test]
    fn a_problem_begun_in_a_prior_call_starts_there() {
        let a = EncodingDecoder
            .stream(StreamMode::Strict, &run(&[b"ab\xF0", b"\x9F", b"\x98A"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![0x61, 0x62], vec![], vec![]]));
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (2, Some(2), Some(Some(3)))
        );
        let a = EncodingDecoder
            .stream(StreamMode::Strict, &run(&[b"ab\xF0", b"\x9F"]))
            .unwrap();
        let e = a.error.unwrap();
        assert_eq!(
            (e.call, e.valid_up_to, e.error_len),
            (2, Some(2), Some(None))
        );
    }

    #[test]
    fn reuse_goes_on_after_finish_and_continues_an_open_run() {
        let r = EncodingDecoder
            .reuse(StreamMode::Strict, &[run(&[b"\xFF"]), run(&[b"A"])])
            .unwrap();
        assert_eq!(r[1].calls, Some(vec![vec![0x41], vec![]]));
        assert!(r[1].error.is_none());
        let r = EncodingDecoder
            .reuse(
                StreamMode::Strict,
                &[open(&[b"a\xE2"]), run(&[b"\x82\xAC"])],
            )
            .unwrap();
        assert_eq!(r[1].calls, Some(vec![vec![0x20AC], vec![]]));
    }
}
