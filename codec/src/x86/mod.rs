//! SIMD kernels for x86-64: AVX-512BW (and a VBMI2 variant of its
//! encoder), AVX2 and SSE4.1; the last two decode with [`shuffle`]'s loop
//! of byte shuffles, each block checked as it goes ([`fused_decoder!`]).
//! The AVX-512BW and AVX2 encoders pack each character's bytes with
//! [`pack`]'s shuffle controls (the VBMI2 variant with a byte compress);
//! SSE4.1 encodes with the scalar loop. The AVX-512BW and AVX2 kernels
//! decode lossily to UTF-8 in one pass ([`lossy`]'s `lossy_decoder!`).
//!
//! **One algorithm, many ISAs** (the layout of simdutf8's
//! `implementation/`): each ISA is a zero-sized type ([`sse41::Sse41`],
//! [`avx2::Avx2`], [`avx512::Avx512`], and [`avx512::vbmi::Avx512Vbmi2`]
//! for the VBMI2 decoder) whose inherent `impl` holds, as associated
//! functions and constants, the vector operations the shared code is
//! written in (`load`, `prevs`, `lookup`, `must23`, …) for its register
//! width `N`; its [`Isa`] implementation gives the types (`V`, `Mask`).
//! [`validator!`] writes the validation loop once, [`fused_decoder!`],
//! [`shuffle::decode_blocks!`] and [`lossy`]'s `lossy_decoder!` the
//! decoding loops. A macro takes the ISA's type (and anything else it
//! uses) as arguments and calls the operations through it, `$isa::load(…)`:
//! what it needs is a list of associated functions of a named type, not
//! names that happen to be in scope where it expands. What it writes are
//! more associated functions of the type (`Avx2::validate`, `Avx2::errors`,
//! …), which the other macros, the ISA's own code and the kernel table
//! call by the same path; the functions written for one ISA alone
//! (`available`, `encode`, …) are the type's too, so every function the
//! kernel table names is `Type::function`. (In the macros, `$isa::` calls
//! the ISA's operations and what other macros wrote; `Self::` what the
//! same macro writes.) The operations are safe `#[target_feature]` functions, which
//! a trait's methods cannot be (hence inherent `impl`s, and [`Isa`] only
//! for the associated types, which an inherent `impl` cannot have yet); so
//! the algorithm itself contains no `unsafe`; the only `unsafe` left is in
//! the loads and stores, each next to the bound that makes it sound. Every
//! operation is `#[inline]` and expanded into the same functions as
//! before: the names changed, not the code.
//!
//! Validation is Keiser & Lemire's lookup algorithm (see [`super::lookup`]):
//! per block of `N` bytes, three nibble look-ups classify every byte pair,
//! and a saturating-subtract test finds the bytes that must be 3rd or 4th
//! continuation bytes. The hot loop tests four blocks at once; when they
//! fail, the first flagged byte of the first failing block is found (the
//! group's blocks checked again, one by one); the scalar
//! [`locate`](super::validate::locate) then re-scans only from the last
//! character boundary before that byte (everything before it passed every
//! check, so it is well-formed except perhaps for one unfinished character,
//! whose lead is at most 3 bytes back) — typically a handful of bytes. Runs
//! of ASCII are skipped four blocks per test. The input's last partial
//! block is zero-padded (by a masked load, or [`tail_words`]'s overlapping
//! loads): an unfinished character at the very end then meets a 0x00 and
//! fails like a truncated one, which is exactly when `locate` reports
//! `error_len: None`. Inputs of up to four blocks take a path of their own,
//! with no table loads unless a byte is non-ASCII and one test of the
//! OR-ed flags at the end.
//!
//! The kernels are compiled only for x86-64 and never under Miri, which
//! cannot run vendor intrinsics; there the scalar kernel is the only one.

pub(super) mod avx2;
pub(super) mod avx512;
mod lossy;
mod pack;
pub(super) mod shuffle;
pub(super) mod sse41;
pub(super) mod subparts;
mod utf16;
mod utf16_lossy;

/// An instruction set the shared code is written for, implemented by its
/// zero-sized type: the types of its operations. The operations are the
/// type's inherent associated functions and constants (see the module's
/// documentation for why not this trait's); each macro's documentation
/// says which it calls. In all:
///
/// * [`validator!`] (every ISA): `N`, the block width in bytes (a
///   register); `load(&[u8; N]) -> V`; `load_tail(&[u8]) -> V`, fewer than
///   `N` bytes zero-padded; `zero() -> V`; `is_ascii(V) -> bool`; `or`,
///   `xor` (`(V, V) -> V`) and `and3` (`(V, V, V) -> V`); `any(V) -> bool`;
///   `first(V) -> Option<usize>`, the first non-zero byte;
///   `incomplete(V) -> bool`, whether a character is open at the block's
///   end; `prevs(input, prev) -> (V, V, V)`, the input moved on by 1, 2
///   and 3 bytes; `lookup(&[u8; N], V) -> V`, a nibble look-up;
///   `high_nibbles(V) -> V` and `low_nibbles(V) -> V`; and
///   `must23(prev2, prev3) -> V`, the bytes that must be 3rd or 4th bytes.
/// * [`shuffle::decode_blocks!`] (SSE4.1, AVX2): `masks`, `widen64`,
///   `bmp16`, `window16`, `ALL_LENGTHS` and `FIXED_GROUPS`, and the
///   `ascii_run` that [`fused_decoder!`] expands; [`fused_decoder!`] also
///   `decode_tail`.
/// * [`lossy`]'s `lossy_decoder!` (AVX2, AVX-512): `load_at`, `store`,
///   `non_ascii_mask`, `multi_byte_leads`, `never_leads`, `with_spaces`,
///   and its stray step, `stray_step`, `STRAY_STEP`, `STRAY_STEP_READS`
///   and `STRAY_STEP_WRITES`.
/// * [`avx512`]'s `checked_decoder!`, `encode_loop!` and block decoders
///   (AVX-512 only): the operations listed in their documentation.
pub(crate) trait Isa {
    /// A register: a block of `N` bytes.
    type V: Copy;
    /// A bit per byte of a block.
    type Mask: Copy;
}

