//! UTF-8 → UTF-16 for the AVX2 kernel: strict (checked as it goes), and
//! of well-formed text.
//!
//! 32 bytes a step: an ASCII step is widened to 32 code units (64 bytes
//! an iteration while ASCII lasts); any other is read with the 3 bytes
//! after it (where the continuations of a character that starts near the
//! end are). A step without 4-byte characters that passed its check is
//! decoded whole by [`bmp32_words`], with no branch on its bytes; in
//! lossy decoding, so is a step with an error but no supplementary
//! character ([`bmp32_words_marked`]: a U+FFFD in each subpart's lane),
//! and a step of 3-byte characters only (CJK text) with an error but no
//! subpart by fixed shuffles from its first start. Any other step (with
//! 4-byte characters) is two 16-byte groups, each of which decodes the
//! characters that start in it (a continuation byte starts nothing), by
//! the widest kind it holds:
//!
//! * ASCII: widened;
//! * 3-byte characters only: fixed shuffles, as the step's;
//! * no 4-byte lead (the BMP): each byte gets, in a 16-bit word, the value
//!   of the character it would start (as the UTF-32 decoder's `bmp16`),
//!   and a `pshufb` per 128-bit lane packs the words of the starts;
//! * otherwise each byte gets that value in a 32-bit lane (as `window16`),
//!   a value from U+10000 on becomes its surrogate pair in its lane (high
//!   surrogate in the low word), and a `pshufb` per 4 lanes keeps the low
//!   word of each start's lane and the high word of each pair's.
//!
//! The groups' places do not depend on what the one before decoded, so
//! the work of a step has no chain through its characters. Strict
//! decoding checks each step first, with the validator's block check; the
//! last bytes of well-formed text (fewer than a step) are
//! copied to a zero-padded buffer and decoded by the same groups, the
//! padding's zeros masked off the starts.

use super::super::super::pack::SPREAD;
use super::super::super::shuffle::WORDS;
use super::super::super::{lanes_at, prefetch_for_store, utf16};
use super::super::{bmp32_words, bmp32_words_marked, window_values, Avx2};
use super::Utf16Avx2;
use crate::{Verdict, REPLACEMENT};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Bytes a step decodes.
pub(super) const STEP: usize = 32;
/// Bytes a group decodes the characters of; it reads 3 more.
const GROUP: usize = 16;
/// Code units a group may store at its cursor: 16 at most, but the pair
/// path's last 8-unit store can start at unit 13 (twelve ASCII bytes and
/// a 4-byte lead, two units, in the first 12 bytes).
const ROOM: usize = 24;
// The strict loop's unchecked stores: the second group's room, from at
// most one unit past its start, ends within `dst`'s slack past the step.
const _: () = assert!(GROUP + 1 + ROOM <= STEP + utf16::DECODE_SLACK);

/// A group's (or, as `u32`, a step's) masks: bit `i` says byte `i` is not
/// ASCII, starts a character (is not 0x80..=0xBF; in lossy decoding, or
/// begins a maximal subpart), is a 3-byte lead (0xE0..=0xEF), is a 4-byte
/// lead (0xF0..). (Lossy decoding's mask of the subparts' starts goes
/// beside it: four `u16`s travel in one register, and the strict loops'
/// groups were not inlined when a fifth made them travel in memory.)
#[derive(Clone, Copy)]
pub(super) struct Masks<M> {
    pub(super) non_ascii: M,
    pub(super) starts: M,
    pub(super) three: M,
    pub(super) four: M,
}

impl Masks<u32> {
    /// The masks of the step `v`, whose `non_ascii` mask is known (its
    /// starts: every byte that is not a continuation). (The strict loop
    /// computes them in place: built here and split by
    /// [`group`](Self::group), its groups were not inlined.)
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn of(v: __m256i, non_ascii: u32) -> Self {
        // As signed bytes, a continuation is ≤ −65 and a 4-byte lead
        // (0xF0..) > −17 and negative.
        let starts = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65))) as u32;
        let four =
            _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-17))) as u32 & non_ascii;
        // 0xE0.. (as signed bytes, > −33, and negative) but not 0xF0..
        let three = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-33))) as u32
            & non_ascii
            & !four;
        Self {
            non_ascii,
            starts,
            three,
            four,
        }
    }

    /// Group `h`'s masks (bytes `16h..16h + 16` of the step).
    #[inline]
    fn group(self, h: usize) -> Masks<u16> {
        let half = |m: u32| (m >> (GROUP * h)) as u16;
        Masks {
            non_ascii: half(self.non_ascii),
            starts: half(self.starts),
            three: half(self.three),
            four: half(self.four),
        }
    }
}

