//! Lossy UTF-8 → UTF-16 for the SSE4.1 kernel, in one pass: one U+FFFD
//! per maximal subpart (Unicode §3.9), as the AVX2 kernel's decoder
//! ([`crate::x86::avx2::utf16`]) does it, on 16-byte steps and the strict
//! decoder's step decoding.
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

use super::decode::{above, copy, widen, STEP};
use super::Utf16Sse41;
use crate::x86::fail_after;
use crate::x86::sse41::Sse41;
use crate::x86::subparts::{replace_subpart, settle_head, units_of_leads, ByteClasses, Subparts};
use crate::x86::utf16::DECODE_SLACK;
use crate::REPLACEMENT;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Stores the 16 bytes of `v` (ASCII and stray bytes) as 16 code units at
/// the start of `dst`, each stray byte (0x80 and above) a U+FFFD.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn widen_strays(v: __m128i, dst: &mut [MaybeUninit<u16>; STEP]) {
    let fffd = _mm_set1_epi16(REPLACEMENT as u16 as i16);
    for (k, units) in [
        _mm_cvtepu8_epi16(v),
        _mm_unpackhi_epi8(v, _mm_setzero_si128()),
    ]
    .into_iter()
    .enumerate()
    {
        let strays = _mm_cmpgt_epi16(units, _mm_set1_epi16(0x7F));
        let units = _mm_blendv_epi8(units, fffd, strays);
        // SAFETY: `dst[8k..8k + 8]` is 8 writable units, 16 bytes, the
        // store's width; `storeu` has no alignment requirement.
        unsafe { _mm_storeu_si128(dst[8 * k..].as_mut_ptr().cast(), units) }
    }
}

/// The bytes of a step from `at` on (`at` ≤ 16) as a byte mask: byte `i`
/// is 0xFF if `i` ≥ `at`, 0 if not.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
fn from_byte(at: usize) -> __m128i {
    let index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    _mm_cmpgt_epi8(index, _mm_set1_epi8(at as i8 - 1))
}

