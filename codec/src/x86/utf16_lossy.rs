//! One-pass lossy UTF-8 → UTF-16, written once ([`utf16_lossy_decoder!`])
//! for the kernels that decode UTF-16 in steps of one register (AVX2:
//! 32 bytes; SSE4.1: 16): one U+FFFD per maximal subpart (Unicode §3.9),
//! as the `avx512vbmi2` kernel's decoder does it on its 64-byte blocks.
//!
//! Each step is checked as strict decoding checks it (an ASCII step: only
//! that nothing is open before it); a step that passes is decoded as the
//! strict loop decodes it. The errors of real text are replaced where
//! they stand, not by a restart of the loop each:
//!
//! * a step with no lead of a multi-byte character (ASCII with stray
//!   bytes, nothing open before it) is widened, each stray byte a U+FFFD,
//!   in a run with the ASCII steps around it;
//! * any other whole step with an error gets its subparts from its bytes
//!   alone ([`ByteClasses::subparts`](super::subparts::ByteClasses::subparts))
//!   and is decoded in one pass, each subpart's start a U+FFFD, once
//!   [`settle_head`](super::subparts::settle_head) has said which of its
//!   first bytes the character open before it read (and, if that
//!   character broke there, put one U+FFFD in place of its lead's units);
//!   a character its end cuts is checked with the next step, as after any
//!   step.
//!
//! An error in the last, partial step stops the loop: the steps' output
//! for the failing character is taken back, one U+FFFD written for its
//! subpart ([`fail_after`](super::fail_after)), and the loop goes on after
//! it.

