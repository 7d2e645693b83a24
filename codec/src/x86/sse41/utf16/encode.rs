//! UTF-16 → UTF-8 for the SSE4.1 kernel: strict and lossy.
//!
//! 16 code units a step, two registers of 16-bit lanes; while they are
//! ASCII, narrowed by a saturating pack, else each register:
//!
//! * all below 0x800 (1- and 2-byte characters): each unit becomes one
//!   16-bit word, `110xxxxx 10xxxxxx` (lead in the low byte) or the ASCII
//!   byte and a zero, packed by one `pshufb` ([`store_compact2`]);
//! * no surrogate (the rest of the BMP): each unit's bytes at the end of
//!   a 4-byte slot, 4 slots packed by a `pshufb` chosen by their lengths
//!   ([`bmp`](Utf16Sse41::bmp)), whatever the mix of lengths;
//! * surrogates, all paired within the block (a high one last waits for
//!   the next block): as the BMP, each unit's bytes in a slot, a pair's
//!   four bytes split between its two units' slots, two each
//!   ([`paired`](Utf16Sse41::paired));
//! * a lone surrogate: the scalar loop converts the block (and the units
//!   after it up to one that is not a high surrogate, so that a pair is
//!   never split between blocks: [`encode_checked`](crate::x86::utf16::encode_checked)). It is the
//!   one that reports a lone surrogate, so the error's index and the lossy
//!   U+FFFD are exactly the scalar conversion's.

use super::super::super::pack::{store16, store_compact2, store_compact_lane, TAIL3};
use super::super::super::utf16::{load16, utf16_encoder};
use super::Utf16Sse41;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Code units per block: two registers.
const BLOCK: usize = 16;
/// Code units per register.
const LANES: usize = 8;
/// Bytes a block's stores may reach past its cursor: the 48 of 16 3-byte
/// characters, the last 16-byte store starting by byte 36.
const ROOM: usize = 64;

/// Whether the last unit of `v` is a high surrogate.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn last_is_high(v: __m128i) -> bool {
    _mm_extract_epi16::<7>(v) as u16 & 0xFC00 == 0xD800
}

/// Whether every unit of `v` is below 0x80 (ASCII).
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn ascii(v: __m128i) -> bool {
    _mm_testz_si128(v, _mm_set1_epi16(-0x80)) == 1
}

