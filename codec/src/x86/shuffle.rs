//! Decoding to UTF-32 with byte shuffles (SSSE3 and up): the block loop
//! of the SSE4.1 and AVX2 kernels ([`decode_blocks!`]), which have no
//! compress instructions, and the steps it takes.
//!
//! **The loop.** Text is taken in 64-byte blocks, each starting at a
//! character boundary (where the last one's decoded characters ended), so
//! each can be checked on its own by the validator. For each block, masks
//! mark the non-ASCII bytes, the bytes that start a character (every byte
//! but a continuation, 0x80..=0xBF) and the leads of 4-byte characters.
//! The masks choose the step, cheapest first:
//!
//! * a run of ASCII blocks is widened whole;
//! * a block of twenty 3-byte characters (CJK text) takes five fixed
//!   shuffles ([`threes`]);
//! * with `FIXED_GROUPS` (SSE4.1), any other block is four groups of 16
//!   bytes at fixed places, each decoding the characters that start in
//!   it: [`bmp16`] (every byte the 16-bit code point it would start, the
//!   starts' words packed by a `pshufb` per 8 bytes) for a block without
//!   4-byte characters, [`window16_all`] for one with them; the block
//!   stops before a character it ends inside;
//! * otherwise (AVX2's short inputs, and the input's last block), steps
//!   of 16 bytes: widened if ASCII, two fixed shuffles for twenty-four
//!   bytes of eight 3-byte characters, `bmp16` or the kernel's
//!   equivalent, AVX2's `window16` (32-bit lanes, `vpermd`) or SSE4.1's
//!   [`window16_all`] with 4-byte characters; the block's last bytes a
//!   table step, below.
//!
//! None of these waits for a table load to know where the next one starts:
//! the 16-byte windows end at a byte the start mask gives.
//!
//! **The table step.** A step stands at a character boundary `pos` and
//! reads the start mask's 12 bits after it: they say where the next
//! characters start, so they alone fix which bytes form each of the
//! characters that end within 12 bytes. [`STEPS`] holds, for each of the
//! 4096 keys, a `pshufb` control that gathers up to four of those
//! characters into 32-bit lanes (last byte lowest, lead byte highest), and
//! how many characters and bytes that is.
//!
//! **The arithmetic.** Each gathered byte keeps its payload bits: an AND
//! with a mask looked up by its high nibble (0x7F for ASCII, 0x3F for a
//! continuation, 0x1F/0x0F/0x07 for a 2/3/4-byte lead, RFC 3629 §3's table
//! of `x` bits). Then `maddubs` joins byte pairs (`b0 + 64·b1`) and `madd`
//! joins the pairs (`w0 + 4096·w1`): the scalar value, `b0 | b1 << 6 | b2
//! << 12 | b3 << 18`.

use super::{set_bits, PAYLOAD};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// One step's `pshufb` control, aligned for a single load.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(super) struct Step {
    pub(super) shuffle: [u8; 16],
}

/// Per key, how many bytes (low nibble) and characters (high nibble) the
/// step takes; apart from the controls, so that the loop's dependency chain
/// goes through a byte.
static COUNTS: [u8; 4096] = counts();

/// The shuffle controls, one per key (64 KiB; text touches few of them).
static STEPS: [Step; 4096] = steps();

/// The characters a key describes, as `(start, length)` pairs relative to
/// the step's position: position 0 starts a character, and bit `i` of
/// `key` says whether position `i + 1` does. A character is complete when
/// the next start is known (at most position 12); at most four are taken,
/// and none after a gap longer than four bytes (no well-formed text has
/// one: those keys never occur).
const fn characters(key: usize) -> ([(usize, usize); 4], usize) {
    let mut chars = [(0, 0); 4];
    let mut count = 0;
    let mut start = 0;
    let mut at = 1;
    while at <= 12 && count < 4 {
        if key >> (at - 1) & 1 == 1 {
            let length = at - start;
            if length > 4 {
                break;
            }
            chars[count] = (start, length);
            count += 1;
            start = at;
        }
        at += 1;
    }
    (chars, count)
}

const fn counts() -> [u8; 4096] {
    let mut out = [0; 4096];
    let mut key = 0;
    while key < 4096 {
        let (chars, count) = characters(key);
        let bytes = if count == 0 {
            0
        } else {
            chars[count - 1].0 + chars[count - 1].1
        };
        out[key] = (bytes | count << 4) as u8;
        key += 1;
    }
    out
}

const fn steps() -> [Step; 4096] {
    let mut out = [Step {
        shuffle: [0x80; 16],
    }; 4096];
    let mut key = 0;
    while key < 4096 {
        let (chars, count) = characters(key);
        let mut lane = 0;
        while lane < count {
            let (start, length) = chars[lane];
            // Lane byte 0 is the character's last byte, byte length−1 its
            // lead; the rest stay 0x80 (pshufb writes zero).
            let mut k = 0;
            while k < length {
                out[key].shuffle[4 * lane + k] = (start + length - 1 - k) as u8;
                k += 1;
            }
            lane += 1;
        }
        key += 1;
    }
    out
}