/// The `K` elements of `dst` from `at`, without the bounds check that
/// slicing repeats for every store of a decoding loop (a compare and a
/// branch in each group of every block, where the compiler cannot prove
/// the loop's own bound on how far its output runs ahead).
///
/// # Safety
/// `at + K <= dst.len()`.
#[inline(always)]
unsafe fn lanes_at<T, const K: usize>(
    dst: &mut [MaybeUninit<T>],
    at: usize,
) -> &mut [MaybeUninit<T>; K] {
    debug_assert!(at + K <= dst.len());
    // SAFETY: the caller's: `dst[at..at + K]` is in bounds, and an array of
    // `K` elements has an element's alignment.
    unsafe { &mut *dst.as_mut_ptr().add(at).cast() }
}

/// Asks for the cache line that holds `at` (which need not be in any
/// object: a prefetch is a hint, and never faults) ahead of the stores
/// that will write it.
///
/// A run of stores to lines that are not in the first-level cache waits on
/// each line in turn, as the stores leave the store buffer in order; a
/// prefetch, issued as the loop runs, fetches the lines a few iterations
/// ahead side by side. An output buffer fresh from the allocator is such
/// lines, and widening ASCII (one byte to two or four) is all stores.
///
/// Written as an instruction the compiler cannot see into, given the
/// address as a number: through the `_mm_prefetch` intrinsic, the
/// compiler laid out the whole AVX2 decoding loop anew, and CJK text,
/// which never reaches the prefetch, decoded measurably slower.
#[inline(always)]
pub(super) fn prefetch_for_store<T>(at: *const T) {
    // SAFETY: `prefetcht0` changes nothing the program sees (no register
    // but its operand, no flag, no memory it could observe) and cannot
    // fault, whatever the address; it is in every x86-64 CPU (SSE).
    unsafe {
        core::arch::asm!(
            "prefetcht0 [{at}]",
            at = in(reg) at.addr(),
            options(nostack, preserves_flags, nomem)
        )
    }
}

/// [`prefetch_for_store`] of the lines of the 64 lanes after `lanes`,
/// which the next block of an ASCII run widens into.
#[inline(always)]
pub(super) fn prefetch_next_64(lanes: &[MaybeUninit<u32>; 64]) {
    for k in 0..4 {
        prefetch_for_store(lanes.as_ptr().wrapping_add(64 + 16 * k));
    }
}

/// Repeats a 16-byte table across a `W`-byte register image (the shuffle
/// instructions look up within each 16-byte lane).
const fn repeat<const W: usize>(table: [u8; 16]) -> [u8; W] {
    let mut out = [0; W];
    let mut i = 0;
    while i < W {
        out[i] = table[i % 16];
        i += 1;
    }
    out
}

/// Per high nibble, the payload bits of a byte with that nibble (RFC 3629
/// §3's `x` bits): ASCII 0x7F, continuation 0x3F, 2-, 3-, 4-byte lead
/// 0x1F, 0x0F, 0x07. (0 & 0x7F keeps the zero bytes of a lane's unused
/// positions zero.)
const PAYLOAD: [u8; 16] = [
    0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x3F, 0x3F, 0x3F, 0x3F, 0x1F, 0x1F, 0x0F, 0x07,
];

/// Per high nibble of a lead, 6·(4 − length): how far right to shift the
/// assembly of a lead and the next three bytes, `b0·2¹⁸ + b1·2¹² + b2·2⁶ +
/// b3`, to drop the bytes the character does not have. (0 for a
/// continuation: it starts nothing, and its lane is never kept.)
const LENGTH_SHIFT: [u8; 16] = [18, 18, 18, 18, 18, 18, 18, 18, 0, 0, 0, 0, 12, 12, 6, 0];

/// The positions of the set bits of the 8-bit `mask`, in order, then
/// zeros: the packing controls of the decoders without a compress
/// instruction are built from them.
const fn set_bits(mask: usize) -> [u8; 8] {
    let (mut out, mut kept, mut bit) = ([0; 8], 0, 0);
    while bit < 8 {
        if mask >> bit & 1 == 1 {
            out[kept] = bit as u8;
            kept += 1;
        }
        bit += 1;
    }
    out
}

