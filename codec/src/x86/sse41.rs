//! The SSE4.1 kernel (16-byte registers, SSSE3 shuffles and SSE4.1 `ptest`):
//! SIMD validation, decoding by [`super::shuffle`]'s loop (blocks of 64
//! bytes as four fixed groups of 16), encoding 8 values at a time
//! ([`encode`]). Its UTF-16 conversions, both ways in SIMD, are in
//! [`utf16`].

mod encode;
pub(crate) mod utf16;

use super::{fused_decoder, incomplete_max, tail_words, validator, Isa};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Block width in bytes.
const N: usize = 16;
/// Per position, the largest byte that leaves no character open past the block.
const INCOMPLETE_MAX: [u8; N] = incomplete_max::<N>();
/// A register.
type V = __m128i;

/// The SSE4.1 kernel, as associated functions: the vector operations the
/// shared code ([`validator!`], [`fused_decoder!`]) is written in, what
/// those macros expand to (`Sse41::validate`, `Sse41::decode`, …), and the
/// kernel's own (`Sse41::available`, `Sse41::encode`).
pub(crate) struct Sse41;

impl Isa for Sse41 {
    type V = V;
    type Mask = u16;
}

impl Sse41 {
    /// Whether this CPU can run the kernel (`popcnt` counts the characters of
    /// a decoding step; every CPU with SSE4.1 but a few early ones has it).
    pub(crate) fn available() -> bool {
        is_x86_feature_detected!("ssse3")
            && is_x86_feature_detected!("sse4.1")
            && is_x86_feature_detected!("popcnt")
    }
}

