//! UTF-16 → UTF-8 for the `avx512vbmi2` kernel: strict and lossy.
//!
//! 32 code units per step, one register of 16-bit lanes:
//!
//! * all below 0x80: narrowed to bytes (`vpmovwb`);
//! * all below 0x800 (1- and 2-byte characters): each unit becomes one
//!   16-bit word, `110xxxxx 10xxxxxx` or the ASCII byte and a zero, and a
//!   `vpcompressb` keeps every byte but the zeros;
//! * otherwise each half is widened to 32-bit lanes, a surrogate pair's
//!   code point assembled in its high surrogate's lane from the next unit
//!   (a second load, one unit further on), and each lane's 1 to 4 UTF-8
//!   bytes built in place (the UTF-32 encoder's `utf8_lanes`) and packed by
//!   a `vpcompressb`; a low surrogate's lane writes nothing.
//!
//! A surrogate is paired when a high one (D800..DBFF) is followed by a low
//! one (DC00..DFFF); every other surrogate is lone (Unicode §3.9, D91): a
//! strict conversion stops at the first, a lossy one writes U+FFFD for it.
//! A high surrogate in a step's last lane, with more input after it, is
//! left for the next step, so a pair never spans two steps and a low
//! surrogate in a step's first lane is always lone.

use super::super::{utf8_lanes, KEEP_LANE, KEEP_WORD, N, V};
use super::{splat16, splat32, Utf16Vbmi2};
use crate::utf16::{scalar, Utf16Error};
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Code units per step: one register.
const STEP: usize = 32;

/// Up to 32 code units from `units`, zero past its end.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn load_units(units: &[u16]) -> V {
    match units.get(..STEP) {
        Some(units) => {
            let units: &[u16; STEP] = units.try_into().expect("32 units");
            // SAFETY: `units` is 32 readable `u16`s, 64 bytes, the load's
            // width; `loadu` needs no alignment.
            unsafe { _mm512_loadu_si512(units.as_ptr().cast()) }
        }
        // An empty slice may dangle; and there is nothing to load.
        None if units.is_empty() => _mm512_setzero_si512(),
        None => {
            // Bit k set for k < units.len() < 32 only.
            let mask = (1u32 << units.len()) - 1;
            // SAFETY: a masked load reads only the elements whose bit is
            // set (the others are not accessed and cannot fault: Intel SDM
            // vol. 1 §15.4.1), i.e. `units[..units.len()]`.
            unsafe { _mm512_maskz_loadu_epi16(mask, units.as_ptr().cast()) }
        }
    }
}

/// Stores `v` at the start of `dst` (≥ 64 bytes).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn store64(dst: &mut [MaybeUninit<u8>], v: V) {
    let dst: &mut [MaybeUninit<u8>; N] = (&mut dst[..N]).try_into().expect("64 bytes");
    // SAFETY: `dst` is 64 writable bytes, the store's width.
    unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) }
}

/// The `vpermt2b` control that takes the low byte of each 16-bit lane of
/// two registers, the first's then the second's: byte `i` from byte `2i`
/// of the 128 (the second register's bytes are 64 to 127).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn low_bytes() -> V {
    const CONTROL: [u8; N] = {
        let mut c = [0u8; N];
        let mut i = 0;
        while i < N {
            c[i] = (2 * i) as u8;
            i += 1;
        }
        c
    };
    // SAFETY: `CONTROL` is 64 readable bytes, the load's width.
    unsafe { _mm512_loadu_si512(CONTROL.as_ptr().cast()) }
}

