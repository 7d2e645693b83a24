//! One-pass lossy decoding to UTF-8, written once ([`lossy_decoder!`]) for
//! every kernel whose registers can hold a block of `N` bytes and test it
//! with the validator's `errors`: the validator's loop, copying as it checks,
//! with the common errors of real text (a stray byte among ASCII, a stray
//! among other text, a broken character's leftover continuation bytes)
//! handled without a trip through the scalar `locate`.

/// U+FFFD in UTF-8 and one byte more, for one 4-byte store: the extra byte
/// is past the counted output, or the next store overwrites it.
pub(super) const REPLACEMENT_AND_ONE: u32 = {
    let r = crate::REPLACEMENT_UTF8;
    u32::from_le_bytes([r[0], r[1], r[2], 0])
};

/// The lossy decoder to UTF-8 (`decode_lossy`) and its helpers, written
/// once, as associated functions of `$isa`.
///
/// Arguments: `$features`, the `#[target_feature]` string of every function
/// it expands to; `$isa`, the kernel's type, on which [`validator!`] has
/// been expanded (its `errors`) and which has, beside the validator's
/// operations (`N`, `load`, `load_tail`, `zero`, `first`, `any`,
/// `incomplete`):
///
/// * `Mask` ([`Isa::Mask`]), the unsigned integer with a bit per byte of a
///   block;
/// * `load_at(bytes, at)`, the block at `bytes[at..]` with no bounds check
///   (`unsafe`: `at + N ≤ bytes.len()`);
/// * `store(dst, v)`, an unaligned store of `v` to `N` bytes at `dst`
///   (`unsafe`: `dst` valid for `N` bytes of writes);
/// * `non_ascii_mask(v)`, the bytes of `v` at 0x80 and above;
/// * `multi_byte_leads(v)`, its bytes C2..=F4, the leads of well-formed
///   multi-byte characters;
/// * `never_leads(v)`, its bytes C0, C1 and F5..=FF, which never occur in
///   UTF-8 and continue nothing;
/// * `with_spaces(v, mask)`, `v` with a space at each byte `mask` marks.
///
/// and the step of the stray loop (ASCII text with stray bytes), whose best
/// form differs by ISA:
///
/// * `STRAY_STEP`, the input bytes a step takes; `STRAY_STEP_READS` and
///   `STRAY_STEP_WRITES`, the bytes it may read from its start and write
///   from the output's end;
/// * `stray_step(o, bytes, at)`: if the `STRAY_STEP` bytes at `bytes[at..]`
///   are ASCII and at most two stray bytes, stores them at `o` with U+FFFD
///   for each stray and returns the count of output bytes; `None` (nothing
///   counted) if not (`unsafe`: `o` valid for `STRAY_STEP_WRITES` bytes of
///   writes, `N ≤ at` and `at + STRAY_STEP_READS ≤ bytes.len()`, and
///   `bytes[at..]` at a character boundary: a step follows at least a
///   block of the run, which it may read).
///
/// (Its `@impl` rule is the expansion, with `$V` and `$Mask` the ISA's
/// [`Isa`] types.)
///
/// [`validator!`]: super::validator!
/// [`Isa`]: super::Isa
/// [`Isa::Mask`]: super::Isa::Mask
macro_rules! lossy_decoder {
    ($isa:ident, $features:literal) => {
        $crate::x86::lossy::lossy_decoder! {
            @impl $isa,
            <$isa as $crate::x86::Isa>::V,
            <$isa as $crate::x86::Isa>::Mask,
            $features
        }
    };
    (@impl $isa:ident, $V:ty, $Mask:ty, $features:literal) => {
        impl $isa {
            /// Lossy decoding to UTF-8: appends `bytes` to `out` with each maximal
            /// subpart of an ill-formed sequence replaced by U+FFFD (Unicode §3.9), and
            /// nothing else changed. `bytes` must start at a character boundary (the
            /// start of the input, or a `valid_up_to`).
            ///
            /// The validator's loop, copying as it checks: a block that passes is
            /// stored to `out` whole (an ASCII block passes unless the block before
            /// left a character open). At the first byte a block flags, the scalar
            /// `locate` finds the maximal subpart from the character boundary before it
            /// — the bytes of an open character already copied are taken back — one
            /// U+FFFD goes out, and the next block is loaded right after the subpart,
            /// with an empty context: what precedes a subpart's end is closed. So an
            /// error costs a few scalar steps and one unaligned block, not a call.
            #[target_feature(enable = $features)]
            pub(crate) fn decode_lossy(bytes: &[u8], out: &mut Vec<u8>) {
                let len = bytes.len();
                let mut at = 0;
                // Where the last subpart ended: no character open before it.
                let mut floor = 0;
                let mut prev = $isa::zero();
                let mut prev_incomplete = false;
                // Invariant: `out` ends with the lossy output of `bytes[..at]`, read
                // as if every character open at `at` were complete; `bytes[floor..at]`
                // passed the check, so it is well-formed but for the open character.
                while at < len || prev_incomplete {
                    let (v, real) = match bytes.get(at..at + $isa::N) {
                        Some(block) => {
                            ($isa::load(block.try_into().expect("N bytes")), <$Mask>::MAX)
                        }
                        None => (
                            $isa::load_tail(&bytes[at..]),
                            ((1 as $Mask) << (len - at)) - 1,
                        ),
                    };
                    let non_ascii = $isa::non_ascii_mask(v);
                    if !prev_incomplete
                        && at + Self::BLOCK_WITH_STRAYS_READS <= len
                        && Self::is_stray_block(v, non_ascii)
                    {
                        at = Self::stray_run(bytes, at, v, non_ascii, out);
                        floor = at;
                        prev = $isa::zero();
                        continue;
                    }
                    let flagged = if at == len {
                        // The input ends in the character the last block left open.
                        len
                    } else if non_ascii == 0 {
                        if prev_incomplete {
                            // An ASCII byte cannot continue the open character.
                            at
                        } else {
                            let n = (len - at).min($isa::N);
                            Self::push_block(out, v, n);
                            prev = $isa::zero();
                            at += n;
                            continue;
                        }
                    } else if !prev_incomplete
                        && $crate::validate::is_lone(
                            bytes[at + non_ascii.trailing_zeros() as usize],
                        )
                    {
                        // Nothing open, ASCII up to a byte that can only be an error:
                        // the error is that byte, a maximal subpart of its own, found
                        // from the ASCII mask alone (its latency is a load and a mask,
                        // the full check's is a dozen dependent steps), and nothing
                        // needs locating. Mostly-ASCII text with stray bytes.
                        let ascii = non_ascii.trailing_zeros() as usize;
                        Self::push_block_and_replacement(out, v, ascii);
                        at += ascii + 1;
                        // Lone bytes right after it (a broken character's
                        // continuations): a byte test each, not a block load and a mask
                        // whose latency the next step's address waits for.
                        at += $crate::push_replacements(out, $crate::validate::lone_run(bytes, at));
                        floor = at;
                        prev = $isa::zero();
                        continue;
                    } else {
                        // The full check. A tail block is zero-padded: a character left
                        // open at the end meets a 0x00 and is flagged.
                        match $isa::first($isa::errors(v, prev)) {
                            Some(f) => {
                                if real == <$Mask>::MAX && at + Self::BLOCK_WITH_STRAYS_READS <= len
                                {
                                    // Stray bytes among text that is otherwise fine
                                    // (Latin, CJK … with 1 % bad bytes): bytes that can
                                    // never occur and continue nothing are each a 1-byte
                                    // subpart wherever they stand. With them read as
                                    // spaces, does the block pass? Then it is the
                                    // block with one U+FFFD each — one more check, where
                                    // each stray cost a trip through the error path
                                    // and a check of a reloaded block.
                                    let strays = $isa::never_leads(v);
                                    // Tried only when the first flag is right after
                                    // one of them (the pair a stray starts is what the
                                    // check flags): a near-certain yes in Latin text
                                    // with strays, a near-certain no where the first
                                    // error is a broken character (CJK text, mostly).
                                    // Measured (AVX-512), 1 % bad bytes: Latin 4 KiB ~40 %
                                    // faster; CJK 4 KiB ~6 % slower (trying every block
                                    // with strays: 8 %), CJK 1 MiB 5 % faster.
                                    let after_stray = f > 0 && strays >> (f - 1) & 1 == 1;
                                    if after_stray && strays.count_ones() <= 2 {
                                        let cleaned = $isa::with_spaces(v, strays);
                                        if !$isa::any($isa::errors(cleaned, prev)) {
                                            Self::push_block_with_strays(
                                                out,
                                                &bytes[at..],
                                                v,
                                                strays,
                                            );
                                            // Nothing is open before the last stray's end.
                                            floor = at + $isa::N - strays.leading_zeros() as usize;
                                            prev_incomplete = $isa::incomplete(cleaned);
                                            prev = cleaned;
                                            at += $isa::N;
                                            continue;
                                        }
                                    }
                                }
                                (at + f).min(len)
                            }
                            None => {
                                let n = (len - at).min($isa::N);
                                Self::push_block(out, v, n);
                                prev_incomplete = real == <$Mask>::MAX && $isa::incomplete(v);
                                prev = v;
                                at += n;
                                continue;
                            }
                        }
                    };
                    // The error: where its maximal subpart starts, and where the next
                    // character does (the end, for an incomplete sequence).
                    let e = $crate::x86::fail_after(bytes, floor, flagged);
                    let start = e.valid_up_to();
                    let next = e.error_len().map_or(len, |n| start + usize::from(n));
                    if start < at {
                        // An open character's first bytes went out with its block.
                        out.truncate(out.len() - (at - start));
                    } else {
                        // The block's well-formed bytes before the error (< N).
                        Self::push_block(out, v, start - at);
                    }
                    // One U+FFFD for the subpart, and one for each lone byte after it
                    // (a broken character leaves its continuation bytes behind).
                    out.extend_from_slice($crate::REPLACEMENT_UTF8);
                    at = next
                        + $crate::push_replacements(out, $crate::validate::lone_run(bytes, next));
                    floor = at;
                    prev = $isa::zero();
                    prev_incomplete = false;
                }
            }

            /// Input bytes [`store_block_with_strays`] reads from the block's
            /// start: the block, and `N` bytes from just after its second stray
            /// (byte `N` when there is none).
            ///
            /// [`store_block_with_strays`]: Self::store_block_with_strays
            const BLOCK_WITH_STRAYS_READS: usize = 2 * $isa::N + 1;

            /// Output bytes [`store_block_with_strays`] stores past the output's
            /// end: its last block store starts at most `N + 5` bytes in (a second
            /// stray at byte `N`, i.e. none: `N + 2 + 3`).
            ///
            /// [`store_block_with_strays`]: Self::store_block_with_strays
            const BLOCK_WITH_STRAYS_WRITES: usize = 2 * $isa::N + 5;

            /// Whether a block that follows no open character is all ASCII bytes and
            /// at most two bytes that are each a maximal subpart of their own: no lead
            /// of a well-formed sequence (C2..=F4) among its non-ASCII bytes, which
            /// are then continuation bytes, C0, C1 or F5..=FF at character boundaries.
            #[target_feature(enable = $features)]
            #[inline]
            fn is_stray_block(block: $V, non_ascii: $Mask) -> bool {
                $isa::multi_byte_leads(block) == 0 && non_ascii.count_ones() <= 2
            }

            /// Lossy decoding of a run of ASCII text with stray bytes, each
            /// replaced by U+FFFD, from a character boundary: first the block `v`
            /// at `bytes[at..]`, whose non-ASCII bytes are `strays` and which
            /// passes [`is_stray_block`], then the kernel's `stray_step`s, each
            /// `STRAY_STEP` bytes of ASCII with at most two strays. Returns
            /// where the run ends: at a step that does not pass, or where fewer
            /// than `STRAY_STEP_READS` bytes are left. `bytes` must hold
            /// [`BLOCK_WITH_STRAYS_READS`] from `at`.
            ///
            /// Why a loop of its own: the general loop decides each block by a branch
            /// on whether it holds a stray, and at 1 % of bytes about half the blocks
            /// do — at random, so on real text (or any input too long for the branch
            /// predictor to learn, as it does a 4 KiB benchmark input replayed) each
            /// stray cost a misprediction and a load whose address waited on the
            /// previous block's mask: about 40 cycles (AVX-512, 1 MiB, measured).
            /// A step has no data-dependent branch but its test.
            ///
            /// Why the first block apart: where a step is wider than a block
            /// (AVX2), text with a character or a third stray just past the block
            /// would fail the first step, and go back to the general loop having
            /// gained nothing (Latin text with 1 % stray bytes was 7 % slower so,
            /// measured).
            ///
            /// [`is_stray_block`]: Self::is_stray_block
            /// [`BLOCK_WITH_STRAYS_READS`]: Self::BLOCK_WITH_STRAYS_READS
            #[target_feature(enable = $features)]
            fn stray_run(
                bytes: &[u8],
                mut at: usize,
                v: $V,
                strays: $Mask,
                out: &mut Vec<u8>,
            ) -> usize {
                Self::push_block_with_strays(out, &bytes[at..], v, strays);
                at += $isa::N;
                let mut len = out.len();
                let mut capacity = out.capacity();
                let mut dst = out.as_mut_ptr();
                // The output's length and pointer stay in registers: through `out`, the
                // compiler reloads them after every store into the buffer.
                while at + $isa::STRAY_STEP_READS <= bytes.len() {
                    if capacity - len < $isa::STRAY_STEP_WRITES {
                        // SAFETY: `dst[..len]` is initialized: `out`'s bytes, then the
                        // counted output of earlier steps.
                        unsafe { out.set_len(len) };
                        out.reserve($isa::STRAY_STEP_WRITES);
                        capacity = out.capacity();
                        dst = out.as_mut_ptr();
                    }
                    // SAFETY: `capacity - len ≥ STRAY_STEP_WRITES`; the loop's
                    // condition is `at + STRAY_STEP_READS ≤ bytes.len()`, and the
                    // run's first block is before `at`, a character boundary
                    // after the strays and ASCII before it.
                    match unsafe { $isa::stray_step(dst.add(len), bytes, at) } {
                        Some(written) => len += written,
                        None => break,
                    }
                    at += $isa::STRAY_STEP;
                }
                // SAFETY: as above, the first `len` bytes are initialized.
                unsafe { out.set_len(len) };
                at
            }

            /// Stores the block `v` (= `bytes[at..at + N]`) at `o` with each of its
            /// at most two bytes marked in `strays` replaced by U+FFFD, and returns the
            /// count of output bytes, `N + 2·strays`: the block stored whole, then
            /// U+FFFD over its first stray and the input after that stray (reloaded
            /// from L1) three bytes on, and the same again for the second. No
            /// data-dependent branch: with no (second) stray the same stores land at
            /// offset `N`, past the counted output.
            ///
            /// # Safety
            /// `o` must be valid for [`BLOCK_WITH_STRAYS_WRITES`] bytes of writes,
            /// and `at + BLOCK_WITH_STRAYS_READS ≤ bytes.len()`.
            ///
            /// [`BLOCK_WITH_STRAYS_WRITES`]: Self::BLOCK_WITH_STRAYS_WRITES
            #[target_feature(enable = $features)]
            #[inline]
            unsafe fn store_block_with_strays(
                o: *mut u8,
                bytes: &[u8],
                at: usize,
                v: $V,
                strays: $Mask,
            ) -> usize {
                debug_assert!(strays.count_ones() <= 2);
                // `N` when there is no (second) stray.
                let first = strays.trailing_zeros() as usize;
                let second = (strays & strays.wrapping_sub(1)).trailing_zeros() as usize;
                // SAFETY (of each `from`): `i ≤ N + 1` (one past a stray, or `N + 1`
                // when there is none), so `at + i + N ≤ at + BLOCK_WITH_STRAYS_READS
                // ≤ bytes.len()` (the caller's contract).
                debug_assert!(first <= $isa::N && second <= $isa::N);
                let from = |i: usize| unsafe { $isa::load_at(bytes, at + i) };
                let (after_first, after_second) = (from(first + 1), from(second + 1));
                // SAFETY: every store below ends within BLOCK_WITH_STRAYS_WRITES
                // bytes of `o` (the caller's contract): the last starts at
                // `second + 5 ≤ N + 5` and is `N` bytes long. The first
                // `N + 2·strays` bytes are all written: `v` up to the first stray,
                // U+FFFD, the input after it up to the second stray (at output byte
                // `second + 2`), U+FFFD, the input after that.
                unsafe {
                    $isa::store(o, v);
                    o.add(first)
                        .cast::<u32>()
                        .write_unaligned($crate::x86::lossy::REPLACEMENT_AND_ONE);
                    $isa::store(o.add(first + 3), after_first);
                    o.add(second + 2)
                        .cast::<u32>()
                        .write_unaligned($crate::x86::lossy::REPLACEMENT_AND_ONE);
                    $isa::store(o.add(second + 5), after_second);
                }
                $isa::N + 2 * strays.count_ones() as usize
            }

            /// Appends the block `v` (= `bytes[..N]`) with each of its at most two
            /// `strays` replaced by U+FFFD ([`store_block_with_strays`]); out of line,
            /// so that the rare step's stores stay out of `decode_lossy`'s loop.
            ///
            /// [`store_block_with_strays`]: Self::store_block_with_strays
            #[target_feature(enable = $features)]
            #[inline(never)]
            fn push_block_with_strays(out: &mut Vec<u8>, bytes: &[u8], v: $V, strays: $Mask) {
                assert!(bytes.len() >= Self::BLOCK_WITH_STRAYS_READS);
                out.reserve(Self::BLOCK_WITH_STRAYS_WRITES);
                // SAFETY: `reserve` made room for BLOCK_WITH_STRAYS_WRITES bytes at
                // the end of `out`, and `bytes` holds BLOCK_WITH_STRAYS_READS; the
                // count returned is of bytes written there.
                unsafe {
                    let end = out.as_mut_ptr().add(out.len());
                    let n = Self::store_block_with_strays(end, bytes, 0, v, strays);
                    out.set_len(out.len() + n);
                }
            }

            /// Appends the first `n` bytes of `block` to `out` with one block store.
            #[target_feature(enable = $features)]
            #[inline]
            fn push_block(out: &mut Vec<u8>, block: $V, n: usize) {
                debug_assert!(n <= $isa::N);
                out.reserve($isa::N);
                // SAFETY: `reserve` made room for `N` bytes after `out.len()`; the store
                // writes `N` bytes there, and `set_len` counts only the first `n` ≤ `N`
                // (initialized, from `block`).
                unsafe {
                    $isa::store(out.as_mut_ptr().add(out.len()), block);
                    out.set_len(out.len() + n.min($isa::N));
                }
            }

            /// Appends the first `n` bytes of `block` and then U+FFFD to `out`, with
            /// one block store and one 4-byte store. ([`push_block`](Self::push_block) followed by
            /// `extend_from_slice` is the same output, but a second capacity check
            /// and a 3-byte copy per error: 8.0–10.0 GB/s against 10.0–10.2 on ASCII
            /// with 1 % stray bytes, AVX-512, measured.)
            #[target_feature(enable = $features)]
            #[inline]
            fn push_block_and_replacement(out: &mut Vec<u8>, block: $V, n: usize) {
                debug_assert!(n < $isa::N);
                out.reserve($isa::N + 4);
                // SAFETY: `reserve` made room for `N + 4` bytes after `out.len()`;
                // the stores write bytes `0..N` and `n..n + 4` ⊂ `0..N + 4` there, and
                // `set_len` counts only the first `n + 3` (written: `n` from `block`,
                // then U+FFFD).
                unsafe {
                    let end = out.as_mut_ptr().add(out.len());
                    $isa::store(end, block);
                    end.add(n)
                        .cast::<u32>()
                        .write_unaligned($crate::x86::lossy::REPLACEMENT_AND_ONE);
                    out.set_len(out.len() + n + 3);
                }
            }
        }

        // The callers size the output for the stores below (`push_block`'s `N`
        // bytes, `push_block_and_replacement`'s `N + 4`, a block with strays'
        // `2N + 5`, a stray step's) so that they never reallocate.
        const _: () = assert!(
            $isa::N + 4 <= $crate::LOSSY_STORE_SLACK
                && $isa::BLOCK_WITH_STRAYS_WRITES <= $crate::LOSSY_STORE_SLACK
                && $isa::STRAY_STEP_WRITES <= $crate::LOSSY_STORE_SLACK
        );
    };
}
pub(crate) use lossy_decoder;
