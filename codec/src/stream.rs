//! Decoding input that arrives in pieces.

use super::engine::{Engine, Mode};
use super::{active, Ready};
use crate::Utf8Error;

/// Decodes UTF-8 fed in chunks of any size; a character may be split across
/// any number of chunk boundaries. Offsets in errors count from the start of
/// the whole stream.
///
/// The result equals a one-shot decode of the concatenated chunks, whatever
/// the split (the `chunking` tests and fuzz target check this). Whole
/// chunks go through the same SIMD fast path as one-shot decoding; only a
/// character cut by a chunk boundary (at most 3 held bytes) is decoded a
/// byte at a time.
///
/// ```
/// use utf8conform_codec::StreamDecoder;
/// let mut decoder = StreamDecoder::strict();
/// let mut out = String::new();
/// decoder.feed(b"caf\xC3", &mut out).unwrap();   // "é" is split: C3 | A9
/// decoder.feed(b"\xA9 \xE2\x82", &mut out).unwrap();
/// let err = decoder.finish(&mut out).unwrap_err(); // E2 82 never completed
/// assert_eq!(out, "café ");
/// assert_eq!((err.valid_up_to(), err.error_len()), (6, None));
/// ```
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    engine: Engine,
}

impl StreamDecoder {
    /// A decoder that stops at the first ill-formed sequence.
    #[inline]
    pub fn strict() -> StreamDecoder {
        StreamDecoder::with(active(), Mode::Strict)
    }

    /// A decoder that replaces each maximal subpart with U+FFFD and never
    /// fails.
    #[inline]
    pub fn lossy() -> StreamDecoder {
        StreamDecoder::with(active(), Mode::Lossy)
    }

    #[inline]
    pub(crate) fn with(kernel: Ready, mode: Mode) -> StreamDecoder {
        StreamDecoder {
            engine: Engine::new(kernel, mode),
        }
    }

    /// Decodes `chunk`, appending what it completes to `out`. Bytes of a
    /// character that the chunk leaves unfinished are held until the next
    /// call. A strict decoder that failed keeps returning the same error.
    #[inline]
    pub fn feed(&mut self, chunk: &[u8], out: &mut String) -> Result<(), Utf8Error> {
        self.engine.feed(chunk, out)
    }

    /// As [`feed`](Self::feed), appending code points as UTF-32.
    #[inline]
    pub fn feed_utf32(&mut self, chunk: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
        self.engine.feed(chunk, out)
    }

    /// As [`feed`](Self::feed), appending UTF-16 (a scalar value from
    /// U+10000 on as a surrogate pair, never split across calls).
    #[inline]
    pub fn feed_utf16(&mut self, chunk: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
        self.engine.feed(chunk, out)
    }

    /// Ends the stream. Held bytes of an unfinished character are an
    /// incomplete sequence: an error with `error_len() == None` (strict) or
    /// one U+FFFD (lossy).
    #[inline]
    pub fn finish(mut self, out: &mut String) -> Result<(), Utf8Error> {
        self.engine.finish(out)
    }

    /// As [`finish`](Self::finish), appending code points as UTF-32.
    #[inline]
    pub fn finish_utf32(mut self, out: &mut Vec<u32>) -> Result<(), Utf8Error> {
        self.engine.finish(out)
    }

    /// As [`finish`](Self::finish), appending UTF-16.
    #[inline]
    pub fn finish_utf16(mut self, out: &mut Vec<u16>) -> Result<(), Utf8Error> {
        self.engine.finish(out)
    }

    /// Whether the decoder holds part of a character, waiting for more bytes.
    #[inline]
    pub fn is_mid_sequence(&self) -> bool {
        self.engine.is_mid_sequence()
    }
}
