//! The optimized codec under test: validate, decode, lossy decode, encode
//! and stream.
//!
//! Everything here must equal [`crate::reference`] on every input; the
//! exhaustive tests, the vectors and the differential fuzz targets check it.
//!
//! Layout (small steps, after bstr and simdutf8):
//! * [`dfa`](self) — the shift DFA built at compile time from RFC 3629 §4;
//! * `ascii` — the word-at-a-time ASCII skipper;
//! * `validate` — the yes/no hot loop and the exact-error slow loop;
//! * `engine` — one decoding loop for strict, lossy and streaming decode;
//! * `encode`, `stream` — the public encode and streaming APIs.
//!
//! Validation goes through a [`Kernel`] chosen once per process. Today there
//! is one portable kernel, `scalar`; SIMD kernels slot in beside it and the
//! dispatcher picks the best the CPU supports (or the one named by the
//! `UTF8CONFORM_KERNEL` environment variable, so tests can pin each).

mod ascii;
mod dfa;
mod encode;
mod engine;
mod stream;
mod validate;

pub use encode::{encode_scalar, encode_utf32, EncodeFailure, Encoded};
pub use stream::StreamDecoder;

use crate::outcome::Utf8Error;
use engine::Mode;
use std::sync::OnceLock;

/// One implementation of validation, for one instruction set.
#[derive(Debug)]
pub struct Kernel {
    /// Short name, e.g. `scalar`; what `UTF8CONFORM_KERNEL` selects.
    pub name: &'static str,
    /// Whether this CPU can run it.
    pub available: fn() -> bool,
    validate: fn(&[u8]) -> Result<(), Utf8Error>,
}

impl Kernel {
    /// Validates with this kernel, whatever the dispatcher would choose.
    ///
    /// # Panics
    /// If the CPU lacks the kernel's instructions (check `available`).
    pub fn validate(&self, bytes: &[u8]) -> Result<(), Utf8Error> {
        assert!(
            (self.available)(),
            "kernel {} unavailable on this CPU",
            self.name
        );
        (self.validate)(bytes)
    }
}

/// Every kernel compiled in, best first.
pub static KERNELS: &[Kernel] = &[Kernel {
    name: "scalar",
    available: || true,
    validate: validate::validate_scalar,
}];

/// The kernel in use: `UTF8CONFORM_KERNEL` if set (it must name an available
/// kernel), otherwise the first available one in [`KERNELS`].
///
/// # Panics
/// If `UTF8CONFORM_KERNEL` names a kernel that is unknown or unavailable:
/// silently falling back would make a test believe it covered a kernel it
/// did not run.
pub fn active_kernel() -> &'static Kernel {
    static ACTIVE: OnceLock<&'static Kernel> = OnceLock::new();
    ACTIVE.get_or_init(|| match std::env::var("UTF8CONFORM_KERNEL") {
        Ok(name) => KERNELS
            .iter()
            .find(|k| k.name == name && (k.available)())
            .unwrap_or_else(|| panic!("UTF8CONFORM_KERNEL={name}: no such kernel available")),
        Err(_) => KERNELS
            .iter()
            .find(|k| (k.available)())
            .expect("the scalar kernel is always available"),
    })
}

/// Checks that `bytes` is UTF-8, with `core::str::from_utf8`'s error details.
///
/// ```
/// use utf8conform::codec;
/// assert!(codec::validate("κόσμε".as_bytes()).is_ok());
/// let err = codec::validate(b"ab\xF0\x9F\x98").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, None)); // cut-off emoji
/// ```
#[inline]
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    (active_kernel().validate)(bytes)
}

/// Decodes to scalar values, or the first error.
pub fn decode_chars(bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
    let mut out = Vec::with_capacity(bytes.len());
    engine::decode_all(bytes, Mode::Strict, &mut out).map(|()| out)
}

/// Decodes to UTF-32, or the first error.
///
/// ```
/// use utf8conform::codec;
/// assert_eq!(codec::decode_utf32(b"\xF0\x9F\x98\x80").unwrap(), [0x1F600]);
/// ```
pub fn decode_utf32(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    let mut out = Vec::with_capacity(bytes.len());
    engine::decode_all(bytes, Mode::Strict, &mut out).map(|()| out)
}

