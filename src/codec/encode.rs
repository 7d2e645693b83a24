//! Encoding scalar values as UTF-8 (RFC 3629 §3's table), refusing
//! surrogates and values above U+10FFFF.

use crate::outcome::EncodeError;
use std::fmt;

/// The UTF-8 form of one scalar value: up to four bytes, stored inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    bytes: [u8; 4],
    len: u8,
}

impl Encoded {
    /// The 1 to 4 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Encodes one scalar value.
///
/// ```
/// use utf8conform::{codec, outcome::EncodeError};
/// assert_eq!(codec::encode_scalar(0x20AC).unwrap().as_bytes(), b"\xE2\x82\xAC");
/// assert_eq!(codec::encode_scalar(0xDC00), Err(EncodeError::Surrogate));
/// ```
#[inline]
pub fn encode_scalar(scalar: u32) -> Result<Encoded, EncodeError> {
    let tail = |shift: u32| 0x80 | ((scalar >> shift) & 0x3F) as u8;
    let (bytes, len) = match scalar {
        0..=0x7F => ([scalar as u8, 0, 0, 0], 1),
        0x80..=0x7FF => ([0xC0 | (scalar >> 6) as u8, tail(0), 0, 0], 2),
        0xD800..=0xDFFF => return Err(EncodeError::Surrogate),
        0x800..=0xFFFF => ([0xE0 | (scalar >> 12) as u8, tail(6), tail(0), 0], 3),
        0x1_0000..=0x10_FFFF => ([0xF0 | (scalar >> 18) as u8, tail(12), tail(6), tail(0)], 4),
        _ => return Err(EncodeError::OutOfRange),
    };
    Ok(Encoded { bytes, len })
}

/// An encode of many scalars failed at `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeFailure {
    /// Position of the offending value in the input slice.
    pub index: usize,
    /// Why it cannot be encoded.
    pub error: EncodeError,
}

impl fmt::Display for EncodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "value at index {}: {}", self.index, self.error)
    }
}

impl std::error::Error for EncodeFailure {}

/// Encodes UTF-32 as UTF-8; fails at the first value that is not a scalar.
///
/// ```
/// use utf8conform::codec;
/// assert_eq!(codec::encode_utf32(&[0x41, 0x10FFFF]).unwrap(), b"A\xF4\x8F\xBF\xBF");
/// assert_eq!(codec::encode_utf32(&[0x41, 0x110000]).unwrap_err().index, 1);
/// ```
#[inline(always)] // see "Inlined entry points" in the codec module docs
pub fn encode_utf32(scalars: &[u32]) -> Result<Vec<u8>, EncodeFailure> {
    super::active().encode_utf32(scalars)
}

/// The scalar encoder: appends the UTF-8 form of `scalars` to `out`, or
/// fails at the first value that is not a scalar (what was encoded before it
/// stays in `out`). Runs of ASCII go eight values per test.
#[inline]
pub(crate) fn encode_scalars(scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
    out.reserve(scalars.len());
    let mut at = 0;
    while at < scalars.len() {
        while let Some(eight) = scalars.get(at..at + 8) {
            if eight.iter().fold(0, |acc, &s| acc | s) >= 0x80 {
                break;
            }
            out.extend(eight.iter().map(|&s| s as u8));
            at += 8;
        }
        let Some(&scalar) = scalars.get(at) else {
            break;
        };
        if scalar < 0x80 {
            out.push(scalar as u8);
        } else {
            match encode_scalar(scalar) {
                Ok(encoded) => out.extend_from_slice(encoded.as_bytes()),
                Err(error) => return Err(EncodeFailure { index: at, error }),
            }
        }
        at += 1;
    }
    Ok(())
}
