//! UTF-16 → UTF-8 for the `avx512vbmi2` kernel: strict and lossy.
//!
//! 32 code units per step, one register of 16-bit lanes:
//!
//! * all below 0x80: narrowed to bytes (`vpmovwb`);
//! * all below 0x800 (1- and 2-byte characters): each unit becomes one
//!   16-bit word, `110xxxxx 10xxxxxx` or the ASCII byte and a zero, and a
//!   `vpcompressb` keeps every byte but the zeros;
//! * otherwise every unit writes 1 to 3 bytes, worked out in its own
//!   16-bit lane ([`Utf16Vbmi2::three_bytes`]): a BMP character its UTF-8
//!   form, a surrogate pair its 4 bytes split 3 and 1 between its two
//!   units (the high surrogate's lane reads the low one from a second
//!   load, one unit further on); a byte permutation lays the bytes out 4
//!   a unit, and a `vpcompressb` per 16 units packs them.
//!
//! A surrogate is paired when a high one (D800..DBFF) is followed by a low
//! one (DC00..DFFF); every other surrogate is lone (Unicode §3.9, D91): a
//! strict conversion stops at the first, a lossy one writes U+FFFD for it.
//! A pair may span two steps: a high surrogate in a step's last lane reads
//! its low one from the load one unit on and writes the pair's first three
//! bytes; the next step's first lane, known paired by a bit carried over,
//! writes the last. So every step but the last is 32 units, and where a
//! step starts never waits on the bytes of the one before: leaving such a
//! high surrogate to the next step made each step's start a load, a
//! compare and a count after the last one's, a chain through the loop.
//!
//! An input of up to two registers takes one of these ways whole, with no
//! loop ([`Utf16Vbmi2::encode_short`]): on short text, the loop's choices
//! per step were mispredicted from one call to the next.

use super::super::{KEEP_WORD, N, V};
use super::{splat16, Utf16Vbmi2};
use crate::utf16::{scalar, Utf16Error};
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Code units per step: one register.
const STEP: usize = 32;

/// The longest input [`Utf16Vbmi2::encode_short`] takes: two steps.
const SHORT: usize = 2 * STEP;

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

/// The high (D800..DBFF) and the low (DC00..DFFF) surrogates among the
/// units `valid` marks in `x`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn surrogates(x: V, valid: u32) -> (u32, u32) {
    let top = _mm512_and_si512(x, splat16(0xFC00));
    let high = _mm512_cmpeq_epi16_mask(top, splat16(0xD800)) & valid;
    let low = _mm512_cmpeq_epi16_mask(top, splat16(0xDC00)) & valid;
    (high, low)
}

/// Of a step's surrogates `high` and `low`, the high ones paired with the
/// unit after them (`next`: the units one on, zero past the end), the low
/// ones so paired (`carry`, bit 0: the unit before the step is a high
/// surrogate paired with the step's first) and the lone ones (Unicode
/// §3.9, D91).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn pairs(high: u32, low: u32, next: V, carry: u32) -> (u32, u32, u32) {
    let (_, next_low) = surrogates(next, u32::MAX);
    let paired_high = high & next_low;
    let paired_low = low & (paired_high << 1 | carry);
    (
        paired_high,
        paired_low,
        (high | low) & !(paired_high | paired_low),
    )
}

