//! The properties the fuzz targets check, one public function each, and a
//! `_with` form of each that takes any decoders: yours included.
//!
//! Each function takes an input of any length and returns quietly when every
//! decoder it involves agrees with [`crate::reference`]; on a real divergence
//! it panics with a message naming the decoder (and the API of it that was
//! called), the field and its conformance level, and the input in hex. A
//! panic is how libFuzzer learns that an input is a finding, so the fuzz
//! targets in `fuzz/` are one-line wrappers and the same functions serve
//! tests and `utf8conform diff` on stable Rust.
//!
//! | function | levels | what it holds to the reference |
//! |---|---|---|
//! | [`differential`](fn@differential), [`differential_with`] | V P S | every decoder, on every strict field it claims |
//! | [`lossy`], [`lossy_with`] | R | every decoder's lossy output, one U+FFFD per maximal subpart; [`lossy`] also every codec kernel's own methods against std |
//! | [`chunking`](fn@chunking), [`chunking_with`] | C (U) | every streaming decoder, call by call, over any split; [`chunking`](fn@chunking) also the codec's decoder reused for several runs |
//! | [`encode`], [`encode_with`] | E | every encoder on scalars and non-scalars |
//! | [`roundtrip`] | V E | decode ∘ encode and encode ∘ decode are the identity (codec, reference) |
//! | [`utf16`](fn@utf16) | V P S R C E | the codec's UTF-8 ↔ UTF-16 conversions (and each kernel's) against std, encoding_rs and simdutf |
//! | [`structured`] | V P S R C | the above on a [`Structured`](crate::generate::Structured) input, chunked at its piece edges |
//!
//! A decoder is checked through its fast paths where it has them
//! (`fast`), so that a fuzzer runs hundreds of thousands of inputs a
//! second; anything it claims that no fast path answers is checked
//! through [`Decoder::decode`](crate::decoder::Decoder::decode).
//!
//! Layout: `expected` (the reference's answer, in reused buffers),
//! `finding` (what differs, and the panic message), `fast` (one decoder
//! against the expectation), then one file per kind of property, and
//! `kernels` (each codec kernel through its own methods).

mod chunking;
mod decoding;
mod encoding;
mod expected;
mod fast;
mod finding;
mod kernels;
mod utf16;

pub use chunking::{chunking, chunking_with};
pub use decoding::{differential, differential_with, lossy, lossy_with, structured};
pub use encoding::{encode, encode_with, roundtrip, scalars_from};
pub use utf16::utf16;

/// Splits a fuzzer's input into split points and the bytes to decode, so a
/// fuzzer steers both. The first byte `h` says how to split:
///
/// * `h ≥ 0x80`: every `(h & 0x7F) + 1` bytes (0x80: one byte at a time);
/// * otherwise `h & 0x0F` split points follow, two bytes each (little
///   endian, taken modulo the payload's length + 1).
///
/// The rest is the payload.
///
/// ```
/// use utf8conform::properties::split_plan;
/// assert_eq!(split_plan(b"\x81abcde"), (&b"abcde"[..], vec![2, 4]));
/// assert_eq!(split_plan(b"\x01\x03\x00xyz"), (&b"xyz"[..], vec![3]));
/// assert_eq!(split_plan(b""), (&b""[..], vec![]));
/// ```
pub fn split_plan(data: &[u8]) -> (&[u8], Vec<usize>) {
    let Some((&h, rest)) = data.split_first() else {
        return (data, Vec::new());
    };
    if h >= 0x80 {
        let stride = usize::from(h & 0x7F) + 1;
        let splits = (stride..rest.len()).step_by(stride).collect();
        return (rest, splits);
    }
    let count = usize::from(h & 0x0F).min(rest.len() / 2);
    let (points, payload) = rest.split_at(2 * count);
    let splits = points
        .chunks_exact(2)
        .map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (payload.len() + 1))
        .collect();
    (payload, splits)
}

#[cfg(test)]
mod tests;
