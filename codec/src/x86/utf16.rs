//! What the AVX2 and SSE4.1 kernels' UTF-16 conversions share: the
//! drivers around their loops ([`decode_checked`], [`decode_valid`],
//! [`encode_checked`]), which hand what the loops leave (an error, a
//! block with a lone surrogate, the last units) to the kernel's validator
//! and the scalar loops ([`crate::utf16::scalar`]), so that error
//! positions and U+FFFD come out exactly as the scalar conversion gives
//! them; and the SSE4.1 kernel's loops themselves, as macros
//! ([`utf16_decoder!`], [`utf16_encoder!`]) that expand in its `impl`
//! around its steps, as [`validator!`](super::validator) does. (The AVX2
//! kernel's loops, the same design, stay written out in its module: with
//! its wider steps behind the macros, the compiler stopped inlining its
//! groups into them, and it ran slower.)

use crate::utf16::{scalar, Utf16Error};
use crate::{Utf8Error, Verdict};
use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
use core::mem::MaybeUninit;

/// Code units of room a decoder's steps may store past one unit per input
/// byte: a group's stores start at most one unit past its byte offset (a
/// surrogate pair for a 4-byte character begun one byte before) and
/// reach at most 24 units past that.
pub(super) const DECODE_SLACK: usize = 32;

/// The 16 bytes of `items` (bytes or code units) from item `k` on.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn load16<T: Copy>(items: &[T], k: usize) -> __m128i {
    const { assert!(matches!(core::mem::size_of::<T>(), 1 | 2)) };
    let items = &items[k..k + 16 / core::mem::size_of::<T>()];
    // SAFETY: `items` is 16 readable bytes (16 items of 1 byte or 8 of
    // 2), the load's width; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(items.as_ptr().cast()) }
}

/// Stores the 8 code units of `v` at the start of `dst`.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn store8(dst: &mut [MaybeUninit<u16>], v: __m128i) {
    let dst: &mut [MaybeUninit<u16>; 8] = (&mut dst[..8]).try_into().expect("8 units");
    // SAFETY: `dst` is 8 writable `u16`s, 16 bytes, the store's width;
    // `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
}

/// Checks `bytes` and decodes them: appends the UTF-16 of the longest
/// well-formed prefix to `out`, and returns the validator's verdict.
///
/// `steps(bytes, dst)` decodes checked steps from the start into `dst`
/// (one unit per byte and [`DECODE_SLACK`] more) and returns how far it
/// got, `at`, and how many units it wrote. Where it stops (an error, a
/// character left open, or the last bytes), `validate` and `decode_valid`
/// take the rest, from the lead of any character the steps decoded but
/// had not seen the end of.
///
/// # Safety
///
/// `steps` must write `dst[..written]`, the code units of the characters
/// that start before `at`, and `bytes[..at]` must be well-formed but for
/// one character open at `at`; `validate` must be a validator (its error,
/// if any, exact).
#[inline(always)]
pub(super) unsafe fn decode_checked(
    bytes: &[u8],
    out: &mut Vec<u16>,
    steps: impl FnOnce(&[u8], &mut [MaybeUninit<u16>]) -> (usize, usize),
    validate: impl FnOnce(&[u8]) -> Result<(), Utf8Error>,
    decode_valid: impl FnOnce(&str, &mut Vec<u16>),
) -> Verdict {
    let len = bytes.len();
    out.reserve(len + DECODE_SLACK);
    let base = out.len();
    let dst = &mut out.spare_capacity_mut()[..len + DECODE_SLACK];
    let (mut at, mut written) = steps(bytes, dst);
    if let Some(lead) = super::avx2::open_lead(bytes, at) {
        // Its one code unit, or two for a 4-byte lead, went out.
        written -= 1 + usize::from(bytes[lead] >= 0xF0);
        at = lead;
    }
    // SAFETY: `dst[..written]` holds the code units of the characters
    // before `at` (the caller's `steps`, less the open one's), within the
    // spare capacity.
    unsafe { out.set_len(base + written) };
    let rest = &bytes[at..];
    if rest.is_empty() {
        return Verdict::WELL_FORMED;
    }
    let result = validate(rest);
    // SAFETY: `result` is a validator's verdict on `rest` (the caller's
    // promise).
    decode_valid(unsafe { crate::valid_prefix(rest, result) }, out);
    Verdict::pack(result.map_err(|e| e.shifted(at)))
}

