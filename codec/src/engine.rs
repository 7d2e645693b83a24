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

use super::{ascii, dfa, validate, Ready};
use crate::{Utf8Error, REPLACEMENT};

/// Where decoded code points go.
pub(crate) trait Sink {
    /// One scalar value (always a valid scalar: the DFA admits no other).
    fn push_scalar(&mut self, scalar: u32);
    /// Well-formed text, decoded with `kernel`.
    fn push_text(&mut self, text: &str, kernel: Ready);
    /// The longest well-formed prefix of `bytes` (all of it, or up to the
    /// first error, which is returned), checked and decoded with `kernel`.
    fn push_prefix(&mut self, bytes: &[u8], kernel: Ready) -> Result<(), Utf8Error>;
}

impl Sink for Vec<u32> {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        self.push(scalar);
    }
    #[inline]
    fn push_text(&mut self, text: &str, kernel: Ready) {
        kernel.decode_valid(text, self);
    }
    #[inline]
    fn push_prefix(&mut self, bytes: &[u8], kernel: Ready) -> Result<(), Utf8Error> {
        // One pass: the kernel checks and decodes together.
        kernel.decode(bytes, self)
    }
}

impl Sink for String {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        self.push(char::from_u32(scalar).expect("the DFA admits only scalar values"));
    }
    #[inline]
    fn push_text(&mut self, text: &str, _: Ready) {
        self.push_str(text);
    }
    #[inline]
    fn push_prefix(&mut self, bytes: &[u8], kernel: Ready) -> Result<(), Utf8Error> {
        // Validate, then copy: UTF-8 out is the bytes themselves.
        let result = kernel.validate(bytes);
        // SAFETY: `result` is the kernel's validation of `bytes`.
        self.push_str(unsafe { super::valid_prefix(bytes, result) });
        result
    }
}

/// Strict (stop at the first error) or lossy (replace and go on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Strict,
    Lossy,
}

/// How much the fast path validates before handing the text to the sink:
/// small enough that decoding finds it still in the L1/L2 cache, large
/// enough that the per-call cost vanishes.
pub(crate) const SPAN: usize = 16 * 1024;

/// The span validated first after an ill-formed sequence (lossy mode).
const SHORT_SPAN: usize = 128;

/// Decoding state carried from one chunk to the next.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    kernel: Ready,
    mode: Mode,
    state: u32,
    scalar: u32,
    /// Absolute offset of the first byte of the character being read.
    start: usize,
    /// Absolute offset of the next chunk's first byte.
    offset: usize,
    /// The strict error, once one was found; the engine then stops.
    error: Option<Utf8Error>,
    /// Whether the last span ended in an ill-formed sequence.
    after_error: bool,
}

impl Engine {
    #[inline]
    pub(crate) fn new(kernel: Ready, mode: Mode) -> Engine {
        Engine {
            kernel,
            mode,
            state: dfa::ACCEPT,
            scalar: 0,
            start: 0,
            offset: 0,
            error: None,
            after_error: false,
        }
    }

    /// Decodes `chunk`, which continues whatever was fed before.
    ///
    /// Between characters the chunk goes through the kernel's fast path: the
    /// SIMD validator finds whether the next span is well-formed and, if
    /// not, exactly where the first maximal subpart is; the well-formed text
    /// before it goes to the sink in one piece (a copy, or the kernel's
    /// decoder). Only a character cut by the chunk's end, and the bytes that
    /// complete it in the next chunk, take the byte-at-a-time DFA path.
    #[inline]
    pub(crate) fn feed<S: Sink>(&mut self, chunk: &[u8], sink: &mut S) -> Result<(), Utf8Error> {
        // The common case, inlined: between characters, not just after an
        // error, a chunk of at most one span is one kernel call, as a
        // one-shot decode is. Anything else is the loop's (`feed_from`).
        if self.state == dfa::ACCEPT && !self.after_error && self.error.is_none() {
            if chunk.len() <= SPAN {
                return match sink.push_prefix(chunk, self.kernel) {
                    Ok(()) => {
                        self.offset += chunk.len();
                        Ok(())
                    }
                    Err(e) => {
                        let at = self.after_prefix(chunk, 0, chunk.len(), e, sink)?;
                        self.feed_from(chunk, at, sink)
                    }
                };
            }
        } else if let Some(e) = self.error {
            return Err(e);
        }
        self.feed_from(chunk, 0, sink)
    }