/// The scalar values of the characters a step gathered into `lanes`.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
fn scalars(lanes: __m128i) -> __m128i {
    // SAFETY (of the loads): `PAYLOAD` is 16 readable bytes.
    let payload = unsafe { _mm_loadu_si128(PAYLOAD.as_ptr().cast()) };
    let nibbles = _mm_and_si128(_mm_srli_epi16::<4>(lanes), _mm_set1_epi8(0x0F));
    let bits = _mm_and_si128(lanes, _mm_shuffle_epi8(payload, nibbles));
    // b0 + 64·b1 and b2 + 64·b3 (at most 127 + 64·63: no saturation) …
    let pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
    // … then w0 + 4096·w1.
    _mm_madd_epi16(pairs, _mm_set1_epi32(0x1000_0001))
}

/// Every third bit, from bit 0: the start mask of 3-byte characters only.
pub(super) const EVERY_THIRD: u64 = 0x9249_2492_4924_9249;

/// Bits 0, 3, …, 24 of the 25 bits of [`EIGHT_THREES_SPAN`]: the start
/// mask of eight 3-byte characters and the character after them.
pub(super) const EIGHT_THREES_SPAN: u64 = (1 << 25) - 1;
pub(super) const EIGHT_THREES: u64 = EVERY_THIRD & EIGHT_THREES_SPAN;

/// Bits 0, 3, …, 60: the start mask of a block that begins with twenty
/// 3-byte characters (and a character after them).
pub(super) const TWENTY_THREES: u64 = EVERY_THIRD & ((1 << 61) - 1);

/// Stores the four 3-byte characters that are the first 12 bytes of
/// `window` as code points: [`scalars`] with a fixed control and fixed
/// payload masks (0x0F for the lead, 0x3F for the continuations, RFC 3629
/// §3), so no table load.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn threes(window: __m128i, lanes: &mut [MaybeUninit<u32>]) {
    // Per lane, the character's last byte lowest, its lead third, then 0.
    let control = _mm_setr_epi8(2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1);
    let bits = _mm_and_si128(
        _mm_shuffle_epi8(window, control),
        _mm_set1_epi32(0x000F_3F3F),
    );
    let pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
    let values = _mm_madd_epi16(pairs, _mm_set1_epi32(0x1000_0001));
    let lanes = &mut lanes[..4];
    // SAFETY: `lanes` is 4 writable lanes, 16 bytes; `storeu` has no
    // alignment requirement.
    unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), values) };
}