/// Blocks the validator's long loop loads, and tests, at a time: one test
/// (all ASCII? any error?) per four blocks, and no more, since AVX2 has 16
/// registers.
const GROUP: usize = 4;

/// The bytes of `tail` (at most 16) as two little-endian words, zero past
/// its end: what a zero-padded 16-byte load of `tail` would give, read with
/// two overlapping loads per word and shifts, so with neither a loop nor a
/// call to `memcpy`. (Copying into a padded buffer called `memcpy`, and the
/// load that followed waited for its stores to land: a 20-byte input took
/// the AVX2 validator 10 ns, simdutf8 4, measured.) Safe code, the same on
/// every target, so Miri checks it.
#[inline(always)]
fn tail_words(tail: &[u8]) -> [u64; 2] {
    /// The first `b.len() ≤ 8` bytes: the two overlapping halves ORed, the
    /// upper one moved to end at the last byte (where they overlap, both
    /// hold the same bytes).
    #[inline(always)]
    fn word(b: &[u8]) -> u64 {
        let n = b.len();
        debug_assert!(n <= 8);
        if n >= 4 {
            let lo = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
            let hi = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
            u64::from(lo) | u64::from(hi) << (8 * (n - 4))
        } else if n >= 2 {
            let lo = u16::from_le_bytes(b[..2].try_into().expect("2 bytes"));
            let hi = u16::from_le_bytes(b[n - 2..].try_into().expect("2 bytes"));
            u64::from(lo) | u64::from(hi) << (8 * (n - 2))
        } else {
            b.first().map_or(0, |&b| u64::from(b))
        }
    }
    let n = tail.len();
    debug_assert!(n <= 16);
    if n > 8 {
        // The last 8 bytes, shifted right past the ones the low word has.
        let lo = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
        let hi = u64::from_le_bytes(tail[n - 8..].try_into().expect("8 bytes"));
        [lo, hi >> (8 * (16 - n))]
    } else {
        [word(tail), 0]
    }
}

/// For every byte position `i` of the last block, the largest byte that
/// does *not* start a character still open at the block's end: a lead at
/// `N-1` (≥ 0xC0), `N-2` (≥ 0xE0) or `N-3` (≥ 0xF0) needs bytes from the
/// next block.
const fn incomplete_max<const W: usize>() -> [u8; W] {
    let mut out = [0xFF; W];
    out[W - 3] = 0xEF;
    out[W - 2] = 0xDF;
    out[W - 1] = 0xBF;
    out
}