/// Which caller a copy of [`group`](Utf16Avx2::group) is for (its `COPY`
/// parameter): only so that the lossy loop's steps that pass and those
/// with subparts each have their own copy, called from one place, which
/// the compiler inlines there, apart from the strict loops' (a copy
/// shared with a third caller was inlined into none of them).
pub(super) mod copy {
    /// The strict loops and the last bytes of well-formed text.
    pub(in super::super) const STRICT: u8 = 0;
    /// The lossy loop's steps that passed the check.
    pub(in super::super) const LOSSY_PASSED: u8 = 1;
    /// The lossy loop's steps with subparts, out of line.
    pub(in super::super) const LOSSY_FLAGGED: u8 = 2;
}

/// A group's room at the start of `dst` (checked: for the callers
/// outside the strict loop, whose bounds are not proved).
#[inline]
pub(super) fn room(dst: &mut [MaybeUninit<u16>]) -> &mut [MaybeUninit<u16>; ROOM] {
    (&mut dst[..ROOM]).try_into().expect("a group's room")
}

/// Stores the 16 code units of `v` at the start of `dst`.
#[target_feature(enable = "avx2")]
#[inline]
fn store16(dst: &mut [MaybeUninit<u16>], v: __m256i) {
    let dst: &mut [MaybeUninit<u16>; 16] = (&mut dst[..16]).try_into().expect("16 units");
    // SAFETY: `dst` is 16 writable `u16`s, 32 bytes, the store's width;
    // `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), v) }
}

/// Stores the 8 code units of `v` at the start of `dst`.
#[target_feature(enable = "avx2")]
#[inline]
fn store8(dst: &mut [MaybeUninit<u16>], v: __m128i) {
    let dst: &mut [MaybeUninit<u16>; 8] = (&mut dst[..8]).try_into().expect("8 units");
    // SAFETY: `dst` is 8 writable `u16`s, 16 bytes, the store's width.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
}

/// Stores the words of [`bmp32_words`] (4 registers, each with how many
/// of its first words count) one after another at the front of `dst`;
/// returns how many.
#[target_feature(enable = "avx2")]
#[inline]
fn store_words(words: [(__m128i, usize); 4], dst: &mut [MaybeUninit<u16>; STEP]) -> usize {
    let mut written = 0;
    for (words, count) in words {
        store8(&mut dst[written..], words);
        written += count;
    }
    written
}