/// Decodes `$bytes` (`&[u8]`) from the start onto `$out` (`&mut
/// Vec<u32>`), 64-byte block by block, while each block passes `$check`
/// (`&[u8; 64] -> bool`); evaluates to how far it got (a character
/// boundary, before the first block that failed `$check` or the last,
/// short block), and to where the checked blocks end (`at` or past it: the
/// last block's steps stop short of its end).
///
/// `$isa`, the kernel's type, gives the kernel's parts: `$isa::masks(block)`
/// gives a block's non-ASCII bytes, its character starts and its leads of
/// 4-byte characters (bit `i` for byte `i`, three `u64`s);
/// `$isa::widen64(block, lanes)` stores the 64 code points of a block of
/// ASCII (the kernel's widest stores); `$isa::bmp16(bytes, starts, lanes)`
/// decodes the characters that start in 16 bytes of 1- to 3-byte
/// characters (as [`bmp16`] does) and, if `$isa::ALL_LENGTHS`,
/// `$isa::window16` (the same arguments) those of 16 bytes with 4-byte
/// characters among them; both return how many they stored. If
/// `$isa::FIXED_GROUPS`, a block is decoded as four groups at fixed
/// places, `bmp16` or (with 4-byte characters in the block) `window16`,
/// with no choice per 16 bytes.
///
/// Every block starts at a character boundary, so `$check` may validate it
/// on its own (the bytes before it are whole characters, as good as ASCII
/// to the validator's tables). A block that passes holds well-formed text
/// but perhaps for a character its end cuts; the steps take only
/// characters that end inside the block, which that check covers, and the
/// next block starts after them.
///
/// A run of ASCII blocks is widened (an input whose one whole block is
/// ASCII, before the steps). Where a run meets a block that holds one
/// character among ASCII, the kernel's `ascii_run` ([`ascii_run!`]) takes
/// it and the run after it, and the steps go on from where that ends.
///
/// A macro, not a function: the kernel's closures must be inlined into the
/// loop, and a closure compiled for AVX2 cannot be inlined into a function
/// compiled for SSE4.1 (as calls, the ASCII blocks of a 4 KiB text decoded
/// at 13 GB/s instead of 22, measured).
macro_rules! decode_blocks {
    ($isa:ident, $bytes:expr, $out:expr, $check:expr) => {{
        use core::arch::x86_64::_mm_loadu_si128;
        use core::mem::MaybeUninit;
        use $crate::x86::shuffle::{
            step, threes, widen16, EIGHT_THREES, EIGHT_THREES_SPAN, TWENTY_THREES,
        };
        let bytes: &[u8] = $bytes;
        let out: &mut Vec<u32> = $out;
        // One lane per byte at most; every store lies within it (see below).
        out.reserve(bytes.len());
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..bytes.len()];
        'all: {
            if bytes.len() < 128 {
                if let Some(first) = bytes.first_chunk::<64>() {
                    // One whole block, of ASCII (most short inputs): widened
                    // before the steps, tested by its non-ASCII mask alone
                    // (the steps compute all three masks before they
                    // choose).
                    if $isa::masks(first).0 == 0 {
                        let lanes: &mut [MaybeUninit<u32>; 64] =
                            (&mut dst[..64]).try_into().expect("64 lanes");
                        $isa::widen64(first, lanes);
                        // SAFETY: the first 64 lanes hold the code points of
                        // `bytes[..64]`.
                        unsafe { out.set_len(base + 64) };
                        break 'all (64, 64);
                    }
                }
            }
            let mut at = 0;
            let mut written = 0;
            // Where the last block that passed `$check` ends.
            let mut checked_to = 0;
            // Invariant: `at` is a character boundary, `bytes[..at]`
            // well-formed and its code points in `dst[..written]`; `written`
            // ≤ `at` (one code point per character, each at least a byte);
            // `at` ≤ `checked_to`, and `bytes[..checked_to]` passed the
            // checks (it is well-formed but for a character it may leave
            // open at its end).
            //
            // The steps stop early where a run of ASCII meets a block with
            // a character or two among ASCII (`sparse`): the run goes on
            // after them in the kernel's `ascii_run`, out of line (a call in
            // the steps' loop took the registers of its tables), and the
            // steps resume where it ends.
            loop {
                let mut sparse = false;
                'steps: while let Some(block) = bytes.get(at..at + 64) {
                    let block: &[u8; 64] = block.try_into().expect("64 bytes");
                    let (non_ascii, starts, four): (u64, u64, u64) = $isa::masks(block);
                    // An ASCII block is its own check.
                    if non_ascii != 0 && !$check(block) {
                        break;
                    }
                    checked_to = at + 64;
                    if starts & ((1 << 61) - 1) == TWENTY_THREES {
                        // Twenty 3-byte characters (CJK text): five fixed shuffles,
                        // no table, and the next block 60 bytes on.
                        for k in 0..5 {
                            let window: &[u8; 16] =
                                block[12 * k..12 * k + 16].try_into().expect("16 bytes");
                            // SAFETY: `window` is 16 readable bytes.
                            let window = unsafe { _mm_loadu_si128(window.as_ptr().cast()) };
                            threes(window, &mut dst[written + 4 * k..]);
                        }
                        at += 60;
                        written += 20;
                        continue;
                    }
                    if non_ascii == 0 {
                        // A run of ASCII blocks, each tested by its non-ASCII mask
                        // alone (the compiler drops the unused starts).
                        let mut block = block;
                        loop {
                            let lanes: &mut [MaybeUninit<u32>; 64] = (&mut dst
                                [written..written + 64])
                                .try_into()
                                .expect("64 lanes");
                            $crate::x86::prefetch_next_64(lanes);
                            $isa::widen64(block, lanes);
                            at += 64;
                            written += 64;
                            match bytes.get(at..at + 64) {
                                Some(next) => {
                                    block = next.try_into().expect("64 bytes");
                                    let non_ascii = $isa::masks(block).0;
                                    if non_ascii != 0 {
                                        if non_ascii.count_ones() <= 4 {
                                            sparse = true;
                                            break 'steps;
                                        }
                                        break;
                                    }
                                    checked_to = at + 64;
                                }
                                None => break,
                            }
                        }
                        continue;
                    }
                    // The characters that start in the block and end in it, 16
                    // bytes at a time at fixed places (the
                    // continuations of one that starts near a group's end are in
                    // the 3 bytes after it), so no step waits on where the one
                    // before ended and none chooses by its bytes. A character the
                    // block ends inside is left to the next block, which starts
                    // at it. (`FIXED_GROUPS`: the AVX2 kernel has a loop of its own
                    // for long inputs, and runs this one on short ones, which it
                    // made slower.)
                    if $isa::FIXED_GROUPS && starts != 0 {
                        if let Some(ahead) = bytes.get(at..at + 64 + 3) {
                            let ahead: &[u8; 67] = ahead.try_into().expect("67 bytes");
                            let last = 63 - starts.leading_zeros() as usize;
                            let lead = ahead[last];
                            let len = 1
                                + usize::from(lead >= 0xC0)
                                + usize::from(lead >= 0xE0)
                                + usize::from(lead >= 0xF0);
                            let (keep, next) = if last + len > 64 {
                                (starts & !(1 << last), last)
                            } else {
                                (starts, 64)
                            };
                            for q in 0..4 {
                                // The 16 bytes and the 3 after them.
                                let window: &[u8; 19] =
                                    ahead[16 * q..16 * q + 19].try_into().expect("19 bytes");
                                let (starts16, lanes) =
                                    ((keep >> (16 * q)) as u16, &mut dst[written..]);
                                // One choice per block, by whether it has any
                                // 4-byte character.
                                written += if four == 0 {
                                    $isa::bmp16(window, starts16, lanes)
                                } else {
                                    $isa::window16(window, starts16, lanes)
                                };
                            }
                            at += next;
                            continue;
                        }
                    }
                    // Steps while the bytes each reads lie in the block: 16 bytes and
                    // the 12 mask bits after `pos` for a table step; 20 bytes for a
                    // window (so, with a window for every length, no table step is
                    // left). A step takes at least one character (every key of
                    // well-formed text has a start within 4 bytes) and stores at
                    // most 16 lanes at `written` ≤ `at + pos`: they end before `at +
                    // pos + 16` ≤ the input's length, within `dst`.
                    let mut pos = 0;
                    while pos <= if $isa::ALL_LENGTHS { 44 } else { 48 } {
                        let window: &[u8; 16] = block[pos..pos + 16].try_into().expect("16 bytes");
                        // SAFETY: `window` is 16 readable bytes.
                        let window = unsafe { _mm_loadu_si128(window.as_ptr().cast()) };
                        if (non_ascii >> pos) as u16 == 0 {
                            // 16 ASCII bytes (text with a few accents is mostly
                            // runs).
                            let lanes: &mut [MaybeUninit<u32>; 16] = (&mut dst
                                [written..written + 16])
                                .try_into()
                                .expect("16 lanes");
                            widen16(window, lanes);
                            pos += 16;
                            written += 16;
                            continue;
                        }
                        if pos <= 36 && (starts >> pos) & EIGHT_THREES_SPAN == EIGHT_THREES {
                            // Eight 3-byte characters (CJK text): two fixed
                            // shuffles, no table load, a step of 24 bytes in the
                            // dependency chain.
                            let next: &[u8; 16] =
                                block[pos + 12..pos + 28].try_into().expect("16 bytes");
                            // SAFETY: `next` is 16 readable bytes.
                            let next = unsafe { _mm_loadu_si128(next.as_ptr().cast()) };
                            threes(window, &mut dst[written..]);
                            threes(next, &mut dst[written + 4..]);
                            pos += 24;
                            written += 8;
                            continue;
                        }
                        if pos <= 44 && ($isa::ALL_LENGTHS || (four >> pos) as u16 == 0) {
                            // 16 bytes decoded at once, with the continuations of
                            // the characters that start there (3 more bytes at
                            // most), and the start bit after them: 20 bytes of the
                            // block.
                            let bytes: &[u8; 19] =
                                block[pos..pos + 19].try_into().expect("19 bytes");
                            let (starts16, lanes) = ((starts >> pos) as u16, &mut dst[written..]);
                            // (One choice per block instead, by whether it has any
                            // 4-byte character, was slower on mixed text: 2.3
                            // against 2.9 GB/s, measured.)
                            written += if (four >> pos) as u16 == 0 {
                                $isa::bmp16(bytes, starts16, lanes)
                            } else {
                                $isa::window16(bytes, starts16, lanes)
                            };
                            // The next start: byte 16, 17, 18 or 19 (a character
                            // that starts at byte 15 takes up to three more).
                            pos += 16 + (starts >> (pos + 16)).trailing_zeros() as usize;
                            continue;
                        }
                        let counts = step(
                            window,
                            (starts >> (pos + 1)) as usize & 0xFFF,
                            &mut dst[written..],
                        );
                        pos += usize::from(counts & 0x0F);
                        written += usize::from(counts >> 4);
                    }
                    at += pos;
                }
                // Every whole block is decoded, or one failed its check.
                if !sparse {
                    break;
                }
                let (to, wrote, checked) = $isa::ascii_run(bytes, at, dst, written);
                (at, written) = (to, wrote);
                checked_to = checked_to.max(checked);
            }
            // SAFETY: the first `written` lanes of the spare capacity hold the
            // code points of `bytes[..at]` (every step wrote the lanes it
            // counted).
            unsafe { out.set_len(base + written) };
            (at, checked_to)
        }
    }};
}
pub(super) use decode_blocks;