/// `decode` and `decode_valid` for the kernels that decode with
/// [`shuffle`] (SSE4.1, AVX2). `decode` is one pass: each 64-byte block is
/// checked by the validator's tables (on its own: it starts at a character
/// boundary) and decoded by [`shuffle::decode_blocks!`]; from the first
/// block that fails (or the last, short block) on, `validate` finds
/// the exact error and `decode_valid` decodes what lies before it.
///
/// Arguments: `$isa`, the ISA's type, on which [`validator!`] has been
/// expanded and which has [`shuffle::decode_blocks!`]'s operations and
/// `decode_tail` (see [`Isa`]); `$features`, the `#[target_feature]`
/// string of the functions it expands to (`decode`, `decode_valid` and
/// `decode_rest`, associated functions of `$isa`).
///
/// Why not validate the whole input, then decode it: on ASCII, decoding
/// *is* widening, and a separate validation pass cost a third on top of it
/// (AVX2 at 4 KiB: 13.3 GB/s against simdutf's fused 21.1, measured); and
/// decoding the other classes is a chain of dependent steps, beside which
/// the checks run in otherwise idle units.
macro_rules! fused_decoder {
    ($isa:ident, $features:literal) => {
        $crate::x86::fused_decoder!($isa, $features, decode, decode_valid);
    };
    // With names for the two functions: a kernel that has a decoding loop
    // of its own for long inputs keeps this one for the rest.
    ($isa:ident, $features:literal, $decode:ident, $decode_valid:ident) => {
        impl $isa {
            /// Appends the code points of the longest well-formed prefix of
            /// `bytes` to `out`; the verdict is `validate`'s.
            #[target_feature(enable = $features)]
            pub(crate) fn $decode(bytes: &[u8], out: &mut Vec<u32>) -> $crate::Verdict {
                let (at, checked_to) =
                    $crate::x86::shuffle::decode_blocks!($isa, bytes, out, |block: &[u8; 64]| {
                        let (mut prev, mut flags) = ($isa::zero(), $isa::zero());
                        for v in block.chunks_exact($isa::N) {
                            let v = $isa::load(v.try_into().expect("N bytes"));
                            flags = $isa::or(flags, $isa::errors(v, prev));
                            prev = v;
                        }
                        !$isa::any(flags)
                    });
                let rest = &bytes[at..];
                if rest.is_empty() {
                    // The steps took every byte, the last ones by widening
                    // ASCII (a step on other bytes stops short of its
                    // block's end): nothing open, nothing left to check.
                    return $crate::Verdict::WELL_FORMED;
                }
                // The last block checked ends where the input does (a 64-byte
                // input, say): `rest` passed its check, and is well-formed
                // unless a character is left open at the end, which one test
                // tells without checking `rest` again.
                let verdict = if checked_to == bytes.len()
                    && !rest.is_empty()
                    && !$isa::incomplete($isa::load(
                        bytes.last_chunk::<{ $isa::N }>().expect("N ≤ 64 bytes"),
                    )) {
                    $crate::Verdict::WELL_FORMED
                } else {
                    $isa::validate(rest)
                };
                if verdict.is_ok() {
                    // SAFETY: `verdict` is this kernel's validation of `rest`,
                    // or the checks above: `rest` is well-formed.
                    let rest = unsafe { core::str::from_utf8_unchecked(rest) };
                    // The loop stopped at its last whole block: less than a
                    // block is left.
                    Self::decode_rest(rest, bytes.last_chunk::<64>(), out);
                    return verdict;
                }
                let result = verdict.unpack();
                // SAFETY: `result` is this kernel's validation of `rest`.
                Self::$decode_valid(unsafe { $crate::valid_prefix(rest, result) }, out);
                $crate::Verdict::pack(result.map_err(|e| e.shifted(at)))
            }

            /// Decodes well-formed text: [`decode_blocks!`] with no check,
            /// then the scalar loop for the last bytes (less than a block).
            ///
            /// [`decode_blocks!`]: $crate::x86::shuffle::decode_blocks!
            #[target_feature(enable = $features)]
            pub(crate) fn $decode_valid(text: &str, out: &mut Vec<u32>) {
                let (at, _) =
                    $crate::x86::shuffle::decode_blocks!($isa, text.as_bytes(), out, |_| true);
                // `at` is a character boundary of the `&str`.
                Self::decode_rest(&text[at..], text.as_bytes().last_chunk::<64>(), out);
            }

            /// The rest of a run of ASCII blocks in [`decode_blocks!`],
            /// from a block with a character or two among ASCII, and the
            /// runs of the AVX2 kernel's own loop for long inputs:
            /// [`ascii_run!`]. Out of line, so that the block loops' steps
            /// keep their registers.
            ///
            /// [`decode_blocks!`]: $crate::x86::shuffle::decode_blocks!
            /// [`ascii_run!`]: $crate::x86::shuffle::ascii_run!
            #[target_feature(enable = $features)]
            #[inline(never)]
            fn ascii_run(
                bytes: &[u8],
                at: usize,
                dst: &mut [core::mem::MaybeUninit<u32>],
                written: usize,
            ) -> (usize, usize, usize) {
                $crate::x86::shuffle::ascii_run!($isa, bytes, at, dst, written)
            }

            /// Decodes `text`, the less than a block that the loop leaves at
            /// the end of an input whose last 64 bytes are `block` (if it has
            /// that many): by the kernel's `decode_tail` if it takes them, by
            /// the scalar loop if not.
            #[target_feature(enable = $features)]
            #[inline]
            fn decode_rest(text: &str, block: Option<&[u8; 64]>, out: &mut Vec<u32>) {
                debug_assert!(text.len() < 64, "the loop takes every whole block");
                if text.is_empty() {
                    return;
                }
                if let Some(block) = block {
                    if $isa::decode_tail(block, 64 - text.len(), out) {
                        return;
                    }
                }
                $crate::decode::decode_valid_scalar(text, out);
            }
        }
    };
}
pub(crate) use fused_decoder;

