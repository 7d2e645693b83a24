//! Lossy UTF-8 → UTF-16 for the SSE4.1 kernel, in one pass, on 16-byte
//! steps and the strict decoder's step decoding: the loop is
//! [`utf16_lossy_decoder!`]'s; here are the steps it calls.

use super::decode::{above, copy, widen, STEP};
use super::Utf16Sse41;
use crate::x86::sse41::Sse41;
use crate::x86::utf16_lossy::utf16_lossy_decoder;
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

impl Utf16Sse41 {
    utf16_lossy_decoder!(Sse41, "sse4.1,ssse3,popcnt", __m128i, u16);

    /// Stores the 16 ASCII bytes of `v` as 16 code units at the start of
    /// `dst`.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn widen(v: __m128i, dst: &mut [MaybeUninit<u16>; STEP]) {
        widen(dst, v);
    }

    /// Stores the 16 bytes of `v` (ASCII and stray bytes) as 16 code units at
    /// the start of `dst`, each stray byte (0x80 and above) a U+FFFD.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn widen_strays(v: __m128i, dst: &mut [MaybeUninit<u16>; STEP]) {
        let fffd = _mm_set1_epi16(REPLACEMENT as u16 as i16);
        for (k, units) in [
            _mm_cvtepu8_epi16(v),
            _mm_unpackhi_epi8(v, _mm_setzero_si128()),
        ]
        .into_iter()
        .enumerate()
        {
            let strays = _mm_cmpgt_epi16(units, _mm_set1_epi16(0x7F));
            let units = _mm_blendv_epi8(units, fffd, strays);
            // SAFETY: `dst[8k..8k + 8]` is 8 writable units, 16 bytes, the
            // store's width; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(dst[8 * k..].as_mut_ptr().cast(), units) }
        }
    }

    /// The step `v` that passed its check, decoded in line, as in the
    /// strict loop (through `flagged_step` too, such steps ran slower).
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn clean_step(
        window: &[u8; STEP + 3],
        v: __m128i,
        _non_ascii: u16,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        // As signed bytes, a continuation is ≤ −65: every other byte
        // starts a character.
        Self::decode_step::<false, { copy::LOSSY_PASSED }>(window, v, above(v, -65), 0, dst)
    }

    /// [`decode_step`](Self::decode_step) of a flagged step, with its
    /// subparts, out of line (as the AVX2 kernel's lossy loop calls its
    /// groups): the steps that pass the check have their copy in line.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline(never)]
    fn flagged_step(
        window: &[u8; STEP + 3],
        v: __m128i,
        _non_ascii: u16,
        starts: u16,
        bad: u16,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        Self::decode_step::<true, { copy::LOSSY_FLAGGED }>(window, v, starts, bad, dst)
    }
}
