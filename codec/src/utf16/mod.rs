//! UTF-16, what JavaScript engines, Java, .NET, ICU and Windows want:
//! UTF-8 → UTF-16 (strict, lossy, streaming) and UTF-16 → UTF-8 (strict,
//! lossy).
//!
//! * UTF-8 → UTF-16 answers exactly as UTF-8 → UTF-32 does ([`Utf8Error`]:
//!   `valid_up_to`, `error_len`; one U+FFFD per maximal subpart, as
//!   `String::from_utf8_lossy`), with each scalar value written as one
//!   code unit or a surrogate pair (Unicode §3.9, D91).
//! * UTF-16 → UTF-8 refuses a lone surrogate, with its index
//!   ([`Utf16Error`], where `String::from_utf16` only says that it failed),
//!   or writes U+FFFD for it (as `String::from_utf16_lossy`).
//!
//! Each [`Kernel`] carries a [`Utf16Kernel`]: its own SIMD
//! loops where it has them, the scalar ones ([`scalar`]) otherwise. Lossy
//! and streaming UTF-8 → UTF-16 go through the same engine as UTF-32
//! output (a `Sink` for `Vec<u16>`), unless the kernel decodes lossily in
//! one pass.

mod error;
pub(crate) mod scalar;

pub use error::Utf16Error;

use crate::engine::{self, Mode, Sink};
use crate::{active, Kernel, Ready, Utf8Error, Verdict};

/// One kernel's UTF-16 conversions (see [`Kernel`]): `unsafe
/// fn`s for the same reason, callable only through a [`Ready`].
#[derive(Debug)]
pub(crate) struct Utf16Kernel {
    /// Appends the UTF-16 of the longest well-formed prefix of its input
    /// and returns the validator's verdict on all of it, in one pass where
    /// the kernel has it; otherwise the kernel's validator runs, then
    /// `decode_valid` on the well-formed prefix.
    pub(crate) decode: Option<DecodeToUtf16>,
    /// Appends the UTF-16 of well-formed text.
    pub(crate) decode_valid: unsafe fn(&str, &mut Vec<u16>),
    /// Lossy decoding in one pass (input starting at a character
    /// boundary), where the kernel has it; otherwise the engine does it.
    pub(crate) decode_lossy: Option<LossyToUtf16>,
    /// Appends the UTF-8 of the longest well-formed prefix of its input;
    /// the error at the first lone surrogate.
    pub(crate) encode: unsafe fn(&[u16], &mut Vec<u8>) -> Result<(), Utf16Error>,
    /// Appends the UTF-8 of its input, U+FFFD for each lone surrogate.
    pub(crate) encode_lossy: unsafe fn(&[u16], &mut Vec<u8>),
}

/// A kernel's one-pass checked decoder to UTF-16.
pub(crate) type DecodeToUtf16 = unsafe fn(&[u8], &mut Vec<u16>) -> Verdict;

/// A kernel's one-pass lossy decoder to UTF-16 (input starting at a
/// character boundary).
pub(crate) type LossyToUtf16 = unsafe fn(&[u8], &mut Vec<u16>);

/// The scalar kernel's conversions (and any kernel's without SIMD ones).
pub(crate) static SCALAR: Utf16Kernel = Utf16Kernel {
    decode: None,
    decode_valid: scalar::decode_valid,
    decode_lossy: None,
    encode: scalar::encode_strict,
    encode_lossy: scalar::encode_lossy,
};

/// Code units of room past the output's end that the kernels may store
/// into (a 64-unit register's store at the cursor); reserved up front by
/// the one-shot functions, so the kernels never grow the buffer.
const SLACK: usize = 64;

impl Ready {
    #[inline]
    pub(crate) fn decode_utf16_into(
        self,
        bytes: &[u8],
        out: &mut Vec<u16>,
    ) -> Result<(), Utf8Error> {
        match self.0.utf16.decode {
            // SAFETY: a `Ready`'s kernel is available on this CPU (see
            // `Ready::validate`).
            Some(decode) => unsafe { decode(bytes, out) }.unpack(),
            None => {
                let result = self.validate(bytes);
                // SAFETY: `result` is this kernel's validator's verdict on
                // `bytes` (every validator equals the reference:
                // tests/kernels.rs).
                self.decode_valid_utf16(unsafe { crate::valid_prefix(bytes, result) }, out);
                result
            }
        }
    }

    #[inline]
    pub(crate) fn decode_valid_utf16(self, text: &str, out: &mut Vec<u16>) {
        // SAFETY: as in `decode_utf16_into`: the kernel is available.
        unsafe { (self.0.utf16.decode_valid)(text, out) }
    }

    #[inline(always)]
    fn decode_utf16(self, bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
        // At most one code unit per byte (a 4-byte character is 2 units).
        let mut out = Vec::with_capacity(bytes.len() + SLACK);
        self.decode_utf16_into(bytes, &mut out).map(|()| out)
    }

