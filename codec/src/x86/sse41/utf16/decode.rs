//! UTF-8 → UTF-16 for the SSE4.1 kernel: strict (checked as it goes), and
//! of well-formed text; and the steps of the lossy decoder
//! ([`super::lossy`]).
//!
//! 16 bytes a step: an ASCII step is widened to 16 code units (32 bytes
//! an iteration while ASCII lasts); any other, with the 3 bytes after it
//! (where the continuations of a character that starts near the end
//! are), decodes the characters that start in it (a continuation byte
//! starts nothing) by the widest kind it holds:
//!
//! * no 4-byte lead (the BMP): each byte gets the value of the character
//!   it would start, as a low and a high byte computed on the 16 bytes at
//!   once, and a `pshufb` per 8 bytes packs the words of the starts
//!   ([`bmp16_words`](super::super::super::shuffle::bmp16_words), as the
//!   UTF-32 decoder's `bmp16`), whatever the mix of lengths: a step of
//!   fixed shuffles for 3-byte characters only, chosen per step, cost
//!   more in mispredicted branches on CJK text with spaces than it saved;
//! * otherwise each character that starts there is decoded on its own
//!   (four bytes at most from its lead, all in the step's window), a
//!   supplementary one as its surrogate pair.
//!
//! In lossy decoding, a step may hold the first bytes of maximal subparts
//! (`bad`, among the starts): each is one U+FFFD, blended into its byte's
//! 16-bit word before the words are packed, in either path.
//!
//! A step's place in the output does not depend on how the one before
//! was decoded, only on its start count. Strict decoding checks each step
//! first, with the validator's block check; the last bytes of well-formed
//! text (fewer than a step) are copied to a zero-padded buffer and decoded
//! as one step, the padding's zeros masked off the starts.

use super::super::super::pack::SPREAD_BYTE;
use super::super::super::shuffle::{bmp16_words_marked, bmp_values, byte_words, WORDS};
use super::super::super::utf16::{load16, store8, utf16_decoder};
use super::super::Sse41;
use super::Utf16Sse41;
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Bytes a step decodes the characters of; it reads 3 more.
pub(super) const STEP: usize = 16;
/// Code units a step may store at its cursor: 16 at most (17 where it
/// writes them one by one: fifteen ASCII bytes and a 4-byte lead).
const ROOM: usize = 24;

/// The callers of [`Utf16Sse41::decode_step`], each with a copy of its
/// own (its `COPY` parameter).
pub(super) mod copy {
    /// The strict loop, checked ([`decode`](super::Utf16Sse41::decode)).
    pub(in super::super) const CHECKED: u8 = 0;
    /// The strict loop of well-formed text
    /// ([`decode_valid`](super::Utf16Sse41::decode_valid)).
    pub(in super::super) const VALID: u8 = 1;
    /// The lossy loop's steps that passed the check.
    pub(in super::super) const LOSSY_PASSED: u8 = 2;
    /// The lossy loop's flagged steps, out of line.
    pub(in super::super) const LOSSY_FLAGGED: u8 = 3;
}

/// Stores 16 ASCII bytes as 16 code units at the start of `dst`.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn widen(dst: &mut [MaybeUninit<u16>], v: __m128i) {
    store8(dst, _mm_cvtepu8_epi16(v));
    store8(&mut dst[8..], _mm_unpackhi_epi8(v, _mm_setzero_si128()));
}

/// `words` (8 code units, one per byte of a half step) with U+FFFD at
/// each of the bytes `bad` marks: the first bytes of maximal subparts, in
/// lossy decoding (`SUBPARTS`; otherwise `words` as they are).
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn replaced<const SUBPARTS: bool>(words: __m128i, bad: u8) -> __m128i {
    if !SUBPARTS || bad == 0 {
        return words;
    }
    let lanes = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
    let marked = _mm_and_si128(_mm_set1_epi16(i16::from(bad)), lanes);
    _mm_blendv_epi8(
        words,
        _mm_set1_epi16(REPLACEMENT as u16 as i16),
        _mm_cmpeq_epi16(marked, lanes),
    )
}

/// Bit `i`: byte `i` of `v` is above `floor` as a signed byte.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn above(v: __m128i, floor: i8) -> u16 {
    _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(floor))) as u16
}

impl Utf16Sse41 {
    utf16_decoder!(Sse41, "sse4.1,ssse3,popcnt", STEP);