/// The validation loop, written once: expands to `validate` (and the
/// functions it calls, `errors` and `errors_in_place` among them, which
/// the other macros use) as associated functions of `$isa`.
///
/// Arguments: `$isa`, the ISA's type, which implements [`Isa`] and has the
/// validator's operations (listed there); `$features`, the
/// `#[target_feature]` string every function is compiled with. (Its `@impl`
/// rule is the expansion, with `$V` the ISA's [`Isa::V`].)
macro_rules! validator {
    ($isa:ident, $features:literal) => {
        $crate::x86::validator! { @impl $isa, <$isa as $crate::x86::Isa>::V, $features }
    };
    (@impl $isa:ident, $V:ty, $features:literal) => {
        impl $isa {
            /// Checks `bytes`, with `core::str::from_utf8`'s error details
            /// (packed in a [`Verdict`](crate::Verdict)).
            ///
            /// The hot loop takes a group of four blocks at a time and tests
            /// once: all ASCII (skip), or the OR of the four blocks' error
            /// vectors is zero (well-formed). When a group fails, its blocks are
            /// checked again one by one; the first flagged byte is found, and
            /// `locate` finds the error from the character boundary just before
            /// it. Inputs of up to a group take a shorter path.
            #[target_feature(enable = $features)]
            pub(crate) fn validate(bytes: &[u8]) -> $crate::Verdict {
                if bytes.len() <= $crate::x86::GROUP * $isa::N {
                    Self::validate_few(bytes)
                } else {
                    Self::validate_many(bytes)
                }
            }

            /// At most a group of blocks. Apart from the long loop of
            /// `validate_inner` (its groups and alignment step), so
            /// that a short input pays for neither that loop's stack frame nor
            /// its hoisted table loads (AVX2, 64 ASCII bytes: 118 instructions
            /// a call against simdutf8's 43, counted by callgrind; 6.0 ns
            /// against 2.2).
            #[target_feature(enable = $features)]
            #[inline]
            fn validate_few(bytes: &[u8]) -> $crate::Verdict {
                const OK: $crate::Verdict = $crate::Verdict::WELL_FORMED;
                let len = bytes.len();
                if len <= $isa::N {
                    // One block at most: straight-line code, no loop (AVX-512,
                    // 64 bytes: 10% faster than the loop below).
                    let input = match bytes.try_into() {
                        Ok(block) => $isa::load(block),
                        Err(_) => $isa::load_tail(bytes),
                    };
                    if $isa::is_ascii(input) {
                        return OK;
                    }
                    if let Some(first) = $isa::first(Self::errors(input, $isa::zero())) {
                        return $crate::x86::fail_packed(bytes, first.min(len));
                    }
                    if len == $isa::N && $isa::incomplete(input) {
                        return $crate::x86::fail_packed(bytes, $isa::N);
                    }
                    return OK;
                }
                // All ASCII? One test of two or four overlapping blocks that
                // cover the input (the first ones and the last ones), with no
                // loop and no tail load.
                let head = bytes
                    .first_chunk::<{ $isa::N }>()
                    .expect("more than N bytes");
                let tail = bytes
                    .last_chunk::<{ $isa::N }>()
                    .expect("more than N bytes");
                let mut high = $isa::or($isa::load(head), $isa::load(tail));
                if len > 2 * $isa::N {
                    let second = &bytes[$isa::N..2 * $isa::N];
                    let second_last = &bytes[len - 2 * $isa::N..len - $isa::N];
                    high = $isa::or(
                        high,
                        $isa::or(
                            $isa::load(second.try_into().expect("N bytes")),
                            $isa::load(second_last.try_into().expect("N bytes")),
                        ),
                    );
                }
                if $isa::is_ascii(high) {
                    return OK;
                }
                // Every check below ORs the flags of its blocks and tests them
                // once at the end (the error, if any, is then found block by
                // block, out of line). A block with 3 bytes before it reads its
                // shifted copies from memory, as the long loop does (shuffles
                // are the check's bottleneck); the first block, with none,
                // takes zero as the block before. The input's last block is
                // its last N bytes, whole or overlapping the block before:
                // read from memory, the overlap's context is the real bytes
                // before it, so it is checked again alike and flags nothing
                // new, and no zero-padded rest is assembled.
                let checked = |at: usize| {
                    let window: &[u8; 3 + $isa::N] = bytes[at - 3..at + $isa::N]
                        .try_into()
                        .expect("a block and 3 bytes");
                    let block = $isa::load(window[3..].try_into().expect("N bytes"));
                    (block, Self::errors_in_place(window, block))
                };
                if ($isa::N + 3..=2 * $isa::N).contains(&len) {
                    // Two blocks, the first and the last, in straight-line code
                    // (no loop whose preheader loads the tables again).
                    let (last, last_errors) = checked(len - $isa::N);
                    if $isa::any($isa::or(
                        Self::errors($isa::load(head), $isa::zero()),
                        last_errors,
                    )) {
                        return Self::fail_in_few(bytes, 0);
                    }
                    if $isa::incomplete(last) {
                        return $crate::x86::fail_packed(bytes, len);
                    }
                    return OK;
                }
                // Leading ASCII blocks need no check, and leave nothing open.
                let mut at = 0;
                while let Some(block) = bytes.get(at..at + $isa::N) {
                    if !$isa::is_ascii($isa::load(block.try_into().expect("N bytes"))) {
                        break;
                    }
                    at += $isa::N;
                }
                // From there on, every block.
                let from = at;
                let mut flags = $isa::zero();
                if at == 0 {
                    flags = Self::errors($isa::load(head), $isa::zero());
                    at = $isa::N;
                }
                while at + $isa::N <= len {
                    flags = $isa::or(flags, checked(at).1);
                    at += $isa::N;
                }
                // The last block: whole, or the last N bytes, or (with fewer
                // than 3 bytes before those) the zero-padded rest, whose zeros
                // catch a character left open.
                let last = if at == len {
                    $isa::load(tail)
                } else if len >= $isa::N + 3 {
                    let (block, errors) = checked(len - $isa::N);
                    flags = $isa::or(flags, errors);
                    block
                } else {
                    flags = $isa::or(
                        flags,
                        Self::errors($isa::load_tail(&bytes[at..]), $isa::load(head)),
                    );
                    $isa::zero()
                };
                if $isa::any(flags) {
                    return Self::fail_in_few(bytes, from);
                }
                // Is a character still open at the end?
                if $isa::incomplete(last) {
                    return $crate::x86::fail_packed(bytes, len);
                }
                OK
            }

            /// The error that [`validate_few`](Self::validate_few)'s checks flagged, in the blocks
            /// from `from` (the first one not ASCII) on: [`fail_from`](Self::fail_from),
            /// packed, as [`super::fail_packed`].
            #[target_feature(enable = $features)]
            #[cold]
            #[inline(never)]
            fn fail_in_few(bytes: &[u8], from: usize) -> $crate::Verdict {
                $crate::Verdict::pack(Err(Self::fail_from(bytes, from, $isa::zero())))
            }

            /// More than a group of blocks: [`validate_inner`], out of line (so
            /// [`validate`]'s short path has no stack frame) and packed (so
            /// its result comes back in a register).
            ///
            /// [`validate_inner`]: Self::validate_inner
            /// [`validate`]: Self::validate
            #[target_feature(enable = $features)]
            #[inline(never)]
            fn validate_many(bytes: &[u8]) -> $crate::Verdict {
                $crate::Verdict::pack(Self::validate_inner(bytes))
            }

            /// Inputs of more than a group of blocks.
            #[target_feature(enable = $features)]
            #[inline]
            fn validate_inner(bytes: &[u8]) -> Result<(), $crate::Utf8Error> {
                // Where the hot loop starts; the block before it (only its last
                // 3 bytes matter), and whether a character it starts is still
                // open.
                let (mut at, mut prev, mut prev_incomplete);
                // Align the hot loop's loads (a load that straddles two cache
                // lines costs two): check the first two blocks one by one, then
                // start at the aligned address inside the second, its "previous
                // block" loaded from the N bytes before it. The overlap is
                // checked twice, with the same context, so it flags nothing new.
                let skew = bytes.as_ptr().addr() % $isa::N;
                if skew != 0 && bytes.len() >= 6 * $isa::N {
                    let mut before = $isa::zero();
                    for start in [0, $isa::N] {
                        let input =
                            $isa::load(bytes[start..start + $isa::N].try_into().expect("N bytes"));
                        if let Some(first) = $isa::first(Self::errors(input, before)) {
                            return Err($crate::x86::fail(bytes, start + first));
                        }
                        before = input;
                    }
                    at = 2 * $isa::N - skew;
                    prev = $isa::load(bytes[at - $isa::N..at].try_into().expect("N bytes"));
                    prev_incomplete = $isa::incomplete(prev);
                } else {
                    // The hot loop reads the 3 bytes before each group: the
                    // first block, which has none, is checked on its own.
                    let input = $isa::load(bytes[..$isa::N].try_into().expect("N bytes"));
                    if let Some(first) = $isa::first(Self::errors(input, $isa::zero())) {
                        return Err($crate::x86::fail(bytes, first));
                    }
                    at = $isa::N;
                    prev = input;
                    prev_incomplete = $isa::incomplete(prev);
                }
                // Each group with the 3 bytes before it (`at` ≥ 3 here).
                while let Some(window) = bytes.get(at - 3..at + $crate::x86::GROUP * $isa::N) {
                    let window: &[u8; 3 + $crate::x86::GROUP * $isa::N] =
                        window.try_into().expect("a group and 3 bytes");
                    let mut blocks = [$isa::zero(); $crate::x86::GROUP];
                    let mut high = $isa::zero();
                    for (block, bytes) in blocks.iter_mut().zip(window[3..].chunks_exact($isa::N)) {
                        *block = $isa::load(bytes.try_into().expect("N bytes"));
                        high = $isa::or(high, *block);
                    }
                    if $isa::is_ascii(high) {
                        if prev_incomplete {
                            // An ASCII byte cannot continue the open character.
                            return Err($crate::x86::fail(bytes, at));
                        }
                        // After ASCII, zero is as good a "previous block" as any:
                        // the tables treat every ASCII byte alike.
                        prev = $isa::zero();
                        at += $crate::x86::GROUP * $isa::N;
                        // The run of ASCII goes on in a loop of its own, each
                        // group tested by its OR alone: a dozen instructions a
                        // group, none of the window's bookkeeping. ASCII at
                        // 4 KiB, criterion: AVX2 97-117 -> 130 GB/s (the shared
                        // loop's speed depended on where the build placed it),
                        // AVX-512 136 -> 146.
                        while let Some(group) = bytes.get(at..at + $crate::x86::GROUP * $isa::N) {
                            let mut high = $isa::zero();
                            for block in group.chunks_exact($isa::N) {
                                high =
                                    $isa::or(high, $isa::load(block.try_into().expect("N bytes")));
                            }
                            if !$isa::is_ascii(high) {
                                break;
                            }
                            at += $crate::x86::GROUP * $isa::N;
                        }
                        continue;
                    } else {
                        let flags = Self::errors_in_window(window, &blocks);
                        if $isa::any(flags) {
                            return Err(Self::fail_from(bytes, at, prev));
                        }
                        prev = blocks[$crate::x86::GROUP - 1];
                        prev_incomplete = $isa::incomplete(prev);
                    }
                    at += $crate::x86::GROUP * $isa::N;
                }
                // Less than a group left: block by block, then the tail,
                // zero-padded so that a character left open at the end fails on
                // the padding.
                while let Some(block) = bytes.get(at..at + $isa::N) {
                    let input = $isa::load(block.try_into().expect("N bytes"));
                    if $isa::is_ascii(input) {
                        if prev_incomplete {
                            return Err($crate::x86::fail(bytes, at));
                        }
                    } else {
                        if let Some(first) = $isa::first(Self::errors(input, prev)) {
                            return Err($crate::x86::fail(bytes, at + first));
                        }
                        prev_incomplete = $isa::incomplete(input);
                    }
                    prev = input;
                    at += $isa::N;
                }
                if at < bytes.len() {
                    let input = $isa::load_tail(&bytes[at..]);
                    if prev_incomplete || !$isa::is_ascii(input) {
                        if let Some(first) = $isa::first(Self::errors(input, prev)) {
                            // The flag may sit in the padding (an unfinished
                            // character): look back from the end instead.
                            return Err($crate::x86::fail(bytes, (at + first).min(bytes.len())));
                        }
                    }
                } else if prev_incomplete {
                    return Err($crate::x86::fail(bytes, at));
                }
                Ok(())
            }

            /// The error that a check flagged in the blocks from `at` (after
            /// `prev`) on: the blocks loaded and checked again in turn (the
            /// rest zero-padded), the first flagged byte located. (Rather than
            /// keeping each block's flags live through the check: with four
            /// blocks, AVX2's 16 registers spilled.)
            #[target_feature(enable = $features)]
            #[cold]
            #[inline(never)]
            fn fail_from(bytes: &[u8], mut at: usize, mut prev: $V) -> $crate::Utf8Error {
                let len = bytes.len();
                while at < len {
                    let input = match bytes.get(at..at + $isa::N) {
                        Some(block) => $isa::load(block.try_into().expect("N bytes")),
                        None => $isa::load_tail(&bytes[at..]),
                    };
                    if let Some(first) = $isa::first(Self::errors(input, prev)) {
                        // In the padded rest, the flag may sit in the padding
                        // (an unfinished character): look back from the end.
                        return $crate::x86::fail(bytes, (at + first).min(len));
                    }
                    prev = input;
                    at += $isa::N;
                }
                unreachable!("blocks that failed have a flagged one")
            }

            /// The Keiser–Lemire check of one block: non-zero bytes mark errors.
            #[target_feature(enable = $features)]
            #[inline]
            fn errors(input: $V, prev: $V) -> $V {
                let (prev1, prev2, prev3) = $isa::prevs(input, prev);
                Self::errors_shifted(input, prev1, prev2, prev3)
            }

            /// [`errors`](Self::errors) of each block of a group (`blocks`, loaded from
            /// `window[3..]`), OR-ed: the input shifted by 1, 2 and 3 bytes is
            /// loaded again from memory (`window` starts 3 bytes before the
            /// group) rather than assembled from two registers by shuffles.
            /// Shuffles are the check's bottleneck (seven of a block's twenty
            /// vector operations, and they run on fewer ports); this moves four
            /// of them to the load ports, which have room. Measured on Zen 4,
            /// multibyte text at 4 KiB and 1 MiB: AVX-512 +19-21%, AVX2
            /// +22-25%, SSE4.1 +10-14%.
            #[target_feature(enable = $features)]
            #[inline]
            fn errors_in_window(
                window: &[u8; 3 + $crate::x86::GROUP * $isa::N],
                blocks: &[$V; $crate::x86::GROUP],
            ) -> $V {
                let mut flags = $isa::zero();
                for (i, &block) in blocks.iter().enumerate() {
                    let window = window[i * $isa::N..i * $isa::N + 3 + $isa::N]
                        .try_into()
                        .expect("a block and 3 bytes");
                    flags = $isa::or(flags, Self::errors_in_place(window, block));
                }
                flags
            }

            /// [`errors`](Self::errors) of `block`, the bytes `window[3..]`, with its shifted
            /// copies loaded from `window` (see [`errors_in_window`](Self::errors_in_window)).
            #[target_feature(enable = $features)]
            #[inline]
            fn errors_in_place(window: &[u8; 3 + $isa::N], block: $V) -> $V {
                let shifted = |by: usize| {
                    $isa::load(
                        window[3 - by..3 - by + $isa::N]
                            .try_into()
                            .expect("N bytes"),
                    )
                };
                Self::errors_shifted(block, shifted(1), shifted(2), shifted(3))
            }

            /// The check of one block given its bytes shifted by 1, 2 and 3
            /// (each byte's 1st, 2nd and 3rd predecessor).
            #[target_feature(enable = $features)]
            #[inline]
            fn errors_shifted(input: $V, prev1: $V, prev2: $V, prev3: $V) -> $V {
                use $crate::lookup::{CUR_HIGH, PREV_HIGH, PREV_LOW};
                // Constants, so each table is one load from read-only data.
                const T_PREV_HIGH: [u8; $isa::N] = $crate::x86::repeat::<{ $isa::N }>(PREV_HIGH);
                const T_PREV_LOW: [u8; $isa::N] = $crate::x86::repeat::<{ $isa::N }>(PREV_LOW);
                const T_CUR_HIGH: [u8; $isa::N] = $crate::x86::repeat::<{ $isa::N }>(CUR_HIGH);
                let classes = $isa::and3(
                    $isa::lookup(&T_PREV_HIGH, $isa::high_nibbles(prev1)),
                    $isa::lookup(&T_PREV_LOW, $isa::low_nibbles(prev1)),
                    $isa::lookup(&T_CUR_HIGH, $isa::high_nibbles(input)),
                );
                // TWO_CONTS (bit 7) must be set exactly where a 3rd/4th byte is
                // due; every other class bit is an error by itself.
                $isa::xor(classes, $isa::must23(prev2, prev3))
            }
        }
    };
}
pub(crate) use validator;

