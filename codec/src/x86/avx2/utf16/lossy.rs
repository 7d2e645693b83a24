//! Lossy UTF-8 → UTF-16 for the AVX2 kernel, in one pass: one U+FFFD per
//! maximal subpart (Unicode §3.9), as the `avx512vbmi2` kernel's decoder
//! does it, on 32-byte steps and the strict decoder's groups.
//!
//! Each step is checked as strict decoding checks it (an ASCII step: only
//! that nothing is open before it). The errors of real text are replaced
//! where they stand, not by a restart of the loop each:
//!
//! * a step with no lead of a multi-byte character (ASCII with stray
//!   bytes, nothing open before it) is widened, each stray byte a U+FFFD,
//!   in a run with the ASCII steps around it;
//! * any other whole step with an error gets its subparts from its bytes
//!   alone ([`ByteClasses::subparts`]) and is decoded in one pass, each
//!   subpart's start a U+FFFD, once [`Head`] has said which of its first
//!   bytes the character open before it read (and, if that character
//!   broke there, put one U+FFFD in place of its lead's units); a
//!   character its end cuts is checked with the next step, as after any
//!   step.
//!
//! An error in the last, partial step stops the loop: the steps' output
//! for the failing character is taken back, one U+FFFD written for its
//! subpart ([`fail_after`]), and the loop goes on after it.

use super::decode::{Masks, STEP};
use super::Utf16Avx2;
use crate::x86::avx2::Avx2;
use crate::x86::fail_after;
use crate::x86::subparts::{replace_subpart, settle_head, units_of_leads, ByteClasses, Subparts};
use crate::x86::utf16::DECODE_SLACK;
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Stores the 32 bytes of `v` (ASCII and stray bytes) as 32 code units at
/// the start of `dst`, each stray byte (0x80 and above) a U+FFFD.
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
        // SAFETY: `dst[16k..16k + 16]` is 16 writable units, 32 bytes, the
        // store's width; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(dst[16 * k..].as_mut_ptr().cast(), units) }
    }
}

/// The bytes of a step that `bits` marks, as a byte mask: byte `i` is 0xFF
/// if bit `i` is set, 0 if not.
#[target_feature(enable = "avx2")]
#[inline]
fn byte_mask(bits: u32) -> __m256i {
    // Byte `i` of the broadcast holds bits 8⌊i/8⌋.. of `bits`; the AND
    // keeps its bit `i mod 8`.
    let spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(bits as i32),
        _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3,
            3, 3, 3,
        ),
    );
    let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit)
}

