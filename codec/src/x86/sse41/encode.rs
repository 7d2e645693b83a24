//! UTF-32 → UTF-8 for the SSE4.1 kernel: 8 values a step, two registers
//! of 32-bit lanes, narrowed to one register of 16-bit lanes by an
//! unsigned saturating pack (`packusdw`) when all are below 0x10000, then
//! encoded as the UTF-16 encoder encodes 8 units of the BMP:
//!
//! * 16 values at a time while all are ASCII (packed twice to bytes);
//! * all below 0x800 (Latin text): each value one 16-bit word, packed by
//!   one `pshufb` (`below_800`);
//! * all below 0x10000 and no surrogate (the rest of the BMP): each
//!   value's bytes at the end of a 4-byte slot, packed by `TAIL3` (`bmp`);
//! * with a value from 0x10000 on: each value's 1 to 4 bytes at the end of
//!   its 32-bit lane, four lanes packed by `TAIL4` (`any_length`);
//! * a surrogate or a value above U+10FFFF: the scalar encoder takes the
//!   step, and reports the exact index of the first value that is not a
//!   scalar.

use super::super::pack::{store16, SPREAD, TAIL4};
use super::utf16::Utf16Sse41;
use super::Sse41;
use crate::encode::EncodeFailure;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Values per step: two registers.
const STEP: usize = 8;
/// Bytes a step's stores may reach past its cursor: the second register's
/// 16-byte store starts by byte 16 (4 values of at most 4 bytes); the
/// ASCII run's 16-byte store.
const ROOM: usize = 32;

/// The 4 values at the start of `values` (which must hold 4).
#[target_feature(enable = "sse4.1")]
#[inline]
fn load4(values: &[u32]) -> __m128i {
    let values: &[u32; 4] = values[..4].try_into().expect("4 values");
    // SAFETY: `values` is 4 readable `u32`s, 16 bytes, the load's width;
    // `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(values.as_ptr().cast()) }
}

/// Whether no value of `v` has a bit of `mask` set.
#[target_feature(enable = "sse4.1")]
#[inline]
fn none_of(v: __m128i, mask: u32) -> bool {
    _mm_testz_si128(v, _mm_set1_epi32(mask as i32)) == 1
}

impl Sse41 {
    /// Encodes `scalars` as UTF-8 onto `out`, or fails at the first value
    /// that is a surrogate or above U+10FFFF (what comes before it is
    /// encoded).
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    pub(crate) fn encode(scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
        let len = scalars.len();
        let mut at = 0;
        loop {
            at += Self::encode_run(&scalars[at..], out);
            if at == len {
                return Ok(());
            }
            // A step with a value that is not a scalar, or the last
            // values (fewer than a step).
            let n = (len - at).min(STEP);
            crate::encode::encode_scalars(&scalars[at..at + n], out).map_err(|f| {
                EncodeFailure {
                    index: f.index + at,
                    error: f.error,
                }
            })?;
            at += n;
        }
    }

