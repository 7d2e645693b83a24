//! `tendril` (Servo's compact string buffers, html5ever's input type). Its
//! public UTF-8 decoding:
//!
//! * `StrTendril::try_from_byte_slice` ("Build a `Tendril` by copying a
//!   byte slice, if it conforms to the format"): `Err(())` or a tendril
//!   whose `char`s are the text: `validate` + `decode`;
//! * `stream::Utf8LossyDecoder`, a `TendrilSink` adaptor that "takes
//!   bytes, decodes them as UTF-8, lossily replace ill-formed byte
//!   sequences with U+FFFD": `one(bytes)` gives `lossy`; `process` per chunk
//!   then `finish` gives `stream-lossy`. It also calls its inner sink's
//!   `error(desc)` ("Indicates that an error has occurred") for each
//!   replacement, before pushing the U+FFFD: a strict reader stops at the
//!   first `error`, which gives `stream-strict` (the call and the text
//!   before the error; `error` carries no position or length, so none is
//!   reported);
//! * `Tendril::<fmt::WTF8>::try_from_byte_slice`: the `tendril-wtf8`
//!   decoder, `validate` only (a WTF-8 tendril has no `char` view). Its
//!   validation runs the crate's copy of `futf::classify` (tendril 0.5
//!   vendors futf as its hidden `tendril::futf` module, "exposed for
//!   benchmarking purposes only").
//!
//! No `reuse`: `finish(self)` consumes the decoder. Not `position` or
//! `subpart`: `try_from_byte_slice` says only `Err(())`.

use crate::{drive, scalars};
use std::borrow::Cow;
use tendril::stream::{TendrilSink, Utf8LossyDecoder};
use tendril::{fmt, ByteTendril, StrTendril, Tendril};
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{
    Answer, Capabilities, Capability, Failure, StreamAnswer, StreamMode, StreamRun,
};

/// tendril's UTF-8.
pub struct TendrilDecoder;

/// tendril's WTF-8 validation.
pub struct TendrilWtf8Decoder;

/// The inner sink: what the decoder pushed since it was last emptied, and
/// how much of it came before the first `error` call, if any came.
#[derive(Default)]
struct Collect {
    text: Vec<u32>,
    first_error: Option<usize>,
}

impl TendrilSink<fmt::UTF8> for Collect {
    fn process(&mut self, t: StrTendril) {
        self.text.extend(scalars(&t));
    }
    fn error(&mut self, _desc: Cow<'static, str>) {
        self.first_error.get_or_insert(self.text.len());
    }
    type Output = Collect;
    fn finish(self) -> Collect {
        self
    }
}

impl Collect {
    /// What was pushed since the last call, and whether an error came.
    fn take(&mut self) -> (Vec<u32>, Option<usize>) {
        (std::mem::take(&mut self.text), self.first_error.take())
    }
}

impl Decoder for TendrilDecoder {
    fn name(&self) -> &str {
        "tendril"
    }
    fn version(&self) -> String {
        format!("tendril {} (fmt::UTF8)", env!("ECOSYSTEM_VERSION_TENDRIL"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
            .with(Capability::Validate)
            .with(Capability::Decode)
            .with(Capability::Lossy)
            .union(Capabilities::STREAM)
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Stream => "stream::Utf8LossyDecoder (process, finish; error)",
            _ => "StrTendril::try_from_byte_slice + Utf8LossyDecoder::one",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let lossy = Utf8LossyDecoder::new(Collect::default()).one(ByteTendril::from_slice(bytes));
        let mut answer = Answer {
            lossy: Some(lossy.text),
            ..Answer::default()
        };
        match StrTendril::try_from_byte_slice(bytes) {
            Ok(t) => {
                answer.valid = Some(true);
                answer.scalars = Some(scalars(&t).collect());
            }
            Err(()) => answer.valid = Some(false),
        }
        Ok(answer)
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        let mut decoder = Some(Utf8LossyDecoder::new(Collect::default()));
        Ok(drive(run, |chunk, last, out| {
            let (text, error) = match (last, decoder.take()) {
                (false, Some(mut d)) => {
                    d.process(ByteTendril::from_slice(chunk));
                    let taken = d.inner_sink.take();
                    decoder = Some(d);
                    taken
                }
                (true, Some(d)) => d.finish().take(),
                (_, None) => unreachable!("drive makes no call after the last"),
            };
            match (mode, error) {
                (StreamMode::Strict, Some(before)) => {
                    out.extend_from_slice(&text[..before]);
                    Err((None, None))
                }
                _ => {
                    out.extend(text);
                    Ok(())
                }
            }
        }))
    }
}

impl Decoder for TendrilWtf8Decoder {
    fn name(&self) -> &str {
        "tendril-wtf8"
    }
    fn version(&self) -> String {
        format!("tendril {} (fmt::WTF8)", env!("ECOSYSTEM_VERSION_TENDRIL"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE.with(Capability::Validate)
    }
    fn api(&self, _: Path) -> &'static str {
        "Tendril::<fmt::WTF8>::try_from_byte_slice"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer {
            valid: Some(Tendril::<fmt::WTF8>::try_from_byte_slice(bytes).is_ok()),
            ..Answer::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{run, FFFD};

    // From tendril's own stream tests (src/stream.rs, `utf8`): a split
    // code point comes out whole in the call that completes it; a lone
    // C0 is one U+FFFD and one error.
    #[test]
    fn lossy_stream_and_one_shot() {
        let a = TendrilDecoder
            .stream(StreamMode::Lossy, &run(&[b"xy\xEA", b"\x99\xAEzw"]))
            .unwrap();
        assert_eq!(
            a.calls,
            Some(vec![vec![0x78, 0x79], vec![0xA66E, 0x7A, 0x77], vec![]])
        );
        let a = TendrilDecoder.decode(b"\xC0").unwrap();
        assert_eq!((a.valid, a.lossy), (Some(false), Some(vec![FFFD])));
        let a = TendrilDecoder.decode("aé".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0x61, 0xE9]));
    }

    #[test]
    fn strict_stream_stops_at_the_first_error_call() {
        let a = TendrilDecoder
            .stream(StreamMode::Strict, &run(&[b"a", b"b\xFFc"]))
            .unwrap();
        assert_eq!(a.calls, Some(vec![vec![0x61], vec![0x62]]));
        let e = a.error.unwrap();
        assert_eq!((e.call, e.valid_up_to, e.error_len), (1, None, None));
        // "incomplete byte sequence at end of stream": at the finish.
        let a = TendrilDecoder
            .stream(StreamMode::Strict, &run(&[b"a\xE2\x82"]))
            .unwrap();
        assert_eq!(a.error.unwrap().call, 1);
    }

    // The WTF-8 spec: a lone surrogate is well-formed WTF-8, a surrogate
    // pair must be written as the 4-byte form.
    #[test]
    fn wtf8_takes_lone_surrogates_and_refuses_pairs() {
        let valid = |b: &[u8]| TendrilWtf8Decoder.decode(b).unwrap().valid;
        assert_eq!(valid(b"\xED\xA0\x80"), Some(true));
        assert_eq!(valid(b"\xED\xA0\x80\xED\xB0\x80"), Some(false));
        assert_eq!(valid("😀".as_bytes()), Some(true));
        assert_eq!(valid(b"\xC0\x80"), Some(false));
    }
}