impl Utf16Avx2 {
    /// Lossy decoding to UTF-16 (`bytes` starting at a character
    /// boundary): appends one U+FFFD per maximal subpart, the UTF-16 of
    /// every character.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn decode_lossy(bytes: &[u8], out: &mut Vec<u16>) {
        let len = bytes.len();
        // At most one code unit per byte (a U+FFFD stands for ≥ 1 byte, a
        // surrogate pair for 4), and room for the steps' stores.
        out.reserve(len + DECODE_SLACK);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..len + DECODE_SLACK];
        let (mut at, mut written) = (0, 0);
        // Where the last maximal subpart ended: nothing is open before it.
        let mut floor = 0;
        // The check's context: the step before `at` (zero after ASCII or a
        // subpart, which the tables treat alike), and whether it is the
        // real step before, so the check can read its shifted copies from
        // memory.
        let mut prev = _mm256_setzero_si256();
        let mut prev_in_place = false;
        // The last steps, zero-padded.
        let mut padded;
        // Invariant: `bytes[floor..at]` passed the check but for a
        // character that `incomplete(prev)` says is open; `dst[..written]`
        // holds the output for `bytes[..at]` (each lead since `floor`
        // decoded), `written` ≤ `at` + 1.
        'steps: loop {
            let flagged = 'check: {
                if at >= len {
                    if !Avx2::incomplete(prev) {
                        // SAFETY: `dst[..written]` were written (the
                        // invariant), within the spare capacity.
                        unsafe { out.set_len(base + written) };
                        return;
                    }
                    break 'check len;
                }
                let whole = at + STEP <= len;
                // Characters that start in the step may end in the 3 bytes
                // after it; the last steps' are zeros.
                let window: &[u8; STEP + 3] = match bytes.get(at..at + STEP + 3) {
                    Some(window) => window.try_into().expect("a step and 3 bytes"),
                    None => {
                        padded = [0; STEP + 3];
                        let rest = &bytes[at..];
                        padded[..rest.len()].copy_from_slice(rest);
                        &padded
                    }
                };
                let v = Avx2::load(window[..STEP].try_into().expect("a step"));
                let non_ascii = _mm256_movemask_epi8(v) as u32;
                let mut errors = _mm256_setzero_si256();
                if non_ascii != 0 {
                    errors = if prev_in_place && whole {
                        // The step before is in memory, and `at` ≥ 32.
                        let behind: &[u8; 3 + STEP] =
                            bytes[at - 3..at + STEP].try_into().expect("3 + 32 bytes");
                        Avx2::errors_in_place(behind, v)
                    } else {
                        Avx2::errors(v, prev)
                    };
                    if whole && !Avx2::any(errors) {
                        // The common step, as the strict loop decodes it.
                        written += Self::clean_step(window, v, non_ascii, &mut dst[written..]);
                        at += STEP;
                        prev = v;
                        prev_in_place = true;
                        continue 'steps;
                    }
                }
                let open_before = Avx2::incomplete(prev);
                if non_ascii == 0 && open_before {
                    // An ASCII byte cannot continue the open character.
                    break 'check at;
                }
                let strays = non_ascii != 0 && Avx2::multi_byte_leads(v) == 0;
                if non_ascii == 0 || strays && whole && !open_before {
                    if whole {
                        (at, written) = Self::widen_run(bytes, at, dst, written);
                    } else {
                        // The last, partial step, ASCII: its padding is
                        // zeros, its units past the end are not counted.
                        let units: &mut [MaybeUninit<u16>; STEP] = (&mut dst
                            [written..written + STEP])
                            .try_into()
                            .expect("a step's units");
                        Self::widen(v, units);
                        written += len - at;
                        at = len;
                    }
                    // A stray byte is a subpart of its own: nothing before
                    // `at` is open.
                    floor = at;
                    prev = _mm256_setzero_si256();
                    prev_in_place = false;
                    continue 'steps;
                }
                let real = if whole {
                    u32::MAX
                } else {
                    (1u32 << (len - at)) - 1
                };
                let flag = Avx2::first(errors).map(|f| (at + f).min(len));
                let masks = Masks::of(v, non_ascii);
                let (masks, bad, flag) = match flag {
                    None => {
                        let starts = masks.starts & real;
                        prev = v;
                        prev_in_place = whole;
                        (Masks { starts, ..masks }, 0, None)
                    }
                    Some(f) if whole => {
                        // The subparts are replaced in the step; first,
                        // its bytes that the character open before it
                        // read, and that character if it broke.
                        let read;
                        (read, written) = settle_head(bytes, at, f, open_before, dst, written);
                        let Subparts { starts, bad, open } = Self::subparts(v, read);
                        // The character left open at the step's end (its
                        // lead goes out, decoded from the next bytes) is
                        // all the next step's check must see: the bytes
                        // before it are settled.
                        let open_at = match open {
                            0 => STEP,
                            _ => open.trailing_zeros() as usize,
                        };
                        prev = _mm256_and_si256(v, byte_mask(open.wrapping_neg() as u32));
                        prev_in_place = false;
                        floor = at + open_at;
                        let starts = starts as u32;
                        (Masks { starts, ..masks }, bad as u32, None)
                    }
                    Some(f) => {
                        // The characters before the flag; the failing
                        // one's output, if it went out, is taken back
                        // below.
                        let starts = masks.starts & ((1u64 << (f - at)) as u32).wrapping_sub(1);
                        (Masks { starts, ..masks }, 0, Some(f))
                    }
                };
                written += Self::decode_step::<true>(window, masks, bad, &mut dst[written..]);
                if let Some(f) = flag {
                    at = f;
                    break 'check f;
                }
                at = (at + STEP).min(len);
                continue 'steps;
            };
            let e = fail_after(bytes, floor, flagged);
            let start = e.valid_up_to();
            // The failing character's lead went out (the bytes from it to
            // `at` are its continuations): take back its one or two units.
            written -= units_of_leads(&bytes[start..at]);
            (at, written) = replace_subpart(bytes, e, dst, written);
            floor = at;
            prev = _mm256_setzero_si256();
            prev_in_place = false;
        }
    }

    /// Decodes the step `v` that passed its check (`non_ascii` its
    /// non-ASCII bytes), as the strict loop does: the groups' lossy copy,
    /// no subpart (the strict copy, with a third caller, was no longer
    /// inlined into the strict loops).
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
        if starts & !three == 0 {
            // 3-byte characters only (CJK text), 10 or 11 of them.
            let to: &mut [MaybeUninit<u16>; 16] = (&mut dst[..16]).try_into().expect("16 units");
            Self::step_of_threes(window, starts, to);
            return starts.count_ones() as usize;
        }
        let mut written = 0;
        for h in 0..2 {
            let group = Masks {
                non_ascii: (non_ascii >> (16 * h)) as u16,
                starts: (starts >> (16 * h)) as u16,
                three: (three >> (16 * h)) as u16,
                four: (masks.four >> (16 * h)) as u16,
            };
            written += Self::group_at::<true>(window, 16 * h, group, 0, &mut dst[written..]);
        }
        written
    }

    /// Widens the run of whole steps from `bytes[at..]` that are ASCII or
    /// ASCII and stray bytes (no lead of a multi-byte character), each
    /// stray a U+FFFD, into `dst[written..]`; the first step is one, after
    /// no open character. Returns the new `(at, written)`: the first step
    /// that is not one, or not whole. Every byte is one code unit either
    /// way: no branch but the exit.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn widen_run(
        bytes: &[u8],
        mut at: usize,
        dst: &mut [MaybeUninit<u16>],
        mut written: usize,
    ) -> (usize, usize) {
        // `written` ≤ `at` + 1, and a step is whole before its units are
        // stored: they fit in `dst` (len + 32 units).
        loop {
            // ASCII text: 64 bytes an iteration while it lasts, one test.
            if let Some(run) = bytes.get(at..at + 2 * STEP) {
                let run: &[u8; 2 * STEP] = run.try_into().expect("64 bytes");
                let a = Avx2::load(run[..STEP].try_into().expect("a step"));
                let b = Avx2::load(run[STEP..].try_into().expect("a step"));
                if _mm256_movemask_epi8(_mm256_or_si256(a, b)) == 0 {
                    let to: &mut [MaybeUninit<u16>; 2 * STEP] = (&mut dst
                        [written..written + 2 * STEP])
                        .try_into()
                        .expect("64 units");
                    for (k, v) in [a, b].into_iter().enumerate() {
                        Self::widen(
                            v,
                            (&mut to[STEP * k..STEP * (k + 1)]).try_into().expect("32"),
                        );
                    }
                    at += 2 * STEP;
                    written += 2 * STEP;
                    continue;
                }
            }
            let Some(step) = bytes.get(at..at + STEP) else {
                break;
            };
            let v = Avx2::load(step.try_into().expect("a step"));
            let units: &mut [MaybeUninit<u16>; STEP] = (&mut dst[written..written + STEP])
                .try_into()
                .expect("a step's units");
            if _mm256_movemask_epi8(v) == 0 {
                Self::widen(v, units);
            } else if Avx2::multi_byte_leads(v) == 0 {
                widen_strays(v, units);
            } else {
                break;
            }
            at += STEP;
            written += STEP;
        }
        (at, written)
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

    /// Where the characters and maximal subparts of a whole step start
    /// ([`ByteClasses::subparts`]), its first `head` bytes read by the
    /// character open before it.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn subparts(v: __m256i, head: usize) -> Subparts {
        let mask = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32);
        // Unsigned `b ≥ x` is `max(b, x) == b`.
        let at_least = |x: u8| {
            mask(_mm256_cmpeq_epi8(
                _mm256_max_epu8(v, _mm256_set1_epi8(x as i8)),
                v,
            ))
        };
        let is = |x: u8| mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(x as i8)));
        let (lead, never) = (Avx2::multi_byte_leads(v), Avx2::never_leads(v));
        ByteClasses::from_compares(at_least, is, u64::from(lead), u64::from(never))
            .subparts(STEP as u32, head)
    }
}