/// The body of a kernel's `ascii_run` (expanded by
/// [`fused_decoder!`](super::fused_decoder!)): [`decode_blocks!`]'s run of
/// ASCII (and the AVX2 kernel's `decode_fixed`'s) from `$at` (`usize`, a
/// character boundary), its lanes stored from `$written` in `$dst`
/// (`&mut [MaybeUninit<u32>]`, a lane per byte of `$bytes`). Evaluates to
/// where the run ends in the input and in the output, and where the
/// blocks it tested end, `(usize, usize, usize)`:
/// `bytes[..at]` is well-formed, and its code points are in
/// `dst[..written]`.
///
/// A block that holds one character among ASCII (a quote or an accent in
/// English text: its bytes are the block's only non-ASCII ones, and the
/// automaton accepts them) is widened whole, the character's code point
/// put in its lane, and the run goes on after it: the block loop's check
/// and four groups for such a block cost several times as much. A block
/// of ASCII is widened. Anything else ends the run.
///
/// The stores set the pace of a run, and one that straddles two cache
/// lines costs two: each time ASCII blocks follow (a character moves the
/// output against the input), the cursor first advances to the next
/// `$isa::N`-byte boundary of the output (the stores' width; up to 7
/// lanes, stored unaligned), and the stores after it are aligned.
macro_rules! ascii_run {
    ($isa:ident, $bytes:expr, $at:expr, $dst:expr, $written:expr) => {{
        use core::arch::x86_64::_mm_loadu_si128;
        use core::mem::MaybeUninit;
        use $crate::x86::shuffle::widen16;
        let bytes: &[u8] = $bytes;
        let dst: &mut [MaybeUninit<u32>] = $dst;
        let (mut at, mut written): (usize, usize) = ($at, $written);
        let mut checked_to = 0;
        // The block at `at` if it is whole and ASCII.
        let ascii_at = |at: usize| -> Option<&[u8; 64]> {
            let block: &[u8; 64] = bytes.get(at..at + 64)?.try_into().expect("64 bytes");
            ($isa::masks(block).0 == 0).then_some(block)
        };
        // Invariant: as the block loop's (`written` ≤ `at`, so the 16 or
        // 64 lanes stored at `written` for a whole block at `at` lie in
        // `dst`).
        loop {
            if let Some(next) = ascii_at(at) {
                checked_to = checked_to.max(at + 64);
                let skew = ($isa::N - dst[written..].as_ptr().addr() % $isa::N) % $isa::N / 4;
                if skew != 0 {
                    let first: &[u8; 16] = next[..16].try_into().expect("16 bytes");
                    let lanes: &mut [MaybeUninit<u32>; 16] = (&mut dst[written..written + 16])
                        .try_into()
                        .expect("16 lanes");
                    // SAFETY: `first` is 16 readable bytes.
                    widen16(unsafe { _mm_loadu_si128(first.as_ptr().cast()) }, lanes);
                    at += skew;
                    written += skew;
                }
                while let Some(next) = ascii_at(at) {
                    checked_to = at + 64;
                    let lanes: &mut [MaybeUninit<u32>; 64] = (&mut dst[written..written + 64])
                        .try_into()
                        .expect("64 lanes");
                    $crate::x86::prefetch_next_64(lanes);
                    $isa::widen64(next, lanes);
                    at += 64;
                    written += 64;
                }
            }
            let Some(next) = bytes.get(at..at + 64) else {
                break;
            };
            let next: &[u8; 64] = next.try_into().expect("64 bytes");
            let non_ascii = $isa::masks(next).0;
            let ascii = non_ascii.trailing_zeros() as usize;
            let Some((scalar, len)) = $crate::dfa::char_at(&bytes[at + ascii..]) else {
                break;
            };
            if non_ascii.count_ones() as usize != len {
                // More than one character: the block loop takes the block
                // whole, faster than a character at a time.
                break;
            }
            let lanes: &mut [MaybeUninit<u32>; 64] = (&mut dst[written..written + 64])
                .try_into()
                .expect("64 lanes");
            $crate::x86::prefetch_next_64(lanes);
            $isa::widen64(next, lanes);
            lanes[ascii].write(scalar);
            at += ascii + len;
            written += ascii + 1;
            // A whole character after ASCII.
            checked_to = checked_to.max(at);
        }
        (at, written, checked_to)
    }};
}
pub(super) use ascii_run;