    /// A strict loop's step that is not all ASCII (`v`, the first 16
    /// bytes of `window`): [`decode_step`](Self::decode_step) of the
    /// characters that start in it (as signed bytes, a continuation is
    /// ≤ −65, and starts nothing), each loop (`CHECK`) its own copy.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn strict_step<const CHECK: bool>(
        window: &[u8; STEP + 3],
        v: __m128i,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let starts = above(v, -65);
        if CHECK {
            Self::decode_step::<false, { copy::CHECKED }>(window, v, starts, 0, dst)
        } else {
            Self::decode_step::<false, { copy::VALID }>(window, v, starts, 0, dst)
        }
    }

    /// Decodes the characters that `starts` says start in the step `v`
    /// (the first 16 bytes of `window`; the 3 after them hold the
    /// continuations of those that start near its end), by the widest
    /// kind among them, into the front of `dst` (which takes 24 units
    /// past them); returns how many code units that is. With `SUBPARTS`
    /// (lossy decoding), the starts `bad` marks are one U+FFFD each (and
    /// decide no path: an F8 among Latin text is no 4-byte lead).
    ///
    /// `COPY` says who calls it ([`copy`]), only so that each caller has
    /// its own copy, called once, which the compiler inlines: a copy
    /// called from both strict loops was not, nor what it calls (with
    /// their own copies, their machine code is what it was before the
    /// lossy loop shared this).
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    pub(super) fn decode_step<const SUBPARTS: bool, const COPY: u8>(
        window: &[u8; STEP + 3],
        v: __m128i,
        starts: u16,
        bad: u16,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let dst: &mut [MaybeUninit<u16>; ROOM] =
            (&mut dst[..ROOM]).try_into().expect("a step's room");
        let non_ascii = _mm_movemask_epi8(v) as u16;
        // As signed bytes, a 3-byte lead (0xE0..=0xEF) is > −33 and a
        // 4-byte lead (0xF0..) > −17, both negative.
        let four = above(v, -17) & non_ascii;
        if non_ascii == 0 {
            widen(dst, v);
            return starts.count_ones() as usize;
        }
        // In lossy decoding, the 4-byte leads that start characters here
        // (the starts may be cut short, before an error).
        let (four, bad) = if SUBPARTS {
            (four & starts & !bad, bad)
        } else {
            (four, 0)
        };
        if four != 0 {
            // 4-byte characters: each byte gets, in a 16-bit word, the
            // unit of the character it would start (`bmp_values`, or
            // for a 4-byte lead its high surrogate) and in a second
            // word the low surrogate a 4-byte lead there would have;
            // words interleaved, each 4 bytes' 8 words are packed by a
            // `WORDS` control (a start's first word, a 4-byte lead's
            // second too). Written here, not in a function of its own,
            // so that each copy of the step inlines it.
            //
            // With `U` = `b0 b1 b2 b3` (RFC 3629 §3) and `U' = U −
            // 0x10000`, the high surrogate `0xD800 + (U' >> 10)` is
            // `0xD7C0 + (U >> 10)`, from the payload of `b0 b1 b2`;
            // the low one, `0xDC00 + (U & 0x3FF)`, from the low 4 bits
            // of `b2` and the payload of `b3` (Unicode §3.9, D91):
            // each fits 16-bit arithmetic.
            let s16 = |w: u16| _mm_set1_epi16(w as i16);
            let fourth = load16(window, 3);
            let fourths = [
                _mm_cvtepu8_epi16(fourth),
                _mm_unpackhi_epi8(fourth, _mm_setzero_si128()),
            ];
            let mut written = 0;
            for (half, (pairs, thirds)) in byte_words(window).into_iter().enumerate() {
                let and = |v: __m128i, w: u16| _mm_and_si128(v, s16(w));
                let high = _mm_add_epi16(
                    _mm_or_si128(
                        _mm_or_si128(and(pairs, 0x0700), _mm_slli_epi16::<2>(and(pairs, 0x3F))),
                        and(_mm_srli_epi16::<4>(thirds), 0x3),
                    ),
                    s16(0xD7C0),
                );
                let low = _mm_or_si128(
                    _mm_or_si128(
                        _mm_slli_epi16::<6>(and(thirds, 0x0F)),
                        and(fourths[half], 0x3F),
                    ),
                    s16(0xDC00),
                );
                // A 4-byte lead's word is above 0xEFFF as a u16: negative and
                // above -0x1001 as an i16.
                let is_four = _mm_and_si128(
                    _mm_srai_epi16::<15>(pairs),
                    _mm_cmpgt_epi16(pairs, s16(0xEFFF)),
                );
                let units = _mm_blendv_epi8(bmp_values(pairs, thirds), high, is_four);
                let units = replaced::<SUBPARTS>(units, (bad >> (8 * half)) as u8);
                // Per byte, two bits: starts a character, is a 4-byte
                // lead; the keys of the half's two quarters.
                let byte = |mask: u16| usize::from((mask >> (8 * half)) as u8);
                let keys = SPREAD_BYTE[byte(starts)] | SPREAD_BYTE[byte(four)] << 1;
                for (q, words) in [
                    _mm_unpacklo_epi16(units, low),
                    _mm_unpackhi_epi16(units, low),
                ]
                .into_iter()
                .enumerate()
                {
                    // Word 2i: byte i's unit, if it starts a character; word
                    // 2i + 1: its low surrogate, if it is a 4-byte lead.
                    let key = usize::from((keys >> (8 * q)) as u8);
                    // SAFETY: a `WORDS` row is 16 aligned, readable bytes.
                    let control = unsafe { _mm_load_si128(WORDS[key].shuffle.as_ptr().cast()) };
                    store8(&mut dst[written..], _mm_shuffle_epi8(words, control));
                    written += key.count_ones() as usize;
                }
            }
            return written;
        }
        // With `SUBPARTS`, a U+FFFD at each subpart's start.
        let [low, high] = bmp16_words_marked::<SUBPARTS>(window, starts, bad);
        store8(dst, low);
        store8(&mut dst[(starts as u8).count_ones() as usize..], high);
        starts.count_ones() as usize
    }

    /// Widens the ASCII step `v` (the first of `bytes`) and the ASCII
    /// after it, two steps an iteration while it lasts (one test for
    /// both), into `dst`; returns how many bytes.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
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
        let mut padded = [0u8; STEP];
        padded[..rest.len()].copy_from_slice(rest);
        // One unchecked step. The padding's zeros are ASCII characters
        // after the real ones (which end within `rest`): one unit each,
        // last, not counted.
        Self::steps::<false>(&padded, dst).1 - (STEP - rest.len())
    }
}
