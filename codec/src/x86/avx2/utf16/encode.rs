//! UTF-16 → UTF-8 for the AVX2 kernel: strict and lossy.
//!
//! 32 code units a step while they are ASCII (narrowed by a saturating
//! pack), else 16, one register of 16-bit lanes:
//!
//! * all below 0x80: narrowed;
//! * all below 0x800 (1- and 2-byte characters): each unit becomes one
//!   16-bit word, `110xxxxx 10xxxxxx` (lead in the low byte) or the ASCII
//!   byte and a zero, 8 words packed by one `pshufb`, as the UTF-32
//!   encoder does ([`encode_below_800`]);
//! * no surrogate (the rest of the BMP): the UTF-32 encoder's
//!   [`encode_bmp`], whatever the mix of lengths; the blocks after it take
//!   this step directly for as long as they are such blocks (CJK text),
//!   with no ASCII test before each;
//! * surrogates, all paired within the block (a high one last waits for
//!   the next block): each unit's UTF-8 in a 32-bit lane, a pair's four
//!   bytes split between its two lanes ([`paired_block`]);
//! * a lone surrogate: the scalar loop converts the block (and the units
//!   after it up to one that is not a high surrogate, so that a pair is
//!   never split between blocks). It is the one that reports a lone
//!   surrogate, so the error's index and the lossy U+FFFD are exactly the
//!   scalar conversion's.
//!
//! [`paired_block`]: Utf16Avx2::paired_block

use super::super::super::utf16;
use super::super::{encode_below_800, encode_bmp, high128, low128, store_compact, utf8_lanes};
use super::Utf16Avx2;
use crate::utf16::Utf16Error;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Code units per block: one register.
const BLOCK: usize = 16;
/// Bytes a block's stores may reach past its cursor: the 48 of 16 3-byte
/// characters, the last 16-byte store starting by byte 36.
const ROOM: usize = 64;

/// The 16 code units at the start of `units` (which must hold 16).
#[target_feature(enable = "avx2")]
#[inline]
fn load(units: &[u16]) -> __m256i {
    let units: &[u16; BLOCK] = units[..BLOCK].try_into().expect("16 units");
    // SAFETY: `units` is 16 readable `u16`s, 32 bytes, the load's width;
    // `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(units.as_ptr().cast()) }
}

/// Whether every unit of `v` is below `limit`, a power of two.
#[target_feature(enable = "avx2")]
#[inline]
fn below(v: __m256i, limit: u16) -> bool {
    _mm256_testz_si256(v, _mm256_set1_epi16(limit.wrapping_neg() as i16)) == 1
}

/// Whether a unit of `v` is a surrogate: 0xD800..=0xDFFF, the units whose
/// top 5 bits are 0xD800 >> 11.
#[target_feature(enable = "avx2")]
#[inline]
fn has_surrogate(v: __m256i) -> bool {
    let s16 = |w: u16| _mm256_set1_epi16(w as i16);
    let surrogate = _mm256_cmpeq_epi16(_mm256_and_si256(v, s16(0xF800)), s16(0xD800));
    _mm256_testz_si256(surrogate, surrogate) == 0
}

