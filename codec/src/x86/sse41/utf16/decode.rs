//! UTF-8 → UTF-16 for the SSE4.1 kernel: strict (checked as it goes), and
//! of well-formed text.
//!
//! 16 bytes a step: an ASCII step is widened to 16 code units (32 bytes
//! an iteration while ASCII lasts); any other, with the 3 bytes after it
//! (where the continuations of a character that starts near the end
//! are), decodes the characters that start in it (a continuation byte
//! starts nothing) by the widest kind it holds:
//!
//! * 3-byte characters only (CJK text): they start every third byte from
//!   the first start, and two fixed shuffles moved on by that start
//!   gather them, no table;
//! * no 4-byte lead (the BMP): each byte gets, in a 16-bit word, the value
//!   of the character it would start, and a `pshufb` per 8 bytes packs the
//!   words of the starts ([`bmp16_words`], as the UTF-32 decoder's
//!   `bmp16`);
//! * otherwise each character that starts there is decoded on its own
//!   (four bytes at most from its lead, all in the step's window), a
//!   supplementary one as its surrogate pair.
//!
//! A step's place in the output does not depend on how the one before
//! was decoded, only on its start count. Strict decoding checks each step
//! first, with the validator's block check; the last bytes of well-formed
//! text (fewer than a step) are copied to a zero-padded buffer and decoded
//! as one step, the padding's zeros masked off the starts.

use super::super::super::pack::SPREAD;
use super::super::super::shuffle::{bmp16_words, gather, scalars, WORDS};
use super::super::super::utf16::{load16, store8, utf16_decoder};
use super::super::Sse41;
use super::Utf16Sse41;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Bytes a step decodes the characters of; it reads 3 more.
const STEP: usize = 16;
/// Code units a step may store at its cursor: 16 at most (17 where it
/// writes them one by one: fifteen ASCII bytes and a 4-byte lead).
const ROOM: usize = 24;

/// Stores 16 ASCII bytes as 16 code units at the start of `dst`.
#[target_feature(enable = "sse4.1")]
#[inline]
fn widen(dst: &mut [MaybeUninit<u16>], v: __m128i) {
    store8(dst, _mm_cvtepu8_epi16(v));
    store8(&mut dst[8..], _mm_unpackhi_epi8(v, _mm_setzero_si128()));
}

/// Bit `i`: byte `i` of `v` is above `floor` as a signed byte.
#[target_feature(enable = "sse4.1")]
#[inline]
fn above(v: __m128i, floor: i8) -> u16 {
    _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(floor))) as u16
}

impl Utf16Sse41 {
    utf16_decoder!(Sse41, "sse4.1,ssse3,popcnt", STEP);

    /// Widens the ASCII step `v` (the first of `bytes`) and the ASCII
    /// after it, two steps an iteration while it lasts (one test for
    /// both), into `dst`; returns how many bytes.
    #[target_feature(enable = "sse4.1")]
    #[inline]
    fn widen_ascii(bytes: &[u8], v: __m128i, dst: &mut [MaybeUninit<u16>]) -> usize {
        widen(dst, v);
        let mut at = STEP;
        while let Some(run) = bytes.get(at..at + 2 * STEP) {
            let pair = [load16(run, 0), load16(run, STEP)];
            if _mm_movemask_epi8(_mm_or_si128(pair[0], pair[1])) != 0 {
                break;
            }
            for v in pair {
                widen(&mut dst[at..], v);
                at += STEP;
            }
        }
        at
    }