impl Utf16Sse41 {
    /// Lossy decoding to UTF-16 (`bytes` starting at a character
    /// boundary): appends one U+FFFD per maximal subpart, the UTF-16 of
    /// every character.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
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
        let mut prev = _mm_setzero_si128();
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
                    if !Sse41::incomplete(prev) {
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
                let v = Sse41::load(window[..STEP].try_into().expect("a step"));
                if Sse41::is_ascii(v) {
                    if Sse41::incomplete(prev) {
                        // An ASCII byte cannot continue the open character.
                        break 'check at;
                    }
                    if whole {
                        (at, written) = Self::widen_run(bytes, at, dst, written);
                    } else {
                        // The last, partial step, ASCII: its padding is
                        // zeros, its units past the end are not counted.
                        widen(&mut dst[written..written + STEP], v);
                        written += len - at;
                        at = len;
                    }
                    // A stray byte is a subpart of its own: nothing before
                    // `at` is open.
                    floor = at;
                    prev = _mm_setzero_si128();
                    prev_in_place = false;
                    continue 'steps;
                }
                let errors = if prev_in_place && whole {
                    // The step before is in memory, and `at` ≥ 16.
                    let behind: &[u8; 3 + STEP] =
                        bytes[at - 3..at + STEP].try_into().expect("3 + 16 bytes");
                    Sse41::errors_in_place(behind, v)
                } else {
                    Sse41::errors(v, prev)
                };
                let real = if whole {
                    u16::MAX
                } else {
                    (1u16 << (len - at)) - 1
                };
                // As signed bytes, a continuation is ≤ −65: every other
                // byte starts a character.
                let starts = above(v, -65);
                let (starts, bad, flag) = match Sse41::first(errors).map(|f| (at + f).min(len)) {
                    None => {
                        prev = v;
                        prev_in_place = whole;
                        // Most steps: decoded in line, as in the strict
                        // loop (through `step_apart` too, they ran slower).
                        written += Self::decode_step::<false, { copy::LOSSY_PASSED }>(
                            window,
                            v,
                            starts & real,
                            0,
                            &mut dst[written..],
                        );
                        at = (at + STEP).min(len);
                        continue 'steps;
                    }
                    Some(_)
                        if whole && Sse41::multi_byte_leads(v) == 0 && !Sse41::incomplete(prev) =>
                    {
                        // ASCII and stray bytes (which the check flags),
                        // nothing open before them: each stray is a
                        // subpart of its own, widened in a run with the
                        // ASCII and stray steps after it.
                        (at, written) = Self::widen_run(bytes, at, dst, written);
                        floor = at;
                        prev = _mm_setzero_si128();
                        prev_in_place = false;
                        continue 'steps;
                    }
                    Some(f) if whole => {
                        // The subparts are replaced in the step; first,
                        // its bytes that the character open before it
                        // read, and that character if it broke.
                        let read;
                        (read, written) =
                            settle_head(bytes, at, f, Sse41::incomplete(prev), dst, written);
                        let Subparts { starts, bad, open } = Self::subparts(v, read);
                        // The character left open at the step's end (its
                        // lead goes out, decoded from the next bytes) is
                        // all the next step's check must see: the bytes
                        // before it are settled.
                        let open_at = match open {
                            0 => STEP,
                            _ => open.trailing_zeros() as usize,
                        };
                        prev = _mm_and_si128(v, from_byte(open_at));
                        prev_in_place = false;
                        floor = at + open_at;
                        (starts as u16, bad as u16, None)
                    }
                    Some(f) => {
                        // The characters before the flag; the failing
                        // one's output, if it went out, is taken back
                        // below.
                        (starts & ((1u16 << (f - at)) - 1), 0, Some(f))
                    }
                };
                written += Self::step_apart(window, v, starts, bad, &mut dst[written..]);
                if let Some(f) = flag {
                    at = f;
                    break 'check f;
                }
                // A whole step, its subparts replaced.
                at += STEP;
                continue 'steps;
            };
            let e = fail_after(bytes, floor, flagged);
            let start = e.valid_up_to();
            // The failing character's lead went out (the bytes from it to
            // `at` are its continuations): take back its one or two units.
            written -= units_of_leads(&bytes[start..at]);
            (at, written) = replace_subpart(bytes, e, dst, written);
            floor = at;
            prev = _mm_setzero_si128();
            prev_in_place = false;
        }
    }

    /// Widens the run of whole steps from `bytes[at..]` that are ASCII or
    /// ASCII and stray bytes (no lead of a multi-byte character), each
    /// stray a U+FFFD, into `dst[written..]`; the first step is one, after
    /// no open character. Returns the new `(at, written)`: the first step
    /// that is not one, or not whole. Every byte is one code unit either
    /// way: no branch but the exit.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
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
            // ASCII text: 32 bytes an iteration while it lasts, one test.
            if let Some(run) = bytes.get(at..at + 2 * STEP) {
                let a = Sse41::load(run[..STEP].try_into().expect("a step"));
                let b = Sse41::load(run[STEP..].try_into().expect("a step"));
                if _mm_movemask_epi8(_mm_or_si128(a, b)) == 0 {
                    let to = &mut dst[written..written + 2 * STEP];
                    widen(to, a);
                    widen(&mut to[STEP..], b);
                    at += 2 * STEP;
                    written += 2 * STEP;
                    continue;
                }
            }
            let Some(step) = bytes.get(at..at + STEP) else {
                break;
            };
            let v = Sse41::load(step.try_into().expect("a step"));
            let units: &mut [MaybeUninit<u16>; STEP] = (&mut dst[written..written + STEP])
                .try_into()
                .expect("a step's units");
            if _mm_movemask_epi8(v) == 0 {
                widen(units, v);
            } else if Sse41::multi_byte_leads(v) == 0 {
                widen_strays(v, units);
            } else {
                break;
            }
            at += STEP;
            written += STEP;
        }
        (at, written)
    }

    /// [`decode_step`](Self::decode_step) of a flagged step, with its
    /// subparts, out of line (as the AVX2 kernel's lossy loop calls its
    /// groups): the steps that pass the check have their copy in line.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline(never)]
    fn step_apart(
        window: &[u8; STEP + 3],
        v: __m128i,
        starts: u16,
        bad: u16,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        Self::decode_step::<true, { copy::LOSSY_FLAGGED }>(window, v, starts, bad, dst)
    }

    /// Where the characters and maximal subparts of a whole step start
    /// ([`ByteClasses::subparts`]), its first `head` bytes read by the
    /// character open before it.
    #[target_feature(enable = "sse4.1,ssse3,popcnt")]
    #[inline]
    fn subparts(v: __m128i, head: usize) -> Subparts {
        let mask = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16);
        // Unsigned `b ≥ x` is `max(b, x) == b`.
        let at_least = |x: u8| mask(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(x as i8)), v));
        let is = |x: u8| mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(x as i8)));
        let (lead, never) = (Sse41::multi_byte_leads(v), Sse41::never_leads(v));
        ByteClasses::from_compares(at_least, is, u64::from(lead), u64::from(never))
            .subparts(STEP as u32, head)
    }
}
