//! UTF-8 → UTF-16 for the `avx512vbmi2` kernel: strict and lossy, one pass.
//!
//! The loop is the UTF-32 decoder's (`checked_decoder!`): per 64-byte
//! block, an ASCII block is its own check and is widened (to 16-bit code
//! units: 64 units, two stores); any other block is checked and its
//! characters are decoded, the last one's continuation bytes read from
//! the next block: by [`Utf16Vbmi2::decode_clean`] from the mask check's
//! own masks when that check passed it, by
//! [`Utf16Vbmi2::decode_block`] otherwise.
//!
//! A block is checked with bit masks first ([`Avx512::well_formed`]: no
//! table lookups; the byte after the block's last lead is read from the
//! next block). Only a block that fails that check, or that follows a
//! character the mask check did not see open, gets the validator's check,
//! with the block before as context, which says where the error is.
//! Lossy decoding of more than a block does not ask the mask check: with
//! 1 % of the bytes invalid, half the blocks would fail it and pay for
//! both checks, and asking it only up to the first error cost emoji and
//! mixed text at 1 MiB and 1 % 10 % (the loop's extra state) for no gain
//! on valid text beyond noise.
//!
//! On an error, the leads before it are decoded and the failing
//! character's output, if it went out, is taken back; strict decoding
//! stops there, lossy decoding writes one U+FFFD for the maximal subpart
//! ([`fail_after`]) and goes on after it. Lossy decoding of a whole block
//! with an error does not stop at all: [`subparts`](Utf16Vbmi2::subparts)
//! finds every maximal subpart in the block from its bytes alone (once
//! [`settle_head`] has said which of its first bytes the character open
//! before it read, and replaced that character if it broke there), and the
//! block decodes in one pass, each subpart's first lane a U+FFFD (one
//! restart of the loop per error cost about as much as decoding a whole
//! block again).
//!
//! A block's characters become code units in 16-bit lanes, one lane per
//! byte, in one of three ways ([`decode_words`](Utf16Vbmi2::decode_words)),
//! by the block's longest character:
//!
//! * no byte ≥ 0xE0 (Latin, Greek, Cyrillic … text: 1- and 2-byte
//!   characters): each lane takes a byte and the next, the code point is
//!   the lead's 7 bits or its 5 and the next byte's 6, and a
//!   `vpcompressw` keeps the leads' lanes: the code units, 32 per register;
//! * no 4-byte lead (the BMP: CJK text): each lane also takes the byte
//!   after the next, so that a 3-byte lead's lane gets its code point;
//! * otherwise (emoji) a 4-byte character's high surrogate comes from its
//!   lead's lane, its low surrogate from the next lane, and the compress
//!   keeps both.
//!
//! A lead byte gives one code unit, two when it is ≥ 0xF0 (a 4-byte lead,
//! or F5..FF, which the check flags): the take-back after an error counts
//! by that rule, whatever the broken character decoded to.

use super::super::wellformed::Shape;
use super::super::{Avx512, N, V};
use super::{splat16, Utf16Vbmi2};
use crate::x86::fail_after;
use crate::x86::subparts::{replace_subpart, settle_head, units_of_leads, ByteClasses, Subparts};
use crate::{Verdict, REPLACEMENT};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Per half block `h`, the `vpermb`/`vpermt2b` control that gives 16-bit
/// lane `i` byte `b[32h + i + low]` low and `b[32h + i + high]` high
/// (indices into the block and, from 64, the next block).
const fn words(low: usize, high: usize) -> [[u8; N]; 2] {
    let mut t = [[0; N]; 2];
    let mut h = 0;
    while h < 2 {
        let mut i = 0;
        while i < N / 2 {
            t[h][2 * i] = (32 * h + i + low) as u8;
            t[h][2 * i + 1] = (32 * h + i + high) as u8;
            i += 1;
        }
        h += 1;
    }
    t
}

/// Byte pairs: 16-bit lane `i` of half `h` is `b[32h + i] << 8 | b[32h + i +
/// 1]`.
const PAIRS: [[u8; N]; 2] = words(1, 0);

