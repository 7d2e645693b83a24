//! UTF-16 → UTF-8 for the AVX2 kernel: strict and lossy.
//!
//! 32 code units a step while they are ASCII (narrowed by a saturating
//! pack), else 16, one register of 16-bit lanes:
//!
//! * all below 0x80: narrowed;
//! * all below 0x800 (1- and 2-byte characters): each unit becomes one
//!   16-bit word, `110xxxxx 10xxxxxx` (lead in the low byte) or the ASCII
//!   byte and a zero, 8 words packed by one `pshufb` ([`COMPACT2`]);
//! * no surrogate (the rest of the BMP): all 3-byte characters (CJK text)
//!   by fixed shuffles, else the UTF-32 encoder's [`encode_bmp`];
//! * a surrogate: the scalar loop converts the block (and the units after
//!   it up to one that is not a high surrogate, so that a pair is never
//!   split between blocks). It is the one that decides whether a
//!   surrogate is lone, so the error's index and the lossy U+FFFD are
//!   exactly the scalar conversion's.

use super::super::super::pack::{store16, COMPACT2, THREE};
use super::super::encode_bmp;
use super::Utf16Avx2;
use crate::utf16::{scalar, Utf16Error};
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

#[target_feature(enable = "avx2")]
#[inline]
fn low128(v: __m256i) -> __m128i {
    _mm256_castsi256_si128(v)
}

#[target_feature(enable = "avx2")]
#[inline]
fn high128(v: __m256i) -> __m128i {
    _mm256_extracti128_si256::<1>(v)
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
        let len = units.len();
        let mut at = 0;
        loop {
            at = Self::run(units, at, out);
            if len - at < BLOCK {
                break;
            }
            // A block with a surrogate: the scalar loop's, with the units
            // after it up to one that is not a high surrogate (a high one's
            // pair's other half, if any, must be seen with it; and that half
            // may be another high surrogate, lone, with its own next unit).
            let mut end = at + BLOCK;
            while end < len && units[end - 1] & 0xFC00 == scalar::HIGH {
                end += 1;
            }
            scalar::encode::<LOSSY>(&units[at..end], out).map_err(|e| e.shifted(at))?;
            at = end;
        }
        scalar::encode::<LOSSY>(&units[at..], out).map_err(|e| e.shifted(at))
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
                written += Self::two_byte(x, to);
                at += BLOCK;
                continue;
            }
            let s16 = |w: u16| _mm256_set1_epi16(w as i16);
            // Surrogates: 0xD800..=0xDFFF, the units whose top 5 bits are
            // 0xD800 >> 11.
            let surrogate = _mm256_cmpeq_epi16(_mm256_and_si256(x, s16(0xF800)), s16(0xD800));
            if _mm256_testz_si256(surrogate, surrogate) == 0 {
                break;
            }
            // All-ones where x ≥ 0x800 (unsigned: the maximum with 0x800
            // is x).
            let k2 = _mm256_cmpeq_epi16(_mm256_max_epu16(x, s16(0x800)), x);
            written += if _mm256_testc_si256(k2, _mm256_set1_epi8(-1)) == 1 {
                Self::three_byte(x, to)
            } else {
                encode_bmp(x, k2, to)
            };
            at += BLOCK;
        }
        // SAFETY: `dst[..written]` were written (the invariant), within the
        // spare capacity.
        unsafe { out.set_len(base + written) };
        at
    }

    /// The UTF-8 of 16 units all below 0x800, packed at the start of
    /// `dst`; returns its length.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn two_byte(x: __m256i, dst: &mut [MaybeUninit<u8>; ROOM]) -> usize {
        let s16 = |w: u16| _mm256_set1_epi16(w as i16);
        // RFC 3629 §3: `110yyyyy 10xxxxxx`, lead in the low byte.
        let lead = _mm256_or_si256(_mm256_srli_epi16::<6>(x), s16(0xC0));
        let tail =
            _mm256_slli_epi16::<8>(_mm256_or_si256(_mm256_and_si256(x, s16(0x3F)), s16(0x80)));
        let ascii = _mm256_cmpgt_epi16(s16(0x80), x);
        let words = _mm256_blendv_epi8(_mm256_or_si256(lead, tail), x, ascii);
        // Bit i of each half's key: word i is 2-byte. The signed pack of
        // the compare with itself puts the low half's 8 flags in bytes
        // 0..8 and the high half's in bytes 16..24.
        let ascii = _mm256_movemask_epi8(_mm256_packs_epi16(ascii, ascii)) as u32;
        let keys = [!ascii & 0xFF, !ascii >> 16 & 0xFF];
        let mut written = 0;
        for (key, half) in keys.into_iter().zip([low128(words), high128(words)]) {
            // SAFETY: a table row is 16 readable bytes.
            let control = unsafe { _mm_loadu_si128(COMPACT2[key as usize].0.as_ptr().cast()) };
            store16(&mut dst[written..], _mm_shuffle_epi8(half, control));
            written += 8 + key.count_ones() as usize;
        }
        written
    }

    /// The UTF-8 of 16 units from 0x800 on, none a surrogate: 48 bytes at
    /// the start of `dst`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn three_byte(x: __m256i, dst: &mut [MaybeUninit<u8>; ROOM]) -> usize {
        let s32 = |w: u32| _mm256_set1_epi32(w as i32);
        // SAFETY: `THREE` is 16 readable bytes.
        let control =
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(THREE.as_ptr().cast()) });
        for (i, half) in [low128(x), high128(x)].into_iter().enumerate() {
            let v = _mm256_cvtepu16_epi32(half);
            // `1110zzzz 10yyyyyy 10xxxxxx` (RFC 3629 §3), first byte
            // lowest, in each 32-bit lane; the control drops the fourth.
            let utf8 = _mm256_or_si256(
                _mm256_or_si256(_mm256_srli_epi32::<12>(v), s32(0x80_80E0)),
                _mm256_or_si256(
                    _mm256_and_si256(_mm256_slli_epi32::<2>(v), s32(0x3F00)),
                    _mm256_and_si256(_mm256_slli_epi32::<16>(v), s32(0x3F_0000)),
                ),
            );
            let packed = _mm256_shuffle_epi8(utf8, control);
            store16(&mut dst[24 * i..], low128(packed));
            store16(&mut dst[24 * i + 12..], high128(packed));
        }
        48
    }
}