use crate::Utf8Error;
use core::mem::MaybeUninit;

/// The exact error, given that no check flagged any byte before `flagged`
/// (so `bytes[..flagged]` is well-formed but for one character perhaps left
/// open, whose lead is at most 3 bytes back) and that the input is
/// ill-formed: [`fail_after`] with nothing before the input.
#[cold]
#[inline(never)]
fn fail(bytes: &[u8], flagged: usize) -> Utf8Error {
    fail_after(bytes, 0, flagged)
}

/// [`fail`], packed in a [`Verdict`](super::Verdict): a `Utf8Error` comes
/// back through memory, a `Verdict` in a register, so the short paths that
/// call this need no stack frame.
#[cold]
#[inline(never)]
fn fail_packed(bytes: &[u8], flagged: usize) -> super::Verdict {
    super::Verdict::pack(Err(fail(bytes, flagged)))
}

/// [`fail`] for a loop that starts again after each maximal subpart:
/// nothing is open before `floor` (where the last subpart ended), so the
/// look-back stops there; the error's position is absolute.
///
/// No scan: the flag itself says where the error is. The check flags the
/// first byte at which a decoder reading from the start fails (a byte that
/// is no continuation where one is due, a continuation where none is, the
/// second byte of an overlong, surrogate or too-large sequence), with two
/// exceptions that only move the flag one byte later: a lead that can
/// never start a character (C0, C1, F5..FF) is flagged on the byte after
/// it, and so is a character left open at the end of the input (on the
/// padding: `flagged` is the input's length). Such a lead right before the
/// flag stands at a character boundary (had a character been open, the
/// lead would have been flagged itself, as no continuation): it is a
/// subpart of one byte. Otherwise the maximal subpart is what the open
/// character had read when it failed: from its lead
/// ([`boundary_before`](super::validate::boundary_before) `flagged`) up to
/// the flag, or the flagged byte alone when nothing was open (Unicode §3.9;
/// the bytes between passed the check, so they are a prefix the lead
/// allows). `tests/kernels.rs` holds every kernel to std on every input of
/// up to 3 bytes, on every 4-byte string of 27 kinds of byte across block
/// edges, and on errors at every position of a block. This replaced a DFA
/// walk from the boundary, a chain of dependent table loads that was a
/// tenth of a 64-byte lossy call.
#[inline]
fn fail_after(bytes: &[u8], floor: usize, flagged: usize) -> Utf8Error {
    use super::validate::is_never_lead;
    if flagged > floor && is_never_lead(bytes[flagged - 1]) {
        // A lead that never starts a character: a subpart of one byte
        // (even at the end of the input, where nothing is open after it).
        return Utf8Error::new(flagged - 1, Some(1));
    }
    fail_in_character(bytes, floor, flagged)
}