/// Per 8-bit mask, the `pshufb` control that packs the 16-bit words of the
/// mask's set bits to the front, in order (the rest zero).
pub(super) static WORDS: [Step; 256] = {
    let mut out = [Step {
        shuffle: [0x80; 16],
    }; 256];
    let mut mask = 0;
    while mask < 256 {
        let words = set_bits(mask);
        let mut kept = 0;
        while kept < (mask as u8).count_ones() as usize {
            out[mask].shuffle[2 * kept] = 2 * words[kept];
            out[mask].shuffle[2 * kept + 1] = 2 * words[kept] + 1;
            kept += 1;
        }
        mask += 1;
    }
    out
};

/// Decodes the characters that start in 16 bytes of 1- to 3-byte
/// characters: `bytes[k]` is the window moved on by `k` bytes (so the
/// continuations of a character that starts at byte 14 or 15 are there),
/// `starts` which of the 16 bytes start a character. Stores their code
/// points to `lanes` (and garbage up to 16 lanes: the caller leaves room)
/// and returns how many characters that is.
///
/// Every byte gets the 16-bit code point of the character it would start
/// (all three are in the BMP): its own value if ASCII, else the 2- or
/// 3-byte value by its high bits (RFC 3629 §3: 5 payload bits of a 2-byte
/// lead, 4 of a 3-byte one, 6 of each continuation). A table of `pshufb`
/// controls, one per 8 start bits, then packs the words of the starts, 8
/// at a time; no step waits for a table load to know where the next one
/// begins.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn bmp16(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
    let lanes = &mut lanes[..16];
    let mut written = 0;
    for (half, packed) in bmp16_words(bytes, starts).into_iter().enumerate() {
        let out = &mut lanes[written..written + 8];
        // SAFETY: `out` is 8 writable lanes, 32 bytes, the two stores'
        // width; `storeu` has no alignment requirement.
        unsafe {
            _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_cvtepu16_epi32(packed));
            _mm_storeu_si128(
                out[4..].as_mut_ptr().cast(),
                _mm_cvtepu16_epi32(_mm_srli_si128::<8>(packed)),
            );
        }
        written += (starts >> (8 * half) & 0xFF).count_ones() as usize;
    }
    written
}

