//! Lossy UTF-8 → UTF-16 for the AVX2 kernel, in one pass, on 32-byte
//! steps and the strict decoder's groups: the loop is
//! [`utf16_lossy_decoder!`]'s; here are the steps it calls.

use super::decode::{copy, room, Masks, STEP};
use super::Utf16Avx2;
use crate::x86::avx2::Avx2;
use crate::x86::utf16_lossy::utf16_lossy_decoder;
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

impl Utf16Avx2 {
    utf16_lossy_decoder!(Avx2, "avx2,popcnt", __m256i, u32);

    /// Stores the 32 bytes of `v` (ASCII and stray bytes) as 32 code
    /// units at the start of `dst`, each stray byte (0x80 and above) a
    /// U+FFFD.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn widen_strays(v: __m256i, dst: &mut [MaybeUninit<u16>; STEP]) {
        let fffd = _mm256_set1_epi16(REPLACEMENT as u16 as i16);
        for (k, half) in [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)]
            .into_iter()
            .enumerate()
        {
            let units = _mm256_cvtepu8_epi16(half);
            let strays = _mm256_cmpgt_epi16(units, _mm256_set1_epi16(0x7F));
            let units = _mm256_blendv_epi8(units, fffd, strays);
            // SAFETY: `dst[16k..16k + 16]` is 16 writable units, 32 bytes,
            // the store's width; `storeu` has no alignment requirement.
            unsafe { _mm256_storeu_si256(dst[16 * k..].as_mut_ptr().cast(), units) }
        }
    }

    /// The characters `starts` marks in the step `v` that failed its
    /// check (`non_ascii` its non-ASCII bytes), each `bad` start one
    /// U+FFFD: the groups' lossy copy, out of line.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn flagged_step(
        window: &[u8; STEP + 3],
        v: __m256i,
        non_ascii: u32,
        starts: u32,
        bad: u32,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let masks = Masks {
            starts,
            ..Masks::of(v, non_ascii)
        };
        Self::decode_step(window, masks, bad, dst)
    }

    /// Decodes the step `v` that passed its check (`non_ascii` its
    /// non-ASCII bytes), as the strict loop does: without 4-byte
    /// characters by [`bmp32`](Utf16Avx2::bmp32), with them by the groups'
    /// lossy copy, no subpart (the strict copy, with a third caller, was no
    /// longer inlined into the strict loops).
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn clean_step(
        window: &[u8; STEP + 3],
        v: __m256i,
        non_ascii: u32,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let masks = Masks::of(v, non_ascii);
        let Masks { starts, three, .. } = masks;
        if masks.four == 0 {
            // 1- to 3-byte characters, as the strict loop decodes them.
            let to: &mut [MaybeUninit<u16>; STEP] =
                (&mut dst[..STEP]).try_into().expect("32 units");
            let bytes = window[..STEP + 2].try_into().expect("34 bytes");
            return Self::bmp32(bytes, starts, to);
        }
        let mut written = 0;
        for h in 0..2 {
            let group = Masks {
                non_ascii: (non_ascii >> (16 * h)) as u16,
                starts: (starts >> (16 * h)) as u16,
                three: (three >> (16 * h)) as u16,
                four: (masks.four >> (16 * h)) as u16,
            };
            written += Self::group_at::<true, { copy::LOSSY_PASSED }>(
                window,
                16 * h,
                group,
                0,
                room(&mut dst[written..]),
            );
        }
        written
    }

    /// Stores the 32 ASCII bytes of `v` as 32 code units at the start of
    /// `dst`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn widen(v: __m256i, dst: &mut [MaybeUninit<u16>; STEP]) {
        for (k, half) in [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)]
            .into_iter()
            .enumerate()
        {
            // SAFETY: `dst[16k..16k + 16]` is 16 writable units, 32 bytes,
            // the store's width; `storeu` has no alignment requirement.
            unsafe {
                _mm256_storeu_si256(
                    dst[16 * k..].as_mut_ptr().cast(),
                    _mm256_cvtepu8_epi16(half),
                )
            }
        }
    }
}