/// The bytes two on from each pair's first: 16-bit lane `i` of half `h`
/// has `b[32h + i + 2]` in its low byte (its high byte is masked off).
const THIRDS: [[u8; N]; 2] = words(2, 2);

/// [`decode_checked`](Utf16Vbmi2::decode_checked)'s `carry` when the mask
/// check cannot take the next block (any value above the three bits of
/// [`Shape::carry`](crate::x86::avx512::wellformed::Shape::carry)): a
/// character is open whose second byte the mask check has not seen.
const UNSETTLED: u64 = u64::MAX;

/// Stores the 32 code units of `v` at the start of `dst` (≥ 32 units).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn store32(dst: &mut [MaybeUninit<u16>], v: V) {
    let dst: &mut [MaybeUninit<u16>; 32] = (&mut dst[..32]).try_into().expect("32 units");
    // SAFETY: `dst` is 32 writable `u16`s, 64 bytes, the store's width;
    // `storeu` needs no alignment.
    unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) }
}

impl Utf16Vbmi2 {
    /// Checks `bytes` and decodes them in one pass: appends the UTF-16 of
    /// the longest well-formed prefix to `out`, and returns the validator's
    /// verdict.
    ///
    /// Only a dispatch by length: the short path and the loop are
    /// functions of their own, so that a call of up to 64 bytes of ASCII
    /// pushes no more than the short path needs (with the loop inlined
    /// here, every call saved its six registers and made the loop's stack
    /// frame first).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn decode(bytes: &[u8], out: &mut Vec<u16>) -> Verdict {
        if bytes.len() <= N {
            return Self::decode_short(bytes, out);
        }
        Self::decode_blocks(bytes, out)
    }

    /// [`decode`](Self::decode) of more than one block: the loop.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn decode_blocks(bytes: &[u8], out: &mut Vec<u16>) -> Verdict {
        Self::decode_checked::<false>(bytes, out)
    }

    /// [`decode`](Self::decode) of at most one block: straight-line code,
    /// without the loop's stack frame and the constants it loads first.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    fn decode_short(bytes: &[u8], out: &mut Vec<u16>) -> Verdict {
        out.reserve(bytes.len() + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..bytes.len() + N];
        let (written, verdict) = Self::decode_one_block(bytes, dst);
        // SAFETY: `dst[..written]` were written, `written` ≤ `len`.
        unsafe { out.set_len(base + written) };
        verdict
    }

    /// Appends the UTF-16 of `text`: [`decode`](Self::decode)'s loop, whose
    /// check passes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn decode_valid(text: &str, out: &mut Vec<u16>) {
        let verdict = Self::decode(text.as_bytes(), out);
        debug_assert!(verdict.unpack().is_ok(), "a str is well-formed");
    }

    /// Lossy decoding to UTF-16 (`bytes` starting at a character
    /// boundary): one U+FFFD per maximal subpart.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    pub(crate) fn decode_lossy(bytes: &[u8], out: &mut Vec<u16>) {
        // A dispatch by length, as in `decode`.
        if bytes.len() <= N {
            return Self::decode_lossy_short(bytes, out);
        }
        Self::decode_lossy_blocks(bytes, out);
    }

    /// [`decode_lossy`](Self::decode_lossy) of more than one block: the
    /// loop.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn decode_lossy_blocks(bytes: &[u8], out: &mut Vec<u16>) {
        let verdict = Self::decode_checked::<true>(bytes, out);
        debug_assert!(verdict.unpack().is_ok(), "lossy decoding cannot fail");
    }

    /// [`decode_lossy`](Self::decode_lossy) of at most one block, as
    /// [`decode_short`](Self::decode_short) is of `decode`: straight-line
    /// code, without the loop's stack frame and constants.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    fn decode_lossy_short(bytes: &[u8], out: &mut Vec<u16>) {
        let len = bytes.len();
        out.reserve(len + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..len + N];
        let (v, real) = Self::load_one_block(bytes);
        let written = if Avx512::is_ascii(v) {
            Self::widen(v, 0, dst);
            len
        } else if Avx512::multi_byte_leads(v) == 0 {
            // ASCII and stray bytes (no lead of a multi-byte character),
            // each a subpart of its own: no check needed.
            Self::widen(v, _mm512_movepi8_mask(v), dst);
            len
        } else {
            Self::decode_lossy_one_multibyte(v, real, dst)
        };
        // SAFETY: `dst[..written]` were written (a widening stores 64
        // units, of which the first `len` are the block's), within the
        // spare capacity.
        unsafe { out.set_len(base + written) };
    }

    /// [`decode_lossy_short`](Self::decode_lossy_short)'s block `v` (`real`
    /// its bytes) once it holds a lead of a multi-byte character: its code
    /// units at the start of `dst`, and how many. Out of line, as
    /// [`decode_one_multibyte`](Self::decode_one_multibyte) is.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn decode_lossy_one_multibyte(v: V, real: u64, dst: &mut [MaybeUninit<u16>]) -> usize {
        let shape = Avx512::well_formed(v, Avx512::zero(), 0);
        if shape.is_clean_end() {
            // Well-formed. The mask check says so exactly (no block it
            // passes is ill-formed, none it fails is well-formed), and
            // where the error is does not matter here: the subparts
            // below come from the bytes alone.
            Self::decode_clean(v, Avx512::zero(), shape, real, dst)
        } else {
            let Subparts { starts, bad, open } = Self::subparts(v, 0);
            // Nothing follows the block: a character its end cuts is a
            // subpart too.
            let bad = (bad | open) & real;
            Self::decode_chars::<true>(v, Avx512::zero(), starts & real, bad, dst)
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_checked<const LOSSY: bool>(bytes: &[u8], out: &mut Vec<u16>) -> Verdict {
        // The verdict comes back in a register: a `Result<(), Utf8Error>`
        // from a call that is not inlined comes back through memory,
        // written in pieces.
        let len = bytes.len();
        // At most one code unit per byte (a U+FFFD stands for ≥ 1 byte, a
        // surrogate pair for 4), + one register of slack: every store
        // writes whole registers at the cursor.
        out.reserve(len + N);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..len + N];
        let mut written = 0;
        let mut at = 0;
        // Where the last maximal subpart ended (lossy): nothing is open
        // before it.
        let mut floor = 0;
        // The validator's context, the block before `at` (zero after ASCII
        // or a subpart, which the tables treat alike), and whether it is the
        // real block before, so the check can read its shifted copies from
        // memory.
        let mut prev = Avx512::zero();
        let mut prev_in_place = false;
        // Strict: the continuations due at `at` (`Shape::carry`), their
        // character's second byte checked, for the mask check; `UNSETTLED`
        // when a character is open whose second byte is still to check
        // (after a block the validator's check took): the next block takes
        // that check too.
        let mut carry = 0;
        // Invariant: `bytes[floor..at]` passed the check but for a
        // character that `incomplete(prev)` says is open; `dst[..written]`
        // holds the output for `bytes[..at]` (each lead since `floor`
        // decoded), `written` ≤ `at`.
        'blocks: loop {
            let flagged = 'check: {
                if at >= len {
                    if !Avx512::incomplete(prev) {
                        // SAFETY: `dst[..written]` were written (the
                        // invariant); `written` ≤ `len` ≤ the capacity.
                        unsafe { out.set_len(base + written) };
                        return Verdict::WELL_FORMED;
                    }
                    break 'check len;
                }
                let (v, real) = match bytes.get(at..at + N) {
                    Some(block) => (Avx512::load(block.try_into().expect("N bytes")), u64::MAX),
                    None => (Avx512::load_tail(&bytes[at..]), (1u64 << (len - at)) - 1),
                };
                if Avx512::is_ascii(v) {
                    if Avx512::incomplete(prev) {
                        // An ASCII byte cannot continue the open character.
                        break 'check at;
                    }
                    if real == u64::MAX {
                        (at, written) = Self::widen_run::<LOSSY>(bytes, at, dst, written);
                        // A stray byte is a subpart of its own: nothing
                        // before `at` is open.
                        floor = at;
                    } else {
                        Self::widen(v, 0, &mut dst[written..]);
                        written += len - at;
                        at = len;
                    }
                    prev = Avx512::zero();
                    prev_in_place = false;
                    carry = 0;
                    continue 'blocks;
                }
                if !LOSSY && carry != UNSETTLED {
                    let next = match bytes.get(at + N..at + 2 * N) {
                        Some(next) => Avx512::load(next.try_into().expect("N bytes")),
                        None if real == u64::MAX => Avx512::load_tail(&bytes[at + N..]),
                        None => Avx512::zero(),
                    };
                    let shape = Avx512::well_formed(v, next, carry);
                    if shape.errors == 0 {
                        written += Self::decode_clean(v, next, shape, real, &mut dst[written..]);
                        // A tail that passes leaves nothing open.
                        at = (at + N).min(len);
                        prev = v;
                        prev_in_place = true;
                        carry = shape.carry;
                        continue 'blocks;
                    }
                }
                // The validator's check; a tail block is zero-padded, so a
                // character left open at the end is flagged.
                let errors = if prev_in_place && real == u64::MAX {
                    let window = bytes[at - 3..at + N].try_into().expect("3 + N bytes");
                    Avx512::errors_in_place(window, v)
                } else {
                    Avx512::errors(v, prev)
                };
                let flag = Avx512::first(errors).map(|f| (at + f).min(len));
                if LOSSY
                    && flag.is_some()
                    && real == u64::MAX
                    && !Avx512::incomplete(prev)
                    && Avx512::multi_byte_leads(v) == 0
                {
                    // Stray bytes in ASCII, nothing open before them: each
                    // is a subpart of its own, widened in place (as in a
                    // run that began with an ASCII block), not one restart
                    // of the loop per stray.
                    (at, written) = Self::widen_run::<LOSSY>(bytes, at, dst, written);
                    floor = at;
                    prev = Avx512::zero();
                    prev_in_place = false;
                    continue 'blocks;
                }
                if let Some(f) = flag.filter(|_| LOSSY && real == u64::MAX) {
                    // A whole block with an error: its subparts are found
                    // and replaced in the block itself, not one restart of
                    // the loop each; first, its bytes that the character
                    // open before it read, and that character if it broke.
                    let read;
                    (read, written) =
                        settle_head(bytes, at, f, Avx512::incomplete(prev), dst, written);
                    let Subparts { starts, bad, open } = Self::subparts(v, read);
                    written += Self::decode_block::<true>(
                        bytes,
                        at,
                        v,
                        starts,
                        u64::MAX,
                        bad,
                        &mut dst[written..],
                    );
                    // The character left open at the block's end (its
                    // lead went out, decoded from the next block's
                    // payloads) is all the next block's check must see:
                    // the bytes before it are settled.
                    let (open_at, from_open) = match open {
                        0 => (N, 0),
                        // The open lead's bit and every bit above it.
                        _ => (open.trailing_zeros() as usize, !(open - 1)),
                    };
                    prev = _mm512_maskz_mov_epi8(from_open, v);
                    prev_in_place = false;
                    floor = at + open_at;
                    at += N;
                    continue 'blocks;
                }
                let decoded = match flag {
                    None => real,
                    // Out of line: a predicted branch, not a conditional
                    // move that would make the decoding wait for the check.
                    Some(f) => Avx512::prefix_mask(f - at),
                };
                written += Self::decode_prefix(bytes, at, v, decoded, &mut dst[written..]);
                if let Some(f) = flag {
                    at = f;
                    break 'check f;
                }
                at = (at + N).min(len);
                prev = v;
                prev_in_place = true;
                carry = if Avx512::incomplete(v) { UNSETTLED } else { 0 };
                continue 'blocks;
            };
            let e = fail_after(bytes, floor, flagged);
            let start = e.valid_up_to();
            // The failing character's lead went out (the bytes from it to
            // `at` are its continuations): take back its one or two units.
            written -= units_of_leads(&bytes[start..at]);
            if !LOSSY {
                // SAFETY: as above; the take-back only shortens.
                unsafe { out.set_len(base + written) };
                return Verdict::pack(Err(e));
            }
            (at, written) = replace_subpart(bytes, e, dst, written);
            floor = at;
            prev = Avx512::zero();
            prev_in_place = false;
        }
    }

    /// [`decode_checked`](Self::decode_checked), strict, of at most one
    /// block: the count of units written to `dst` and the verdict. On an
    /// error, only the characters before it are decoded (they end by
    /// `valid_up_to`, so the block holds all their bytes).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_one_block(bytes: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, Verdict) {
        let len = bytes.len();
        let (v, real) = Self::load_one_block(bytes);
        if Avx512::is_ascii(v) {
            Self::widen(v, 0, dst);
            return (len, Verdict::WELL_FORMED);
        }
        Self::decode_one_multibyte(bytes, v, real, dst)
    }

    /// [`decode_one_block`](Self::decode_one_block)'s block `v` (`real` its
    /// bytes) once it is not ASCII. Out of line: inlined, its registers
    /// gave the short path a 64-byte aligned stack frame, which an ASCII
    /// call paid for too.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn decode_one_multibyte(
        bytes: &[u8],
        v: V,
        real: u64,
        dst: &mut [MaybeUninit<u16>],
    ) -> (usize, Verdict) {
        let len = bytes.len();
        let shape = Avx512::well_formed(v, Avx512::zero(), 0);
        if shape.is_clean_end() {
            // Nothing follows the block, so nothing may be left open.
            let written = Self::decode_clean(v, Avx512::zero(), shape, real, dst);
            return (written, Verdict::WELL_FORMED);
        }
        let leads = !shape.continuations;
        let (decoded, verdict) = match Self::flag_one_block(v, real, len) {
            None => (real, Verdict::WELL_FORMED),
            Some(f) => {
                let e = crate::x86::fail(bytes, f);
                ((1u64 << e.valid_up_to()) - 1, Verdict::pack(Err(e)))
            }
        };
        // Nothing follows the block: a character it leaves open was
        // flagged above.
        (
            Self::decode_chars::<false>(v, Avx512::zero(), leads & decoded, 0, dst),
            verdict,
        )
    }

    /// The input of at most one block, `bytes`, zero-padded, and a bit per
    /// byte of it (the short paths' block).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn load_one_block(bytes: &[u8]) -> (V, u64) {
        match bytes.try_into() {
            Ok(block) => (Avx512::load(block), u64::MAX),
            Err(_) => (Avx512::load_tail(bytes), (1u64 << bytes.len()) - 1),
        }
    }

    /// The first byte the check flags in the block `v` of
    /// [`load_one_block`](Self::load_one_block) (`real` its bytes, `len`
    /// of them), nothing following it: a whole block may leave a
    /// character open, flagged at its end; a tail block cannot (the
    /// character meets the zero padding and is flagged there).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn flag_one_block(v: V, real: u64, len: usize) -> Option<usize> {
        match Avx512::first(Avx512::errors(v, Avx512::zero())) {
            Some(f) => Some(f.min(len)),
            None if real == u64::MAX && Avx512::incomplete(v) => Some(len),
            None => None,
        }
    }

    /// Stores the bytes of `v` (ASCII; when `LOSSY`, the bytes `strays`
    /// marks become U+FFFD) as 64 code units at the start of `dst`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn widen(v: V, strays: u64, dst: &mut [MaybeUninit<u16>]) {
        Self::widen_half(_mm512_castsi512_si256(v), strays as u32, dst);
        Self::widen_half(
            _mm512_extracti64x4_epi64::<1>(v),
            (strays >> 32) as u32,
            &mut dst[32..],
        );
    }

    /// [`widen`](Self::widen) of one half block, `half`: 32 code units at
    /// the start of `dst`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn widen_half(half: __m256i, strays: u32, dst: &mut [MaybeUninit<u16>]) {
        let units = _mm512_cvtepu8_epi16(half);
        let units = _mm512_mask_mov_epi16(units, strays, splat16(REPLACEMENT as u16));
        store32(dst, units);
    }

    /// Widens the run of whole blocks from `bytes[at..]` that are ASCII —
    /// or, when `LOSSY`, ASCII and stray bytes (no byte that starts a
    /// multi-byte character), each stray a U+FFFD — into `dst[written..]`;
    /// the first block is one (ASCII, or strays when `LOSSY`), after no
    /// open character. Returns the new
    /// `(at, written)`: the first block that is not one, or not whole.
    /// Every byte is one code unit either way: no branch but the exit.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn widen_run<const LOSSY: bool>(
        bytes: &[u8],
        mut at: usize,
        dst: &mut [MaybeUninit<u16>],
        mut written: usize,
    ) -> (usize, usize) {
        // `written` ≤ `at`, and a block is whole before its 64 units are
        // stored: they fit in `dst` (len + 64 units).
        let mut blocks = 0;
        while at + N <= bytes.len() {
            // SAFETY: the loop's condition.
            let v = unsafe { Avx512::load_at(bytes, at) };
            let non_ascii = _mm512_movepi8_mask(v);
            if non_ascii != 0 && !(LOSSY && Avx512::multi_byte_leads(v) == 0) {
                break;
            }
            let strays = if LOSSY { non_ascii } else { 0 };
            blocks += 1;
            if blocks == 2 {
                // A run longer than a block: the stores set the pace here,
                // and one that straddles two cache lines costs two. Store
                // the first half, advance to the output's next 64-byte
                // boundary (1 to 32 units), and every later store is
                // aligned, as in the UTF-32 decoder's run.
                let skew = (dst[written..].as_ptr().addr() % N) / 2;
                if skew != 0 {
                    Self::widen_half(
                        _mm512_castsi512_si256(v),
                        strays as u32,
                        &mut dst[written..],
                    );
                    at += N / 2 - skew;
                    written += N / 2 - skew;
                    continue;
                }
            }
            // One bounds check for both stores.
            let units: &mut [MaybeUninit<u16>; N] = (&mut dst[written..written + N])
                .try_into()
                .expect("N units");
            Self::widen(v, strays, units);
            at += N;
            written += N;
        }
        (at, written)
    }

    /// The code units of the block `v` (`real` its bytes) that the mask
    /// check passed, `shape` what it found, `next` the block after it as
    /// the check read it (zero after a tail block), at the start of `dst`;
    /// returns how many. The 16-bit-lane paths take the check's masks and
    /// inline here, into the loop: as a call, each block stored `next` to
    /// the stack and compared its bytes again.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_clean(v: V, next: V, shape: Shape, real: u64, dst: &mut [MaybeUninit<u16>]) -> usize {
        let leads = !shape.continuations & real;
        let (two, three, four) = (shape.two, shape.three, shape.four);
        if three == 0 {
            Self::decode_words::<false, 2>(v, next, leads, two, 0, 0, 0, dst)
        } else if four == 0 {
            Self::decode_words::<false, 3>(v, next, leads, two, three, 0, 0, dst)
        } else {
            Self::decode_supplementary(v, next, leads, shape, dst)
        }
    }

    /// [`decode_clean`](Self::decode_clean) of a block with 4-byte
    /// characters. Out of line: inlined into the block loop, its masks
    /// and constants took registers the Latin and CJK paths had kept
    /// their constants in.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline(never)]
    fn decode_supplementary(
        v: V,
        next: V,
        leads: u64,
        shape: Shape,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let (two, three, four) = (shape.two, shape.three, shape.four);
        Self::decode_words::<false, 4>(v, next, leads, two, three, four, 0, dst)
    }

    /// [`decode_block`](Self::decode_block) of the characters of `decoded`
    /// (a prefix of the block `v` at `bytes[at..]`, every byte of it when
    /// the block passed its check), no subparts: every lead among them.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_prefix(
        bytes: &[u8],
        at: usize,
        v: V,
        decoded: u64,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        // A lead is any byte but 0x80..=0xBF: as i8, above -65.
        let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65)) & decoded;
        Self::decode_block::<false>(bytes, at, v, leads, decoded, 0, dst)
    }

    /// The code units of the characters whose leads are `leads` (in the
    /// block `v` at `bytes[at..]`, limited to `decoded`, a prefix of it),
    /// stored in order at the start of `dst` (as
    /// [`decode_words`](Self::decode_words) takes it); returns how many.
    /// When `SUBPARTS`, the positions `bad` marks (a subset of `leads`:
    /// where a maximal subpart starts) are one U+FFFD each.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_block<const SUBPARTS: bool>(
        bytes: &[u8],
        at: usize,
        v: V,
        leads: u64,
        decoded: u64,
        bad: u64,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let next = if decoded == u64::MAX {
            // A whole block that passed: its last character may run into
            // the next block, whose continuations' payload bits it reads (if
            // the character is broken, the next block's check flags it and
            // its units are taken back).
            match bytes.get(at + N..at + 2 * N) {
                Some(next) => Avx512::load(next.try_into().expect("N bytes")),
                None => Avx512::load_tail(&bytes[at + N..]),
            }
        } else {
            // A tail block, or the part before a flag: every character
            // decoded here ends inside it (a broken one is taken back).
            Avx512::zero()
        };
        Self::decode_chars::<SUBPARTS>(v, next, leads, bad, dst)
    }

    /// [`decode_block`](Self::decode_block) once `next` is known: the
    /// block after `v` (zero where nothing there is read).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn decode_chars<const SUBPARTS: bool>(
        v: V,
        next: V,
        leads: u64,
        bad: u64,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        // A subpart's bytes (say, an F8 in Latin text) decide no path:
        // they are U+FFFD whichever decodes them.
        let settled = if SUBPARTS { !bad } else { u64::MAX };
        let at_least = |b: u8| _mm512_cmpge_epu8_mask(v, Avx512::splat(b));
        let (two, three) = (at_least(0xC0), at_least(0xE0));
        if three & settled == 0 {
            return Self::decode_words::<SUBPARTS, 2>(v, next, leads, two, 0, 0, bad, dst);
        }
        let four = at_least(0xF0) & leads & settled;
        if four == 0 {
            return Self::decode_words::<SUBPARTS, 3>(v, next, leads, two, three, 0, bad, dst);
        }
        Self::decode_words::<SUBPARTS, 4>(v, next, leads, two, three, four, bad, dst)
    }

    /// The code units of a block in 16-bit lanes, one per byte, whose
    /// longest character is `LONGEST` bytes: each lane takes a byte and
    /// the next (`PAIRS`); the code point is the lead's 7 bits (ASCII) or
    /// its 5 and the next byte's 6 (`110xxxxx 10xxxxxx`). From `LONGEST`
    /// 3 (CJK text) the lane also takes the byte after (`THIRDS`), so that
    /// a 3-byte lead's gets its code point too, `1110zzzz 10yyyyyy
    /// 10xxxxxx` (RFC 3629 §3): 16 bits, one code unit. At `LONGEST` 4
    /// (emoji) a 4-byte character's two units come from its first two
    /// lanes: the lead's three bytes are the top 11 bits of U (the lead's
    /// fourth bit is 0), which make the high surrogate, and the next
    /// lane's three bytes end in U's low 10 bits, which make the low one
    /// (Unicode §3.9 D91). A `vpcompressw` keeps the leads' lanes and
    /// those after a 4-byte lead, 32 positions per half block; a 4-byte
    /// lead at byte 63 has its low surrogate from `next` after them.
    ///
    /// `next` holds the bytes after the block (only their payload bits
    /// are read); `two`, `three` and `four` mark the block's bytes
    /// ≥ 0xC0 and ≥ 0xE0 and its 4-byte leads, a subset of
    /// `leads` (each read only where `LONGEST` needs it). `dst` takes the
    /// units and 32 units of scratch after them, 65 units at least.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    // Eight, where a struct of masks would only rename them.
    #[allow(clippy::too_many_arguments)]
    fn decode_words<const SUBPARTS: bool, const LONGEST: usize>(
        v: V,
        next: V,
        leads: u64,
        two: u64,
        three: u64,
        four: u64,
        bad: u64,
        dst: &mut [MaybeUninit<u16>],
    ) -> usize {
        let keep = if LONGEST == 4 {
            leads | four << 1
        } else {
            leads
        };
        let mut written = 0;
        for (h, (pairs, thirds)) in PAIRS.iter().zip(&THIRDS).enumerate() {
            let gather = |table: &[u8; N]| {
                if h == 0 {
                    _mm512_permutexvar_epi8(Avx512::load(table), v)
                } else {
                    _mm512_permutex2var_epi8(v, Avx512::load(table), next)
                }
            };
            let half = |mask: u64| (mask >> (32 * h)) as u32;
            let words = gather(pairs);
            let ascii = _mm512_srli_epi16::<8>(words);
            // (lead & 0x1F)·64 + (continuation & 0x3F).
            let payloads = _mm512_and_si512(words, splat16(0x1F3F));
            let pair = _mm512_maddubs_epi16(payloads, splat16(0x4001));
            let mut units = _mm512_mask_blend_epi16(half(two), ascii, pair);
            if LONGEST >= 3 {
                // (lead & 0x0F) << 12 | (second & 0x3F) << 6 | (third &
                // 0x3F); ternary-logic table 0xF8 is a | b & c.
                let triple = _mm512_ternarylogic_epi32::<0xF8>(
                    _mm512_or_si512(
                        _mm512_slli_epi16::<4>(_mm512_and_si512(words, splat16(0x0F00))),
                        _mm512_slli_epi16::<6>(_mm512_and_si512(words, splat16(0x3F))),
                    ),
                    gather(thirds),
                    splat16(0x3F),
                );
                units = _mm512_mask_mov_epi16(units, half(three), triple);
                if LONGEST == 4 {
                    // 0xD800 + (U >> 10) − 0x40 and 0xDC00 | U & 0x3FF.
                    let high = _mm512_add_epi16(_mm512_srli_epi16::<4>(triple), splat16(0xD7C0));
                    let low =
                        _mm512_ternarylogic_epi32::<0xF8>(splat16(0xDC00), triple, splat16(0x3FF));
                    units = _mm512_mask_mov_epi16(units, half(four), high);
                    units = _mm512_mask_mov_epi16(units, half(four << 1), low);
                }
            }
            if SUBPARTS {
                units = _mm512_mask_mov_epi16(units, half(bad), splat16(REPLACEMENT as u16));
            }
            let keep = half(keep);
            store32(
                &mut dst[written..],
                _mm512_maskz_compress_epi16(keep, units),
            );
            written += keep.count_ones() as usize;
        }
        if LONGEST == 4 {
            // The low surrogate of a 4-byte lead at byte 63, from the next
            // block's second and third bytes (stored whether or not there
            // is one: the count says).
            let after = _mm_cvtsi128_si32(_mm512_castsi512_si128(next)) as u32;
            let low = 0xDC00 | (after >> 2 & 0x3C0) | (after >> 16 & 0x3F);
            dst[written].write(low as u16);
            written += (four >> 63) as usize;
        }
        written
    }

    /// Where the characters and maximal subparts of a whole block start
    /// ([`ByteClasses::subparts`]), for lossy decoding, its first `head`
    /// bytes read by the character open before it.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
    #[inline]
    fn subparts(v: V, head: usize) -> Subparts {
        let at_least = |b: u8| _mm512_cmpge_epu8_mask(v, Avx512::splat(b));
        let is = |b: u8| _mm512_cmpeq_epi8_mask(v, Avx512::splat(b));
        let (lead, never) = (Avx512::multi_byte_leads(v), Avx512::never_leads(v));
        ByteClasses::from_compares(at_least, is, lead, never).subparts(N as u32, head)
    }
}