/// Writes the lossy decoder to UTF-16 (`decode_lossy`), its run of ASCII
/// and stray steps (`widen_run`) and its subpart finder (`subparts`), as
/// associated functions of the kernel's UTF-16 type, in whose `impl` it
/// expands.
///
/// Arguments: `$isa`, the ISA's type (its registers a step wide), on which
/// [`validator!`](super::validator) has been expanded; `$features`, the
/// `#[target_feature]` string of every function it writes; `$V`, its
/// register; `$Mask`, the unsigned integer with a bit per byte of a step.
///
/// `$isa` gives `N`, `load`, `zero`, `or`, `any`, `first`, `incomplete`,
/// `errors`, `errors_in_place`, `non_ascii_mask`, `multi_byte_leads`,
/// `never_leads` and `at_least_mask(v, x)` (the bytes ≥ `x`, unsigned) and
/// `eq_mask(v, x)`, as `$Mask`s; `keep_from(v, at)` (`v` with its bytes
/// before `at` zeroed).
///
/// The kernel's UTF-16 type gives, as associated functions:
///
/// * `widen(v, &mut [MaybeUninit<u16>; N])`: stores the ASCII step `v` as
///   `N` code units; `widen_strays(v, …)`: the same, each byte from 0x80
///   on a U+FFFD;
/// * `clean_step(window, v, non_ascii, dst) -> usize`: decodes the
///   characters that start in the step `v` (`window`'s first `N` bytes;
///   the 3 after them hold the continuations of those that start near its
///   end), which passed its check, into the front of `dst`, as the strict
///   loop does; returns how many units that is;
/// * `flagged_step(window, v, non_ascii, starts, bad, dst) -> usize`: the
///   same for the characters `starts` marks, each `bad` start (the first
///   byte of a maximal subpart) one U+FFFD.
macro_rules! utf16_lossy_decoder {
    ($isa:ident, $features:literal, $V:ty, $Mask:ty) => {
        /// Lossy decoding to UTF-16 (`bytes` starting at a character
        /// boundary): appends one U+FFFD per maximal subpart, the UTF-16
        /// of every character.
        #[target_feature(enable = $features)]
        pub(crate) fn decode_lossy(bytes: &[u8], out: &mut Vec<u16>) {
            use $crate::x86::subparts::{replace_subpart, settle_head, units_of_leads, Subparts};
            const N: usize = $isa::N;
            let len = bytes.len();
            // At most one code unit per byte (a U+FFFD stands for ≥ 1
            // byte, a surrogate pair for 4), and room for the steps'
            // stores.
            out.reserve(len + $crate::x86::utf16::DECODE_SLACK);
            let base = out.len();
            let dst = &mut out.spare_capacity_mut()[..len + $crate::x86::utf16::DECODE_SLACK];
            let (mut at, mut written) = (0, 0);
            // Where the last maximal subpart ended: nothing is open before
            // it.
            let mut floor = 0;
            // The check's context: the step before `at` (zero after ASCII
            // or a subpart, which the tables treat alike), and whether it
            // is the real step before, so the check can read its shifted
            // copies from memory.
            let mut prev = $isa::zero();
            let mut prev_in_place = false;
            // The last steps, zero-padded.
            let mut padded;
            // Invariant: `bytes[floor..at]` passed the check but for a
            // character that `incomplete(prev)` says is open;
            // `dst[..written]` holds the output for `bytes[..at]` (each
            // lead since `floor` decoded), `written` ≤ `at` + 1.
            'steps: loop {
                let flagged = 'check: {
                    if at >= len {
                        if !$isa::incomplete(prev) {
                            // SAFETY: `dst[..written]` were written (the
                            // invariant), within the spare capacity.
                            unsafe { out.set_len(base + written) };
                            return;
                        }
                        break 'check len;
                    }
                    let whole = at + N <= len;
                    // Characters that start in the step may end in the 3
                    // bytes after it; the last steps' are zeros.
                    let window: &[u8; N + 3] = match bytes.get(at..at + N + 3) {
                        Some(window) => window.try_into().expect("a step and 3 bytes"),
                        None => {
                            padded = [0; N + 3];
                            let rest = &bytes[at..];
                            padded[..rest.len()].copy_from_slice(rest);
                            &padded
                        }
                    };
                    let v = $isa::load(window[..N].try_into().expect("a step"));
                    let non_ascii = $isa::non_ascii_mask(v);
                    let mut errors = $isa::zero();
                    if non_ascii != 0 {
                        errors = if prev_in_place && whole {
                            // The step before is in memory, and `at` ≥ N.
                            let behind: &[u8; 3 + N] =
                                bytes[at - 3..at + N].try_into().expect("3 + N bytes");
                            $isa::errors_in_place(behind, v)
                        } else {
                            $isa::errors(v, prev)
                        };
                        if whole && $isa::first(errors).is_none() {
                            // The common step, as the strict loop decodes
                            // it.
                            written += Self::clean_step(window, v, non_ascii, &mut dst[written..]);
                            at += N;
                            prev = v;
                            prev_in_place = true;
                            continue 'steps;
                        }
                    }
                    let open_before = $isa::incomplete(prev);
                    if non_ascii == 0 && open_before {
                        // An ASCII byte cannot continue the open character.
                        break 'check at;
                    }
                    let strays = non_ascii != 0 && $isa::multi_byte_leads(v) == 0;
                    if non_ascii == 0 || strays && whole && !open_before {
                        if whole {
                            (at, written) = Self::widen_run(bytes, at, dst, written);
                        } else {
                            // The last, partial step, ASCII: its padding is
                            // zeros, its units past the end are not counted.
                            let units: &mut [core::mem::MaybeUninit<u16>; N] = (&mut dst
                                [written..written + N])
                                .try_into()
                                .expect("a step's units");
                            Self::widen(v, units);
                            written += len - at;
                            at = len;
                        }
                        // A stray byte is a subpart of its own: nothing
                        // before `at` is open.
                        floor = at;
                        prev = $isa::zero();
                        prev_in_place = false;
                        continue 'steps;
                    }
                    // Every byte but a continuation starts a character.
                    let starts = !($isa::at_least_mask(v, 0x80) & !$isa::at_least_mask(v, 0xC0));
                    let real = if whole {
                        <$Mask>::MAX
                    } else {
                        <$Mask>::MAX >> (N - (len - at))
                    };
                    let (starts, bad, flag) = match $isa::first(errors).map(|f| (at + f).min(len)) {
                        None => {
                            // The last, partial step, well-formed.
                            prev = v;
                            prev_in_place = false;
                            (starts & real, 0, None)
                        }
                        Some(f) if whole => {
                            // The subparts are replaced in the step; first,
                            // its bytes that the character open before it
                            // read, and that character if it broke.
                            let read;
                            (read, written) = settle_head(bytes, at, f, open_before, dst, written);
                            let Subparts { starts, bad, open } = Self::subparts(v, read);
                            // The character left open at the step's end
                            // (its lead goes out, decoded from the next
                            // bytes) is all the next step's check must see:
                            // the bytes before it are settled.
                            let open_at = match open {
                                0 => N,
                                _ => open.trailing_zeros() as usize,
                            };
                            prev = $isa::keep_from(v, open_at);
                            prev_in_place = false;
                            floor = at + open_at;
                            (starts as $Mask, bad as $Mask, None)
                        }
                        Some(f) => {
                            // The characters before the flag; the failing
                            // one's output, if it went out, is taken back
                            // below.
                            let before = ((1u64 << (f - at)) as $Mask).wrapping_sub(1);
                            (starts & before, 0, Some(f))
                        }
                    };
                    written +=
                        Self::flagged_step(window, v, non_ascii, starts, bad, &mut dst[written..]);
                    if let Some(f) = flag {
                        at = f;
                        break 'check f;
                    }
                    at = (at + N).min(len);
                    continue 'steps;
                };
                let e = $crate::x86::fail_after(bytes, floor, flagged);
                // The failing character's lead went out (the bytes from it
                // to `at` are its continuations): take back its one or two
                // units.
                written -= units_of_leads(&bytes[e.valid_up_to()..at]);
                (at, written) = replace_subpart(bytes, e, dst, written);
                floor = at;
                prev = $isa::zero();
                prev_in_place = false;
            }
        }

        /// Widens the run of whole steps from `bytes[at..]` that are ASCII
        /// or ASCII and stray bytes (no lead of a multi-byte character),
        /// each stray a U+FFFD, into `dst[written..]`; the first step is
        /// one, after no open character. Returns the new `(at, written)`:
        /// the first step that is not one, or not whole. Every byte is one
        /// code unit either way: no branch but the exit.
        #[target_feature(enable = $features)]
        #[inline]
        fn widen_run(
            bytes: &[u8],
            mut at: usize,
            dst: &mut [core::mem::MaybeUninit<u16>],
            mut written: usize,
        ) -> (usize, usize) {
            const N: usize = $isa::N;
            // `written` ≤ `at` + 1, and a step is whole before its units
            // are stored: they fit in `dst` (len + 32 units).
            loop {
                // ASCII text: two steps an iteration while it lasts, one
                // test.
                if let Some(run) = bytes.get(at..at + 2 * N) {
                    let a = $isa::load(run[..N].try_into().expect("a step"));
                    let b = $isa::load(run[N..].try_into().expect("a step"));
                    if $isa::non_ascii_mask($isa::or(a, b)) == 0 {
                        let to: &mut [core::mem::MaybeUninit<u16>; 2 * N] = (&mut dst
                            [written..written + 2 * N])
                            .try_into()
                            .expect("two steps' units");
                        let (first, second) = to.split_at_mut(N);
                        Self::widen(a, first.try_into().expect("a step's units"));
                        Self::widen(b, second.try_into().expect("a step's units"));
                        at += 2 * N;
                        written += 2 * N;
                        continue;
                    }
                }
                let Some(step) = bytes.get(at..at + N) else {
                    break;
                };
                let v = $isa::load(step.try_into().expect("a step"));
                let units: &mut [core::mem::MaybeUninit<u16>; N] = (&mut dst[written..written + N])
                    .try_into()
                    .expect("a step's units");
                if $isa::non_ascii_mask(v) == 0 {
                    Self::widen(v, units);
                } else if $isa::multi_byte_leads(v) == 0 {
                    Self::widen_strays(v, units);
                } else {
                    break;
                }
                at += N;
                written += N;
            }
            (at, written)
        }

        /// Where the characters and maximal subparts of a whole step
        /// start ([`ByteClasses::subparts`]), its first `head` bytes read
        /// by the character open before it.
        ///
        /// [`ByteClasses::subparts`]: $crate::x86::subparts::ByteClasses::subparts
        #[target_feature(enable = $features)]
        #[inline]
        fn subparts(v: $V, head: usize) -> $crate::x86::subparts::Subparts {
            $crate::x86::subparts::ByteClasses::from_compares(
                |x| u64::from($isa::at_least_mask(v, x)),
                |x| u64::from($isa::eq_mask(v, x)),
                u64::from($isa::multi_byte_leads(v)),
                u64::from($isa::never_leads(v)),
            )
            .subparts($isa::N as u32, head)
        }
    };
}

pub(super) use utf16_lossy_decoder;