    /// [`feed`](Self::feed) from `chunk[at..]`, `at` being where the work
    /// left off (the engine has not failed).
    fn feed_from<S: Sink>(
        &mut self,
        chunk: &[u8],
        mut at: usize,
        sink: &mut S,
    ) -> Result<(), Utf8Error> {
        let len = chunk.len();
        while at < len {
            if self.state != dfa::ACCEPT {
                // Finish (or break) the character held from the last chunk.
                at = self.step(chunk, at, sink)?;
                continue;
            }
            if self.after_error {
                // Just after an ill-formed sequence, errors are likely near:
                // cross the ASCII run with the inline word-at-a-time skipper
                // (cheaper than a validator call for a few dozen bytes), and
                // replace lone bytes directly. A continuation byte, or one
                // that can never occur (C0, C1, F5-FF), at a character
                // boundary is always a 1-byte maximal subpart: a broken
                // character leaves such bytes behind.
                let limit = if len - at > SHORT_SPAN {
                    at + SHORT_SPAN
                } else {
                    len
                };
                let end = ascii::skip(&chunk[..limit], at);
                if end > at {
                    // SAFETY: bytes below 0x80 are each a whole character.
                    let ascii = unsafe { core::str::from_utf8_unchecked(&chunk[at..end]) };
                    sink.push_text(ascii, self.kernel);
                    at = end;
                }
                match chunk.get(at) {
                    None => break,
                    Some(&b) if validate::is_lone(b) => {
                        sink.push_scalar(REPLACEMENT as u32);
                        at += 1;
                        continue;
                    }
                    // A long ASCII run: back to long spans.
                    Some(_) if at == limit => self.after_error = false,
                    Some(_) => {}
                }
            }
            // Just after an ill-formed sequence, look at a short span first:
            // errors cluster, and the validator's 256-byte stride would
            // re-check text past the next error each time.
            let span_len = if self.after_error { SHORT_SPAN } else { SPAN };
            let end = if len - at > span_len {
                at + span_len
            } else {
                len
            };
            // The well-formed text goes to the sink in one piece; only an
            // error (or a character cut by the span's end) is handled here.
            at = match sink.push_prefix(&chunk[at..end], self.kernel) {
                Ok(()) => {
                    self.after_error = false;
                    end
                }
                Err(e) => self.after_prefix(chunk, at, end, e, sink)?,
            };
        }
        self.offset += len;
        Ok(())
    }

    /// Handles the error `e` that the sink found in the span
    /// `chunk[at..end]`, after taking the well-formed text before it;
    /// returns where to go on.
    fn after_prefix<S: Sink>(
        &mut self,
        chunk: &[u8],
        at: usize,
        end: usize,
        e: Utf8Error,
        sink: &mut S,
    ) -> Result<usize, Utf8Error> {
        let len = chunk.len();
        let bad = at + e.valid_up_to();
        Ok(match e.error_len() {
            // The span ends inside a character. If the chunk goes on, look
            // again from its lead; if not, hold it.
            None if end < len => {
                self.after_error = false;
                bad
            }
            None => {
                let mut at = bad;
                while at < len {
                    at = self.step(chunk, at, sink)?;
                }
                at
            }
            Some(n) => {
                self.after_error = true;
                self.start = self.offset + bad;
                self.ill_formed(usize::from(n), len, sink)?;
                bad + usize::from(n)
            }
        })
    }

    /// A maximal subpart of `matched` bytes starts at `self.start`: strict
    /// mode stops, lossy mode emits one U+FFFD.
    fn ill_formed<S: Sink>(
        &mut self,
        matched: usize,
        chunk_len: usize,
        sink: &mut S,
    ) -> Result<(), Utf8Error> {
        self.state = dfa::ACCEPT;
        match self.mode {
            Mode::Strict => {
                let e = Utf8Error::new(self.start, Some(matched as u8));
                self.error = Some(e);
                self.offset += chunk_len;
                Err(e)
            }
            Mode::Lossy => {
                sink.push_scalar(REPLACEMENT as u32);
                Ok(())
            }
        }
    }

    /// One DFA step on `chunk[at]`; returns where to go on.
    fn step<S: Sink>(&mut self, chunk: &[u8], at: usize, sink: &mut S) -> Result<usize, Utf8Error> {
        if self.state == dfa::ACCEPT {
            self.start = self.offset + at;
        }
        let byte = chunk[at];
        let next = dfa::next(self.state, byte);
        if next == dfa::ERROR {
            let matched = self.offset + at - self.start;
            self.ill_formed(matched.max(1), chunk.len(), sink)?;
            // A non-empty subpart ends before `byte`, which may begin a new
            // character: read it again. Otherwise the lead itself was the
            // subpart.
            return Ok(if matched == 0 { at + 1 } else { at });
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
        Ok(at + 1)
    }

    /// Ends the input: an unfinished character is an incomplete sequence
    /// (strict: `error_len() == None`; lossy: one U+FFFD).
    #[inline]
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
pub(crate) fn decode_all<S: Sink>(
    kernel: Ready,
    bytes: &[u8],
    mode: Mode,
    sink: &mut S,
) -> Result<(), Utf8Error> {
    let mut engine = Engine::new(kernel, mode);
    engine.feed(bytes, sink)?;
    engine.finish(sink)
}