/// Decodes, replacing each maximal subpart of an ill-formed sequence with one
/// U+FFFD (Unicode §3.9; the same output as `String::from_utf8_lossy`).
///
/// ```
/// use utf8conform::codec;
/// // C0 AF is an overlong "/": two maximal subparts of one byte each.
/// assert_eq!(codec::decode_lossy(b"a\xC0\xAFb"), "a\u{FFFD}\u{FFFD}b");
/// // E1 80 is one maximal subpart (a prefix of E1 80 80).
/// assert_eq!(codec::decode_lossy(b"a\xE1\x80b"), "a\u{FFFD}b");
/// ```
pub fn decode_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let result = engine::decode_all(bytes, Mode::Lossy, &mut out);
    debug_assert!(result.is_ok(), "lossy decoding cannot fail");
    out
}

/// As [`decode_lossy`], to UTF-32.
pub fn decode_lossy_utf32(bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::with_capacity(bytes.len());
    let result = engine::decode_all(bytes, Mode::Lossy, &mut out);
    debug_assert!(result.is_ok(), "lossy decoding cannot fail");
    out
}

#[cfg(test)]
mod tests {
    //! Hand-written expectations from RFC 3629 / Unicode §3.9; the broad
    //! equality with the reference is in tests/exhaustive.rs and the
    //! proptests.
    use super::*;

    #[test]
    fn validate_and_decode_agree_on_the_rfc_section_7_examples() {
        let input = [0x41, 0xE2, 0x89, 0xA2, 0xCE, 0x91, 0x2E];
        assert!(validate(&input).is_ok());
        assert_eq!(decode_utf32(&input).unwrap(), [0x41, 0x2262, 0x391, 0x2E]);
    }

    #[test]
    fn errors_found_in_any_block_report_the_exact_position() {
        // An error placed after 0..40 bytes of ASCII and of 2-byte text, so
        // it falls before, on and after the 16-byte block edges.
        for prefix_len in 0..40 {
            for filler in ["a", "é"] {
                let mut input: Vec<u8> = filler.repeat(prefix_len).into_bytes();
                let valid = input.len();
                input.extend_from_slice(&[0xE0, 0x80, 0x41]); // E0 then 80: 1-byte subpart
                let e = validate(&input).unwrap_err();
                assert_eq!((e.valid_up_to(), e.error_len()), (valid, Some(1)));
                let e = decode_utf32(&input).unwrap_err();
                assert_eq!((e.valid_up_to(), e.error_len()), (valid, Some(1)));
            }
        }
    }

    #[test]
    fn lossy_resumes_at_the_byte_that_broke_the_sequence() {
        // F0 90 80 then 'A': the subpart is F0 90 80, and 'A' survives.
        assert_eq!(decode_lossy(b"\xF0\x90\x80A"), "\u{FFFD}A");
        // E1 80 then E2 82 AC: the second sequence is complete and kept.
        assert_eq!(decode_lossy(b"\xE1\x80\xE2\x82\xAC"), "\u{FFFD}€");
        // Incomplete at the end: one U+FFFD.
        assert_eq!(decode_lossy_utf32(b"A\xF4\x8F\xBF"), [0x41, 0xFFFD]);
    }

    #[test]
    fn encode_fills_section_3_table() {
        assert_eq!(encode_scalar(0x7F).unwrap().as_bytes(), [0x7F]);
        assert_eq!(encode_scalar(0x80).unwrap().as_bytes(), [0xC2, 0x80]);
        assert_eq!(encode_scalar(0x7FF).unwrap().as_bytes(), [0xDF, 0xBF]);
        assert_eq!(encode_scalar(0x800).unwrap().as_bytes(), [0xE0, 0xA0, 0x80]);
        assert_eq!(
            encode_scalar(0xFFFF).unwrap().as_bytes(),
            [0xEF, 0xBF, 0xBF]
        );
        assert_eq!(
            encode_scalar(0x10000).unwrap().as_bytes(),
            [0xF0, 0x90, 0x80, 0x80]
        );
        assert_eq!(
            encode_scalar(0x233B4).unwrap().as_bytes(),
            [0xF0, 0xA3, 0x8E, 0xB4]
        );
    }

    #[test]
    fn pinning_an_unknown_kernel_is_refused() {
        assert!(KERNELS
            .iter()
            .any(|k| k.name == "scalar" && (k.available)()));
        let scalar = KERNELS.iter().find(|k| k.name == "scalar").unwrap();
        assert_eq!(
            scalar.validate(b"\xED\xA0\x80"),
            Err(Utf8Error::new(0, Some(1)))
        );
    }
}