/// The characters that start in the first 16 of `bytes`, of any length
/// (`starts` says where; the 3 bytes after hold the continuations of
/// those that start near the end), as code points to `lanes` (16 lanes of
/// room); returns how many. The SSE4.1 kernel's `window16`.
///
/// As [`bmp16_words`], every byte gets the value of the character it
/// would start, here in three bytes (bits 0–7, 8–15 and 16–20), computed
/// on the 16 bytes at once: a character's last two bytes give bits 0–7
/// and its two before the last but one bits 8–15 alike whatever its
/// length, a 4-byte one's first two bits 16–20 (RFC 3629 §3). The starts'
/// low words and high words are packed by the same [`WORDS`] control and
/// interleaved into code points.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn window16_all(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
    let load = |k: usize| {
        let v: &[u8; 16] = bytes[k..k + 16].try_into().expect("16 bytes");
        // SAFETY: `v` is 16 readable bytes.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    };
    let [b0, b1, b2, b3] = [0, 1, 2, 3].map(load);
    let byte = |b: u8| _mm_set1_epi8(b as i8);
    let and = _mm_and_si128;
    // As signed bytes, ASCII compares above 0xDF and 0xEF too; it takes
    // `b0` below, and no high bits.
    let three = _mm_cmpgt_epi8(b0, byte(0xDF));
    let four = _mm_cmpgt_epi8(b0, byte(0xEF));
    let non_ascii = _mm_cmpgt_epi8(byte(0), b0);
    let pick = |a, b, c| _mm_blendv_epi8(_mm_blendv_epi8(a, b, three), c, four);
    // The last two bytes; the two before the last but one.
    let (x, y) = (pick(b0, b1, b2), pick(b1, b2, b3));
    let (p, q) = (_mm_blendv_epi8(b0, b1, four), _mm_blendv_epi8(b1, b2, four));
    // Byte-wise shifts as 16-bit shifts, each masked to the byte's own
    // bits (as in `bmp16_words`).
    let low = _mm_blendv_epi8(
        b0,
        _mm_or_si128(and(_mm_slli_epi16::<6>(x), byte(0xC0)), and(y, byte(0x3F))),
        non_ascii,
    );
    let mid2 = and(_mm_srli_epi16::<2>(b0), byte(0x07));
    let mid3 = _mm_or_si128(
        and(_mm_slli_epi16::<4>(p), byte(0xF0)),
        and(_mm_srli_epi16::<2>(q), byte(0x0F)),
    );
    let mid = and(_mm_blendv_epi8(mid2, mid3, three), non_ascii);
    let high = and(
        _mm_or_si128(
            and(_mm_slli_epi16::<2>(b0), byte(0x1C)),
            and(_mm_srli_epi16::<4>(b1), byte(0x03)),
        ),
        and(four, non_ascii),
    );
    let zero = _mm_setzero_si128();
    let lanes = &mut lanes[..16];
    let mut written = 0;
    for (half, (words, highs)) in [
        (_mm_unpacklo_epi8(low, mid), _mm_unpacklo_epi8(high, zero)),
        (_mm_unpackhi_epi8(low, mid), _mm_unpackhi_epi8(high, zero)),
    ]
    .into_iter()
    .enumerate()
    {
        let mask = usize::from((starts >> (8 * half)) as u8);
        // SAFETY: the control is an aligned 16-byte static.
        let control = unsafe { _mm_load_si128(WORDS[mask].shuffle.as_ptr().cast()) };
        let (words, highs) = (
            _mm_shuffle_epi8(words, control),
            _mm_shuffle_epi8(highs, control),
        );
        let out = &mut lanes[written..written + 8];
        // SAFETY: `out` is 8 writable lanes, 32 bytes, the two stores'
        // width; `storeu` has no alignment requirement.
        unsafe {
            _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_unpacklo_epi16(words, highs));
            _mm_storeu_si128(
                out[4..].as_mut_ptr().cast(),
                _mm_unpackhi_epi16(words, highs),
            );
        }
        written += mask.count_ones() as usize;
    }
    written
}

