//! The AVX2 kernel (32-byte registers): SIMD validation, decoding of
//! well-formed text by [`super::shuffle`]'s table of byte shuffles; encoding
//! uses the scalar loop, compiled with AVX2 enabled so its ASCII narrowing
//! vectorizes.

use super::{fail, incomplete_max, two_pass_decoder, validator};
use crate::codec::encode::EncodeFailure;
use crate::codec::Verdict;
use crate::outcome::Utf8Error;
use core::arch::x86_64::*;

/// Block width in bytes.
const N: usize = 32;
/// Per position, the largest byte that leaves no character open past the block.
const INCOMPLETE_MAX: [u8; N] = incomplete_max::<N>();
type V = __m256i;

/// Whether this CPU can run the kernel.
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx2")
}

#[target_feature(enable = "avx2")]
#[inline]
fn load(block: &[u8; N]) -> V {
    // SAFETY: `block` is 32 readable bytes, the width of the load; `loadu`
    // has no alignment requirement.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn load_tail(tail: &[u8]) -> V {
    let mut padded = [0u8; N];
    padded[..tail.len()].copy_from_slice(tail);
    load(&padded)
}

#[target_feature(enable = "avx2")]
#[inline]
fn zero() -> V {
    _mm256_setzero_si256()
}

#[target_feature(enable = "avx2")]
#[inline]
fn splat(byte: u8) -> V {
    _mm256_set1_epi8(byte as i8)
}

#[target_feature(enable = "avx2")]
#[inline]
fn is_ascii(v: V) -> bool {
    _mm256_movemask_epi8(v) == 0
}

/// The input shifted by 1, 2 and 3 bytes, the gap filled from `prev`.
#[target_feature(enable = "avx2")]
#[inline]
fn prevs(input: V, prev: V) -> (V, V, V) {
    // [prev high lane, input low lane]: each 16-byte lane's left neighbour.
    let left = _mm256_permute2x128_si256::<0x21>(prev, input);
    (
        _mm256_alignr_epi8::<15>(input, left),
        _mm256_alignr_epi8::<14>(input, left),
        _mm256_alignr_epi8::<13>(input, left),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn high_nibbles(v: V) -> V {
    _mm256_and_si256(_mm256_srli_epi16::<4>(v), splat(0x0F))
}

#[target_feature(enable = "avx2")]
#[inline]
fn low_nibbles(v: V) -> V {
    _mm256_and_si256(v, splat(0x0F))
}

#[target_feature(enable = "avx2")]
#[inline]
fn lookup(table: &[u8; N], nibbles: V) -> V {
    _mm256_shuffle_epi8(load(table), nibbles)
}

#[target_feature(enable = "avx2")]
#[inline]
fn and3(a: V, b: V, c: V) -> V {
    _mm256_and_si256(_mm256_and_si256(a, b), c)
}

#[target_feature(enable = "avx2")]
#[inline]
fn or(a: V, b: V) -> V {
    _mm256_or_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn xor(a: V, b: V) -> V {
    _mm256_xor_si256(a, b)
}

/// 0x80 where the byte must be a 3rd or 4th byte. Saturating subtraction
/// leaves bit 7 set exactly when 2 back ≥ 0xE0 (0xE0 − 0x60 = 0x80) or 3
/// back ≥ 0xF0 (0xF0 − 0x70 = 0x80).
#[target_feature(enable = "avx2")]
#[inline]
fn must23(prev2: V, prev3: V) -> V {
    let third = _mm256_subs_epu8(prev2, splat(0x60));
    let fourth = _mm256_subs_epu8(prev3, splat(0x70));
    _mm256_and_si256(_mm256_or_si256(third, fourth), splat(0x80))
}

/// The index of the first non-zero byte, if any.
#[target_feature(enable = "avx2")]
#[inline]
fn first(v: V) -> Option<usize> {
    let clear = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())) as u32;
    (clear != u32::MAX).then(|| (!clear).trailing_zeros() as usize)
}

#[target_feature(enable = "avx2")]
#[inline]
fn any(v: V) -> bool {
    _mm256_testz_si256(v, v) == 0
}

#[target_feature(enable = "avx2")]
#[inline]
fn incomplete(v: V) -> bool {
    any(_mm256_subs_epu8(v, load(&INCOMPLETE_MAX)))
}

validator!("avx2");
two_pass_decoder!("avx2");

/// Decodes well-formed text with [`super::shuffle`]'s steps; blocks of
/// ASCII are widened 8 bytes to a 32-byte store.
#[target_feature(enable = "avx2")]
pub(crate) fn decode_valid(text: &str, out: &mut Vec<u32>) {
    super::shuffle::decode_valid(
        text,
        out,
        |block| masks(block),
        |block, lanes| {
            for (g, eight) in block.chunks_exact(8).enumerate() {
                // SAFETY: `eight` is 8 readable bytes, the width of the load;
                // `lanes[8g..8g + 8]` is 32 writable bytes, the store's width.
                unsafe {
                    let values = _mm256_cvtepu8_epi32(_mm_loadl_epi64(eight.as_ptr().cast()));
                    _mm256_storeu_si256(lanes[8 * g..].as_mut_ptr().cast(), values);
                }
            }
        },
    );
}

/// A 64-byte block's non-ASCII bytes and character starts (every byte but
/// a continuation, 0x80..=0xBF: as signed bytes, those are ≤ −65).
#[target_feature(enable = "avx2")]
#[inline]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    let (low, high) = block.split_at(N);
    let (low, high) = (
        load(low.try_into().expect("N bytes")),
        load(high.try_into().expect("N bytes")),
    );
    let bits = |v: V| _mm256_movemask_epi8(v) as u32 as u64;
    let starts = |v: V| bits(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65)));
    (
        bits(low) | bits(high) << 32,
        starts(low) | starts(high) << 32,
    )
}

/// The scalar encoder, compiled with AVX2.
#[target_feature(enable = "avx2")]
pub(crate) fn encode(scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
    crate::codec::encode::encode_scalars(scalars, out)
}
