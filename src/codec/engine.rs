//! The decoding engine shared by one-shot decoding, lossy decoding and the
//! streaming decoder.
//!
//! One engine, fed one chunk at a time, keeps the DFA state, the code point
//! being assembled and the absolute offset of the character it is in. A
//! one-shot decode is a stream of one chunk, so the one-shot and chunked
//! results cannot drift apart: there is only one implementation of each rule.
//!
//! On an ill-formed sequence:
//! * strict mode stops with `Utf8Error { valid_up_to: start of the
//!   character, error_len: bytes accepted before the failing byte (≥ 1) }`;
//! * lossy mode emits one U+FFFD for those bytes (the maximal subpart) and
//!   starts again — *at the failing byte* if the subpart was non-empty
//!   (that byte may begin a new character: `E1 80 41` is FFFD then `A`),
//!   or after it if it was the lead itself.

use super::{ascii, dfa};
use crate::outcome::{Utf8Error, REPLACEMENT};

/// Where decoded code points go.
pub(crate) trait Sink {
    /// One scalar value (always a valid scalar: the DFA admits no other).
    fn push_scalar(&mut self, scalar: u32);
    /// A run of ASCII bytes.
    fn push_ascii(&mut self, ascii: &[u8]);
}

impl Sink for Vec<u32> {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        self.push(scalar);
    }
    #[inline]
    fn push_ascii(&mut self, ascii: &[u8]) {
        self.extend(ascii.iter().map(|&b| u32::from(b)));
    }
}

impl Sink for Vec<char> {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        self.push(char::from_u32(scalar).expect("the DFA admits only scalar values"));
    }
    #[inline]
    fn push_ascii(&mut self, ascii: &[u8]) {
        self.extend(ascii.iter().map(|&b| char::from(b)));
    }
}

impl Sink for String {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        self.push(char::from_u32(scalar).expect("the DFA admits only scalar values"));
    }
    #[inline]
    fn push_ascii(&mut self, ascii: &[u8]) {
        self.extend(ascii.iter().map(|&b| char::from(b)));
    }
}

/// Strict (stop at the first error) or lossy (replace and go on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Strict,
    Lossy,
}

/// Decoding state carried from one chunk to the next.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    mode: Mode,
    state: u32,
    scalar: u32,
    /// Absolute offset of the first byte of the character being read.
    start: usize,
    /// Absolute offset of the next chunk's first byte.
    offset: usize,
    /// The strict error, once one was found; the engine then stops.
    error: Option<Utf8Error>,
}

impl Engine {
    pub(crate) fn new(mode: Mode) -> Engine {
        Engine {
            mode,
            state: dfa::ACCEPT,
            scalar: 0,
            start: 0,
            offset: 0,
            error: None,
        }
    }

    /// Decodes `chunk`, which continues whatever was fed before.
    pub(crate) fn feed<S: Sink>(&mut self, chunk: &[u8], sink: &mut S) -> Result<(), Utf8Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut at = 0;
        while at < chunk.len() {
            if self.state == dfa::ACCEPT {
                let end = ascii::skip(chunk, at);
                if end > at {
                    sink.push_ascii(&chunk[at..end]);
                    at = end;
                    continue;
                }
                self.start = self.offset + at;
            }
            let byte = chunk[at];
            let next = dfa::next(self.state, byte);
            if next == dfa::ERROR {
                let matched = self.offset + at - self.start;
                match self.mode {
                    Mode::Strict => {
                        let e = Utf8Error::new(self.start, Some(matched.max(1) as u8));
                        self.error = Some(e);
                        self.offset += chunk.len();
                        return Err(e);
                    }
                    Mode::Lossy => {
                        sink.push_scalar(REPLACEMENT as u32);
                        self.state = dfa::ACCEPT;
                        if matched == 0 {
                            at += 1; // the lead byte itself was the subpart
                        }
                        continue; // otherwise re-read `byte` as a new start
                    }
                }
            }
            self.scalar = if self.state == dfa::ACCEPT {
                dfa::lead_bits(byte)
            } else {
                (self.scalar << 6) | u32::from(byte & 0x3F)
            };
            self.state = next;
            if next == dfa::ACCEPT {
                sink.push_scalar(self.scalar);
            }
            at += 1;
        }
        self.offset += chunk.len();
        Ok(())
    }

    /// Ends the input: an unfinished character is an incomplete sequence
    /// (strict: `error_len() == None`; lossy: one U+FFFD).
    pub(crate) fn finish<S: Sink>(&mut self, sink: &mut S) -> Result<(), Utf8Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.state != dfa::ACCEPT {
            self.state = dfa::ACCEPT;
            match self.mode {
                Mode::Strict => {
                    let e = Utf8Error::new(self.start, None);
                    self.error = Some(e);
                    return Err(e);
                }
                Mode::Lossy => sink.push_scalar(REPLACEMENT as u32),
            }
        }
        Ok(())
    }

    /// Whether a character is half-read (bytes are held waiting for more).
    pub(crate) fn is_mid_sequence(&self) -> bool {
        self.state != dfa::ACCEPT && self.error.is_none()
    }
}

/// Decodes all of `bytes` in one go.
pub(crate) fn decode_all<S: Sink>(bytes: &[u8], mode: Mode, sink: &mut S) -> Result<(), Utf8Error> {
    let mut engine = Engine::new(mode);
    engine.feed(bytes, sink)?;
    engine.finish(sink)
}
