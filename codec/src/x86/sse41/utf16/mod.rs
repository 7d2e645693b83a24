//! The SSE4.1 kernel's UTF-16 conversions ([`decode`]: UTF-8 → UTF-16,
//! strict in one pass and of well-formed text; [`lossy`]: UTF-8 → UTF-16
//! with one U+FFFD per maximal subpart, in one pass; [`encode`]: UTF-16 →
//! UTF-8, strict and lossy): the AVX2 kernel's design
//! ([`crate::x86::avx2::utf16`]) on 16-byte registers, with
//! [`Sse41`](super::Sse41)'s validator and the shared drivers
//! ([`crate::x86::utf16`]).
//!
//! The scalar loops ([`crate::utf16::scalar`]) and the validator take
//! what the blocks here leave: where strict decoding stops (an error, or
//! the last bytes) and, encoding, the last units and the blocks that hold
//! a lone surrogate.
//!
//! Every function here is `#[target_feature(enable =
//! "sse4.1,ssse3,popcnt")]` (or a subset); the kernel table calls them
//! only after `Sse41::available` said the CPU has those features.

mod decode;
mod encode;
mod lossy;

use crate::utf16::Utf16Kernel;

/// The conversions, as associated functions (`Utf16Sse41::decode`,
/// `decode_valid`, `decode_lossy`, `encode`, `encode_lossy`).
pub(crate) struct Utf16Sse41;

/// The SSE4.1 kernel's UTF-16 table.
pub(crate) static SSE41: Utf16Kernel = Utf16Kernel {
    decode: Some(Utf16Sse41::decode),
    decode_valid: Utf16Sse41::decode_valid,
    decode_lossy: Some(Utf16Sse41::decode_lossy),
    encode: Utf16Sse41::encode,
    encode_lossy: Utf16Sse41::encode_lossy,
};