/// The bits of the first `n` (≤ 64) positions.
#[inline]
fn first_bits(n: usize) -> u64 {
    debug_assert!(n <= 64);
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl Utf16Vbmi2 {
    /// Appends the UTF-8 of the longest well-formed prefix of `units`; the
    /// error at the first lone surrogate.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn encode(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
        Self::encode_checked::<false>(units, out)
    }

    /// Appends the UTF-8 of `units`, U+FFFD for each lone surrogate.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn encode_lossy(units: &[u16], out: &mut Vec<u8>) {
        let result = Self::encode_checked::<true>(units, out);
        debug_assert!(result.is_ok(), "lossy conversion cannot fail");
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn encode_checked<const LOSSY: bool>(
        units: &[u16],
        out: &mut Vec<u8>,
    ) -> Result<(), Utf16Error> {
        let len = units.len();
        // At most 3 bytes per unit, + 64 for a whole-register store.
        out.reserve(3 * len + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..3 * len + N];
        let mut written = 0;
        let mut at = 0;
        // Invariant: `dst[..written]` is the UTF-8 of `units[..at]`, and
        // `written` ≤ 3·`at`: a 64-byte store at `written` fits.
        while at < len {
            let x = load_units(&units[at..]);
            let n = (len - at).min(STEP);
            let mut valid = first_bits(n) as u32;
            let non_ascii = _mm512_cmpge_epu16_mask(x, splat16(0x80));
            if non_ascii == 0 {
                let bytes = _mm512_cvtepi16_epi8(x);
                let first: &mut [MaybeUninit<u8>; 32] = (&mut dst[written..written + 32])
                    .try_into()
                    .expect("32 bytes");
                // SAFETY: `first` is 32 writable bytes, the store's width.
                unsafe { _mm256_storeu_si256(first.as_mut_ptr().cast(), bytes) };
                written += n;
                at += n;
                // ASCII text: 64 units a step while it lasts, narrowed and
                // joined by one two-register byte permutation, one store.
                while let Some(pair) = units.get(at..at + 2 * STEP) {
                    let pair: &[u16; 2 * STEP] = pair.try_into().expect("64 units");
                    // SAFETY: `pair` is 128 readable bytes, two loads' width.
                    let (a, b) = unsafe {
                        (
                            _mm512_loadu_si512(pair.as_ptr().cast()),
                            _mm512_loadu_si512(pair[STEP..].as_ptr().cast()),
                        )
                    };
                    if _mm512_test_epi16_mask(_mm512_or_si512(a, b), splat16(0xFF80)) != 0 {
                        break;
                    }
                    store64(
                        &mut dst[written..],
                        _mm512_permutex2var_epi8(a, low_bytes(), b),
                    );
                    written += 2 * STEP;
                    at += 2 * STEP;
                }
                continue;
            }
            let top = _mm512_and_si512(x, splat16(0xFC00));
            let high = _mm512_cmpeq_epi16_mask(top, splat16(0xD800)) & valid;
            let low = _mm512_cmpeq_epi16_mask(top, splat16(0xDC00)) & valid;
            if high | low == 0 {
                if _mm512_cmpge_epu16_mask(x, splat16(0x800)) == 0 {
                    written += Self::two_byte(x, non_ascii, n, &mut dst[written..]);
                    at += n;
                    // Latin, Greek, Cyrillic … text: whole steps of 1- and
                    // 2-byte characters while they last, two compares each
                    // (no surrogate is below 0x800); an ASCII step goes
                    // back to the 64-unit ASCII loop.
                    while let Some(step) = units.get(at..at + STEP) {
                        let x = load_units(step);
                        let non_ascii = _mm512_cmpge_epu16_mask(x, splat16(0x80));
                        if non_ascii == 0 || _mm512_cmpge_epu16_mask(x, splat16(0x800)) != 0 {
                            break;
                        }
                        written += Self::two_byte(x, non_ascii, STEP, &mut dst[written..]);
                        at += STEP;
                    }
                } else {
                    let zero = _mm512_setzero_si512();
                    written += Self::general(x, zero, 0, 0, valid, &mut dst[written..]);
                    at += n;
                }
                continue;
            }
            // A high surrogate last, with more input: the next step's.
            if n == STEP && high >> 31 == 1 && at + STEP < len {
                valid >>= 1;
            }
            let (high, low) = (high & valid, low & valid);
            let next = load_units(&units[(at + 1).min(len)..]);
            let next_low =
                _mm512_cmpeq_epi16_mask(_mm512_and_si512(next, splat16(0xFC00)), splat16(0xDC00));
            let paired_high = high & next_low;
            let paired_low = low & paired_high << 1;
            let lone = (high | low) & !(paired_high | paired_low);
            let x = if lone == 0 {
                x
            } else if LOSSY {
                _mm512_mask_mov_epi16(x, lone, splat16(REPLACEMENT as u16))
            } else {
                let first = lone.trailing_zeros() as usize;
                // SAFETY: `dst[..written]` were written (the invariant);
                // `written` ≤ the capacity.
                unsafe { out.set_len(base + written) };
                // The units before the lone surrogate are well-formed.
                scalar::encode::<false>(&units[at..at + first], out)?;
                return Err(Utf16Error::new(at + first));
            };
            written += Self::general(x, next, paired_high, paired_low, valid, &mut dst[written..]);
            at += valid.count_ones() as usize;
        }
        // SAFETY: `dst[..written]` were written (each store covers the bytes
        // the cursor then advanced over), within the spare capacity.
        unsafe { out.set_len(base + written) };
        Ok(())
    }

    /// The UTF-8 of the first `n` units of `x`, all below 0x800 (`non_ascii`:
    /// those ≥ 0x80), packed at the start of `dst`; returns its length.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn two_byte(x: V, non_ascii: u32, n: usize, dst: &mut [MaybeUninit<u8>]) -> usize {
        // Lead 0xC0 | x >> 6 in the low byte, 0x80 | x & 0x3F in the high.
        let lead = _mm512_or_si512(_mm512_srli_epi16::<6>(x), splat16(0xC0));
        let tail = _mm512_slli_epi16::<8>(_mm512_and_si512(x, splat16(0x3F)));
        let two = _mm512_ternarylogic_epi32::<0xFE>(lead, tail, splat16(0x8000));
        let words = _mm512_mask_mov_epi16(x, non_ascii, two);
        // A word's first byte is never 0xFF; its second is kept if non-zero.
        let keep = _mm512_cmpneq_epi8_mask(words, splat16(KEEP_WORD as u16)) & first_bits(2 * n);
        store64(dst, _mm512_maskz_compress_epi8(keep, words));
        keep.count_ones() as usize
    }

    /// The UTF-8 of the units `valid` marks (a prefix) of `x`, packed at the
    /// start of `dst` (128 bytes of room); returns its length. `high`: the
    /// high surrogates paired with the next unit (`next`, the units one
    /// further on); `low`: the low surrogates so paired, which write
    /// nothing. No other surrogate is left.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn general(
        x: V,
        next: V,
        high: u32,
        low: u32,
        valid: u32,
        dst: &mut [MaybeUninit<u8>],
    ) -> usize {
        let mut written = 0;
        for h in 0..2 {
            let lanes = (valid >> (16 * h)) as u16;
            if lanes == 0 {
                break;
            }
            let half = |v: V| {
                _mm512_cvtepu16_epi32(if h == 0 {
                    _mm512_castsi512_si256(v)
                } else {
                    _mm512_extracti64x4_epi64::<1>(v)
                })
            };
            let (hh, ll) = ((high >> (16 * h)) as u16, (low >> (16 * h)) as u16);
            let mut cps = half(x);
            if hh != 0 {
                // 0x10000 + (H − 0xD800)·2¹⁰ + (L − 0xDC00).
                let pair = _mm512_add_epi32(
                    _mm512_slli_epi32::<10>(cps),
                    _mm512_sub_epi32(half(next), splat32(0x35F_DC00)),
                );
                cps = _mm512_mask_mov_epi32(cps, hh, pair);
            }
            let k1 = _mm512_cmpge_epu32_mask(cps, splat32(0x80));
            let k2 = _mm512_cmpge_epu32_mask(cps, splat32(0x800));
            let utf8 = _mm512_mask_mov_epi32(utf8_lanes(cps, k1, k2, hh), ll, splat32(KEEP_LANE));
            let keep = _mm512_cmpneq_epi8_mask(utf8, splat32(KEEP_LANE))
                & first_bits(4 * lanes.count_ones() as usize);
            store64(&mut dst[written..], _mm512_maskz_compress_epi8(keep, utf8));
            written += keep.count_ones() as usize;
        }
        written
    }
}
