//! The AVX2 kernel's UTF-16 conversions ([`decode`]: UTF-8 → UTF-16,
//! strict in one pass and of well-formed text; [`lossy`]: UTF-8 → UTF-16
//! with one U+FFFD per maximal subpart, in one pass; [`encode`]: UTF-16 →
//! UTF-8, strict and lossy), on 32-byte registers and
//! [`Avx2`](super::Avx2)'s validator, decoding and encoding steps.
//!
//! The scalar loops ([`crate::utf16::scalar`]) and the validator take
//! what the blocks here leave: where strict decoding stops (an error, or
//! the last bytes) and, encoding, the last units and the blocks that hold
//! a lone surrogate.
//!
//! Every function here is `#[target_feature(enable = "avx2,popcnt")]`; the
//! kernel table calls them only after `Avx2::available` said the CPU has
//! those features.

mod decode;
mod encode;
mod lossy;

use crate::utf16::Utf16Kernel;

/// The conversions, as associated functions (`Utf16Avx2::decode`,
/// `decode_valid`, `decode_lossy`, `encode`, `encode_lossy`).
pub(crate) struct Utf16Avx2;

/// The AVX2 kernel's UTF-16 table.
pub(crate) static AVX2: Utf16Kernel = Utf16Kernel {
    decode: Some(Utf16Avx2::decode),
    decode_valid: Utf16Avx2::decode_valid,
    decode_lossy: Some(Utf16Avx2::decode_lossy),
    encode: Utf16Avx2::encode,
    encode_lossy: Utf16Avx2::encode_lossy,
};