/// The operations (see [`Isa`]), on 16-byte registers.
impl Sse41 {
    /// Block width in bytes.
    const N: usize = N;

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn load(block: &[u8; N]) -> V {
        // SAFETY: `block` is 16 readable bytes, the width of the load; `loadu`
        // has no alignment requirement.
        unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn load_tail(tail: &[u8]) -> V {
        debug_assert!(tail.len() < N);
        // Zero-padded, as a load of a padded copy would be, without the copy.
        let [lo, hi] = tail_words(tail);
        _mm_set_epi64x(hi as i64, lo as i64)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn zero() -> V {
        _mm_setzero_si128()
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn splat(byte: u8) -> V {
        _mm_set1_epi8(byte as i8)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn is_ascii(v: V) -> bool {
        _mm_movemask_epi8(v) == 0
    }

    /// The input shifted by 1, 2 and 3 bytes, the gap filled from `prev`.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn prevs(input: V, prev: V) -> (V, V, V) {
        (
            _mm_alignr_epi8::<15>(input, prev),
            _mm_alignr_epi8::<14>(input, prev),
            _mm_alignr_epi8::<13>(input, prev),
        )
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn high_nibbles(v: V) -> V {
        _mm_and_si128(_mm_srli_epi16::<4>(v), Self::splat(0x0F))
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn low_nibbles(v: V) -> V {
        _mm_and_si128(v, Self::splat(0x0F))
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn lookup(table: &[u8; N], nibbles: V) -> V {
        _mm_shuffle_epi8(Self::load(table), nibbles)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn and3(a: V, b: V, c: V) -> V {
        _mm_and_si128(_mm_and_si128(a, b), c)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn or(a: V, b: V) -> V {
        _mm_or_si128(a, b)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn xor(a: V, b: V) -> V {
        _mm_xor_si128(a, b)
    }

    /// 0x80 where the byte must be a 3rd or 4th byte. Saturating subtraction
    /// leaves bit 7 set exactly when 2 back ≥ 0xE0 (0xE0 − 0x60 = 0x80) or 3
    /// back ≥ 0xF0 (0xF0 − 0x70 = 0x80).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn must23(prev2: V, prev3: V) -> V {
        let third = _mm_subs_epu8(prev2, Self::splat(0x60));
        let fourth = _mm_subs_epu8(prev3, Self::splat(0x70));
        _mm_and_si128(_mm_or_si128(third, fourth), Self::splat(0x80))
    }

    /// The index of the first non-zero byte, if any.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn first(v: V) -> Option<usize> {
        let clear = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u32;
        (clear != 0xFFFF).then(|| (!clear).trailing_zeros() as usize)
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn any(v: V) -> bool {
        _mm_testz_si128(v, v) == 0
    }

    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn incomplete(v: V) -> bool {
        Self::any(_mm_subs_epu8(v, Self::load(&INCOMPLETE_MAX)))
    }

    /// The bytes of `v` at 0x80 and above.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn non_ascii_mask(v: V) -> u16 {
        _mm_movemask_epi8(v) as u16
    }

    /// The bytes of `v` at `x` and above (unsigned).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn at_least_mask(v: V, x: u8) -> u16 {
        // `max(b, x) == b` is `b >= x` for unsigned bytes.
        Self::non_ascii_mask(_mm_cmpeq_epi8(_mm_max_epu8(v, Self::splat(x)), v))
    }

    /// The bytes of `v` equal to `x`.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn eq_mask(v: V, x: u8) -> u16 {
        Self::non_ascii_mask(_mm_cmpeq_epi8(v, Self::splat(x)))
    }

    /// `v` with its bytes before `at` (≤ 16) zeroed.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn keep_from(v: V, at: usize) -> V {
        let index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        // Index ≥ at, as signed bytes (both below 64).
        _mm_and_si128(
            v,
            _mm_cmpgt_epi8(index, Self::splat((at as u8).wrapping_sub(1))),
        )
    }

    /// The bytes of `block` that can start a well-formed multi-byte character
    /// (C2..=F4, RFC 3629 §4).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn multi_byte_leads(block: V) -> u16 {
        // `pcmpgtb` compares bytes as signed: `b - 0x42` (wrapping) moves
        // C2..=F4 to -128..=-78, the only bytes below -77.
        let moved = _mm_sub_epi8(block, Self::splat(0x42));
        _mm_movemask_epi8(_mm_cmpgt_epi8(Self::splat(0xB3), moved)) as u16
    }

    /// The bytes of `block` that never occur in UTF-8 and continue nothing
    /// (C0, C1, F5..=FF).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn never_leads(block: V) -> u16 {
        let c0_c1 = _mm_cmpeq_epi8(_mm_and_si128(block, Self::splat(0xFE)), Self::splat(0xC0));
        // `max(b, F5) == b` is `b >= F5` for unsigned bytes.
        let f5_ff = _mm_cmpeq_epi8(_mm_max_epu8(block, Self::splat(0xF5)), block);
        _mm_movemask_epi8(_mm_or_si128(c0_c1, f5_ff)) as u16
    }

    /// `window16` takes characters of every length
    /// ([`super::shuffle::window16_all`]).
    const ALL_LENGTHS: bool = true;

    /// A block is four groups at fixed places, [`bmp16`](Self::bmp16) or
    /// (with 4-byte characters) [`window16`](Self::window16): with a
    /// choice per 16 bytes between widening ASCII, fixed 3-byte shuffles,
    /// `bmp16` and table steps, each step's start waited on the one
    /// before, and the choice was mispredicted on Latin text.
    const FIXED_GROUPS: bool = true;

    /// No decoder of the last bytes (less than a block) in the block's steps:
    /// they take the scalar loop (returns false, "not taken"). The AVX2
    /// kernel's needs `window16`.
    #[inline(always)]
    fn decode_tail(_: &[u8; 64], _: usize, _: &mut Vec<u32>) -> bool {
        false
    }

    /// 64 ASCII bytes to 64 code points, 16 bytes at a time, as the step loop
    /// widens its ASCII runs.
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn widen64(block: &[u8; 64], lanes: &mut [MaybeUninit<u32>; 64]) {
        for (sixteen, lanes) in block.chunks_exact(N).zip(lanes.chunks_exact_mut(N)) {
            super::shuffle::widen16(
                Self::load(sixteen.try_into().expect("N bytes")),
                lanes.try_into().expect("N lanes"),
            );
        }
    }

    /// A 64-byte block's non-ASCII bytes, character starts (every byte but a
    /// continuation, 0x80..=0xBF: as signed bytes, those are ≤ −65) and leads
    /// of 4-byte characters (0xF0..=0xFF: as signed bytes, > −17 and not
    /// ASCII).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn masks(block: &[u8; 64]) -> (u64, u64, u64) {
        let (mut non_ascii, mut starts, mut four) = (0, 0, 0);
        for (q, quarter) in block.chunks_exact(N).enumerate() {
            let v = Self::load(quarter.try_into().expect("N bytes"));
            let bits = |v: V| _mm_movemask_epi8(v) as u16 as u64;
            let above = |floor: i8| bits(_mm_cmpgt_epi8(v, _mm_set1_epi8(floor)));
            non_ascii |= bits(v) << (16 * q);
            starts |= above(-65) << (16 * q);
            four |= above(-17) << (16 * q);
        }
        (non_ascii, starts, four & non_ascii)
    }

    /// The characters that start in 16 bytes of 1- to 3-byte characters:
    /// [`shuffle::bmp16`](super::shuffle::bmp16).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn bmp16(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
        super::shuffle::bmp16(bytes, starts, lanes)
    }

    /// The characters that start in 16 bytes, of any length:
    /// [`shuffle::window16_all`](super::shuffle::window16_all).
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn window16(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
        super::shuffle::window16_all(bytes, starts, lanes)
    }
}

validator!(Sse41, "ssse3,sse4.1");
fused_decoder!(Sse41, "ssse3,sse4.1,popcnt");