/// The 16 bytes of `bytes` from `k` (`k + 16` ≤ its length).
#[target_feature(enable = "avx2")]
#[inline]
fn load16(bytes: &[u8], k: usize) -> __m128i {
    let bytes: &[u8; 16] = bytes[k..k + 16].try_into().expect("16 bytes");
    // SAFETY: `bytes` is 16 readable bytes, the load's width; `loadu` has
    // no alignment requirement.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

/// The `pshufb` control of a [`WORDS`] row.
#[target_feature(enable = "avx2")]
#[inline]
fn words_control(key: usize) -> __m128i {
    // SAFETY: a `WORDS` row is 16 aligned, readable bytes.
    unsafe { _mm_load_si128(WORDS[key].shuffle.as_ptr().cast()) }
}

impl Utf16Avx2 {
    /// Checks `bytes` and decodes them: appends the UTF-16 of the longest
    /// well-formed prefix to `out`, and returns the validator's verdict.
    ///
    /// The steps are checked as they go ([`steps`](Self::steps)), so an
    /// ASCII step costs its widening only; where they stop (an error, a
    /// character left open before an ASCII step, or the last bytes), the
    /// validator and [`decode_valid`](Self::decode_valid) take the rest,
    /// from the lead of any character the steps decoded but had not seen
    /// the end of.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn decode(bytes: &[u8], out: &mut Vec<u16>) -> Verdict {
        // SAFETY: `steps` writes the code units of the characters before
        // where it stops, checked but for one left open there; the
        // validator is this kernel's. `decode_checked` hands `steps` the
        // room it asks for, `len + DECODE_SLACK` units.
        unsafe {
            utf16::decode_checked(
                bytes,
                out,
                |bytes, dst| Self::steps::<true>(bytes, dst),
                |rest| Avx2::validate(rest).unpack(),
                |text, out| Self::decode_valid(text, out),
            )
        }
    }

    /// Appends the UTF-16 of `text`.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn decode_valid(text: &str, out: &mut Vec<u16>) {
        // SAFETY: `steps` and `tail` write the code units they count;
        // `decode_valid` hands `steps` `len + DECODE_SLACK` units.
        unsafe {
            utf16::decode_valid(
                text,
                out,
                |bytes, dst| Self::steps::<false>(bytes, dst),
                |rest, dst| Self::tail(rest, dst),
            )
        }
    }

    /// Decodes `bytes` a step at a time while a step is there, into `dst` (with [`DECODE_SLACK`](utf16::DECODE_SLACK) units of room past one unit
    /// per byte); returns how far it got, `at`, and the code units written:
    /// those of the characters that start before `at`.
    ///
    /// With `CHECK`, each step is first checked, as the validator checks a
    /// block (an ASCII step: only that the step before left no character
    /// open), and the loop stops before the first that fails; the bytes
    /// before `at` are then well-formed but for a character the steps
    /// decoded whose end is past `at`.
    ///
    /// # Safety
    /// `dst` must hold `bytes.len() + DECODE_SLACK` units or more: the
    /// steps store without bounds checks, within that room.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    unsafe fn steps<const CHECK: bool>(
        bytes: &[u8],
        dst: &mut [MaybeUninit<u16>],
    ) -> (usize, usize) {
        debug_assert!(dst.len() >= bytes.len() + utf16::DECODE_SLACK);
        let (mut at, mut written) = (0, 0);
        let len = bytes.len();
        // The last step, when fewer than 3 bytes follow it, zero-padded.
        let mut last = [0u8; STEP + 3];
        // The step before (zero before the first), the check's context.
        let mut prev = _mm256_setzero_si256();
        // Invariant: `dst[..written]` holds the code units of the
        // characters that start before `at`, `written` ≤ `at` + 1 (no
        // more units than bytes, but for a 4-byte character that starts
        // before `at` and ends after it); the stores below are proved in
        // it, with `at + STEP <= len` for a step and `dst`'s room of
        // `len + DECODE_SLACK` units.
        while let Some(block) = bytes.get(at..at + STEP) {
            let block: &[u8; STEP] = block.try_into().expect("32 bytes");
            // SAFETY: `block` is 32 readable bytes, the load's width.
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
            let non_ascii = _mm256_movemask_epi8(v) as u32;
            if non_ascii == 0 {
                if CHECK && Avx2::incomplete(prev) {
                    break;
                }
                // SAFETY: `written + 32 <= at + 33 <= len + 1` (the loop's
                // bounds), within the room.
                let to: &mut [MaybeUninit<u16>; STEP] = unsafe { lanes_at(dst, written) };
                store16(to, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
                store16(
                    &mut to[16..],
                    _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v)),
                );
                at += STEP;
                written += STEP;
                // ASCII text: 64 bytes an iteration while it lasts, one
                // test and four stores, nothing else carried.
                while let Some(run) = bytes.get(at..at + 2 * STEP) {
                    let run: &[u8; 2 * STEP] = run.try_into().expect("64 bytes");
                    // SAFETY: `run` is 64 readable bytes, two loads' width.
                    let (a, b) = unsafe {
                        (
                            _mm256_loadu_si256(run.as_ptr().cast()),
                            _mm256_loadu_si256(run[STEP..].as_ptr().cast()),
                        )
                    };
                    if _mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0 {
                        break;
                    }
                    // SAFETY: `written + 64 <= at + 65 <= len + 1`.
                    let to: &mut [MaybeUninit<u16>; 2 * STEP] = unsafe { lanes_at(dst, written) };
                    // The next iteration's two lines of output.
                    prefetch_for_store(to.as_ptr().wrapping_add(2 * STEP));
                    prefetch_for_store(to.as_ptr().wrapping_add(3 * STEP));
                    for (k, v) in [a, b].into_iter().enumerate() {
                        store16(
                            &mut to[32 * k..],
                            _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)),
                        );
                        store16(
                            &mut to[32 * k + 16..],
                            _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v)),
                        );
                    }
                    at += 2 * STEP;
                    written += 2 * STEP;
                }
                // An ASCII block, as the check's context: nothing open.
                prev = _mm256_setzero_si256();
                continue;
            }
            // Characters that start in the step may end in the 3 bytes
            // after it; the last step's are zeros. (Well-formed text ends
            // its characters in the step; where strict input does not, the
            // open character is taken back when the loop ends.)
            let window: &[u8; STEP + 3] = match bytes.get(at..at + STEP + 3) {
                Some(window) => window.try_into().expect("a step and 3 bytes"),
                None => {
                    last[..len - at].copy_from_slice(&bytes[at..]);
                    &last
                }
            };
            if CHECK {
                let errors = if at == 0 {
                    Avx2::errors(v, prev)
                } else {
                    // The step before is in memory: the check reads its
                    // shifted copies from there.
                    let behind: &[u8; 3 + STEP] =
                        bytes[at - 3..at + STEP].try_into().expect("3 + 32 bytes");
                    Avx2::errors_in_place(behind, v)
                };
                if Avx2::any(errors) {
                    break;
                }
                prev = v;
            }
            // As signed bytes, a continuation is ≤ −65 and a 4-byte lead
            // (0xF0..) > −17 and negative.
            let starts = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65))) as u32;
            let four = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-17))) as u32
                & non_ascii;
            if four == 0 {
                // 1- to 3-byte characters, with no branch on which bytes
                // start what (a step of 3-byte characters only took fixed
                // shuffles, but the choice cost more than it saved).
                // SAFETY: `written + 32 <= at + 33 <= len + 1`.
                let to: &mut [MaybeUninit<u16>; STEP] = unsafe { lanes_at(dst, written) };
                let bytes = window[..STEP + 2].try_into().expect("34 bytes");
                written += Self::bmp32(bytes, starts, to);
                at += STEP;
                continue;
            }
            // 0xE0.. (as signed bytes, > −33, and negative) but not 0xF0..
            let three = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-33))) as u32
                & non_ascii
                & !four;
            for h in 0..2 {
                let masks = Masks {
                    non_ascii: (non_ascii >> (GROUP * h)) as u16,
                    starts: (starts >> (GROUP * h)) as u16,
                    three: (three >> (GROUP * h)) as u16,
                    four: (four >> (GROUP * h)) as u16,
                };
                // SAFETY: the characters before the group start before it,
                // so `written + ROOM <= at + GROUP * h + 1 + ROOM <= at + 41
                // <= len + DECODE_SLACK`.
                let room = unsafe { lanes_at(dst, written) };
                written +=
                    Self::group_at::<false, { copy::STRICT }>(window, GROUP * h, masks, 0, room);
            }
            at += STEP;
        }
        (at, written)
    }

    /// Decodes the characters `masks` says start in the step at the front
    /// of `window` (the 3 bytes after it hold the continuations of those
    /// that start near its end), each start `bad` marks one U+FFFD, into
    /// the front of `dst` (which takes 24 units past them); returns how
    /// many code units that is: the lossy loop's steps with an error. A
    /// step of 3-byte characters only (CJK text) with no subpart is decoded
    /// by fixed shuffles, one with no supplementary character by
    /// [`bmp32_words_marked`], each subpart's lane a U+FFFD; any other as
    /// two groups, out of line.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    pub(super) fn decode_step(
        window: &[u8; STEP + 3],
        masks: Masks<u32>,
        bad: u32,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let Masks { starts, three, .. } = masks;
        if bad == 0 && starts != 0 && starts & !three == 0 {
            // 3-byte characters only (CJK text), 10 or 11 of them.
            let to: &mut [MaybeUninit<u16>; 16] = (&mut dst[..16]).try_into().expect("16 units");
            Self::step_of_threes(window, starts, to);
            return starts.count_ones() as usize;
        }
        if masks.four & starts & !bad == 0 {
            // No supplementary character: the step in one pass, each
            // subpart's lane a U+FFFD (its first byte may be F0..FF).
            let bytes = window[..STEP + 2].try_into().expect("34 bytes");
            let to = (&mut dst[..STEP]).try_into().expect("32 units");
            return store_words(bmp32_words_marked(bytes, starts, bad), to);
        }
        let mut written = 0;
        for h in 0..2 {
            let bad = (bad >> (GROUP * h)) as u16;
            written +=
                Self::group_apart(window, GROUP * h, masks.group(h), bad, &mut dst[written..]);
        }
        written
    }

    /// Decodes the characters that start in `rest` (well-formed text's
    /// last bytes, fewer than a step, from wherever the steps
    /// stopped: its first bytes may continue a character already decoded)
    /// into `dst`; returns how many code units that is. The groups read a
    /// zero-padded copy: those at 0, 16 and 32 read up to byte 51.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn tail(rest: &[u8], dst: &mut [MaybeUninit<u16>]) -> usize {
        debug_assert!(rest.len() < STEP);
        let mut padded = [0u8; 64];
        padded[..rest.len()].copy_from_slice(rest);
        let (mut from, mut written) = (0, 0);
        while from < rest.len() {
            let v = load16(&padded, from);
            let real = ((1u64 << (rest.len() - from).min(GROUP)) - 1) as u16;
            let non_ascii = _mm_movemask_epi8(v) as u16;
            let four = _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-17))) as u16 & non_ascii;
            let masks = Masks {
                non_ascii,
                starts: _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-65))) as u16 & real,
                three: _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-33))) as u16
                    & non_ascii
                    & !four,
                four,
            };
            written += Self::group_at::<false, { copy::STRICT }>(
                &padded,
                from,
                masks,
                0,
                room(&mut dst[written..]),
            );
            from += GROUP;
        }
        written
    }

    /// [`group_at`](Self::group_at), lossy, out of line: inlined into the
    /// lossy loop, its copies made that loop slower (not the strict
    /// loops, which inline theirs).
    #[target_feature(enable = "avx2,popcnt")]
    #[inline(never)]
    fn group_apart(
        bytes: &[u8; STEP + 3],
        from: usize,
        masks: Masks<u16>,
        bad: u16,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        Self::group_at::<true, { copy::LOSSY_FLAGGED }>(bytes, from, masks, bad, room(dst))
    }

    /// [`group`](Self::group) of the 16 bytes of `bytes` from `from` (and
    /// the 3 after them), into `dst`.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    pub(super) fn group_at<const SUBPARTS: bool, const COPY: u8>(
        bytes: &[u8],
        from: usize,
        masks: Masks<u16>,
        bad: u16,
        dst: &mut [MaybeUninit<u16>; ROOM],
    ) -> usize {
        let group: &[u8; GROUP + 3] = bytes[from..from + GROUP + 3]
            .try_into()
            .expect("a group and 3 bytes");
        Self::group::<SUBPARTS, COPY>(group, masks, bad, dst)
    }

    /// Decodes the characters that start in the first 16 of `bytes` (the
    /// 3 after them hold the continuations of those that start near the
    /// end), `masks` saying where they start; stores their code units at
    /// the start of `dst` (and garbage after them) and returns how many.
    /// The starts `bad` marks are one U+FFFD each (and decide no
    /// path: an F8 among Latin text is no 4-byte lead).
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn group<const SUBPARTS: bool, const COPY: u8>(
        bytes: &[u8; GROUP + 3],
        masks: Masks<u16>,
        bad: u16,
        dst: &mut [MaybeUninit<u16>; ROOM],
    ) -> usize {
        let Masks {
            non_ascii,
            starts,
            three,
            four,
        } = masks;
        if non_ascii == 0 {
            store16(dst, _mm256_cvtepu8_epi16(load16(bytes, 0)));
            return starts.count_ones() as usize;
        }
        // In lossy decoding, the 4-byte leads that start characters here
        // (the starts may be cut short, before an error).
        let (four, bad) = if SUBPARTS {
            (four & starts & !bad, bad)
        } else {
            (four, 0)
        };
        if four == 0 {
            if bad == 0 && starts != 0 && starts & !three == 0 {
                Self::threes(bytes, starts, dst);
            } else {
                Self::bmp::<SUBPARTS>(bytes, starts, bad, dst);
            }
            return starts.count_ones() as usize;
        }
        Self::with_pairs::<SUBPARTS>(bytes, starts, four, bad, dst)
    }

    /// A step of 3-byte characters only (CJK text): they start at every
    /// third byte from the first start (its bytes before are
    /// continuations, at most 3), 10 or 11 of them, each decoded by a
    /// fixed shuffle moved on by the first start, as in
    /// [`threes`](Self::threes): characters 0–7 from the step's bytes
    /// (two 16-byte loads 12 bytes apart), 8–10 from its last 16 bytes and
    /// the 3 after them.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn step_of_threes(
        window: &[u8; STEP + 3],
        starts: u32,
        dst: &mut [MaybeUninit<u16>; 16],
    ) {
        let phase = starts.trailing_zeros() as i8;
        debug_assert!(phase <= 3);
        let z = -128;
        let moved = |control: __m256i| _mm256_add_epi8(control, _mm256_set1_epi8(phase));
        // Per 32-bit lane, a character's last byte lowest, its lead third,
        // then a zero (a control byte with its top bit set, which adding
        // the phase keeps).
        let eight = moved(_mm256_setr_epi8(
            2, 1, 0, z, 5, 4, 3, z, 8, 7, 6, z, 11, 10, 9, z, 2, 1, 0, z, 5, 4, 3, z, 8, 7, 6, z,
            11, 10, 9, z,
        ));
        // Characters 8–10 at 24 + phase, 5 + phase into the load at 19;
        // the other lanes are never counted.
        let three = moved(_mm256_setr_epi8(
            7, 6, 5, z, 10, 9, 8, z, 13, 12, 11, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z,
            z, z, z, z,
        ));
        let at = |k: usize| load16(window, k);
        let first = _mm256_set_m128i(at(12), at(0));
        // The shuffle reads each 128-bit lane: the first lane's load starts
        // at byte 0, the second's 12 bytes on; the phase moves both.
        let first = _mm256_shuffle_epi8(first, eight);
        let last = _mm256_shuffle_epi8(_mm256_castsi128_si256(at(STEP + 3 - 16)), three);
        let value = |x: __m256i| {
            let bits = _mm256_and_si256(x, _mm256_set1_epi32(0x000F_3F3F));
            // b2 + 64·b1 and b0, then + 4096·b0.
            let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
            _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001))
        };
        // Each lane below 0x10000: the pack is exact. It interleaves
        // 4-lane groups of its two operands; the permute puts characters
        // 0–3, 4–7 and 8–11 in order.
        let units = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(
            value(first),
            value(last),
        ));
        store16(dst, units);
    }

    /// [`group`](Self::group) of 3-byte characters only (CJK text): they
    /// start at every third byte from the first start (its bytes before
    /// are continuations, at most 3), 5 or 6 of them, and each becomes a
    /// 16-bit unit by a fixed shuffle (the lead's 4 payload bits and the
    /// continuations' 6, RFC 3629 §3) moved on by the first start: no
    /// table.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn threes(bytes: &[u8; GROUP + 3], starts: u16, dst: &mut [MaybeUninit<u16>; ROOM]) {
        let phase = starts.trailing_zeros() as i8;
        debug_assert!(phase <= 3);
        // Per 32-bit lane, a character's last byte lowest, its lead third,
        // then a zero (a control byte with its top bit set, which adding
        // the phase keeps). Lanes 0–3 are characters 0–3, from the group's
        // first 16 bytes; lanes 4–5 characters 4 and 5, from 16 bytes at 3
        // (12 bytes on, less 3); lanes 6 and 7 are never counted.
        let z = -128;
        let control = _mm256_add_epi8(
            _mm256_setr_epi8(
                2, 1, 0, z, 5, 4, 3, z, 8, 7, 6, z, 11, 10, 9, z, 11, 10, 9, z, 14, 13, 12, z, 0,
                0, 0, z, 0, 0, 0, z,
            ),
            _mm256_set1_epi8(phase),
        );
        let window = _mm256_set_m128i(load16(bytes, 3), load16(bytes, 0));
        let bits = _mm256_and_si256(
            _mm256_shuffle_epi8(window, control),
            _mm256_set1_epi32(0x000F_3F3F),
        );
        // b2 + 64·b1 and b0, then + 4096·b0.
        let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
        let values = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
        // Each lane below 0x10000: the pack is exact; the permute puts
        // the two 128-bit lanes' four units side by side.
        let units = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi32(values, values));
        store8(dst, _mm256_castsi256_si128(units));
    }

    /// The characters that start in the first 32 of `bytes`, all of 1 to
    /// 3 bytes ([`bmp32_words`]), stored at the front of `dst` (and
    /// garbage up to 32 units: the caller leaves room); returns how many.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    pub(super) fn bmp32(
        bytes: &[u8; STEP + 2],
        starts: u32,
        dst: &mut [MaybeUninit<u16>; STEP],
    ) -> usize {
        store_words(bmp32_words(bytes, starts), dst)
    }

    /// [`group`](Self::group) of 1- to 3-byte characters: each byte's
    /// 16-bit value (U+FFFD at `bad`), those of the starts packed per
    /// 128-bit lane.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn bmp<const SUBPARTS: bool>(
        bytes: &[u8; GROUP + 3],
        starts: u16,
        bad: u16,
        dst: &mut [MaybeUninit<u16>; ROOM],
    ) {
        let values = super::super::bmp16_values([0, 1, 2].map(|k| load16(bytes, k)));
        let values = if !SUBPARTS || bad == 0 {
            values
        } else {
            let lanes = _mm256_setr_epi16(
                1,
                2,
                4,
                8,
                16,
                32,
                64,
                128,
                256,
                512,
                1024,
                2048,
                4096,
                8192,
                16384,
                i16::MIN,
            );
            let marked = _mm256_and_si256(_mm256_set1_epi16(bad as i16), lanes);
            _mm256_blendv_epi8(
                values,
                _mm256_set1_epi16(REPLACEMENT as u16 as i16),
                _mm256_cmpeq_epi16(marked, lanes),
            )
        };
        let packed = super::super::pack_words(values, starts);
        store8(dst, _mm256_castsi256_si128(packed));
        store8(
            &mut dst[(starts as u8).count_ones() as usize..],
            _mm256_extracti128_si256::<1>(packed),
        );
    }

    /// [`group`](Self::group) with 4-byte characters (`four`, none of them
    /// `bad`): each byte's value in a 32-bit lane (U+FFFD at `bad`), a
    /// supplementary one as its surrogate pair, the starts' words packed 4
    /// lanes at a time; returns the count.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn with_pairs<const SUBPARTS: bool>(
        bytes: &[u8; GROUP + 3],
        starts: u16,
        four: u16,
        bad: u16,
        dst: &mut [MaybeUninit<u16>; ROOM],
    ) -> usize {
        let s32 = |x: u32| _mm256_set1_epi32(x as i32);
        let mut written = 0;
        for half in 0..2 {
            let values = window_values(load16(bytes, 3 * half), half);
            let marked = (bad >> (8 * half)) as u8;
            let values = if !SUBPARTS || marked == 0 {
                values
            } else {
                let lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
                let hit = _mm256_and_si256(_mm256_set1_epi32(i32::from(marked)), lanes);
                _mm256_blendv_epi8(
                    values,
                    s32(REPLACEMENT as u32),
                    _mm256_cmpeq_epi32(hit, lanes),
                )
            };
            // U' = U − 0x10000: high surrogate 0xD800 + (U' >> 10) in the
            // low word, low surrogate 0xDC00 + (U' & 0x3FF) in the high one
            // (Unicode §3.9, D91), so that the pair is in memory order.
            let u = _mm256_sub_epi32(values, s32(0x1_0000));
            let pair = _mm256_or_si256(
                _mm256_or_si256(_mm256_srli_epi32::<10>(u), s32(0xD800)),
                _mm256_slli_epi32::<16>(_mm256_or_si256(
                    _mm256_and_si256(u, s32(0x3FF)),
                    s32(0xDC00),
                )),
            );
            let supplementary = _mm256_cmpgt_epi32(values, s32(0xFFFF));
            let units = _mm256_blendv_epi8(values, pair, supplementary);
            let (m, f) = ((starts >> (8 * half)) as u8, (four >> (8 * half)) as u8);
            for (q, lane) in [
                _mm256_castsi256_si128(units),
                _mm256_extracti128_si256::<1>(units),
            ]
            .into_iter()
            .enumerate()
            {
                // Word 2i: lane i's unit, if it starts a character; word
                // 2i + 1: its low surrogate, if it is a 4-byte lead.
                let key = usize::from(
                    SPREAD[usize::from(m >> (4 * q) & 0xF)]
                        | SPREAD[usize::from(f >> (4 * q) & 0xF)] << 1,
                );
                store8(
                    &mut dst[written..],
                    _mm_shuffle_epi8(lane, words_control(key)),
                );
                written += key.count_ones() as usize;
            }
        }
        written
    }
}