    #[inline(always)]
    fn decode_lossy_utf16(self, bytes: &[u8]) -> Vec<u16> {
        // Each U+FFFD also stands for at least one byte.
        let mut out = Vec::with_capacity(bytes.len() + SLACK);
        match self.0.utf16.decode_lossy {
            // SAFETY: as in `decode_utf16_into`: the kernel is available;
            // `bytes` starts at a character boundary (it is all the input).
            Some(decode_lossy) => unsafe { decode_lossy(bytes, &mut out) },
            None => {
                let result = engine::decode_all(self, bytes, Mode::Lossy, &mut out);
                debug_assert!(result.is_ok(), "lossy decoding cannot fail");
            }
        }
        out
    }

    #[inline]
    fn encode_utf16_into(self, units: &[u16], out: &mut String) -> Result<(), Utf16Error> {
        // SAFETY: the kernel is available (as in `decode_utf16_into`); it
        // appends the UTF-8 form of well-formed UTF-16 only, which is
        // well-formed UTF-8 (tests/kernels_utf16.rs holds every kernel's
        // output to std's, and the `utf16` fuzz target checks it is UTF-8).
        unsafe { (self.0.utf16.encode)(units, out.as_mut_vec()) }
    }

    #[inline(always)]
    fn encode_utf16(self, units: &[u16]) -> Result<String, Utf16Error> {
        // At most 3 bytes per code unit.
        let mut out = String::with_capacity(3 * units.len() + SLACK);
        self.encode_utf16_into(units, &mut out).map(|()| out)
    }

    #[inline(always)]
    fn encode_lossy_utf16(self, units: &[u16]) -> String {
        let mut out = String::with_capacity(3 * units.len() + SLACK);
        // SAFETY: as in `encode_utf16_into`; a U+FFFD is well-formed too.
        unsafe { (self.0.utf16.encode_lossy)(units, out.as_mut_vec()) };
        out
    }
}

/// UTF-16 output for the engine: lossy and streaming decoding.
impl Sink for Vec<u16> {
    #[inline]
    fn push_scalar(&mut self, scalar: u32) {
        scalar::push_scalar(self, scalar);
    }
    #[inline]
    fn push_text(&mut self, text: &str, kernel: Ready) {
        kernel.decode_valid_utf16(text, self);
    }
    #[inline]
    fn push_prefix(&mut self, bytes: &[u8], kernel: Ready) -> Result<(), Utf8Error> {
        kernel.decode_utf16_into(bytes, self)
    }
}

impl Kernel {
    /// [`decode_utf16`] with this kernel.
    pub fn decode_utf16(&'static self, bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
        Ready::new(self).decode_utf16(bytes)
    }

    /// [`decode_utf16_into`] with this kernel.
    pub fn decode_utf16_into(
        &'static self,
        bytes: &[u8],
        out: &mut Vec<u16>,
    ) -> Result<(), Utf8Error> {
        Ready::new(self).decode_utf16_into(bytes, out)
    }

    /// [`decode_lossy_utf16`] with this kernel.
    pub fn decode_lossy_utf16(&'static self, bytes: &[u8]) -> Vec<u16> {
        Ready::new(self).decode_lossy_utf16(bytes)
    }

    /// [`from_utf16`] with this kernel.
    pub fn from_utf16(&'static self, units: &[u16]) -> Result<String, Utf16Error> {
        Ready::new(self).encode_utf16(units)
    }

    /// [`from_utf16_into`] with this kernel.
    pub fn from_utf16_into(
        &'static self,
        units: &[u16],
        out: &mut String,
    ) -> Result<(), Utf16Error> {
        Ready::new(self).encode_utf16_into(units, out)
    }

    /// [`from_utf16_lossy`] with this kernel.
    pub fn from_utf16_lossy(&'static self, units: &[u16]) -> String {
        Ready::new(self).encode_lossy_utf16(units)
    }
}

/// Decodes UTF-8 to UTF-16, or the first error (the same error as
/// [`validate()`](crate::validate())'s). A scalar value from U+10000 on
/// becomes a surrogate pair. (Not `char::decode_utf16`, which reads
/// UTF-16: here, as in [`decode_utf32`](crate::decode_utf32), the name
/// says what comes out.)
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::decode_utf16("é😀".as_bytes()).unwrap(), [0xE9, 0xD83D, 0xDE00]);
/// let err = codec::decode_utf16(b"ab\xF0\x9F\x98").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, None)); // cut-off emoji
/// ```
#[inline(always)] // see "Inlined entry points" in the crate docs
pub fn decode_utf16(bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
    active().decode_utf16(bytes)
}

/// Appends the UTF-16 of the longest well-formed prefix of `bytes` (all of
/// it, or the bytes before the first error) to `out`, and returns
/// [`validate()`](crate::validate())'s result: decoding into a buffer the
/// caller reuses.
///
/// ```
/// use utf8conform_codec as codec;
/// let mut out = vec![0x41];
/// let err = codec::decode_utf16_into(b"\xC3\xA9\xFF", &mut out).unwrap_err();
/// assert_eq!(out, [0x41, 0xE9]);
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, Some(1)));
/// ```
#[inline]
pub fn decode_utf16_into(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    active().decode_utf16_into(bytes, out)
}

