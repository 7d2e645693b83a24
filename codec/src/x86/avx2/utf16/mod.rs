//! The AVX2 kernel's UTF-16 conversions ([`decode`]: well-formed UTF-8 →
//! UTF-16; [`encode`]: UTF-16 → UTF-8, strict and lossy), on 32-byte
//! registers and [`Avx2`](super::Avx2)'s decoding and encoding steps.
//!
//! Strict UTF-8 → UTF-16 is the kernel's validator, then
//! [`decode_valid`](Utf16Avx2::decode_valid) on the well-formed prefix;
//! lossy decoding goes through the engine, which calls it for each
//! well-formed run. The scalar loops ([`crate::utf16::scalar`]) take what
//! the blocks here leave: an input's last bytes or units, and (encoding)
//! the blocks that hold a surrogate.
//!
//! Every function here is `#[target_feature(enable = "avx2,popcnt")]`; the
//! kernel table calls them only after `Avx2::available` said the CPU has
//! those features.

mod decode;
mod encode;

use crate::utf16::Utf16Kernel;

/// The conversions, as associated functions (`Utf16Avx2::decode_valid`,
/// `encode`, `encode_lossy`).
pub(crate) struct Utf16Avx2;

/// The AVX2 kernel's UTF-16 table.
pub(crate) static AVX2: Utf16Kernel = Utf16Kernel {
    decode: None,
    decode_valid: Utf16Avx2::decode_valid,
    decode_lossy: None,
    encode: Utf16Avx2::encode,
    encode_lossy: Utf16Avx2::encode_lossy,
};