/// Appends the UTF-16 of `text`: `steps` (as in [`decode_checked`],
/// unchecked) while a step is there, then `tail(rest, dst)`, which
/// decodes the characters that start in the last bytes into `dst` and
/// returns how many units that is.
///
/// # Safety
///
/// `steps` must write `dst[..written]`, the code units of the characters
/// that start before `at`; `tail` must write as many as it returns.
#[inline(always)]
pub(super) unsafe fn decode_valid(
    text: &str,
    out: &mut Vec<u16>,
    steps: impl FnOnce(&[u8], &mut [MaybeUninit<u16>]) -> (usize, usize),
    tail: impl FnOnce(&[u8], &mut [MaybeUninit<u16>]) -> usize,
) {
    let bytes = text.as_bytes();
    let len = bytes.len();
    // At most one code unit per byte (a surrogate pair for 4 bytes).
    out.reserve(len + DECODE_SLACK);
    let base = out.len();
    let dst = &mut out.spare_capacity_mut()[..len + DECODE_SLACK];
    let (at, written) = steps(bytes, dst);
    let written = written + tail(&bytes[at..], &mut dst[written..]);
    // SAFETY: `dst[..written]` holds the code units of all of `text`
    // (`steps`, then `tail`: the caller's promise), within the spare
    // capacity.
    unsafe { out.set_len(base + written) };
}

