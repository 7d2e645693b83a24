//! Encoding scalar values as UTF-8 (RFC 3629 §3's table), refusing
//! surrogates and values above U+10FFFF.

use crate::EncodeError;
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
/// use utf8conform_codec::{self as codec, EncodeError};
/// assert_eq!(codec::encode_scalar(0x20AC).unwrap().as_bytes(), b"\xE2\x82\xAC");
/// assert_eq!(codec::encode_scalar(0xDC00), Err(EncodeError::Surrogate));
/// ```
#[inline]
pub fn encode_scalar(scalar: u32) -> Result<Encoded, EncodeError> {
    if let Some(error) = EncodeError::classify(scalar) {
        return Err(error);
    }
    let (word, len) = if scalar < 0x80 {
        (scalar, 1)
    } else {
        multibyte(scalar)
    };
    Ok(Encoded {
        bytes: word.to_le_bytes(),
        len: len as u8,
    })
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
/// use utf8conform_codec as codec;
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
///
/// A multi-byte character is written as one 4-byte word ([`multibyte`]),
/// of which the cursor then keeps its length: where appending a slice of 1
/// to 4 bytes was a length-dependent copy behind a capacity check (CJK at
/// 4 KiB: 0.46 → 1.3 GB/s). The output grows by chunks of [`CHUNK`]
/// values, reserving 4 bytes for each, so that ASCII text never holds more
/// than 4·`CHUNK` bytes of unused capacity.
#[inline]
pub(crate) fn encode_scalars(scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
    for (c, chunk) in scalars.chunks(CHUNK).enumerate() {
        out.reserve(4 * chunk.len());
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..4 * chunk.len()];
        // Invariant: `written` ≤ 4·`at`, so the 4 bytes written for value
        // `at` end by 4·(`at` + 1) ≤ `dst.len()`.
        let mut written = 0;
        let mut at = 0;
        let failure = loop {
            let Some(&scalar) = chunk.get(at) else {
                break None;
            };
            if scalar < 0x80 {
                dst[written].write(scalar as u8);
                written += 1;
                at += 1;
                // After ASCII, try runs of it eight values per test (not
                // before every character: in other scripts the test would
                // fail every time, and cost as much as the encoding).
                while let Some(eight) = chunk.get(at..at + 8) {
                    if eight.iter().fold(0, |acc, &s| acc | s) >= 0x80 {
                        break;
                    }
                    for (d, &s) in dst[written..written + 8].iter_mut().zip(eight) {
                        d.write(s as u8);
                    }
                    written += 8;
                    at += 8;
                }
                continue;
            }
            if let Some(error) = EncodeError::classify(scalar) {
                break Some(EncodeFailure {
                    index: c * CHUNK + at,
                    error,
                });
            }
            let (word, len) = multibyte(scalar);
            for (d, b) in dst[written..written + 4].iter_mut().zip(word.to_le_bytes()) {
                d.write(b);
            }
            written += len;
            at += 1;
        };
        // SAFETY: `dst[..written]` was written above (each write covers the
        // bytes the cursor then advances over), and `dst` is `out`'s spare
        // capacity from `base`.
        unsafe { out.set_len(base + written) };
        if let Some(failure) = failure {
            return Err(failure);
        }
    }
    Ok(())
}

/// The UTF-8 form of a scalar value from 0x80 to 0x10FFFF (not a
/// surrogate) as a little-endian word, first byte lowest, and its length;
/// without a branch per length, which text mixing lengths mispredicts.
///
/// The value's four 6-bit fields are spread one per byte, most significant
/// lowest; a length-`L` character keeps the last `L` of them (a right
/// shift) and gets RFC 3629 §3's marker bits (`110xxxxx 10xxxxxx`, …).
#[inline]
fn multibyte(scalar: u32) -> (u32, usize) {
    let fields =
        (scalar >> 18 | (scalar >> 4) & 0xFF00 | (scalar << 10) & 0xFF_0000 | scalar << 24)
            & 0x3F3F_3F3F;
    let len = 2 + usize::from(scalar >= 0x800) + usize::from(scalar >= 0x1_0000);
    const MARKS: [u32; 5] = [0, 0, 0x80C0, 0x80_80E0, 0x8080_80F0];
    (fields >> (8 * (4 - len)) | MARKS[len], len)
}

/// How many values [`encode_scalars`] reserves room for at a time.
const CHUNK: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// Scalars of every UTF-8 length, in a fixed order.
    fn text(len: usize) -> Vec<u32> {
        let cycle = [
            0x41, 0xE9, 0x20AC, 0x1F600, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000,
        ];
        cycle.into_iter().cycle().take(len).collect()
    }

    fn std_utf8(scalars: &[u32]) -> Vec<u8> {
        let text: String = scalars
            .iter()
            .map(|&u| char::from_u32(u).unwrap())
            .collect();
        text.into_bytes()
    }

    #[test]
    fn the_output_grows_chunk_by_chunk_and_keeps_what_came_before() {
        // The expectations are std's encoding; the point is the chunk
        // edges (a failure's index counts from the start of the input, and
        // what was encoded before it stays, after what `out` held).
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 3] {
            let input = text(len);
            let mut out = b"kept".to_vec();
            encode_scalars(&input, &mut out).unwrap();
            assert_eq!(out[..4], *b"kept");
            assert_eq!(out[4..], std_utf8(&input), "len {len}");
        }
        for at in [0, 9, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 2] {
            let mut input = text(2 * CHUNK + 3);
            input[at] = 0xDFFF;
            let mut out = Vec::new();
            let failure = encode_scalars(&input, &mut out).unwrap_err();
            assert_eq!((failure.index, failure.error), (at, EncodeError::Surrogate));
            assert_eq!(out, std_utf8(&input[..at]), "bad value at {at}");
        }
    }
}