/// [`bmp16`]'s values as 16-bit words (what UTF-16 wants): per half of the
/// 16 bytes, the words of the characters that start in it packed to the
/// front of a register (the rest zero).
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn bmp16_words(bytes: &[u8; 19], starts: u16) -> [__m128i; 2] {
    bmp16_words_marked::<false>(bytes, starts, 0)
}

/// [`bmp16_words`], with U+FFFD for each start that `bad` marks (a
/// maximal subpart's first byte: lossy decoding of a step with errors).
/// `MARKED` false leaves `bad` unread.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn bmp16_words_marked<const MARKED: bool>(
    bytes: &[u8; 19],
    starts: u16,
    bad: u16,
) -> [__m128i; 2] {
    let load = |k: usize| {
        let v: &[u8; 16] = bytes[k..k + 16].try_into().expect("16 bytes");
        // SAFETY: `v` is 16 readable bytes.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    };
    let [b0, b1, b2] = [0, 1, 2].map(load);
    // Every byte gets the low and the high byte of the code point it
    // would start, computed on the 16 bytes at once as bytes (RFC 3629
    // §3: 7 payload bits of ASCII; 5 of a 2-byte lead, 4 of a 3-byte
    // one, 6 of each continuation), as the AVX2 kernel's `bmp32_words`
    // does on 32: byte arithmetic, no widening before the pack.
    let byte = |b: u8| _mm_set1_epi8(b as i8);
    // Byte-wise shifts as 16-bit shifts: a shift by `s` < 8 moves each
    // byte's own bits, and the mask after it drops what came from the
    // byte beside it.
    let low6 = |v: __m128i| _mm_and_si128(_mm_slli_epi16::<6>(v), byte(0xC0));
    // A 3-byte character's low byte is a 2-byte one's a byte on. (As
    // signed bytes, ASCII compares above 0xDF too: it takes `b0` below.)
    let three = _mm_cmpgt_epi8(b0, byte(0xDF));
    let (x, y) = (
        _mm_blendv_epi8(b0, b1, three),
        _mm_blendv_epi8(b1, b2, three),
    );
    let non_ascii = _mm_cmpgt_epi8(byte(0), b0);
    let low = _mm_blendv_epi8(
        b0,
        _mm_or_si128(low6(x), _mm_and_si128(y, byte(0x3F))),
        non_ascii,
    );
    let high2 = _mm_and_si128(_mm_srli_epi16::<2>(b0), byte(0x07));
    let high3 = _mm_or_si128(
        _mm_and_si128(_mm_slli_epi16::<4>(b0), byte(0xF0)),
        _mm_and_si128(_mm_srli_epi16::<2>(b1), byte(0x0F)),
    );
    let high = _mm_and_si128(_mm_blendv_epi8(high2, high3, three), non_ascii);
    let (low, high) = if MARKED && bad != 0 {
        // Byte k takes bit k of `bad`: the byte of the mask that holds
        // it, then its own bit.
        let spread = _mm_shuffle_epi8(
            _mm_set1_epi16(bad as i16),
            _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
        );
        let bits = _mm_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
        let marked = _mm_cmpeq_epi8(_mm_and_si128(spread, bits), bits);
        let fffd = crate::REPLACEMENT as u16;
        (
            _mm_blendv_epi8(low, byte(fffd as u8), marked),
            _mm_or_si128(high, _mm_and_si128(marked, byte((fffd >> 8) as u8))),
        )
    } else {
        (low, high)
    };
    // Positions 0–7, then 8–15, as words, each half packed by its starts.
    let halves = [_mm_unpacklo_epi8(low, high), _mm_unpackhi_epi8(low, high)];
    let mut packed = [_mm_setzero_si128(); 2];
    for (half, values) in halves.into_iter().enumerate() {
        let mask = usize::from((starts >> (8 * half)) as u8);
        // SAFETY: the control is an aligned 16-byte static.
        let control = unsafe { _mm_load_si128(WORDS[mask].shuffle.as_ptr().cast()) };
        packed[half] = _mm_shuffle_epi8(values, control);
    }
    packed
}

/// The first 16 of `bytes` as 16-bit words, per half (8 bytes): each
/// byte (high) with the next (low), and the one after that (low, the
/// high byte zero). The characters that start there are in those words
/// (and, for 4-byte ones, the byte after: the caller's).
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn byte_words(bytes: &[u8; 19]) -> [(__m128i, __m128i); 2] {
    let load = |k: usize| {
        let v: &[u8; 16] = bytes[k..k + 16].try_into().expect("16 bytes");
        // SAFETY: `v` is 16 readable bytes.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    };
    let (first, second, third) = (load(0), load(1), load(2));
    let zero = _mm_setzero_si128();
    [
        (
            _mm_unpacklo_epi8(second, first),
            _mm_unpacklo_epi8(third, zero),
        ),
        (
            _mm_unpackhi_epi8(second, first),
            _mm_unpackhi_epi8(third, zero),
        ),
    ]
}

/// Per word of [`byte_words`] (`pairs`: the byte, high, and the next;
/// `thirds`: the one after), the value of the 1- to 3-byte character the
/// byte would start: its own if ASCII, else the 2- or 3-byte value by its
/// high bits (RFC 3629 §3: 5 payload bits of a 2-byte lead, 4 of a 3-byte
/// one, 6 of each continuation).
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn bmp_values(pairs: __m128i, thirds: __m128i) -> __m128i {
    let sixes = |v: __m128i| _mm_and_si128(v, _mm_set1_epi16(0x003F));
    let ascii = _mm_srli_epi16::<8>(pairs);
    let two = _mm_or_si128(
        _mm_and_si128(_mm_srli_epi16::<2>(pairs), _mm_set1_epi16(0x07C0)),
        sixes(pairs),
    );
    let three = _mm_or_si128(
        _mm_or_si128(
            _mm_slli_epi16::<12>(_mm_srli_epi16::<8>(pairs)),
            _mm_slli_epi16::<6>(sixes(pairs)),
        ),
        sixes(thirds),
    );
    // A lead's word is negative as an i16; a 3-byte lead's is above
    // 0xDFFF as a u16, above -0x2001 as an i16.
    let lead = _mm_srai_epi16::<15>(pairs);
    let long = _mm_cmpgt_epi16(pairs, _mm_set1_epi16(-0x2001));
    _mm_blendv_epi8(ascii, _mm_blendv_epi8(two, three, long), lead)
}

/// One step: the characters that the 12 start bits `key` after the first
/// byte of `window` delimit (up to four) go to `lanes` as code points;
/// returns the step's [`COUNTS`] (bytes in the low nibble, characters in
/// the high).
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn step(window: __m128i, key: usize, lanes: &mut [MaybeUninit<u32>]) -> u8 {
    let counts = COUNTS[key];
    debug_assert!(counts != 0, "no character ends within 12 bytes");
    // SAFETY: the control is an aligned 16-byte static.
    let control = unsafe { _mm_load_si128(STEPS[key].shuffle.as_ptr().cast()) };
    let values = scalars(_mm_shuffle_epi8(window, control));
    let lanes = &mut lanes[..4];
    // SAFETY: `lanes` is 4 writable u32 lanes (16 bytes); `storeu` has no
    // alignment requirement.
    unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), values) };
    counts
}