/// Writes UTF-8 → UTF-16 for a kernel (`$isa`, its type; `$features`, its
/// target features; `$step`, the bytes a step takes), as associated
/// functions of the `impl` it expands in: `decode` (strict, checked as it
/// goes), `decode_valid` (well-formed text) and their loop, `steps`.
///
/// The kernel gives, as associated functions of the same type:
///
/// * `widen_ascii(&[u8], V, &mut [MaybeUninit<u16>]) -> usize`: widens
///   the ASCII step `V` (the slice's first) and the ASCII steps after it;
///   returns how many bytes that is;
/// * `tail(&[u8], &mut [MaybeUninit<u16>]) -> usize`: decodes the
///   characters that start in well-formed text's last bytes (fewer than
///   a step); returns how many units it stored;
/// * `strict_step::<CHECK>(&[u8; STEP + 3], V, &mut [MaybeUninit<u16>])
///   -> usize`: decodes the characters that start in a step that is not
///   all ASCII (the 3 bytes after it hold the continuations of those that
///   start near its end); returns how many units it stored (it may store
///   garbage after them, up to 24 units in all). Generic over the loop's
///   `CHECK` so that each loop has its own copy, called once, which the
///   compiler inlines; one function called from both loops was not, nor
///   what it calls.
///
/// `$isa` (whose registers are a step wide) gives `load`, `is_ascii`,
/// `zero` and the validator's `validate`, `errors`, `errors_in_place`,
/// `incomplete` and `any`.
macro_rules! utf16_decoder {
    ($isa:ident, $features:literal, $step:expr) => {
        /// Checks `bytes` and decodes them: appends the UTF-16 of the
        /// longest well-formed prefix to `out`, and returns the
        /// validator's verdict.
        ///
        /// The steps are checked as they go ([`steps`](Self::steps)), so an
        /// ASCII step costs its widening only; where they stop (an error, a
        /// character left open before an ASCII step, or the last bytes),
        /// the validator and [`decode_valid`](Self::decode_valid) take the
        /// rest, from the lead of any character the steps decoded but had
        /// not seen the end of.
        #[target_feature(enable = $features)]
        pub(crate) fn decode(bytes: &[u8], out: &mut Vec<u16>) -> $crate::Verdict {
            // SAFETY: `steps` writes the code units of the characters
            // before where it stops, checked but for one left open there;
            // the validator is this kernel's.
            unsafe {
                $crate::x86::utf16::decode_checked(
                    bytes,
                    out,
                    |bytes, dst| Self::steps::<true>(bytes, dst),
                    |rest| $isa::validate(rest).unpack(),
                    |text, out| Self::decode_valid(text, out),
                )
            }
        }

        /// Appends the UTF-16 of `text`.
        #[target_feature(enable = $features)]
        pub(crate) fn decode_valid(text: &str, out: &mut Vec<u16>) {
            // SAFETY: `steps` and `tail` write the code units they count.
            unsafe {
                $crate::x86::utf16::decode_valid(
                    text,
                    out,
                    |bytes, dst| Self::steps::<false>(bytes, dst),
                    |rest, dst| Self::tail(rest, dst),
                )
            }
        }

        /// Decodes `bytes` a step at a time while a step is there, into
        /// `dst` (with [`DECODE_SLACK`](crate::x86::utf16::DECODE_SLACK)
        /// units of room past one unit per byte); returns how far it got,
        /// `at`, and the code units written: those of the characters that
        /// start before `at`.
        ///
        /// With `CHECK`, each step is first checked, as the validator
        /// checks a block (an ASCII step: only that the step before left no
        /// character open), and the loop stops before the first that
        /// fails; the bytes before `at` are then well-formed but for a
        /// character the steps decoded whose end is past `at`.
        #[target_feature(enable = $features)]
        #[inline]
        fn steps<const CHECK: bool>(
            bytes: &[u8],
            dst: &mut [core::mem::MaybeUninit<u16>],
        ) -> (usize, usize) {
            const STEP_BYTES: usize = $step;
            let (mut at, mut written) = (0, 0);
            let len = bytes.len();
            // The last step, when fewer than 3 bytes follow it, zero-padded.
            let mut last = [0u8; STEP_BYTES + 3];
            // The step before (zero before the first), the check's context.
            let mut prev = $isa::zero();
            // Invariant: `dst[..written]` holds the code units of the
            // characters that start before `at`, `written` ≤ `at` + 1.
            while let Some(block) = bytes.get(at..at + STEP_BYTES) {
                let v = $isa::load(block.try_into().expect("a step"));
                if $isa::is_ascii(v) {
                    if CHECK && $isa::incomplete(prev) {
                        break;
                    }
                    let taken = Self::widen_ascii(&bytes[at..], v, &mut dst[written..]);
                    at += taken;
                    written += taken;
                    // An ASCII block, as the check's context: nothing open.
                    prev = $isa::zero();
                    continue;
                }
                // Characters that start in the step may end in the 3 bytes
                // after it; the last step's are zeros. (Well-formed text
                // ends its characters in the step; where strict input does
                // not, the open character is taken back when the loop ends.)
                let window: &[u8; STEP_BYTES + 3] = if at + STEP_BYTES + 3 <= len {
                    bytes[at..at + STEP_BYTES + 3]
                        .try_into()
                        .expect("a step and 3 bytes")
                } else {
                    last[..len - at].copy_from_slice(&bytes[at..]);
                    &last
                };
                if CHECK {
                    // Past the first step, the check reads the step's bytes
                    // moved on by 1 to 3 from memory, where the step before
                    // is.
                    let flags = match at.checked_sub(3) {
                        None => $isa::errors(v, prev),
                        Some(back) => $isa::errors_in_place(
                            bytes[back..at + STEP_BYTES]
                                .try_into()
                                .expect("3 bytes and a step"),
                            v,
                        ),
                    };
                    if $isa::any(flags) {
                        break;
                    }
                    prev = v;
                }
                written += Self::strict_step::<CHECK>(window, v, &mut dst[written..]);
                at += STEP_BYTES;
            }
            (at, written)
        }
    };
}
pub(super) use utf16_decoder;