/// [`fail_after`]'s general case: the subpart runs from the open
/// character's lead, if any, to the flag. Out of line: inlined, its loop
/// took registers from the decoding loops that call `fail_after` (lossy
/// decoding of 64 bytes of ASCII with a stray, to UTF-32: 9–15% slower,
/// measured).
#[inline(never)]
fn fail_in_character(bytes: &[u8], floor: usize, flagged: usize) -> Utf8Error {
    use super::validate::boundary_before;
    let start = floor + boundary_before(&bytes[floor..], flagged - floor);
    // At the end of the input, the open character is incomplete: no
    // `error_len`.
    let length = (flagged < bytes.len()).then(|| (flagged - start).max(1) as u8);
    Utf8Error::new(start, length)
}

#[cfg(test)]
mod tests {
    use super::tail_words;

    /// `tail_words` of every length against what it stands in for: a copy
    /// into a zeroed 16-byte buffer, read as two little-endian words. Bytes
    /// all different and non-zero, so a byte read from the wrong place, or
    /// padding that is not zero, shows.
    #[test]
    fn tail_words_equal_a_zero_padded_copy_at_every_length() {
        let bytes: Vec<u8> = (1..=16u8).map(|i| i * 15).collect();
        for start in 0..16 {
            for len in 0..=16 - start {
                let tail = &bytes[start..start + len];
                let mut padded = [0u8; 16];
                padded[..len].copy_from_slice(tail);
                let expected = [
                    u64::from_le_bytes(padded[..8].try_into().unwrap()),
                    u64::from_le_bytes(padded[8..].try_into().unwrap()),
                ];
                assert_eq!(tail_words(tail), expected, "{tail:02x?}");
            }
        }
    }
}