impl Utf16Avx2 {
    /// Appends the UTF-8 of the longest well-formed prefix of `units`; the
    /// error at the first lone surrogate.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn encode(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
        Self::encode_checked::<false>(units, out)
    }

    /// Appends the UTF-8 of `units`, U+FFFD for each lone surrogate.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn encode_lossy(units: &[u16], out: &mut Vec<u8>) {
        let result = Self::encode_checked::<true>(units, out);
        debug_assert!(result.is_ok(), "lossy conversion cannot fail");
    }

    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn encode_checked<const LOSSY: bool>(
        units: &[u16],
        out: &mut Vec<u8>,
    ) -> Result<(), Utf16Error> {
        utf16::encode_checked::<LOSSY>(units, out, BLOCK, |units, at, out| {
            Self::run(units, at, out)
        })
    }

    /// Converts the blocks of `units` from `at` on while they hold no
    /// surrogate; returns where it stopped: at a block with a surrogate,
    /// or with fewer than a block's units left. No unit before it is a
    /// surrogate, so the block it stops at begins with no pair open.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn run(units: &[u16], mut at: usize, out: &mut Vec<u8>) -> usize {
        let len = units.len();
        // At most 3 bytes per unit, + a block's room past the end.
        let size = 3 * (len - at) + ROOM;
        out.reserve(size);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..size];
        let mut written = 0;
        // Invariant: `dst[..written]` is the UTF-8 of the units from the
        // run's first to `at`, at most 3 bytes each: a block's stores, which
        // end by `ROOM` bytes past `written`, stay in `dst`.
        loop {
            // ASCII: 32 units a step, one test per step.
            while let Some(pair) = units.get(at..at + 2 * BLOCK) {
                let (a, b) = (load(pair), load(&pair[BLOCK..]));
                if !below(_mm256_or_si256(a, b), 0x80) {
                    break;
                }
                // The pack interleaves 8-unit groups of `a` and `b`; the
                // permute puts them back in order.
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
                let to: &mut [MaybeUninit<u8>; 32] = (&mut dst[written..written + 32])
                    .try_into()
                    .expect("32 bytes");
                // SAFETY: `to` is 32 writable bytes, the store's width.
                unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), bytes) };
                written += 2 * BLOCK;
                at += 2 * BLOCK;
            }
            let Some(block) = units.get(at..at + BLOCK) else {
                break;
            };
            let x = load(block);
            let to: &mut [MaybeUninit<u8>; ROOM] = (&mut dst[written..written + ROOM])
                .try_into()
                .expect("a block's room");
            if below(x, 0x800) {
                // Latin text, and ASCII (the 16 units after an ASCII step
                // that was not all ASCII).
                written += encode_below_800(x, to);
                at += BLOCK;
                continue;
            }
            let s16 = |w: u16| _mm256_set1_epi16(w as i16);
            if has_surrogate(x) {
                let more = at + BLOCK < len;
                let Some((taken, bytes)) = Self::paired_block(x, more, to) else {
                    break;
                };
                written += bytes;
                at += taken;
                continue;
            }
            // All-ones where x ≥ 0x800 (unsigned: the maximum with 0x800
            // is x). Blocks of 3-byte characters only take this step too:
            // a fixed-shuffle step of their own cost more in mispredicted
            // branches on real text (CJK with spaces) than it saved.
            let k2 = _mm256_cmpeq_epi16(_mm256_max_epu16(x, s16(0x800)), x);
            written += encode_bmp(x, k2, to);
            at += BLOCK;
            // More such blocks (CJK text): the same step, without the
            // ASCII step's test before each.
            while let Some(block) = units.get(at..at + BLOCK) {
                let x = load(block);
                if below(x, 0x800) || has_surrogate(x) {
                    break;
                }
                let to: &mut [MaybeUninit<u8>; ROOM] = (&mut dst[written..written + ROOM])
                    .try_into()
                    .expect("a block's room");
                let k2 = _mm256_cmpeq_epi16(_mm256_max_epu16(x, s16(0x800)), x);
                written += encode_bmp(x, k2, to);
                at += BLOCK;
            }
        }
        // SAFETY: `dst[..written]` were written (the invariant), within the
        // spare capacity.
        unsafe { out.set_len(base + written) };
        at
    }

    /// The UTF-8 of a block that holds surrogates, all of them paired,
    /// packed at the start of `dst`: how many units it took (16, or 15
    /// when the last is a high surrogate and `more` input follows, whose
    /// pair the next block sees whole) and how many bytes it wrote; `None`
    /// (nothing taken) if a surrogate in it is lone.
    ///
    /// Each unit gets a 32-bit lane: its own value, or for either half of
    /// a pair the pair's code point, from the unit and the one after (high
    /// surrogate) or before (low). Its UTF-8 is built in the lane
    /// ([`utf8_lanes`]); the high surrogate's lane keeps the first two of
    /// the four bytes, the low one's the last two (moved down), so every
    /// lane is 1 to 3 bytes and each 4 lanes are packed by one
    /// [`COMPACT`](crate::x86::pack::COMPACT) control, as the UTF-32
    /// encoder's are ([`store_compact`]).
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn paired_block(
        x: __m256i,
        more: bool,
        dst: &mut [MaybeUninit<u8>; ROOM],
    ) -> Option<(usize, usize)> {
        let s16 = |w: u16| _mm256_set1_epi16(w as i16);
        let s32 = |w: u32| _mm256_set1_epi32(w as i32);
        // Each unit's successor (0 after the last) and predecessor (0
        // before the first: a low surrogate first in a block has no high
        // one before it in the block, and the block before never ends with
        // a high one whose pair follows).
        let next = _mm256_alignr_epi8::<2>(_mm256_permute2x128_si256::<0x81>(x, x), x);
        let prev = _mm256_alignr_epi8::<14>(x, _mm256_permute2x128_si256::<0x08>(x, x));
        let is =
            |v: __m256i, top: u16| _mm256_cmpeq_epi16(_mm256_and_si256(v, s16(0xFC00)), s16(top));
        let high = is(x, 0xD800);
        let low = is(x, 0xDC00);
        let paired_high = _mm256_and_si256(high, is(next, 0xDC00));
        let paired_low = _mm256_and_si256(low, is(prev, 0xD800));
        let paired = _mm256_or_si256(paired_high, paired_low);
        let lone = _mm256_andnot_si256(paired, _mm256_or_si256(high, low));
        let mut lone = _mm256_movemask_epi8(lone) as u32;
        // A high surrogate last, with more input: the next block's.
        let deferred = more && _mm256_movemask_epi8(high) as u32 >> 30 != 0;
        let mut x = x;
        if deferred {
            lone &= (1 << 30) - 1;
            // Zero, an ASCII lane: one byte, taken off the count below.
            x = _mm256_and_si256(
                x,
                _mm256_setr_epi16(
                    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0,
                ),
            );
        }
        if lone != 0 {
            return None;
        }
        let halves = |v: __m256i| {
            [
                _mm256_cvtepu16_epi32(low128(v)),
                _mm256_cvtepu16_epi32(high128(v)),
            ]
        };
        let [xs, nexts, prevs] = [x, next, prev].map(halves);
        // The masks sign-extended: all-ones lanes.
        let mask_halves = |v: __m256i| {
            [
                _mm256_cvtepi16_epi32(low128(v)),
                _mm256_cvtepi16_epi32(high128(v)),
            ]
        };
        let [pls, pairs] = [paired_low, paired].map(mask_halves);
        // Per key byte of each dword's two words, gathered to the front of
        // its 128-bit lane (see `length_bits` below).
        const GATHER: [u8; 16] = [
            0, 2, 4, 6, 8, 10, 12, 14, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        ];
        // SAFETY: `GATHER` is 16 readable bytes.
        let gather =
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(GATHER.as_ptr().cast()) });
        let mut written = 0;
        for h in 0..2 {
            let (c, pl, pair) = (xs[h], pls[h], pairs[h]);
            // The pair's units: the high one (this lane's or the one
            // before) and the low one (the next lane's or this one's).
            let hi = _mm256_blendv_epi8(c, prevs[h], pl);
            let lo = _mm256_blendv_epi8(nexts[h], c, pl);
            // 0x10000 + (H − 0xD800)·2¹⁰ + (L − 0xDC00).
            let scalar = _mm256_sub_epi32(
                _mm256_add_epi32(_mm256_slli_epi32::<10>(hi), lo),
                s32(0x35F_DC00),
            );
            let cps = _mm256_blendv_epi8(c, scalar, pair);
            // Every lane is now at most 0x10FFFF: signed compares are exact.
            let k1 = _mm256_cmpgt_epi32(cps, s32(0x7F));
            let k2 = _mm256_cmpgt_epi32(cps, s32(0x7FF));
            let k3 = _mm256_cmpgt_epi32(cps, s32(0xFFFF));
            let utf8 = utf8_lanes(cps, k1, k2, k3);
            let utf8 = _mm256_blendv_epi8(utf8, _mm256_srli_epi32::<16>(utf8), pl);
            // Per lane, length − 1 in two bits: bit 0 = k1^k2^k3 (2 bytes,
            // or half a pair), bit 1 = k2^k3 (3 bytes). Each dword takes
            // its low word from bit 0's mask and its high word from bit
            // 1's; the gather puts one byte of each word, in order, at the
            // front of its 128-bit lane: the byte mask's bits 0..8 and
            // 16..24 are the two lanes' [`COMPACT`] keys.
            let bit0 = _mm256_xor_si256(_mm256_xor_si256(k1, k2), k3);
            let bit1 = _mm256_xor_si256(k2, k3);
            let length_bits = _mm256_blend_epi16::<0b1010_1010>(bit0, bit1);
            let keys = _mm256_movemask_epi8(_mm256_shuffle_epi8(length_bits, gather)) as u32;
            written += store_compact(utf8, keys, &mut dst[written..]);
        }
        let deferred = usize::from(deferred);
        Some((BLOCK - deferred, written - deferred))
    }
}