/// Decodes UTF-8 to UTF-16, replacing each maximal subpart of an
/// ill-formed sequence with one U+FFFD (Unicode §3.9): the UTF-16 of
/// `String::from_utf8_lossy`'s output.
///
/// ```
/// use utf8conform_codec as codec;
/// // C0 AF is an overlong "/": two maximal subparts of one byte each.
/// assert_eq!(codec::decode_lossy_utf16(b"a\xC0\xAFb"), [0x61, 0xFFFD, 0xFFFD, 0x62]);
/// // F0 9F 98 is one maximal subpart (a prefix of F0 9F 98 80).
/// assert_eq!(codec::decode_lossy_utf16(b"\xF0\x9F\x98!"), [0xFFFD, 0x21]);
/// ```
#[inline(always)] // see "Inlined entry points" in the crate docs
pub fn decode_lossy_utf16(bytes: &[u8]) -> Vec<u16> {
    active().decode_lossy_utf16(bytes)
}

/// Converts UTF-16 to UTF-8, or fails at the first lone surrogate (with
/// its index, which `String::from_utf16` does not give).
///
/// The string is allocated with room for the worst case, 3 bytes per code
/// unit, so that it is written in one pass.
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::from_utf16(&[0x63, 0xE9, 0xD83D, 0xDE00]).unwrap(), "cé😀");
/// assert_eq!(codec::from_utf16(&[0x63, 0xDE00]).unwrap_err().valid_up_to(), 1);
/// ```
#[inline(always)] // see "Inlined entry points" in the crate docs
pub fn from_utf16(units: &[u16]) -> Result<String, Utf16Error> {
    active().encode_utf16(units)
}

/// Appends the UTF-8 of the longest well-formed prefix of `units` (all of
/// them, or those before the first lone surrogate) to `out`, and returns
/// [`from_utf16`]'s result.
///
/// ```
/// use utf8conform_codec as codec;
/// let mut out = String::from(">");
/// let err = codec::from_utf16_into(&[0x41, 0xD800, 0x42], &mut out).unwrap_err();
/// assert_eq!((out.as_str(), err.valid_up_to()), (">A", 1));
/// ```
#[inline]
pub fn from_utf16_into(units: &[u16], out: &mut String) -> Result<(), Utf16Error> {
    active().encode_utf16_into(units, out)
}

/// Converts UTF-16 to UTF-8, writing U+FFFD for each lone surrogate, as
/// `String::from_utf16_lossy` does.
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::from_utf16_lossy(&[0x61, 0xD800, 0x62]), "a\u{FFFD}b");
/// ```
#[inline(always)] // see "Inlined entry points" in the crate docs
pub fn from_utf16_lossy(units: &[u16]) -> String {
    active().encode_lossy_utf16(units)
}

#[cfg(test)]
mod tests {
    //! Expectations from std (`str::encode_utf16`, `String::from_utf8_lossy`,
    //! `String::from_utf16_lossy`); tests/kernels.rs and
    //! tests/kernels_utf16.rs run every kernel.
    use super::*;

    fn std_utf16(bytes: &[u8]) -> Vec<u16> {
        String::from_utf8_lossy(bytes).encode_utf16().collect()
    }

    #[test]
    fn strict_and_lossy_agree_with_std_around_errors() {
        let mut input = Vec::new();
        for i in 0..40 {
            input.extend_from_slice("a\u{f1}\u{20ac}\u{1F600} ".as_bytes());
            if i % 7 == 0 {
                input.extend_from_slice(b"\xE2\x82\x80\xBF\xFFx\xF0\x9F");
            }
        }
        assert_eq!(decode_lossy_utf16(&input), std_utf16(&input));
        let e = core::str::from_utf8(&input).unwrap_err();
        assert_eq!(decode_utf16(&input), Err(Utf8Error::from(e)));
        let mut prefix = Vec::new();
        let _ = decode_utf16_into(&input, &mut prefix);
        assert_eq!(prefix, std_utf16(&input[..e.valid_up_to()]));
    }

    #[test]
    fn streaming_to_utf16_equals_std_in_odd_chunks() {
        let input = "κόσμε 😀 \u{10FFFF}".repeat(9).into_bytes();
        let mut bad = input.clone();
        bad[17] = 0xFF;
        for (bytes, lossy) in [(&input, false), (&bad, true)] {
            let mut d = if lossy {
                crate::StreamDecoder::lossy()
            } else {
                crate::StreamDecoder::strict()
            };
            let mut out = Vec::new();
            for chunk in bytes.chunks(5) {
                d.feed_utf16(chunk, &mut out).unwrap();
            }
            d.finish_utf16(&mut out).unwrap();
            assert_eq!(out, std_utf16(bytes));
        }
    }

    #[test]
    fn from_utf16_equals_std() {
        let units: Vec<u16> = "aé€😀".encode_utf16().collect();
        assert_eq!(from_utf16(&units).as_deref(), Ok("aé€😀"));
        let bad = [0x61, 0xDE00, 0xD83D, 0xDE00, 0xD83D];
        assert_eq!(from_utf16(&bad), Err(Utf16Error::new(1)));
        assert_eq!(from_utf16_lossy(&bad), String::from_utf16_lossy(&bad));
    }
}