    /// Decodes the characters that start in `rest` (well-formed text's
    /// last bytes, fewer than a step, from wherever the steps stopped: its
    /// first bytes may continue a character already decoded) into `dst`;
    /// returns how many code units that is.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn tail(rest: &[u8], dst: &mut [MaybeUninit<u16>]) -> usize {
        debug_assert!(rest.len() < STEP);
        if rest.is_empty() {
            return 0;
        }
        let mut padded = [0u8; STEP + 3];
        padded[..rest.len()].copy_from_slice(rest);
        // The padding's zeros are ASCII characters after the real ones
        // (which end within `rest`): one unit each, last, not counted.
        Self::decode_step(&padded, load16(&padded, 0), dst) - (STEP - rest.len())
    }

    /// Decodes the characters that start in the first 16 bytes of
    /// `window` (`v`, loaded; the 3 bytes after them hold the
    /// continuations of those that start near the end) into the front of
    /// `dst` (and garbage after them); returns how many code units that is.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn decode_step(window: &[u8; STEP + 3], v: __m128i, dst: &mut [MaybeUninit<u16>]) -> usize {
        let dst: &mut [MaybeUninit<u16>; ROOM] =
            (&mut dst[..ROOM]).try_into().expect("a step's room");
        let non_ascii = _mm_movemask_epi8(v) as u16;
        // As signed bytes, a continuation is ≤ −65, a 3-byte lead
        // (0xE0..=0xEF) > −33 and a 4-byte lead (0xF0..) > −17, both
        // negative.
        let starts = above(v, -65);
        let four = above(v, -17) & non_ascii;
        if non_ascii == 0 {
            widen(dst, v);
            return starts.count_ones() as usize;
        }
        if four != 0 {
            return Self::with_pairs(window, starts, dst);
        }
        let three = above(v, -33) & non_ascii;
        if starts & !three == 0 {
            Self::threes(window, starts, dst);
        } else {
            let [low, high] = bmp16_words(window, starts);
            store8(dst, low);
            store8(&mut dst[(starts as u8).count_ones() as usize..], high);
        }
        starts.count_ones() as usize
    }

    /// [`decode_step`](Self::decode_step) of 3-byte characters only (CJK text): they
    /// start at every third byte from the first start (its bytes before
    /// are continuations, at most 2), 5 or 6 of them (none if the step is
    /// all continuations), and each becomes a 16-bit unit by a fixed
    /// shuffle (the lead's 4 payload bits and the continuations' 6, RFC
    /// 3629 §3) moved on by the first start: no table.
    #[target_feature(enable = "sse4.1,ssse3")]
    #[inline]
    fn threes(window: &[u8; STEP + 3], starts: u16, dst: &mut [MaybeUninit<u16>; ROOM]) {
        let phase = (starts.trailing_zeros() as i8).min(3);
        let z = -128;
        // Per 32-bit lane, a character's last byte lowest, its lead third,
        // then a zero (a control byte with its top bit set, which adding
        // the phase keeps): characters 0–3 from the step's first 16 bytes,
        // 4 and 5 from 16 bytes at 3 (12 bytes on, less 3).
        let moved = |control: __m128i| _mm_add_epi8(control, _mm_set1_epi8(phase));
        let first = moved(_mm_setr_epi8(
            2, 1, 0, z, 5, 4, 3, z, 8, 7, 6, z, 11, 10, 9, z,
        ));
        let second = moved(_mm_setr_epi8(
            11, 10, 9, z, 14, 13, 12, z, z, z, z, z, z, z, z, z,
        ));
        let value = |x: __m128i| {
            let bits = _mm_and_si128(x, _mm_set1_epi32(0x000F_3F3F));
            // b2 + 64·b1 and b0, then + 4096·b0.
            let pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
            _mm_madd_epi16(pairs, _mm_set1_epi32(0x1000_0001))
        };
        let a = value(_mm_shuffle_epi8(load16(window, 0), first));
        let b = value(_mm_shuffle_epi8(load16(window, 3), second));
        // Each lane below 0x10000: the pack is exact, and in order.
        store8(dst, _mm_packus_epi32(a, b));
    }

    /// [`decode_step`](Self::decode_step) with 4-byte characters: the
    /// UTF-32 decoder's table steps ([`gather`]: up to four characters a
    /// step, each in a 32-bit lane), a supplementary one then made its
    /// surrogate pair (Unicode §3.9, D91) in its lane, and the units
    /// packed by a [`WORDS`] control; returns the count.
    ///
    /// The steps read the start bits past the window's 16 bytes only for
    /// the end of the last character that starts in them, which its lead
    /// gives: where strict input is cut short or wrong after the step, the
    /// steps still end there, a 4-byte lead having written two units (the
    /// driver takes them back).
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn with_pairs(
        window: &[u8; STEP + 3],
        starts: u16,
        dst: &mut [MaybeUninit<u16>; ROOM],
    ) -> usize {
        let s32 = |x: u32| _mm_set1_epi32(x as i32);
        let last = 15 - starts.leading_zeros() as usize;
        let length = (window[last].leading_ones() as usize).clamp(1, 4);
        let bounds = u32::from(starts) | 1 << (last + length);
        // The window from byte 0, and from byte 3 (its last 16 bytes),
        // for the steps from byte 4 on.
        let (low, high) = (load16(window, 0), load16(window, 3));
        let mut pos = starts.trailing_zeros() as usize;
        let mut written = 0;
        while pos < STEP {
            let key = (bounds >> (pos + 1)) as usize & 0xFFF;
            let (gathered, counts) = if pos < 4 {
                gather(low, key, pos as u8)
            } else {
                gather(high, key, (pos - 3) as u8)
            };
            let values = scalars(gathered);
            // U' = U − 0x10000: high surrogate 0xD800 + (U' >> 10) in the
            // low word, low surrogate 0xDC00 + (U' & 0x3FF) in the high
            // one, so that the pair is in memory order.
            let u = _mm_sub_epi32(values, s32(0x1_0000));
            let pair = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_epi32::<10>(u), s32(0x3FF)),
                    s32(0xD800),
                ),
                _mm_slli_epi32::<16>(_mm_or_si128(_mm_and_si128(u, s32(0x3FF)), s32(0xDC00))),
            );
            // 4-byte characters: the lanes whose lead (top byte) is
            // 0xF0.., negative.
            let four = _mm_srai_epi32::<31>(gathered);
            let units = _mm_blendv_epi8(values, pair, four);
            let chars = (1u8 << (counts >> 4)) - 1;
            let pairs = _mm_movemask_ps(_mm_castsi128_ps(four)) as u8 & chars;
            // Word 2i: lane i's unit; word 2i + 1: its low surrogate, if a
            // pair.
            let key = SPREAD[usize::from(chars)] | SPREAD[usize::from(pairs)] << 1;
            // SAFETY: a `WORDS` row is 16 aligned, readable bytes.
            let control =
                unsafe { _mm_load_si128(WORDS[usize::from(key)].shuffle.as_ptr().cast()) };
            store8(&mut dst[written..], _mm_shuffle_epi8(units, control));
            written += key.count_ones() as usize;
            pos += usize::from(counts & 0x0F);
        }
        written
    }
}