impl Utf16Vbmi2 {
    /// Appends the UTF-8 of the longest well-formed prefix of `units`; the
    /// error at the first lone surrogate.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn encode(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
        if units.len() <= SHORT {
            return Self::encode_short::<false>(units, out);
        }
        Self::encode_long::<false>(units, out)
    }

    /// Appends the UTF-8 of `units`, U+FFFD for each lone surrogate.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn encode_lossy(units: &[u16], out: &mut Vec<u8>) {
        let result = if units.len() <= SHORT {
            Self::encode_short::<true>(units, out)
        } else {
            Self::encode_long::<true>(units, out)
        };
        debug_assert!(result.is_ok(), "lossy conversion cannot fail");
    }

    /// Up to two registers of units (`SHORT`), each kind of text one
    /// branch-free path over the whole input: a step loop's choices per
    /// step (ASCII or not, surrogates or not, another step or not) were
    /// mispredicted call after call on short text, and cost more than the
    /// work. The input is ASCII, or all below 0x800 ([`two_byte`]), or
    /// otherwise goes through [`three_bytes`], with its pairs, and, if
    /// lossy, U+FFFD for each lone surrogate; a strict conversion with a
    /// lone surrogate goes to the step loop, which stops there.
    ///
    /// [`two_byte`]: Self::two_byte
    /// [`three_bytes`]: Self::three_bytes
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn encode_short<const LOSSY: bool>(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
        debug_assert!(units.len() <= SHORT);
        if units.len() <= STEP {
            Self::encode_registers::<LOSSY, false>(units, out)
        } else {
            Self::encode_registers::<LOSSY, true>(units, out)
        }
    }

    /// [`encode_short`](Self::encode_short) of one register of units, or
    /// (`TWO`) of more than one.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn encode_registers<const LOSSY: bool, const TWO: bool>(
        units: &[u16],
        out: &mut Vec<u8>,
    ) -> Result<(), Utf16Error> {
        let len = units.len();
        let split = len.min(STEP);
        let second = |units: &[u16]| match TWO {
            true => load_units(units),
            false => _mm512_setzero_si512(),
        };
        let (x0, x1) = (load_units(&units[..split]), second(&units[split..]));
        // At most 3 bytes per unit, + 64 for a whole-register store.
        out.reserve(3 * len + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..3 * len + N];
        let highest = _mm512_max_epu16(x0, x1);
        // Each path's stores start at a byte count at most 3 per unit
        // before them, so they fit, as in the step loop.
        let written = if _mm512_cmpge_epu16_mask(highest, splat16(0x80)) == 0 {
            let to: &mut [MaybeUninit<u8>; N] = (&mut dst[..N]).try_into().expect("64 bytes");
            // SAFETY: `to[..32]` and `to[split..split + 32]` (`split` ≤
            // 32) are 32 writable bytes each, a store's width.
            unsafe {
                _mm256_storeu_si256(to.as_mut_ptr().cast(), _mm512_cvtepi16_epi8(x0));
                if TWO {
                    _mm256_storeu_si256(to[split..].as_mut_ptr().cast(), _mm512_cvtepi16_epi8(x1));
                }
            }
            len
        } else if _mm512_cmpge_epu16_mask(highest, splat16(0x800)) == 0 {
            let non_ascii = |x: V| _mm512_cmpge_epu16_mask(x, splat16(0x80));
            let w = Self::two_byte(x0, non_ascii(x0), split, dst);
            match TWO {
                true => w + Self::two_byte(x1, non_ascii(x1), len - split, &mut dst[w..]),
                false => w,
            }
        } else {
            let (valid0, valid1) = (first_bits(split) as u32, first_bits(len - split) as u32);
            let (high0, low0) = surrogates(x0, valid0);
            let (high1, low1) = surrogates(x1, valid1);
            if high0 | high1 | low0 | low1 == 0 {
                let zero = _mm512_setzero_si512();
                let w = Self::three_bytes::<false>(x0, zero, 0, 0, valid0, dst);
                match TWO {
                    true => w + Self::three_bytes::<false>(x1, zero, 0, 0, valid1, &mut dst[w..]),
                    false => w,
                }
            } else {
                // The units one on, for the pairs (zero past the end: a
                // high surrogate last is lone); as in the step loop, a
                // pair across the registers writes 3 bytes in the first
                // and its last in the second.
                let on = len.min(1);
                let split_on = (len - on).min(STEP);
                let (next0, next1) = (
                    load_units(&units[on..on + split_on]),
                    second(&units[on + split_on..]),
                );
                let (paired_high0, paired_low0, lone0) = pairs(high0, low0, next0, 0);
                let (paired_high1, paired_low1, lone1) =
                    pairs(high1, low1, next1, paired_high0 >> 31);
                let (x0, x1) = match lone0 | lone1 {
                    0 => (x0, x1),
                    // A strict conversion stops there, with what comes
                    // before: the step loop's way.
                    _ if !LOSSY => return Self::encode_long::<false>(units, out),
                    _ => {
                        let fffd = splat16(REPLACEMENT as u16);
                        let replace = |x: V, lone: u32| _mm512_mask_mov_epi16(x, lone, fffd);
                        (replace(x0, lone0), replace(x1, lone1))
                    }
                };
                let w =
                    Self::three_bytes::<true>(x0, next0, paired_high0, paired_low0, valid0, dst);
                match TWO {
                    true => {
                        let dst = &mut dst[w..];
                        w + Self::three_bytes::<true>(
                            x1,
                            next1,
                            paired_high1,
                            paired_low1,
                            valid1,
                            dst,
                        )
                    }
                    false => w,
                }
            }
        };
        // SAFETY: `dst[..written]` were written, within the spare capacity.
        unsafe { out.set_len(base + written) };
        Ok(())
    }

    /// The step loop, for any input: a long one, or a short one that a
    /// strict conversion stops in (a lone surrogate).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn encode_long<const LOSSY: bool>(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
        let len = units.len();
        // At most 3 bytes per unit, + 64 for a whole-register store.
        out.reserve(3 * len + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..3 * len + N];
        let mut written = 0;
        let mut at = 0;
        // Whether the step before ended in a high surrogate paired with
        // this step's first unit: it wrote the pair's first 3 bytes, this
        // step's low surrogate writes the last.
        let mut carry = 0u32;
        // Invariant: `dst[..written]` is the UTF-8 of `units[..at]` (but
        // for the last byte of a pair that `carry` says is split), and
        // `written` ≤ 3·`at`: a 64-byte store at `written` fits.
        while at < len {
            let x = load_units(&units[at..]);
            let n = (len - at).min(STEP);
            let valid = first_bits(n) as u32;
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
            let (high, low) = surrogates(x, valid);
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
                    let (zero, dst) = (_mm512_setzero_si512(), &mut dst[written..]);
                    written += Self::three_bytes::<false>(x, zero, 0, 0, valid, dst);
                    at += n;
                }
                continue;
            }
            // A high surrogate last is paired with the next step's first
            // unit, which `next` holds: the step advances by whole
            // registers, so that where the next one starts does not wait
            // on this one's bytes.
            let next = load_units(&units[(at + 1).min(len)..]);
            let (paired_high, paired_low, lone) = pairs(high, low, next, carry);
            carry = paired_high >> 31;
            let x = if lone == 0 {
                x
            } else if LOSSY {
                _mm512_mask_mov_epi16(x, lone, splat16(REPLACEMENT as u16))
            } else {
                let first = lone.trailing_zeros() as usize;
                // The units before the lone surrogate are well-formed; a
                // pair split with the step before is encoded again whole
                // (its first 3 bytes taken back).
                let (from, kept) = match paired_low & 1 {
                    0 => (at, written),
                    _ => (at - 1, written - 3),
                };
                // SAFETY: `dst[..kept]` were written (the invariant);
                // `kept` ≤ the capacity.
                unsafe { out.set_len(base + kept) };
                scalar::encode::<false>(&units[from..at + first], out)?;
                return Err(Utf16Error::new(at + first));
            };
            let dst = &mut dst[written..];
            written += Self::three_bytes::<true>(x, next, paired_high, paired_low, valid, dst);
            at += n;
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
    /// start of `dst` (128 bytes of room); returns its length. With `PAIRS`,
    /// `high` marks the high surrogates paired with the next unit (`next`,
    /// the units one further on) and `low` the low surrogates so paired; no
    /// other surrogate is left.
    ///
    /// Every unit writes 1 to 3 bytes, all worked out in its own 16-bit
    /// lane: a BMP character its UTF-8 form, and a pair's 4 bytes split 3
    /// and 1 between its units (the high surrogate's third byte takes the
    /// low one's top 4 payload bits from `next`). With `U = 0x10000 + (H −
    /// 0xD800)·2¹⁰ + (L − 0xDC00)` (Unicode §3.9, D91) and `W = U >> 10 =
    /// (H & 0x3FF) + 0x40`, the bytes are `0xF0 | W >> 8`, `0x80 | (W >> 2)
    /// & 0x3F`, `0x80 | (W & 3) << 4 | (L >> 6) & 0xF` and `0x80 | L & 0x3F`
    /// (RFC 3629 §3). Two registers hold a unit's first two bytes and its
    /// third, 0xFF (never a UTF-8 byte) where it has none; a byte
    /// permutation lays them out 4 bytes a unit, 16 units a register, and
    /// a `vpcompressb` of each keeps the bytes that are not 0xFF.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn three_bytes<const PAIRS: bool>(
        x: V,
        next: V,
        high: u32,
        low: u32,
        valid: u32,
        dst: &mut [MaybeUninit<u8>],
    ) -> usize {
        /// Per 16 units (`first`: the unit of byte 0), their two
        /// registers' bytes 4 a unit: the first register's two bytes of
        /// the unit, then the second's two (its third byte and 0xFF).
        const fn spread(first: usize) -> [u8; N] {
            let mut c = [0u8; N];
            let mut i = 0;
            while i < N {
                let unit = first + i / 4;
                c[i] = match i % 4 {
                    0 => 2 * unit,
                    1 => 2 * unit + 1,
                    2 => N + 2 * unit,
                    _ => N + 2 * unit + 1,
                } as u8;
                i += 1;
            }
            c
        }
        const SPREAD: [[u8; N]; 2] = [spread(0), spread(16)];
        // Ternary-logic table 0xF8: a | b & c, bit by bit.
        let or_and = |a: V, b: V, c: V| _mm512_ternarylogic_epi32::<0xF8>(a, b, c);
        let at_least = |v: u16| _mm512_cmpge_epu16_mask(x, splat16(v));
        let (k1, k2) = (at_least(0x80), at_least(0x800));
        // A 3-byte character: 0xE0 | x >> 12, then 0x80 | (x >> 6) & 0x3F.
        let mut first = _mm512_or_si512(
            or_and(
                _mm512_srli_epi16::<12>(x),
                _mm512_slli_epi16::<2>(x),
                splat16(0x3F00),
            ),
            splat16(0x80E0),
        );
        // A 2-byte one: 0xC0 | x >> 6, then 0x80 | x & 0x3F.
        let two = _mm512_or_si512(
            or_and(
                _mm512_srli_epi16::<6>(x),
                _mm512_slli_epi16::<8>(x),
                splat16(0x3F00),
            ),
            splat16(0x80C0),
        );
        first = _mm512_mask_mov_epi16(first, k1 & !k2, two);
        // ASCII: the byte, and no second.
        first = _mm512_mask_mov_epi16(first, !k1, _mm512_or_si512(x, splat16(0xFF00)));
        // 0x80 | x & 0x3F, and 0xFF: a 3-byte character's last byte (in
        // the second register), a paired low surrogate's only one.
        let last = or_and(splat16(0xFF80), x, splat16(0x3F));
        let mut third = _mm512_mask_mov_epi16(splat16(0xFFFF), k2, last);
        if PAIRS {
            first = _mm512_mask_mov_epi16(first, low, last);
            third = _mm512_mask_mov_epi16(third, low, splat16(0xFFFF));
            let w = _mm512_add_epi16(_mm512_and_si512(x, splat16(0x3FF)), splat16(0x40));
            let lead = _mm512_or_si512(
                or_and(
                    _mm512_srli_epi16::<8>(w),
                    _mm512_slli_epi16::<6>(w),
                    splat16(0x3F00),
                ),
                splat16(0x80F0),
            );
            first = _mm512_mask_mov_epi16(first, high, lead);
            let pair_third = _mm512_or_si512(
                or_and(
                    _mm512_and_si512(_mm512_srli_epi16::<6>(next), splat16(0xF)),
                    _mm512_slli_epi16::<4>(w),
                    splat16(0x30),
                ),
                splat16(0xFF80),
            );
            third = _mm512_mask_mov_epi16(third, high, pair_third);
        }
        let mut written = 0;
        for (h, spread) in SPREAD.iter().enumerate() {
            let lanes = (valid >> (16 * h)) as u16;
            if lanes == 0 {
                break;
            }
            // SAFETY: `spread` is 64 readable bytes, the load's width.
            let control = unsafe { _mm512_loadu_si512(spread.as_ptr().cast()) };
            let bytes = _mm512_permutex2var_epi8(first, control, third);
            let keep = _mm512_cmpneq_epi8_mask(bytes, _mm512_set1_epi8(-1))
                & first_bits(4 * lanes.count_ones() as usize);
            store64(&mut dst[written..], _mm512_maskz_compress_epi8(keep, bytes));
            written += keep.count_ones() as usize;
        }
        written
    }
}
