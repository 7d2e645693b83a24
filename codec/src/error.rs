//! The codec's errors, with the meaning of `core::str::Utf8Error`: where a
//! strict decode stopped and how long the maximal subpart there is (Unicode
//! §3.9), and why a number cannot be encoded (RFC 3629 §3).

use std::fmt;

/// The replacement character, U+FFFD, emitted once per maximal subpart.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Why a strict decode stopped: the same information, with the same meaning,
/// as [`core::str::Utf8Error`].
///
/// * `valid_up_to` bytes at the start of the input are well-formed UTF-8;
/// * `error_len() == Some(n)`: the `n` bytes at `valid_up_to` (1 ≤ n ≤ 3) are
///   the maximal subpart of an ill-formed sequence — the longest prefix of a
///   well-formed sequence there, or just one byte when no prefix matches;
/// * `error_len() == None`: the input ends at `valid_up_to + k` (k ≥ 1) in the
///   middle of a sequence that more bytes could complete.
///
/// ```
/// use utf8conform_codec as codec;
/// // E2 82 is the start of U+20AC (E2 82 AC) cut short: more bytes could complete it.
/// let err = codec::decode_chars(b"a\xE2\x82").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (1, None));
/// // E2 82 followed by 'b': the maximal subpart is the two bytes E2 82.
/// let err = codec::decode_chars(b"a\xE2\x82b").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (1, Some(2)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    valid_up_to: usize,
    error_len: Option<u8>,
}

impl Utf8Error {
    /// Builds an error. `error_len`, when present, must be 1, 2 or 3: no
    /// maximal subpart of an ill-formed sequence is longer (a 4-byte prefix
    /// would be a whole, well-formed sequence).
    ///
    /// # Panics
    /// If `error_len` is `Some(0)` or `Some(n)` with `n > 3`.
    #[inline]
    pub fn new(valid_up_to: usize, error_len: Option<u8>) -> Utf8Error {
        assert!(
            matches!(error_len, None | Some(1..=3)),
            "error_len must be None or 1..=3, got {error_len:?}"
        );
        Utf8Error {
            valid_up_to,
            error_len,
        }
    }

    /// Number of bytes before the first ill-formed sequence.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// Length of the maximal subpart at `valid_up_to`, or `None` for an
    /// incomplete sequence at the end of the input.
    pub fn error_len(&self) -> Option<u8> {
        self.error_len
    }

    /// The same error seen from `offset` bytes earlier in a larger input.
    pub fn shifted(self, offset: usize) -> Utf8Error {
        Utf8Error {
            valid_up_to: self.valid_up_to + offset,
            ..self
        }
    }
}

impl From<core::str::Utf8Error> for Utf8Error {
    fn from(e: core::str::Utf8Error) -> Utf8Error {
        // std's error_len is usize, documented to be 1..=3.
        Utf8Error::new(e.valid_up_to(), e.error_len().map(|n| n as u8))
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error_len {
            Some(n) => write!(
                f,
                "invalid UTF-8: {n}-byte ill-formed sequence after {} valid bytes",
                self.valid_up_to
            ),
            None => write!(
                f,
                "incomplete UTF-8 sequence at the end, after {} valid bytes",
                self.valid_up_to
            ),
        }
    }
}

impl std::error::Error for Utf8Error {}

/// Why a scalar value cannot be encoded (RFC 3629 §3).
//
// A whole word, not a byte: `codec::encode_utf32` returns it inside
// `Result<Vec<u8>, EncodeFailure>`, whose error shares its third word with
// the `Vec`'s length. A 1-byte field there made the compiler copy that word
// in 1-, 4- and 2-byte pieces and read them back across the pieces: a
// store-forwarding stall, ~4 ns of a 27 ns encode of 64 bytes (`perf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u64)]
pub enum EncodeError {
    /// U+D800..=U+DFFF: "The definition of UTF-8 prohibits encoding character
    /// numbers between U+D800 and U+DFFF" (§3).
    Surrogate,
    /// Above U+10FFFF: UTF-8 is restricted to "the U+0000..U+10FFFF range"
    /// (§3, and §12's change from RFC 2279).
    OutOfRange,
}

impl EncodeError {
    /// The reason as the protocol spells it: `"surrogate"`, `"out-of-range"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EncodeError::Surrogate => "surrogate",
            EncodeError::OutOfRange => "out-of-range",
        }
    }

    /// Classifies a number that is not a Unicode scalar value, or returns
    /// `None` if it is one.
    pub fn classify(value: u32) -> Option<EncodeError> {
        match value {
            0xD800..=0xDFFF => Some(EncodeError::Surrogate),
            0x11_0000.. => Some(EncodeError::OutOfRange),
            _ => None,
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodeError::Surrogate => "surrogate code points (U+D800..U+DFFF) cannot be encoded",
            EncodeError::OutOfRange => "values above U+10FFFF cannot be encoded",
        })
    }
}

impl std::error::Error for EncodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_error_classifies_the_rfc_ranges() {
        // RFC 3629 §3: U+D800..U+DFFF prohibited; the range ends at U+10FFFF.
        assert_eq!(EncodeError::classify(0xD7FF), None);
        assert_eq!(EncodeError::classify(0xD800), Some(EncodeError::Surrogate));
        assert_eq!(EncodeError::classify(0xDFFF), Some(EncodeError::Surrogate));
        assert_eq!(EncodeError::classify(0xE000), None);
        assert_eq!(EncodeError::classify(0x10FFFF), None);
        assert_eq!(
            EncodeError::classify(0x110000),
            Some(EncodeError::OutOfRange)
        );
        assert_eq!(
            EncodeError::classify(u32::MAX),
            Some(EncodeError::OutOfRange)
        );
    }

    #[test]
    #[should_panic(expected = "error_len must be")]
    fn utf8_error_rejects_a_four_byte_subpart() {
        Utf8Error::new(0, Some(4));
    }

    #[test]
    fn utf8_error_converts_from_std() {
        let bytes: &[u8] = &[b'a', b'b', 0xF0, 0x90];
        let std_err = core::str::from_utf8(std::hint::black_box(bytes)).unwrap_err();
        let ours = Utf8Error::from(std_err);
        assert_eq!((ours.valid_up_to(), ours.error_len()), (2, None));
    }
}