/// Writes UTF-16 → UTF-8 for a kernel (`$features`, its target features;
/// `$block`, the units a block takes; `$room`, the bytes a block's stores
/// may reach past its cursor), as associated functions of the `impl` it
/// expands in: `encode` (strict), `encode_lossy` and their loop, `run`.
///
/// The kernel gives, as associated functions of the same type:
/// `narrow_ascii(&[u16], &mut [MaybeUninit<u8>]) -> usize`, which narrows
/// the ASCII blocks at the slice's start and returns how many units that
/// is; and `encode_block(&[u16], bool, &mut [MaybeUninit<u8>; $room]) ->
/// Option<(usize, usize)>`, which converts a block (the slice's first
/// `$block` units; the flag: more units follow it) whose surrogates are
/// all paired and returns how many units it took and bytes it wrote, or
/// `None` (nothing taken) for the scalar loop to take the block.
macro_rules! utf16_encoder {
    ($features:literal, $block:expr, $room:expr) => {
        /// Appends the UTF-8 of the longest well-formed prefix of `units`;
        /// the error at the first lone surrogate.
        #[target_feature(enable = $features)]
        pub(crate) fn encode(
            units: &[u16],
            out: &mut Vec<u8>,
        ) -> Result<(), $crate::utf16::Utf16Error> {
            $crate::x86::utf16::encode_checked::<false>(units, out, $block, |units, at, out| {
                Self::run(units, at, out)
            })
        }

        /// Appends the UTF-8 of `units`, U+FFFD for each lone surrogate.
        #[target_feature(enable = $features)]
        pub(crate) fn encode_lossy(units: &[u16], out: &mut Vec<u8>) {
            let result =
                $crate::x86::utf16::encode_checked::<true>(units, out, $block, |units, at, out| {
                    Self::run(units, at, out)
                });
            debug_assert!(result.is_ok(), "lossy conversion cannot fail");
        }

        /// Converts the blocks of `units` from `at` on while they hold no
        /// lone surrogate; returns where it stopped: at a block that
        /// `encode_block` would not take, or with fewer than a block's
        /// units left. A block that ends with a high surrogate whose pair
        /// follows leaves it to the next, so the block it stops at begins
        /// with no pair open.
        #[target_feature(enable = $features)]
        #[inline]
        fn run(units: &[u16], mut at: usize, out: &mut Vec<u8>) -> usize {
            const BLOCK_UNITS: usize = $block;
            const ROOM_BYTES: usize = $room;
            let len = units.len();
            // At most 3 bytes a unit, and a block's room past the end.
            let size = ROOM_BYTES + 3 * (len - at);
            out.reserve(size);
            let (base, mut written) = (out.len(), 0);
            let dst = &mut out.spare_capacity_mut()[..size];
            // Invariant: `dst[..written]` is the UTF-8 of the units from
            // the run's first to `at`, at most 3 bytes each: a block's
            // stores, which end by a block's room past `written`, stay in
            // `dst`.
            // Whether to look for ASCII blocks: at first, and after a block
            // of fewer than 2 bytes a unit (ASCII and Latin text). After
            // CJK (3 bytes a unit) ASCII blocks are rare, and the look
            // costs a test a block; the choice follows the text, so the
            // branch is predicted.
            let mut look = true;
            loop {
                if look {
                    let ascii = Self::narrow_ascii(&units[at..], &mut dst[written..]);
                    at += ascii;
                    written += ascii;
                }
                let Some(block) = units.get(at..at + BLOCK_UNITS) else {
                    break;
                };
                let to: &mut [core::mem::MaybeUninit<u8>; ROOM_BYTES] = (&mut dst
                    [written..written + ROOM_BYTES])
                    .try_into()
                    .expect("a block's room");
                let Some((taken, bytes)) = Self::encode_block(block, at + BLOCK_UNITS < len, to)
                else {
                    break;
                };
                look = bytes < 2 * taken;
                at += taken;
                written += bytes;
            }
            // SAFETY: `dst[..written]` were written (the invariant), within
            // the spare capacity.
            unsafe { out.set_len(base + written) };
            at
        }
    };
}
pub(super) use utf16_encoder;

/// UTF-16 → UTF-8, strict or `LOSSY`: `run(units, at, out)` converts the
/// blocks of `units` from `at` while they hold no lone surrogate (it
/// appends their UTF-8 to `out`) and returns where it stopped: at a block
/// it would not take, or with fewer than `block` units left. The scalar
/// loop takes such a block, with the units after it up to one that is
/// not a high surrogate (a high one's pair's other half, if any, must be
/// seen with it; and that half may be another high surrogate, lone, with
/// its own next unit), and the last units.
#[inline(always)]
pub(super) fn encode_checked<const LOSSY: bool>(
    units: &[u16],
    out: &mut Vec<u8>,
    block: usize,
    mut run: impl FnMut(&[u16], usize, &mut Vec<u8>) -> usize,
) -> Result<(), Utf16Error> {
    let len = units.len();
    let mut at = 0;
    loop {
        at = run(units, at, out);
        if len - at < block {
            break;
        }
        let mut end = at + block;
        while end < len && units[end - 1] & 0xFC00 == scalar::HIGH {
            end += 1;
        }
        scalar::encode::<LOSSY>(&units[at..end], out).map_err(|e| e.shifted(at))?;
        at = end;
    }
    scalar::encode::<LOSSY>(&units[at..], out).map_err(|e| e.shifted(at))
}