impl Utf16Sse41 {
    /// The ASCII at the start of `units`, narrowed into `dst` 16 units
    /// at a time; returns how many units.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn narrow_ascii(units: &[u16], dst: &mut [MaybeUninit<u8>]) -> usize {
        let mut at = 0;
        for sixteen in units.chunks_exact(BLOCK) {
            let (a, b) = (load16(sixteen, 0), load16(sixteen, LANES));
            if !ascii(_mm_or_si128(a, b)) {
                break;
            }
            store16(&mut dst[at..], _mm_packus_epi16(a, b));
            at += BLOCK;
        }
        at
    }

    /// Converts the block at the start of `block` (16 units, two
    /// registers; `more`: units follow it) into `to`: how many units it
    /// took and bytes it wrote, or `None` if it holds a lone surrogate
    /// (the scalar loop's).
    #[inline]
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    fn encode_block(
        block: &[u16],
        more: bool,
        to: &mut [MaybeUninit<u8>; ROOM],
    ) -> Option<(usize, usize)> {
        let (a, b) = (load16(block, 0), load16(block, LANES));
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        if _mm_testz_si128(_mm_or_si128(a, b), s16(0xF800)) == 1 {
            // Below 0x800: Latin text, and ASCII (the units after an ASCII
            // step that was not all ASCII).
            let n = Self::below_800(a, to);
            return Some((BLOCK, n + Self::below_800(b, &mut to[n..])));
        }
        // A surrogate (0xD800..=0xDFFF) is 0..0x800 once 0xD800 is taken
        // off: the smaller of each two units so moved is, where either is.
        let off = |x: __m128i| _mm_sub_epi16(x, s16(0xD800));
        let nearest = _mm_min_epu16(off(a), off(b));
        let flags = _mm_cmpeq_epi16(_mm_min_epu16(nearest, s16(0x7FF)), nearest);
        if _mm_testz_si128(flags, flags) == 0 {
            return Self::paired([a, b], more, to);
        }
        let n = Self::bmp(a, to);
        Some((BLOCK, n + Self::bmp(b, &mut to[n..])))
    }

    /// 8 units, none a surrogate: their UTF-8 bytes, packed at the start
    /// of `dst`; how many there are.
    ///
    /// As the AVX2 kernel's `encode_bmp`, each unit gets a 4-byte slot
    /// whose first three bytes end with its character's bytes (RFC 3629
    /// §3: `[1110zzzz, 10yyyyyy, 10xxxxxx]`, `[_, 110yyyyy, 10xxxxxx]` or
    /// `[_, _, 0xxxxxxx]`), one formula per byte whatever the length, and
    /// each 4 slots are packed by their [`TAIL3`] row, keyed by the byte
    /// masks of `k1` and `k2`. Blocks of 3-byte characters only (CJK text)
    /// take this step too: a fixed-shuffle step of their own, chosen per
    /// block, cost more in mispredicted branches on CJK with spaces than
    /// it saved.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    pub(in crate::x86::sse41) fn bmp(x: __m128i, dst: &mut [MaybeUninit<u8>]) -> usize {
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        // All-ones where x ≥ 0x80, and where x ≥ 0x800 (unsigned: the
        // maximum with the bound is x). Only each word's low byte counts
        // below.
        let k1 = _mm_cmpeq_epi16(_mm_max_epu16(x, s16(0x80)), x);
        let k2 = _mm_cmpeq_epi16(_mm_max_epu16(x, s16(0x800)), x);
        let first = _mm_or_si128(_mm_srli_epi16::<12>(x), s16(0xE0));
        // `x >> 6 | 0xC0` is `110yyyyy` below 0x800; from 0x800 bit 6 goes.
        let middle = _mm_xor_si128(
            _mm_or_si128(_mm_srli_epi16::<6>(x), s16(0xC0)),
            _mm_and_si128(k2, s16(0x40)),
        );
        // From 0x80, bit 6 goes and bit 7 comes: `10xxxxxx`.
        let last = _mm_or_si128(
            _mm_andnot_si128(_mm_and_si128(k1, s16(0x40)), x),
            _mm_and_si128(k1, s16(0x80)),
        );
        let first_two = _mm_or_si128(first, _mm_slli_epi16::<8>(middle));
        // Per word, k1 in bit 0 (its low byte's) and k2 in bit 1 (its high
        // byte's): two TAIL3 keys.
        let keys =
            (_mm_movemask_epi8(k1) as u32 & 0x5555) | (_mm_movemask_epi8(k2) as u32 & 0xAAAA);
        let mut written = 0;
        for (j, lane) in [
            _mm_unpacklo_epi16(first_two, last),
            _mm_unpackhi_epi16(first_two, last),
        ]
        .into_iter()
        .enumerate()
        {
            let key = (keys >> (8 * j) & 0xFF) as usize;
            // SAFETY: a table row is 16 readable bytes.
            let control = unsafe { _mm_loadu_si128(TAIL3.0[key].0.as_ptr().cast()) };
            store16(&mut dst[written..], _mm_shuffle_epi8(lane, control));
            written += usize::from(TAIL3.1[key]);
        }
        written
    }

    /// The UTF-8 of 8 units below 0x800, at the front of `dst`; returns
    /// its length. Each becomes a word, `110yyyyy 10xxxxxx` (RFC 3629 §3,
    /// lead in the low byte) or the ASCII byte and a zero.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    pub(in crate::x86::sse41) fn below_800(x: __m128i, dst: &mut [MaybeUninit<u8>]) -> usize {
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        let two = _mm_or_si128(
            _mm_or_si128(_mm_srli_epi16::<6>(x), s16(0xC0)),
            _mm_slli_epi16::<8>(_mm_or_si128(_mm_and_si128(x, s16(0x3F)), s16(0x80))),
        );
        let is_two = _mm_cmpgt_epi16(x, s16(0x7F));
        let words = _mm_blendv_epi8(x, two, is_two);
        // Bit i of the key: word i is 2-byte (the signed pack keeps each
        // word's flag in a byte).
        let key = _mm_movemask_epi8(_mm_packs_epi16(is_two, is_two)) as u8;
        store_compact2(dst, words, key)
    }

    /// 8 units below 0x10000 (`k2`: all-ones in the 3-byte characters,
    /// from 0x800 on but not surrogates), every surrogate half of a pair in
    /// the block, `before` holding each unit's predecessor: their UTF-8
    /// bytes, packed at the start of `dst`; how many there are. Each unit's
    /// bytes go to a 4-byte slot (`[first, second, third, 0]`), and each 4
    /// slots are packed by the [`COMPACT`](crate::x86::pack::COMPACT) row
    /// of their lengths.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn bmp_pairs(x: __m128i, before: __m128i, k2: __m128i, dst: &mut [MaybeUninit<u8>]) -> usize {
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        // All-ones where x ≥ 0x80.
        let k1 = _mm_cmpeq_epi16(_mm_max_epu16(x, s16(0x80)), x);
        // RFC 3629 §3: 2 bytes `110yyyyy 10xxxxxx`, 3 bytes `1110zzzz
        // 10yyyyyy 10xxxxxx`; each byte below fits in the low byte of its
        // word.
        let x6 = _mm_srli_epi16::<6>(x);
        let continuation = |v: __m128i| _mm_or_si128(_mm_and_si128(v, s16(0x3F)), s16(0x80));
        let lead = _mm_blendv_epi8(
            _mm_or_si128(x6, s16(0xC0)),
            _mm_or_si128(_mm_srli_epi16::<12>(x), s16(0xE0)),
            k2,
        );
        let first = _mm_blendv_epi8(x, lead, k1);
        let second = _mm_and_si128(_mm_blendv_epi8(continuation(x), continuation(x6), k2), k1);
        let third = _mm_and_si128(continuation(x), k2);
        // A pair's 4 bytes (RFC 3629 §3), 2 from each unit. With `h`,
        // `l` the surrogates' low 10 bits, the scalar value is `(h +
        // 0x40) << 10 | l`: the high unit gives `0xF0 | hp >> 8` and
        // `0x80 | (hp >> 2 & 0x3F)` (hp = h + 0x40); the low one
        // `0x80 | (h & 3) << 4 | l >> 6` (its high unit is the one
        // before) and `0x80 | (l & 0x3F)`.
        let tagged = |tag: u16| _mm_cmpeq_epi16(_mm_and_si128(x, s16(0xFC00)), s16(tag));
        let (high, low) = (tagged(0xD800), tagged(0xDC00));
        let hp = _mm_add_epi16(_mm_and_si128(x, s16(0x3FF)), s16(0x40));
        let low_first = _mm_or_si128(
            _mm_or_si128(
                _mm_slli_epi16::<4>(_mm_and_si128(before, s16(3))),
                _mm_and_si128(x6, s16(0xF)),
            ),
            s16(0x80),
        );
        let first = _mm_blendv_epi8(
            _mm_blendv_epi8(
                first,
                _mm_or_si128(_mm_srli_epi16::<8>(hp), s16(0xF0)),
                high,
            ),
            low_first,
            low,
        );
        let second = _mm_blendv_epi8(
            _mm_blendv_epi8(second, continuation(_mm_srli_epi16::<2>(hp)), high),
            continuation(x),
            low,
        );
        let first_two = _mm_or_si128(first, _mm_slli_epi16::<8>(second));
        // Per word, length − 1: bit 0 (k1 but not k2) in its low byte, bit
        // 1 (k2) in its high byte; the byte mask then holds 2 bits per
        // word, in order: two COMPACT keys.
        let lengths = _mm_blendv_epi8(_mm_xor_si128(k1, k2), k2, s16(0xFF00));
        let keys = _mm_movemask_epi8(lengths) as usize;
        let written = store_compact_lane(dst, _mm_unpacklo_epi16(first_two, third), keys & 0xFF);
        written
            + store_compact_lane(
                &mut dst[written..],
                _mm_unpackhi_epi16(first_two, third),
                keys >> 8,
            )
    }

    /// The UTF-8 of a block (two registers) that holds surrogates, all of
    /// them paired, packed at the start of `dst`: how many units it took
    /// (16, or 15 when the last is a high surrogate and `more` input
    /// follows: the next block sees the pair whole) and how many bytes it
    /// wrote; `None` (nothing taken) if a surrogate in it is lone.
    ///
    /// Each register goes as a BMP one ([`bmp_pairs`](Self::bmp_pairs)), a pair's
    /// high unit giving the first two of its four bytes and the low unit
    /// (with the two bits it needs from the unit before) the last two: every
    /// unit is 1 to 3 bytes in its slot.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn paired(
        [a, b]: [__m128i; 2],
        more: bool,
        dst: &mut [MaybeUninit<u8>],
    ) -> Option<(usize, usize)> {
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        let zero = _mm_setzero_si128();
        // Each unit's neighbours: the one after (0 after the last) and the
        // one before (0 before the first: no block ends with a high
        // surrogate whose pair follows, it is left to the next block).
        let after = [_mm_alignr_epi8::<2>(b, a), _mm_srli_si128::<2>(b)];
        let before = [_mm_slli_si128::<2>(a), _mm_alignr_epi8::<14>(b, a)];
        let tagged =
            |v: __m128i, tag: u16| _mm_cmpeq_epi16(_mm_and_si128(v, s16(0xFC00)), s16(tag));
        let mut lone = 0;
        let mut closes = [zero; 2];
        let mut halves = [zero; 2];
        for (r, x) in [a, b].into_iter().enumerate() {
            let (high, low) = (tagged(x, 0xD800), tagged(x, 0xDC00));
            let opens = _mm_and_si128(high, tagged(after[r], 0xDC00));
            closes[r] = _mm_and_si128(low, tagged(before[r], 0xD800));
            halves[r] = _mm_or_si128(opens, closes[r]);
            let alone = _mm_andnot_si128(halves[r], _mm_or_si128(high, low));
            lone |= (_mm_movemask_epi8(alone) as u32) << (16 * r);
        }
        // A high surrogate last, with more input: the next block's. Its
        // lane becomes a zero, one byte, taken off the count below.
        let defer = more && last_is_high(b);
        let b = if defer {
            lone &= 0x3FFF_FFFF;
            _mm_blend_epi16::<0x80>(b, zero)
        } else {
            b
        };
        if lone != 0 {
            return None;
        }
        // 3-byte characters: from 0x800 on, but not a surrogate (every
        // one is half a pair here, but the deferred one, now a zero).
        let k2 = |x: __m128i, halves: __m128i| {
            _mm_andnot_si128(halves, _mm_cmpeq_epi16(_mm_max_epu16(x, s16(0x800)), x))
        };
        let written = Self::bmp_pairs(a, before[0], k2(a, halves[0]), dst);
        let written =
            written + Self::bmp_pairs(b, before[1], k2(b, halves[1]), &mut dst[written..]);
        let defer = usize::from(defer);
        Some((BLOCK - defer, written - defer))
    }

    utf16_encoder!("sse4.1,ssse3,popcnt", BLOCK, ROOM);
}