/// Stores the 16 ASCII bytes of `window` as 16 code points.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn widen16(window: __m128i, lanes: &mut [MaybeUninit<u32>; 16]) {
    let quarters = [
        _mm_cvtepu8_epi32(window),
        _mm_cvtepu8_epi32(_mm_srli_si128::<4>(window)),
        _mm_cvtepu8_epi32(_mm_srli_si128::<8>(window)),
        _mm_cvtepu8_epi32(_mm_srli_si128::<12>(window)),
    ];
    for (q, values) in quarters.into_iter().enumerate() {
        // SAFETY: `lanes[4q..4q + 4]` is 16 writable bytes; `storeu` has no
        // alignment requirement.
        unsafe { _mm_storeu_si128(lanes[4 * q..].as_mut_ptr().cast(), values) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_well_formed_text_takes_its_characters() {
        // Independent of the table builder: walk the starts a key gives and
        // check each step against them.
        for key in 0..4096usize {
            let starts: Vec<usize> = core::iter::once(0)
                .chain((1..=12).filter(|i| key >> (i - 1) & 1 == 1))
                .collect();
            if starts.windows(2).any(|w| w[1] - w[0] > 4) {
                continue; // a character longer than 4 bytes: no text has it
            }
            let counts = COUNTS[key];
            let (bytes, chars) = (usize::from(counts & 15), usize::from(counts >> 4));
            let complete = (starts.len() - 1).min(4);
            assert_eq!(chars, complete, "key {key:012b}");
            assert_eq!(bytes, starts[complete], "key {key:012b}");
            for lane in 0..chars {
                let length = starts[lane + 1] - starts[lane];
                let lane_bytes = &STEPS[key].shuffle[4 * lane..4 * lane + 4];
                for (k, &control) in lane_bytes.iter().enumerate() {
                    let expected = if k < length {
                        (starts[lane + 1] - 1 - k) as u8
                    } else {
                        0x80
                    };
                    assert_eq!(control, expected, "key {key:012b} lane {lane}");
                }
            }
        }
    }
}
