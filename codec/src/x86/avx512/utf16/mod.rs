//! The `avx512vbmi2` kernel's UTF-16 conversions ([`decode`]: UTF-8 →
//! UTF-16, strict and lossy in one pass; [`encode`]: UTF-16 → UTF-8), on
//! [`Avx512`](super::Avx512)'s operations and its validator's check.
//!
//! Every function here is `#[target_feature(enable =
//! "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]`; the
//! kernel table calls them only after `Avx512::available_vbmi2` said the
//! CPU has those features.

mod decode;
mod encode;

use super::V;
use crate::utf16::Utf16Kernel;
use core::arch::x86_64::_mm512_set1_epi16;

/// Every lane (16-bit) holds `x`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn splat16(x: u16) -> V {
    _mm512_set1_epi16(x as i16)
}

/// The conversions, as associated functions (`Utf16Vbmi2::decode`,
/// `decode_valid`, `decode_lossy`, `encode`, `encode_lossy`).
pub(crate) struct Utf16Vbmi2;

/// The `avx512vbmi2` kernel's UTF-16 table.
pub(crate) static VBMI2: Utf16Kernel = Utf16Kernel {
    decode: Some(Utf16Vbmi2::decode),
    decode_valid: Utf16Vbmi2::decode_valid,
    decode_lossy: Some(Utf16Vbmi2::decode_lossy),
    encode: Utf16Vbmi2::encode,
    encode_lossy: Utf16Vbmi2::encode_lossy,
};