    /// Appends the UTF-8 of the steps at the start of `scalars` while they
    /// are whole and every value is a scalar; returns how many values
    /// that is.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn encode_run(scalars: &[u32], out: &mut Vec<u8>) -> usize {
        // At most 4 bytes per value, + a step's room past the end.
        let size = 4 * scalars.len() + ROOM;
        out.reserve(size);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..size];
        let s16 = |w: u16| _mm_set1_epi16(w as i16);
        let (mut at, mut written) = (0, 0);
        // Invariant: `dst[..written]` is the UTF-8 of `scalars[..at]`, at
        // most 4 bytes each, so a step's stores, which end by `ROOM`
        // bytes past `written`, stay in `dst`.
        while let Some(step) = scalars.get(at..at + STEP) {
            let (a, b) = (load4(step), load4(&step[4..]));
            let to: &mut [MaybeUninit<u8>; ROOM] = (&mut dst[written..written + ROOM])
                .try_into()
                .expect("a step's room");
            let all = _mm_or_si128(a, b);
            if none_of(all, !0x7F) {
                // ASCII: these 8 and the 8 after, if ASCII too, narrowed
                // by two packs; else these 8 alone.
                let ascii16 = scalars.get(at + STEP..at + 2 * STEP).and_then(|next| {
                    let (c, d) = (load4(next), load4(&next[4..]));
                    none_of(_mm_or_si128(c, d), !0x7F).then_some((c, d))
                });
                let (c, d, n) = match ascii16 {
                    Some((c, d)) => (c, d, 2 * STEP),
                    None => (_mm_setzero_si128(), _mm_setzero_si128(), STEP),
                };
                let bytes = _mm_packus_epi16(_mm_packus_epi32(a, b), _mm_packus_epi32(c, d));
                let to: &mut [MaybeUninit<u8>; 16] = (&mut to[..16]).try_into().expect("16 bytes");
                // SAFETY: `to` is 16 writable bytes, the store's width.
                unsafe { _mm_storeu_si128(to.as_mut_ptr().cast(), bytes) };
                written += n;
                at += n;
                continue;
            }
            if none_of(all, !0x7FF) {
                // Latin text (no surrogate is below 0x800); the pack is
                // exact.
                written += Utf16Sse41::below_800(_mm_packus_epi32(a, b), to);
                at += STEP;
                continue;
            }
            if !none_of(all, 0xFFFF_0000) {
                // A value from 0x10000 on: each value in its 32-bit lane,
                // unless one is not a scalar (the caller's).
                let s32 = |x: u32| _mm_set1_epi32(x as i32);
                let bad = |x: __m128i| {
                    let surrogate =
                        _mm_cmpeq_epi32(_mm_and_si128(x, s32(0xFFFF_F800)), s32(0xD800));
                    let too_large = _mm_cmpeq_epi32(_mm_max_epu32(x, s32(0x11_0000)), x);
                    _mm_or_si128(surrogate, too_large)
                };
                let flags = _mm_or_si128(bad(a), bad(b));
                if _mm_testz_si128(flags, flags) == 0 {
                    break;
                }
                let n = any_length(a, to);
                written += n + any_length(b, &mut to[n..]);
                at += STEP;
                continue;
            }
            // Each value below 0x10000: the pack is exact.
            let v = _mm_packus_epi32(a, b);
            // Surrogates: 0xD800..=0xDFFF, the units whose top 5 bits are
            // 0xD800 >> 11.
            let surrogate = _mm_cmpeq_epi16(_mm_and_si128(v, s16(0xF800)), s16(0xD800));
            if _mm_testz_si128(surrogate, surrogate) == 0 {
                break;
            }
            written += Utf16Sse41::bmp(v, to);
            at += STEP;
        }
        // SAFETY: `dst[..written]` were written (the invariant), within the
        // spare capacity.
        unsafe { out.set_len(base + written) };
        at
    }
}

/// The UTF-8 of 4 scalar values, at the start of `dst` (16 bytes of
/// room); returns its length.
///
/// Each value's bytes end its 32-bit lane (RFC 3629 §3: `11110uuu 10uuzzzz
/// 10yyyyyy 10xxxxxx`, or the last 3, 2 or 1 of a shorter form), one
/// formula per byte whatever the length: the last byte is the value's low
/// 6 bits with `10` (or, for ASCII, the value), the one before bits 6.. with
/// `10` or `110`, the one before that bits 12.. with `10` or `1110`, and
/// the first bits 18.. with `11110`. [`TAIL4`] keeps the last 1 to 4 bytes
/// of each lane.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn any_length(x: __m128i, dst: &mut [MaybeUninit<u8>]) -> usize {
    let s32 = |x: u32| _mm_set1_epi32(x as i32);
    let and = _mm_and_si128;
    // Every value is at most 0x10FFFF: signed compares are exact.
    let k1 = _mm_cmpgt_epi32(x, s32(0x7F));
    let k2 = _mm_cmpgt_epi32(x, s32(0x7FF));
    let k3 = _mm_cmpgt_epi32(x, s32(0xFFFF));
    let six = |v: __m128i| and(v, s32(0x3F));
    let last = _mm_blendv_epi8(x, _mm_or_si128(six(x), s32(0x80)), k1);
    let third = _mm_or_si128(
        _mm_or_si128(six(_mm_srli_epi32::<6>(x)), s32(0x80)),
        _mm_andnot_si128(k2, s32(0x40)),
    );
    let second = _mm_or_si128(
        _mm_or_si128(six(_mm_srli_epi32::<12>(x)), s32(0x80)),
        _mm_andnot_si128(k3, s32(0x60)),
    );
    let first = _mm_or_si128(_mm_srli_epi32::<18>(x), s32(0xF0));
    let lanes = _mm_or_si128(
        _mm_or_si128(first, _mm_slli_epi32::<8>(second)),
        _mm_or_si128(_mm_slli_epi32::<16>(third), _mm_slli_epi32::<24>(last)),
    );
    // Per lane, length − 1 in two bits: bit 0 = k1^k2^k3, bit 1 = k2.
    let bits = |k: __m128i| _mm_movemask_ps(_mm_castsi128_ps(k)) as usize;
    let key = usize::from(SPREAD[bits(_mm_xor_si128(_mm_xor_si128(k1, k2), k3))])
        | usize::from(SPREAD[bits(k2)]) << 1;
    // SAFETY: a table row is 16 readable bytes.
    let control = unsafe { _mm_loadu_si128(TAIL4.0[key].0.as_ptr().cast()) };
    store16(dst, _mm_shuffle_epi8(lanes, control));
    usize::from(TAIL4.1[key])
}
