//! The AVX2 kernel (32-byte registers): SIMD validation; decoding by a
//! block loop of its own for long inputs ([`decode_fixed`]: 32 bytes of
//! 1- to 3-byte characters at a time, [`bmp32_at`]) and by
//! [`super::shuffle`]'s loop for short ones, with 16 bytes of any
//! characters at a time ([`bmp16`], [`window16`]); encoding 16 values at a
//! time ([`encode`]),
//! and one-pass lossy decoding to UTF-8 (`lossy_decoder!`, with a stray
//! step of its own: [`stray_step`]). The kernel's functions, the
//! operations the shared code calls and what it expands to are [`Avx2`]'s.
//!
//! [`decode_fixed`]: Avx2::decode_fixed
//! [`encode`]: Avx2::encode
//! [`bmp16`]: Avx2::bmp16
//! [`window16`]: Avx2::window16
//! [`stray_step`]: Avx2::stray_step

pub(crate) mod utf16;

use super::lossy::lossy_decoder;
use super::pack::{store16, COMPACT, COMPACT2, TAIL3, THREE};
use super::{fused_decoder, incomplete_max, lanes_at, tail_words, validator, Isa};
use crate::encode::EncodeFailure;
use crate::validate::is_lone;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Block width in bytes.
const N: usize = 32;
/// Per position, the largest byte that leaves no character open past the block.
const INCOMPLETE_MAX: [u8; N] = incomplete_max::<N>();
/// A register.
type V = __m256i;

/// The AVX2 kernel, as associated functions: the vector operations the
/// shared code ([`validator!`], [`fused_decoder!`], [`lossy_decoder!`]) is
/// written in, what those macros expand to (`Avx2::validate`,
/// `Avx2::decode`, `Avx2::decode_lossy`, …), and the kernel's own
/// (`Avx2::available`, `Avx2::decode_lossy_utf32`, `Avx2::encode`).
pub(crate) struct Avx2;

impl Isa for Avx2 {
    type V = V;
    type Mask = Mask;
}

impl Avx2 {
    /// Whether this CPU can run the kernel: AVX2, and what the decoder's step
    /// arithmetic uses (`popcnt` counts characters, BMI1's `tzcnt` finds the
    /// next start, BMI2's `shrx` shifts the masks); Intel's and AMD's CPUs
    /// with AVX2 have them all.
    pub(crate) fn available() -> bool {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
    }
}

/// The validator's operations (see [`Isa`]), on 32-byte registers.
impl Avx2 {
    /// Block width in bytes.
    const N: usize = N;

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(block: &[u8; N]) -> V {
        // SAFETY: `block` is 32 readable bytes, the width of the load; `loadu`
        // has no alignment requirement.
        unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_tail(tail: &[u8]) -> V {
        debug_assert!(tail.len() < N);
        // A whole 16-byte load for the first half if the tail fills it, the
        // rest from `tail_words`'s overlapping loads: zero-padded, as a load
        // of a padded copy would be, without the copy.
        let (low, rest) = match tail.split_first_chunk::<16>() {
            // SAFETY: `low` is 16 readable bytes, the width of the load;
            // `loadu` has no alignment requirement.
            Some((low, rest)) => (unsafe { _mm_loadu_si128(low.as_ptr().cast()) }, rest),
            None => (_mm_setzero_si128(), tail),
        };
        let [lo, hi] = tail_words(rest);
        let rest = _mm_set_epi64x(hi as i64, lo as i64);
        if tail.len() >= 16 {
            _mm256_set_m128i(rest, low)
        } else {
            _mm256_set_m128i(low, rest)
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn zero() -> V {
        _mm256_setzero_si256()
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn splat(byte: u8) -> V {
        _mm256_set1_epi8(byte as i8)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn is_ascii(v: V) -> bool {
        _mm256_movemask_epi8(v) == 0
    }

    /// The input shifted by 1, 2 and 3 bytes, the gap filled from `prev`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn prevs(input: V, prev: V) -> (V, V, V) {
        // [prev high lane, input low lane]: each 16-byte lane's left neighbour.
        let left = _mm256_permute2x128_si256::<0x21>(prev, input);
        (
            _mm256_alignr_epi8::<15>(input, left),
            _mm256_alignr_epi8::<14>(input, left),
            _mm256_alignr_epi8::<13>(input, left),
        )
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn high_nibbles(v: V) -> V {
        _mm256_and_si256(_mm256_srli_epi16::<4>(v), Self::splat(0x0F))
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn low_nibbles(v: V) -> V {
        _mm256_and_si256(v, Self::splat(0x0F))
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn lookup(table: &[u8; N], nibbles: V) -> V {
        _mm256_shuffle_epi8(Self::load(table), nibbles)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn and3(a: V, b: V, c: V) -> V {
        _mm256_and_si256(_mm256_and_si256(a, b), c)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn or(a: V, b: V) -> V {
        _mm256_or_si256(a, b)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn xor(a: V, b: V) -> V {
        _mm256_xor_si256(a, b)
    }

    /// 0x80 where the byte must be a 3rd or 4th byte. Saturating subtraction
    /// leaves bit 7 set exactly when 2 back ≥ 0xE0 (0xE0 − 0x60 = 0x80) or 3
    /// back ≥ 0xF0 (0xF0 − 0x70 = 0x80).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn must23(prev2: V, prev3: V) -> V {
        let third = _mm256_subs_epu8(prev2, Self::splat(0x60));
        let fourth = _mm256_subs_epu8(prev3, Self::splat(0x70));
        _mm256_and_si256(_mm256_or_si256(third, fourth), Self::splat(0x80))
    }

    /// The index of the first non-zero byte, if any.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn first(v: V) -> Option<usize> {
        let clear = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())) as u32;
        (clear != u32::MAX).then(|| (!clear).trailing_zeros() as usize)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn any(v: V) -> bool {
        _mm256_testz_si256(v, v) == 0
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn incomplete(v: V) -> bool {
        Self::any(_mm256_subs_epu8(v, Self::load(&INCOMPLETE_MAX)))
    }
}

validator!(Avx2, "avx2");
fused_decoder!(
    Avx2,
    "avx2,bmi1,bmi2,popcnt",
    decode_fused,
    decode_valid_fused
);

// ---- strict decoding to UTF-32 -------------------------------------------

impl Avx2 {
    /// Appends the code points of the longest well-formed prefix of `bytes`
    /// to `out`; the verdict is `validate`'s.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(crate) fn decode(bytes: &[u8], out: &mut Vec<u32>) -> crate::Verdict {
        if bytes.len() < 64 + Self::AHEAD {
            // Too short for a block and its lookahead: the shared loop.
            return Self::decode_fused(bytes, out);
        }
        Self::decode_long(bytes, out)
    }

    /// [`decode`](Avx2::decode) of an input of a block and its lookahead
    /// or more. Not inlined, so that the loop's code (its registers and
    /// layout) does not depend on what else `decode` holds: with the shared
    /// loop inlined beside it, the group loop ran measurably slower.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline(never)]
    fn decode_long(bytes: &[u8], out: &mut Vec<u32>) -> crate::Verdict {
        let at = Self::decode_fixed::<true>(bytes, out);
        let rest = &bytes[at..];
        if rest.is_empty() || Self::ascii_end(bytes, at, out) {
            // An ASCII run to the end, or ASCII after `at` (checked by
            // itself).
            return crate::Verdict::WELL_FORMED;
        }
        let verdict = Self::validate(rest);
        if verdict.is_ok() {
            // SAFETY: `verdict` is this kernel's validation of `rest`.
            let rest = unsafe { core::str::from_utf8_unchecked(rest) };
            let last = bytes.last_chunk::<64>().expect("80 bytes or more");
            Self::decode_end(rest, last, out);
            return verdict;
        }
        let result = verdict.unpack();
        // SAFETY: `result` is this kernel's validation of `rest`.
        Self::decode_valid(unsafe { crate::valid_prefix(rest, result) }, out);
        crate::Verdict::pack(result.map_err(|e| e.shifted(at)))
    }

    /// Decodes well-formed text.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(crate) fn decode_valid(text: &str, out: &mut Vec<u32>) {
        if text.len() < 64 + Self::AHEAD {
            return Self::decode_valid_fused(text, out);
        }
        Self::decode_valid_long(text, out);
    }

    /// [`decode_valid`](Avx2::decode_valid) of a block and its lookahead
    /// or more (not inlined, as [`decode_long`](Avx2::decode_long)).
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline(never)]
    fn decode_valid_long(text: &str, out: &mut Vec<u32>) {
        let at = Self::decode_fixed::<false>(text.as_bytes(), out);
        if at == text.len() || Self::ascii_end(text.as_bytes(), at, out) {
            return;
        }
        // `at` is a character boundary.
        let last = text
            .as_bytes()
            .last_chunk::<64>()
            .expect("80 bytes or more");
        Self::decode_end(&text[at..], last, out);
    }

    /// The end of an input that [`decode_fixed`](Avx2::decode_fixed)
    /// stopped at `at` (a character boundary, everything before it
    /// decoded), when the input's last 64 bytes hold all the bytes from
    /// `at` on and are ASCII: they are widened whole, their first lanes
    /// over the same code points already in `out` (those bytes are ASCII
    /// too, a lane each). One block's work, where a check of the few bytes
    /// a run of ASCII leaves and a tail cost several times as much (the
    /// common end of English text with a character or two: each moves the
    /// run off the input's 64-byte grid). Returns whether it did.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    fn ascii_end(bytes: &[u8], at: usize, out: &mut Vec<u32>) -> bool {
        let rest = bytes.len() - at;
        let Some(last) = bytes.last_chunk::<64>() else {
            return false;
        };
        if rest > 64 || Self::masks(last).0 != 0 {
            return false;
        }
        // The lanes of `last`'s first `64 - rest` bytes are the last in
        // `out`, from this call: written again.
        out.truncate(out.len() - (64 - rest));
        out.reserve(64);
        let lanes: &mut [MaybeUninit<u32>; 64] = (&mut out.spare_capacity_mut()[..64])
            .try_into()
            .expect("64 lanes");
        Self::widen64(last, lanes);
        // SAFETY: the 64 lanes after `out`'s were written, within its
        // spare capacity.
        unsafe { out.set_len(out.len() + 64) };
        true
    }

    /// The end of an input of a block and its lookahead or more, `text`:
    /// what [`decode_fixed`](Avx2::decode_fixed) leaves (less than a block
    /// and its lookahead, and the up to 3 bytes of a character it gave
    /// back: 1 to 82 bytes), the input's last 64 bytes being `last`.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    fn decode_end(mut text: &str, last: &[u8; 64], out: &mut Vec<u32>) {
        debug_assert!(!text.is_empty() && text.len() < 64 + Self::AHEAD + 3);
        if let Some(head) = text.as_bytes().first_chunk::<64>() {
            if text.len() > 64 {
                let mut cut = 64;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                Self::decode_span(head, 0, cut, out);
                text = &text[cut..];
            }
        }
        Self::decode_span(last, 64 - text.len(), 64, out);
    }

    /// Stores the twenty 3-byte characters that are `window[phase..phase +
    /// 60]`: eight, eight and four, two 32-byte stores and a 16-byte one,
    /// fixed shuffles, no table.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn twenty_threes(
        window: &[u8; 64 + Self::AHEAD],
        phase: usize,
        lanes: &mut [MaybeUninit<u32>; 20],
    ) {
        debug_assert!(phase <= 3);
        let from = window[phase..phase + 64].try_into().expect("64 bytes");
        Self::twenty_threes_at(from, lanes);
    }

    /// [`twenty_threes`](Avx2::twenty_threes) of the characters that are
    /// `from[..60]` (the loads read all 64 bytes).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn twenty_threes_at(from: &[u8; 64], lanes: &mut [MaybeUninit<u32>; 20]) {
        for k in 0..2 {
            let from = &from[24 * k..24 * k + 28];
            let lanes: &mut [MaybeUninit<u32>; 8] =
                (&mut lanes[8 * k..8 * k + 8]).try_into().expect("8 lanes");
            // SAFETY: `from` is 28 readable bytes.
            unsafe { eight_threes_at(from.as_ptr(), lanes) };
        }
        let last: &[u8; 16] = from[48..64].try_into().expect("16 bytes");
        // SAFETY: `last` is 16 readable bytes, the load's width.
        let last = unsafe { _mm_loadu_si128(last.as_ptr().cast()) };
        super::shuffle::threes(last, &mut lanes[16..20]);
    }

    /// Whether a block that starts at a character boundary and whose start
    /// mask is [`TWENTY_THREES`](super::shuffle::TWENTY_THREES) begins with
    /// twenty well-formed 3-byte characters; `three` is its mask of
    /// 0xE0..=0xEF. The start mask says the bytes between the starts are
    /// continuations; RFC 3629 §4's UTF8-3 then asks that each start be
    /// 0xE0..=0xEF, that 0xE0 be followed by 0xA0..=0xBF (no overlong
    /// form) and 0xED by 0x80..=0x9F (no surrogate).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn twenty_threes_well_formed(block: &[u8; 64], three: u64) -> bool {
        Self::threes_well_formed(
            block,
            three,
            super::shuffle::TWENTY_THREES & ((1 << 60) - 1),
        )
    }

    /// The code points of `before` 3-byte characters at `window[phase..]`
    /// (at most twenty), the ASCII byte after them, and twenty 3-byte
    /// characters at `after` (the bytes after that one), in `lanes`: the
    /// lanes past the characters each run takes hold garbage, which the
    /// caller's next stores overwrite.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn threes_around(
        window: &[u8; 64 + Self::AHEAD],
        phase: usize,
        before: usize,
        after: &[u8; 64],
        lanes: &mut [MaybeUninit<u32>; 41],
    ) {
        debug_assert!(before <= 20);
        Self::twenty_threes(
            window,
            phase,
            (&mut lanes[..20]).try_into().expect("20 lanes"),
        );
        lanes[before].write(u32::from(window[phase + 3 * before]));
        let rest = &mut lanes[before + 1..before + 21];
        Self::twenty_threes_at(after, rest.try_into().expect("20 lanes"));
    }

    /// [`twenty_threes_well_formed`](Avx2::twenty_threes_well_formed) of
    /// the 3-byte characters whose leads are `leads` (each before byte 62,
    /// its continuations in the block, as the start mask said).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn threes_well_formed(block: &[u8; 64], three: u64, leads: u64) -> bool {
        debug_assert!(leads >> 62 == 0);
        let (low, high) = block.split_at(N);
        let (low, high) = (
            Self::load(low.try_into().expect("N bytes")),
            Self::load(high.try_into().expect("N bytes")),
        );
        let bits = |v: V| _mm256_movemask_epi8(v) as u32 as u64;
        let both = |f: &dyn Fn(V) -> V| bits(f(low)) | bits(f(high)) << 32;
        let e0 = both(&|v| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xE0u8 as i8)));
        let ed = both(&|v| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xEDu8 as i8)));
        // 0x80..=0x9F: as signed bytes, below −96.
        let below_a0 = both(&|v| _mm256_cmpgt_epi8(_mm256_set1_epi8(-96), v));
        three & leads == leads
            && ((e0 & leads) << 1) & below_a0 == 0
            && ((ed & leads) << 1) & !below_a0 == 0
    }

    /// Bytes past a block the loop reads.
    const AHEAD: usize = 16;

    /// The decoding loop: 64-byte blocks at fixed places (each read with the
    /// [`AHEAD`](Avx2::AHEAD) bytes after it), checked when `CHECK`, each
    /// decoded by the characters that start in it. Returns how far it got:
    /// a character boundary before the first block that failed its check
    /// or the last that had no lookahead left, with the code points of the
    /// bytes before it appended to `out`.
    ///
    /// A block is one of:
    /// - ASCII: the run it begins goes to the kernel's `ascii_run` (out of
    ///   line, [`super::shuffle::ascii_run!`]), which widens it 64 bytes a
    ///   step and goes on through blocks that hold one character among
    ///   ASCII, until a block that holds more;
    /// - twenty 3-byte characters (CJK text), from a character boundary or
    ///   after the continuations of the character the block before took:
    ///   fixed shuffles, and the next block starts after them, so that CJK
    ///   text keeps to this path;
    /// - 3-byte characters on both sides of one ASCII byte (CJK text with a
    ///   space): the two runs of the same shuffles ([`threes_around`]),
    ///   and the next block starts after the last character that ends in
    ///   this one;
    /// - otherwise groups, each taking the characters that start in it
    ///   (reading up to 3 bytes past it): without 4-byte characters, two
    ///   of 32 bytes ([`bmp32_at`], the same work whatever the mix of
    ///   lengths); with them, four 16-byte windows ([`window16_at`]). The
    ///   groups' positions do not depend on how many bytes the one before
    ///   took, so the block's work has no chain through them; a character
    ///   the last group takes may end in the next block, which begins
    ///   after it.
    ///
    /// [`threes_around`]: Avx2::threes_around
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    fn decode_fixed<const CHECK: bool>(bytes: &[u8], out: &mut Vec<u32>) -> usize {
        let len = bytes.len();
        out.reserve(len);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..len];
        // Every lane counted in `written` is a character that starts before
        // `at`, so `written <= at`: the bound the steps' stores below are
        // proved in (with `at + 64 + AHEAD <= len` for a step's window).
        let (mut at, mut written) = (0, 0);
        // Whether `at` is known to be a character boundary after complete
        // characters (not only the end of a block of groups, which may cut
        // one the block decoded).
        let mut boundary = true;
        while let Some(window) = bytes.get(at..at + 64 + Self::AHEAD) {
            let window: &[u8; 64 + Self::AHEAD] = window.try_into().expect("a block and more");
            let block: &[u8; 64] = window[..64].try_into().expect("64 bytes");
            let (non_ascii, starts, four) = Self::masks(block);
            if non_ascii == 0 {
                if CHECK && at > 0 {
                    let before: &[u8; N] = bytes[at - N..at].try_into().expect("N bytes");
                    if Self::incomplete(Self::load(before)) {
                        break;
                    }
                }
                // The run, and the blocks in it that hold one character
                // among ASCII, out of line.
                (at, written, _) = Self::ascii_run(bytes, at, dst, written);
                boundary = true;
                continue;
            }
            // Twenty 3-byte characters in a row (CJK text) from a boundary:
            // their leads, the continuations after them and the two
            // narrowed second-byte ranges are the whole check.
            const RUN: u64 = (1 << 61) - 1;
            if boundary {
                if starts & RUN == super::shuffle::TWENTY_THREES
                    && (!CHECK
                        || Self::twenty_threes_well_formed(block, Self::three_byte_leads(block)))
                {
                    // SAFETY: `written + 20 <= at + 20 <= len`.
                    Self::twenty_threes(window, 0, unsafe { lanes_at::<_, 20>(dst, written) });
                    at += 60;
                    written += 20;
                    continue;
                }
                // The same around one ASCII byte (CJK text with a space)
                // at 3 to 60 on the characters' grid: the characters
                // before it, the byte, and the characters after it, which
                // end at 64. The same 64 bytes and 22 characters wherever
                // the byte is, so the loop's next address does not wait on
                // the block's bytes. Fixed shuffles; each run's stores past
                // its characters are overwritten by the next's, and the
                // second run reads past the lookahead.
                let ascii = !non_ascii;
                let t = ascii.trailing_zeros() as usize;
                let threes = super::shuffle::EVERY_THIRD;
                let expected = threes & ascii.wrapping_sub(1)
                    | ascii
                    | threes.checked_shl(t as u32).unwrap_or(0) << 1;
                if ascii & ascii.wrapping_sub(1) == 0
                    && (3..=60).contains(&t)
                    && t.is_multiple_of(3)
                    && starts == expected
                    && (!CHECK
                        || Self::threes_well_formed(
                            block,
                            Self::three_byte_leads(block),
                            expected & non_ascii & ((1 << 62) - 1),
                        ))
                {
                    if let Some(after) = bytes.get(at + t + 1..at + t + 65) {
                        let after = after.try_into().expect("64 bytes");
                        // SAFETY: `written + 41 <= at + 41 <= len`.
                        let lanes = unsafe { lanes_at::<_, 41>(dst, written) };
                        Self::threes_around(window, 0, t / 3, after, lanes);
                        at += 64;
                        written += 22;
                        continue;
                    }
                }
            }
            if CHECK {
                let (low, high) = block.split_at(N);
                let low = Self::load(low.try_into().expect("N bytes"));
                let high_errors = Self::errors_in_place(
                    window[N - 3..2 * N].try_into().expect("3 + N bytes"),
                    Self::load(high.try_into().expect("N bytes")),
                );
                let low_errors = if at >= 3 {
                    Self::errors_in_place(
                        bytes[at - 3..at + N].try_into().expect("3 + N bytes"),
                        low,
                    )
                } else if at == 0 {
                    Self::errors(low, Self::zero())
                } else {
                    // A byte or two in, where the ASCII run's first,
                    // aligning step ended (the output's place decides
                    // how far): the bytes before the input count as
                    // zeros, as for the first block.
                    let mut window = [0; 3 + N];
                    window[3 - at..].copy_from_slice(&bytes[..at + N]);
                    Self::errors_in_place(&window, low)
                };
                if Self::any(Self::or(low_errors, high_errors)) {
                    break;
                }
            }
            // The same after the first start, the continuations of a
            // character the block before decoded (checked above), so that
            // CJK text comes back to a boundary.
            let phase = starts.trailing_zeros() as usize;
            if phase <= 3 && (starts >> phase) & RUN == super::shuffle::TWENTY_THREES {
                // SAFETY: `written + 20 <= at + 20 <= len`.
                Self::twenty_threes(window, phase, unsafe { lanes_at::<_, 20>(dst, written) });
                at += phase + 60;
                written += 20;
                boundary = true;
                continue;
            }
            // The same around one ASCII byte, checked above: the 3-byte
            // characters before it, the byte, and those after it that end
            // in the block (at most twenty). With no 4-byte lead in the
            // block, the check has seen all of the last one (a 4-byte lead
            // on the grid would end in the next block).
            let ascii = !non_ascii;
            if phase <= 3 && four == 0 && ascii != 0 && ascii & (ascii - 1) == 0 {
                let s = ascii.trailing_zeros() as usize;
                let threes = super::shuffle::EVERY_THIRD;
                let pattern = (threes << phase) & (ascii - 1) | ascii | (threes << s) << 1;
                if starts == pattern && s - phase <= 60 && (s - phase).is_multiple_of(3) {
                    if let Some(after) = bytes.get(at + s + 1..at + s + 65) {
                        let after = after.try_into().expect("64 bytes");
                        let (before, later) = ((s - phase) / 3, ((63 - s) / 3).min(20));
                        // SAFETY: `written + 41 <= at + 41 <= len`.
                        let lanes = unsafe { lanes_at::<_, 41>(dst, written) };
                        Self::threes_around(window, phase, before, after, lanes);
                        at += s + 1 + 3 * later;
                        written += before + 1 + later;
                        boundary = true;
                        continue;
                    }
                }
            }
            boundary = false;
            if four == 0 {
                // 1- to 3-byte characters, 32 bytes at a time, with no
                // branch on which of them start what (`bmp32_at`).
                for pos in [0, 32] {
                    // SAFETY: the characters before `pos` start before it,
                    // so `written + 32 <= at + pos + 32 <= at + 64 <= len`.
                    let lanes = unsafe { lanes_at::<_, 32>(dst, written) };
                    let from = window[pos..pos + 34].try_into().expect("34 bytes");
                    written += bmp32_at(from, (starts >> pos) as u32, lanes);
                }
            } else {
                for pos in [0, 16, 32, 48] {
                    // SAFETY: as above, `written + 16 <= at + pos + 16 <=
                    // len`.
                    let lanes = unsafe { lanes_at::<_, 16>(dst, written) };
                    let from = window[pos..pos + 19].as_ptr();
                    // SAFETY: `from` is 19 readable bytes.
                    written += unsafe { window16_at(from, (starts >> pos) as u16, lanes) };
                }
            }
            at += 64;
        }
        if let Some(lead) = open_lead(bytes, at) {
            at = lead;
            written -= 1;
        }
        // SAFETY: the first `written` lanes of the spare capacity hold the
        // code points of `bytes[..at]`.
        unsafe { out.set_len(base + written) };
        at
    }
}

/// One load instruction, `$instr` with its operands `{v}` (a YMM
/// register) and `{p}` (the address), as inline assembly.
///
/// The loads of the decoding loop's windows are written as instructions
/// the compiler cannot see into: as plain loads, at fixed offsets inside a
/// block that was already loaded whole, the compiler rebuilt them from that
/// block's registers by shifts in general registers.
macro_rules! load_asm {
    ($instr:literal, $p:expr) => {{
        let v: V;
        // SAFETY: the caller's contract: the bytes the instruction reads
        // at `$p` are readable; it has no alignment requirement and
        // touches nothing else.
        unsafe {
            core::arch::asm!(
                $instr,
                p = in(reg) $p,
                v = out(ymm_reg) v,
                options(pure, readonly, nostack, preserves_flags)
            )
        };
        v
    }};
}

/// `vbroadcasti128`: the 16 bytes at `p` in both halves ([`load_asm!`]).
///
/// # Safety
/// `p` must be valid for 16 bytes of reads.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn broadcast_at(p: *const u8) -> V {
    load_asm!("vbroadcasti128 {v}, xmmword ptr [{p}]", p)
}

/// The code points of the characters that start in the first 32 of
/// `bytes`, all of 1 to 3 bytes (`starts` says where; the 2 bytes after
/// hold the continuations of those that start near the end), as 16-bit
/// words: those of positions 0–7, 8–15, 16–23 and 24–31, each 8 packed to
/// the front of its register (garbage after them), with how many
/// characters start there. The same work whatever the mix of lengths: no
/// branch on the bytes.
///
/// Every byte gets the low and the high byte of the code point it would
/// start (all three lengths are in the BMP), computed on 32 bytes at once
/// (RFC 3629 §3: 7 payload bits of ASCII; 5 of a 2-byte lead, 4 of a
/// 3-byte one, 6 of each continuation). Kept as bytes, the three inputs
/// are plain loads and the arithmetic runs on any vector port, where
/// [`bmp16`](Avx2::bmp16) widens its inputs to words first, in the shuffle
/// unit that its packing and stores need too. Interleaving the two bytes
/// gives each 128-bit lane 8 words of consecutive positions, which
/// [`WORDS`](super::shuffle::WORDS) controls pack.
///
/// No branch asks which bytes start what: in real text that changes from
/// one 16 bytes to the next, and a choice per 16 bytes between this and
/// cheaper fixed shuffles (all ASCII, all 3-byte characters) cost more in
/// mispredicted branches than it saved.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(super) fn bmp32_words(bytes: &[u8; 34], starts: u32) -> [(__m128i, usize); 4] {
    let (low, high) = bmp32_bytes(bytes);
    pack32_words(low, high, starts)
}

/// [`bmp32_words`] in lossy decoding: the starts `bad` marks (the first
/// bytes of maximal subparts, whatever their bytes) are one U+FFFD each.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(super) fn bmp32_words_marked(bytes: &[u8; 34], starts: u32, bad: u32) -> [(__m128i, usize); 4] {
    let (low, high) = bmp32_bytes(bytes);
    let marked = byte_mask(bad);
    let [fd, ff] = [0xFDu8, 0xFF].map(|b| _mm256_set1_epi8(b as i8));
    pack32_words(
        _mm256_blendv_epi8(low, fd, marked),
        _mm256_blendv_epi8(high, ff, marked),
        starts,
    )
}

/// The bits of `mask` as bytes: byte `i` all ones if bit `i` is set, else
/// zero.
#[target_feature(enable = "avx2")]
#[inline]
fn byte_mask(mask: u32) -> V {
    // Byte i takes byte i / 8 of the mask (each 16-byte lane of the
    // broadcast holds all four, within the shuffle's reach), then tests
    // its own bit.
    let spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(mask as i32),
        _mm256_setr_epi64x(
            0,
            0x0101_0101_0101_0101,
            0x0202_0202_0202_0202,
            0x0303_0303_0303_0303,
        ),
    );
    let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit)
}

/// The low and the high byte of the code point each of the first 32 of
/// `bytes` would start, were it a lead of a character of 1 to 3 bytes
/// ([`bmp32_words`]).
#[target_feature(enable = "avx2")]
#[inline]
fn bmp32_bytes(bytes: &[u8; 34]) -> (V, V) {
    // SAFETY: `bytes[k..k + 32]` is 32 readable bytes (k ≤ 2).
    let [b0, b1, b2] = [0, 1, 2].map(|k| unsafe { _mm256_loadu_si256(bytes[k..].as_ptr().cast()) });
    let byte = |b: u8| _mm256_set1_epi8(b as i8);
    // Byte-wise shifts as 16-bit shifts: a shift by `s` < 8 moves each
    // byte's own bits, and the mask after it drops what came from the
    // byte beside it.
    let low6 = |v: V| _mm256_and_si256(_mm256_slli_epi16::<6>(v), byte(0xC0));
    // A 3-byte character's low byte is a 2-byte one's a byte on. (As
    // signed bytes, ASCII compares above 0xDF too: it takes `b0` below.)
    let three = _mm256_cmpgt_epi8(b0, byte(0xDF));
    let (x, y) = (
        _mm256_blendv_epi8(b0, b1, three),
        _mm256_blendv_epi8(b1, b2, three),
    );
    let non_ascii = _mm256_cmpgt_epi8(byte(0), b0);
    let low = _mm256_blendv_epi8(
        b0,
        _mm256_or_si256(low6(x), _mm256_and_si256(y, byte(0x3F))),
        non_ascii,
    );
    let high2 = _mm256_and_si256(_mm256_srli_epi16::<2>(b0), byte(0x07));
    let high3 = _mm256_or_si256(
        _mm256_and_si256(_mm256_slli_epi16::<4>(b0), byte(0xF0)),
        _mm256_and_si256(_mm256_srli_epi16::<2>(b1), byte(0x0F)),
    );
    let high = _mm256_and_si256(_mm256_blendv_epi8(high2, high3, three), non_ascii);
    (low, high)
}

/// The 16-bit words whose low and high bytes `low` and `high` hold, per
/// position, at the positions `starts` marks: as [`bmp32_words`] returns
/// them.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn pack32_words(low: V, high: V, starts: u32) -> [(__m128i, usize); 4] {
    use super::shuffle::WORDS;
    // Positions 0–7 and 16–23, then 8–15 and 24–31, as words.
    let (even, odd) = (
        _mm256_unpacklo_epi8(low, high),
        _mm256_unpackhi_epi8(low, high),
    );
    let mask = |k: u32| usize::from((starts >> (8 * k)) as u8);
    // SAFETY: the controls are 16-byte statics.
    let control = |lo: usize, hi: usize| unsafe {
        _mm256_loadu2_m128i(
            WORDS[hi].shuffle.as_ptr().cast(),
            WORDS[lo].shuffle.as_ptr().cast(),
        )
    };
    let even = _mm256_shuffle_epi8(even, control(mask(0), mask(2)));
    let odd = _mm256_shuffle_epi8(odd, control(mask(1), mask(3)));
    let count = |k: u32| mask(k).count_ones() as usize;
    [
        (_mm256_castsi256_si128(even), count(0)),
        (_mm256_castsi256_si128(odd), count(1)),
        (_mm256_extracti128_si256::<1>(even), count(2)),
        (_mm256_extracti128_si256::<1>(odd), count(3)),
    ]
}

/// Decodes the characters that start in the first 32 of `bytes` as
/// [`bmp32_words`] does, and stores their code points to `lanes` (and
/// garbage up to 32 lanes: the caller leaves room); returns how many
/// characters that is.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn bmp32_at(bytes: &[u8; 34], starts: u32, lanes: &mut [MaybeUninit<u32>; 32]) -> usize {
    let mut written = 0;
    for (words, count) in bmp32_words(bytes, starts) {
        let to: &mut [MaybeUninit<u32>; 8] = (&mut lanes[written..written + 8])
            .try_into()
            .expect("8 lanes");
        // SAFETY: `to` is 8 writable lanes, 32 bytes, the store's width.
        unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), _mm256_cvtepu16_epi32(words)) };
        written += count;
    }
    written
}

/// Stores the eight 3-byte characters that are the 24 bytes at `p` as
/// code points: 12 bytes in each half of a register, one fixed shuffle,
/// no table (RFC 3629 §3: 4 payload bits of the lead, 6 of each
/// continuation).
///
/// # Safety
/// `p` must be valid for 28 bytes of reads (each half loads 16).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn eight_threes_at(p: *const u8, lanes: &mut [MaybeUninit<u32>; 8]) {
    // SAFETY: `p[0..28]` is readable.
    let window = unsafe { _mm256_loadu2_m128i(p.add(12).cast(), p.cast()) };
    // Per lane, the character's last byte lowest, its lead third, then 0.
    let control = _mm256_setr_epi8(
        2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1, 2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6,
        -1, 11, 10, 9, -1,
    );
    let bits = _mm256_and_si256(
        _mm256_shuffle_epi8(window, control),
        _mm256_set1_epi32(0x000F_3F3F),
    );
    let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
    let values = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
    // SAFETY: `lanes` is 8 writable lanes, the store's width.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), values) };
}

/// Per 8-bit mask, the `vpermd` control that packs the 32-bit lanes of the
/// mask's set bits to the front ([`PACK32`] widened to lanes).
static PACK_LANES: [Lanes; 256] = {
    let mut out = [Lanes([0; 8]); 256];
    let mut mask = 0;
    while mask < 256 {
        let bits = super::set_bits(mask);
        let mut i = 0;
        while i < 8 {
            out[mask].0[i] = bits[i] as u32;
            i += 1;
        }
        mask += 1;
    }
    out
};

/// A register's worth of 32-bit lanes, aligned for one load.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Lanes([u32; 8]);

/// The 4-byte windows' gathers ([`window16_at`], [`window16_in`]): per
/// lane `j`, bytes `j + 3, j + 2, j + 1, j` (the lead on top) of the 16
/// bytes in both halves of a register, from byte `base`: lanes 0–7 from
/// base 0 (the first control), lanes 8–15 from base 3 (the second).
const WINDOW_GATHER: [[u8; 32]; 2] = {
    const fn gather(base: usize) -> [u8; 32] {
        let mut out = [0; 32];
        let mut i = 0;
        while i < 32 {
            let lane = i / 4 + if base == 0 { 0 } else { 8 };
            out[i] = (lane + 3 - i % 4 - base) as u8;
            i += 1;
        }
        out
    }
    [gather(0), gather(3)]
};

/// [`window16`](Avx2::window16) on the 16 bytes at `p` (and the 3 after
/// them).
///
/// # Safety
/// `p` must be valid for 19 bytes of reads.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn window16_at(p: *const u8, starts: u16, lanes: &mut [MaybeUninit<u32>; 16]) -> usize {
    // Looked up by a lane's index (the lead's high nibble in the top byte,
    // 8, a continuation's, in the others): the lead's payload mask and 0x3F
    // below it; and 8 times the shift that drops the bytes it does not have,
    // in the top byte (a multiple of 8, so that the shift that takes it out
    // leaves a count the compiler knows is below 32).
    const LEAD_MASKS: [u8; 32] = super::repeat::<32>(super::PAYLOAD);
    const SHIFTS: [u8; 32] = {
        let mut t = [0; 16];
        let mut n = 0;
        while n < 16 {
            t[n] = super::LENGTH_SHIFT[n] * 8;
            n += 1;
        }
        super::repeat::<32>(t)
    };
    let table = |t: &[u8; 32]| Avx2::load(t);
    let mut written = 0;
    for (half, gather) in WINDOW_GATHER.iter().enumerate() {
        // SAFETY: `p[3·half..3·half + 16]` is readable (`half` ≤ 1).
        let window = unsafe { broadcast_at(p.add(3 * half)) };
        let x = _mm256_shuffle_epi8(window, table(gather));
        let index = _mm256_or_si256(
            _mm256_and_si256(_mm256_srli_epi32::<4>(x), _mm256_set1_epi32(0x0F00_0000)),
            _mm256_set1_epi32(0x0008_0808),
        );
        let bits = _mm256_and_si256(x, _mm256_shuffle_epi8(table(&LEAD_MASKS), index));
        let shift = _mm256_srli_epi32::<27>(_mm256_shuffle_epi8(table(&SHIFTS), index));
        // b3 + 64·b2 and b1 + 64·b0, then the pairs + 4096·…
        let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
        let joined = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
        let values = _mm256_srlv_epi32(joined, shift);
        let mask = usize::from((starts >> (8 * half)) as u8);
        // SAFETY: a `Lanes` is 32 aligned bytes.
        let control = unsafe { _mm256_load_si256(PACK_LANES[mask].0.as_ptr().cast()) };
        let out: &mut [MaybeUninit<u32>; 8] = (&mut lanes[written..written + 8])
            .try_into()
            .expect("8 lanes");
        // SAFETY: `out` is 8 writable lanes, 32 bytes, the store's width.
        unsafe {
            _mm256_storeu_si256(
                out.as_mut_ptr().cast(),
                _mm256_permutevar8x32_epi32(values, control),
            )
        };
        written += mask.count_ones() as usize;
    }
    written
}

/// The lead of a character that starts before `at` and ends after it, if
/// any.
#[inline]
pub(super) fn open_lead(bytes: &[u8], at: usize) -> Option<usize> {
    open_char(bytes, at).map(|(lead, _)| lead)
}

/// [`open_lead`], and how many bytes from `at` on that character still
/// needs (by its lead's length: a byte from 0xF0 on counts as a 4-byte
/// lead, from 0xC0 on as a 2-byte one).
#[inline]
pub(super) fn open_char(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    for k in 1..=at.min(3) {
        let byte = bytes[at - k];
        if byte < 0x80 {
            return None;
        }
        if byte >= 0xC0 {
            let length = if byte >= 0xF0 {
                4
            } else if byte >= 0xE0 {
                3
            } else {
                2
            };
            return (length > k).then_some((at - k, length - k));
        }
    }
    None
}

// ---- lossy decoding to UTF-8 ([`lossy_decoder!`]) ------------------------

/// A bit per byte of a block.
type Mask = u32;

/// [`lossy_decoder!`]'s operations.
impl Avx2 {
    /// The block at `bytes[at..]`, with no bounds check.
    ///
    /// # Safety
    /// `at + N ≤ bytes.len()`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load_at(bytes: &[u8], at: usize) -> V {
        debug_assert!(at + N <= bytes.len());
        // SAFETY: `bytes[at..at + N]` is in bounds (the caller's contract), so
        // it is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().add(at).cast()) }
    }

    /// Stores `v` at `dst`, unaligned.
    ///
    /// # Safety
    /// `dst` must be valid for `N` bytes of writes.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store(dst: *mut u8, v: V) {
        // SAFETY: `dst` is valid for 32 bytes of writes (the caller's
        // contract); `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(dst.cast(), v) }
    }

    /// The bytes of `v` at 0x80 and above.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn non_ascii_mask(v: V) -> Mask {
        _mm256_movemask_epi8(v) as Mask
    }

    /// The bytes of `v` at `x` and above (unsigned).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn at_least_mask(v: V, x: u8) -> Mask {
        // `max(b, x) == b` is `b >= x` for unsigned bytes.
        Self::non_ascii_mask(_mm256_cmpeq_epi8(_mm256_max_epu8(v, Self::splat(x)), v))
    }

    /// The bytes of `v` equal to `x`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn eq_mask(v: V, x: u8) -> Mask {
        Self::non_ascii_mask(_mm256_cmpeq_epi8(v, Self::splat(x)))
    }

    /// `v` with its bytes before `at` (≤ 32) zeroed.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn keep_from(v: V, at: usize) -> V {
        const INDEX: [u8; N] = {
            let mut t = [0; N];
            let mut i = 0;
            while i < N {
                t[i] = i as u8;
                i += 1;
            }
            t
        };
        // Index ≥ at, as signed bytes (both below 64).
        let keep = _mm256_cmpgt_epi8(Self::load(&INDEX), Self::splat((at as u8).wrapping_sub(1)));
        _mm256_and_si256(v, keep)
    }

    /// The bytes of `block` that can start a well-formed multi-byte character
    /// (C2..=F4, RFC 3629 §4).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn multi_byte_leads(block: V) -> Mask {
        // AVX2 compares bytes as signed: `b - 0x42` (wrapping) moves C2..=F4 to
        // -128..=-78, the only bytes below -77.
        let moved = _mm256_sub_epi8(block, Self::splat(0x42));
        Self::non_ascii_mask(_mm256_cmpgt_epi8(Self::splat(0xB3), moved))
    }

    /// The bytes of `block` that never occur in UTF-8 and continue nothing
    /// (C0, C1, F5..=FF).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn never_leads(block: V) -> Mask {
        let c0_c1 = _mm256_cmpeq_epi8(
            _mm256_and_si256(block, Self::splat(0xFE)),
            Self::splat(0xC0),
        );
        // `max(b, F5) == b` is `b >= F5` for unsigned bytes.
        let f5_ff = _mm256_cmpeq_epi8(_mm256_max_epu8(block, Self::splat(0xF5)), block);
        Self::non_ascii_mask(_mm256_or_si256(c0_c1, f5_ff))
    }

    /// `v` with a space at each byte `mask` marks.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn with_spaces(v: V, mask: Mask) -> V {
        _mm256_blendv_epi8(v, Self::splat(b' '), byte_mask(mask))
    }

    /// Input bytes the stray loop's step ([`lossy_decoder!`]) takes: 60, so
    /// that its output, `60 + 2·strays` bytes with at most two strays, is two
    /// registers.
    const STRAY_STEP: usize = 60;
    /// Bytes the step reads from its start: two registers (and 4 bytes before
    /// it).
    const STRAY_STEP_READS: usize = 2 * N;
    /// Bytes the step writes: two registers.
    const STRAY_STEP_WRITES: usize = 2 * N;

    /// If the 60 bytes at `bytes[at..]` are ASCII and at most two stray bytes,
    /// stores their lossy output (`60 + 2·strays` bytes) at `o` and returns its
    /// length.
    ///
    /// The output is built in registers and stored once, two registers: output
    /// byte `j` is input byte `j` before the first stray, `j - 2` after its
    /// U+FFFD, `j - 4` after the second's, so each output register is a blend
    /// of three loads (0, 2 and 4 bytes back), its lanes chosen and the
    /// U+FFFDs placed by masks read from sliding tables at the strays'
    /// positions. The AVX-512 kernel's step, the block stored whole and then
    /// U+FFFD and the rest patched over each stray, is five stores a block,
    /// three of them whole registers at any offset; on Zen 3 a 32-byte store
    /// across a cache line costs about two, and with 32-byte blocks that step
    /// was 1.3× slower (measured).
    ///
    /// # Safety
    /// `o` must be valid for [`STRAY_STEP_WRITES`](Self::STRAY_STEP_WRITES) bytes of writes, and
    /// `N ≤ at`, `at + STRAY_STEP_READS ≤ bytes.len()`.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    unsafe fn stray_step(o: *mut u8, bytes: &[u8], at: usize) -> Option<usize> {
        /// The step's bytes among a mask's 64.
        const STEP_BYTES: u64 = (1 << Avx2::STRAY_STEP) - 1;
        // The loads after a stray start up to 4 bytes before the step.
        debug_assert!(at >= N);
        // SAFETY: `at + 2N = at + STRAY_STEP_READS ≤ bytes.len()`.
        let (low, high) = unsafe { (Self::load_at(bytes, at), Self::load_at(bytes, at + N)) };
        let leads =
            u64::from(Self::multi_byte_leads(low)) | u64::from(Self::multi_byte_leads(high)) << N;
        let strays =
            u64::from(Self::non_ascii_mask(low)) | u64::from(Self::non_ascii_mask(high)) << N;
        let strays = strays & STEP_BYTES;
        if leads & STEP_BYTES != 0 || strays.count_ones() > 2 {
            return None;
        }
        // 64 when there is no (second) stray: then its lanes are past the output.
        let first = strays.trailing_zeros() as usize;
        let second = (strays & strays.wrapping_sub(1)).trailing_zeros() as usize;
        for h in [0, N] {
            // SAFETY: `at ≥ N ≥ 4`, and `at + h + N ≤ at + 2N ≤ bytes.len()`.
            let (same, back2, back4) = unsafe {
                (
                    Self::load_at(bytes, at + h),
                    Self::load_at(bytes, at + h - 2),
                    Self::load_at(bytes, at + h - 4),
                )
            };
            let x = _mm256_blendv_epi8(same, back2, lanes_from(&FROM_HERE, h, first + 3));
            let x = _mm256_blendv_epi8(x, back4, lanes_from(&FROM_HERE, h, second + 5));
            let replacements = _mm256_or_si256(
                lanes_from(&REPLACEMENT_HERE, h, first),
                lanes_from(&REPLACEMENT_HERE, h, second + 2),
            );
            // U+FFFD's bytes (EF BF BD) all have their top bit set, the
            // blend's selector; the zeros around them keep `x`.
            let x = _mm256_blendv_epi8(x, replacements, replacements);
            // SAFETY: `o[h..h + N]` is within its STRAY_STEP_WRITES = 2N bytes.
            unsafe { Self::store(o.add(h), x) };
        }
        Some(Self::STRAY_STEP + 2 * strays.count_ones() as usize)
    }
}

/// Whether `block` holds a byte that can start a well-formed multi-byte
/// character ([`multi_byte_leads`](Avx2::multi_byte_leads)).
#[target_feature(enable = "avx2")]
#[inline]
fn holds_multi_byte_lead(block: &[u8; 64]) -> bool {
    let (low, high) = block.split_at(N);
    Avx2::multi_byte_leads(Avx2::load(low.try_into().expect("N bytes")))
        | Avx2::multi_byte_leads(Avx2::load(high.try_into().expect("N bytes")))
        != 0
}

/// 0x00 before [`SELECT_AT`], 0xFF from there on: read from
/// `SELECT_AT + h - k` ([`lanes_from`]), the mask of lanes `k - h` and up.
static FROM_HERE: [u8; 2 * SELECT_AT] = {
    let mut t = [0; 2 * SELECT_AT];
    let mut i = SELECT_AT;
    while i < t.len() {
        t[i] = 0xFF;
        i += 1;
    }
    t
};

/// U+FFFD at [`SELECT_AT`], zeros around it: read from `SELECT_AT + h - k`
/// ([`lanes_from`]), U+FFFD at lane `k - h` (where it falls in the register).
static REPLACEMENT_HERE: [u8; 2 * SELECT_AT] = {
    let mut t = [0; 2 * SELECT_AT];
    let r = crate::REPLACEMENT_UTF8;
    t[SELECT_AT] = r[0];
    t[SELECT_AT + 1] = r[1];
    t[SELECT_AT + 2] = r[2];
    t
};

/// Where [`FROM_HERE`] turns to 0xFF and [`REPLACEMENT_HERE`] holds U+FFFD:
/// past the largest `k` (69) that [`stray_step`](Avx2::stray_step) reads them at.
const SELECT_AT: usize = 96;

/// The 32 bytes of `table` from `SELECT_AT + h - k`: lane `i` holds the
/// table's entry for output byte `h + i` of a step, with the table's turn
/// (its byte `SELECT_AT`) at output byte `k`.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_from(table: &[u8; 2 * SELECT_AT], h: usize, k: usize) -> V {
    debug_assert!(h <= N && k <= 69);
    let from = SELECT_AT + h - k;
    assert!(from + N <= table.len());
    // SAFETY: `table[from..from + N]` is in bounds (just asserted; the
    // compiler proves it from `h ≤ 32`, `k ≤ 69` where it can see them);
    // `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(table.as_ptr().add(from).cast()) }
}

lossy_decoder!(Avx2, "avx2,bmi1,bmi2,popcnt");

/// [`decode_blocks!`](super::shuffle::decode_blocks!)'s operations, and
/// [`fused_decoder!`]'s `decode_tail`.
impl Avx2 {
    /// 64 ASCII bytes to 64 code points, 8 bytes to each 32-byte store.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn widen64(block: &[u8; 64], lanes: &mut [MaybeUninit<u32>; 64]) {
        for (eight, lanes) in block.chunks_exact(8).zip(lanes.chunks_exact_mut(8)) {
            // SAFETY: `eight` is 8 readable bytes, the width of the load;
            // `lanes` is 8 writable lanes, 32 bytes, the store's width.
            unsafe {
                let values = _mm256_cvtepu8_epi32(_mm_loadl_epi64(eight.as_ptr().cast()));
                _mm256_storeu_si256(lanes.as_mut_ptr().cast(), values);
            }
        }
    }

    /// `window16` takes characters of every length.
    const ALL_LENGTHS: bool = true;

    /// Long inputs take [`decode_fixed`](Self::decode_fixed), whose groups
    /// are at fixed places already; on the short ones this loop runs, the
    /// fixed groups' code made every call slower.
    const FIXED_GROUPS: bool = false;

    /// [`super::shuffle::bmp16`] in 256-bit registers: the 16 bytes' code
    /// points in one register of 16-bit words, packed per 128-bit lane. (Where
    /// it can, it beats [`window16`](Self::window16), which needs 32-bit lanes: Latin text
    /// 3.9 against 3.4 GB/s at 4 KiB, measured.)
    #[target_feature(enable = "avx2")]
    #[inline]
    fn bmp16(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
        // SAFETY: `bytes[k..k + 16]` is 16 readable bytes (k ≤ 2).
        let load = |k: usize| unsafe { _mm_loadu_si128(bytes[k..k + 16].as_ptr().cast()) };
        bmp16_in([load(0), load(1), load(2)], starts, lanes)
    }

    /// Decodes the characters that start in the first 16 of `bytes` (the next
    /// three hold the continuations of those that start near the end);
    /// `starts` says which of the 16 start one. Stores their code points to
    /// `lanes` (and garbage up to 16 lanes: the caller leaves room) and
    /// returns how many characters that is.
    ///
    /// No step waits for a table load to know where the next one begins: each
    /// of the 16 bytes gets the code point of the character it would start,
    /// in a 32-bit lane, and the lanes of the starts are packed, 8 at a time,
    /// by `vpermd` controls from [`PACK32`]. The code point: the lane gathers
    /// its byte and the next three, lead in the top byte; masks each to its
    /// payload (the lead by its high nibble, RFC 3629 §3: 7, 5, 4 or 3 bits;
    /// 6 of each continuation); `maddubs` and `madd` join the four fields into
    /// `b0·2¹⁸ + b1·2¹² + b2·2⁶ + b3`; and a shift right by 6·(4 − length)
    /// drops the bytes of the next characters.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn window16(bytes: &[u8; 19], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
        // SAFETY: `bytes[base..base + 16]` is 16 readable bytes (base ≤ 3).
        let load = |base: usize| unsafe { _mm_loadu_si128(bytes[base..].as_ptr().cast()) };
        window16_in([load(0), load(3)], starts, lanes)
    }

    /// A 64-byte block's leads of 3-byte characters (0xE0..=0xEF: as signed
    /// bytes, −32..=−17).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn three_byte_leads(block: &[u8; 64]) -> u64 {
        let (low, high) = block.split_at(N);
        let (low, high) = (
            Self::load(low.try_into().expect("N bytes")),
            Self::load(high.try_into().expect("N bytes")),
        );
        let leads = |v: V| {
            let at_least = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(-33));
            let four = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(-17));
            _mm256_movemask_epi8(_mm256_andnot_si256(four, at_least)) as u32 as u64
        };
        leads(low) | leads(high) << 32
    }

    /// A 64-byte block's non-ASCII bytes, character starts (every byte but a
    /// continuation, 0x80..=0xBF: as signed bytes, those are ≤ −65) and leads
    /// of 4-byte characters (0xF0..=0xFF: as signed bytes, > −17 and not
    /// ASCII).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn masks(block: &[u8; 64]) -> (u64, u64, u64) {
        let (low, high) = block.split_at(N);
        let (low, high) = (
            Self::load(low.try_into().expect("N bytes")),
            Self::load(high.try_into().expect("N bytes")),
        );
        let bits = |v: V| _mm256_movemask_epi8(v) as u32 as u64;
        let above = |v: V, floor: i8| bits(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(floor)));
        let non_ascii = bits(low) | bits(high) << 32;
        (
            non_ascii,
            above(low, -65) | above(high, -65) << 32,
            (above(low, -17) | above(high, -17) << 32) & non_ascii,
        )
    }
}

/// [`bmp16`](Avx2::bmp16) of a window given as registers: the 16 bytes, and moved on by
/// 1 and 2 (so the loads can be of memory, or shifts of one register).
#[target_feature(enable = "avx2")]
#[inline]
fn bmp16_in(window: [__m128i; 3], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
    let lanes: &mut [MaybeUninit<u32>; 16] = (&mut lanes[..16]).try_into().expect("16 lanes");
    let (low, high) = (usize::from(starts as u8), usize::from((starts >> 8) as u8));
    store_words(bmp16_words(window, starts), low, high, lanes)
}

/// The code points of a window's 1- to 3-byte characters (the window as
/// [`bmp16_in`] takes it) as 16-bit words, those at `starts` packed to
/// the front of each 128-bit lane: what both the UTF-32 decoder
/// ([`store_words`]) and the UTF-16 one store.
#[target_feature(enable = "avx2")]
#[inline]
fn bmp16_words(window: [__m128i; 3], starts: u16) -> V {
    pack_words(bmp16_values(window), starts)
}

/// [`bmp16_words`] before the packing: the value of the character each
/// byte of the window would start, as 16-bit words in order.
#[target_feature(enable = "avx2")]
#[inline]
fn bmp16_values(window: [__m128i; 3]) -> V {
    // Each byte as a 16-bit word: the window, and moved on by 1 and 2.
    let [first, second, third] = window.map(|v| _mm256_cvtepu8_epi16(v));
    let word = |w: i16| _mm256_set1_epi16(w);
    let and = |v: V, w: i16| _mm256_and_si256(v, word(w));
    // RFC 3629 §3: 5 payload bits of a 2-byte lead, 4 of a 3-byte one
    // (the shift drops the rest), 6 of each continuation.
    let second6 = and(second, 0x3F);
    let two = _mm256_or_si256(_mm256_slli_epi16::<6>(and(first, 0x1F)), second6);
    let three = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_slli_epi16::<12>(first),
            _mm256_slli_epi16::<6>(second6),
        ),
        and(third, 0x3F),
    );
    _mm256_blendv_epi8(
        first,
        _mm256_blendv_epi8(two, three, _mm256_cmpgt_epi16(first, word(0xDF))),
        _mm256_cmpgt_epi16(first, word(0x7F)),
    )
}

/// The 16-bit words of `values` at `starts`, packed to the front of each
/// 128-bit lane (8 words a lane).
#[target_feature(enable = "avx2")]
#[inline]
fn pack_words(values: V, starts: u16) -> V {
    use super::shuffle::WORDS;
    let (low, high) = (usize::from(starts as u8), usize::from((starts >> 8) as u8));
    // SAFETY: the controls are aligned 16-byte statics.
    let control = unsafe {
        _mm256_inserti128_si256::<1>(
            _mm256_castsi128_si256(_mm_load_si128(WORDS[low].shuffle.as_ptr().cast())),
            _mm_load_si128(WORDS[high].shuffle.as_ptr().cast()),
        )
    };
    _mm256_shuffle_epi8(values, control)
}

/// Stores the code points a `bmp16` packed as 16-bit words, each half's
/// to the front of its 128-bit lane (`low`, `high`: the two halves' start
/// masks), as 32-bit lanes in order; returns how many.
#[target_feature(enable = "avx2")]
#[inline]
fn store_words(packed: V, low: usize, high: usize, lanes: &mut [MaybeUninit<u32>; 16]) -> usize {
    let kept = low.count_ones() as usize;
    // SAFETY: `lanes[0..8]` and `lanes[kept..kept + 8]` (kept ≤ 8) are 8
    // writable lanes each, 32 bytes, a store's width; `storeu` has no
    // alignment requirement.
    unsafe {
        _mm256_storeu_si256(
            lanes.as_mut_ptr().cast(),
            _mm256_cvtepu16_epi32(_mm256_castsi256_si128(packed)),
        );
        _mm256_storeu_si256(
            lanes[kept..kept + 8].as_mut_ptr().cast(),
            _mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(packed)),
        );
    }
    kept + high.count_ones() as usize
}

/// Per 8-bit mask, the indices of its set bits in order (the rest 0): a
/// `vpermd` control, one byte per lane, that packs the 32-bit lanes of the
/// mask's set bits to the front.
static PACK32: [[u8; 8]; 256] = {
    let mut out = [[0; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        out[mask] = super::set_bits(mask);
        mask += 1;
    }
    out
};

/// [`window16`](Avx2::window16) of a window given as registers: its 16 bytes, and moved on
/// by 3.
#[target_feature(enable = "avx2")]
#[inline]
fn window16_in(window: [__m128i; 2], starts: u16, lanes: &mut [MaybeUninit<u32>]) -> usize {
    let lanes = &mut lanes[..16];
    let mut written = 0;
    for (half, window) in window.into_iter().enumerate() {
        let values = window_values(window, half);
        let mask = usize::from((starts >> (8 * half)) as u8);
        // SAFETY: `PACK32[mask]` is 8 readable bytes, the load's width.
        let control =
            _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(PACK32[mask].as_ptr().cast()) });
        let out = &mut lanes[written..written + 8];
        // SAFETY: `out` is 8 writable lanes, 32 bytes, the store's width;
        // `storeu` has no alignment requirement.
        unsafe {
            _mm256_storeu_si256(
                out.as_mut_ptr().cast(),
                _mm256_permutevar8x32_epi32(values, control),
            )
        };
        written += mask.count_ones() as usize;
    }
    written
}

/// The code point of each byte of one half of a window (`half` 0: bytes
/// 0–7, `window` loaded from byte 0; 1: bytes 8–15, `window` loaded from
/// byte 3, so that their 3 continuations are in it), in its 32-bit lane,
/// as if a character started there: the caller keeps the lanes that do.
/// Both the UTF-32 decoder ([`window16_in`]) and the UTF-16 one decode
/// windows with characters of every length this way.
#[target_feature(enable = "avx2")]
#[inline]
fn window_values(window: __m128i, half: usize) -> V {
    // Looked up by the lead's high nibble, in the top byte: its payload
    // mask, and the shift that drops the bytes it does not have.
    const LEAD_MASKS: [u8; 32] = super::repeat::<32>(super::PAYLOAD);
    const SHIFTS: [u8; 32] = super::repeat::<32>(super::LENGTH_SHIFT);
    let table = |t: &[u8; 32]| Avx2::load(t);
    let window = _mm256_broadcastsi128_si256(window);
    let x = _mm256_shuffle_epi8(window, table(&WINDOW_GATHER[half]));
    // The lead's high nibble in the top byte, and 0x80 (a zero from
    // the look-ups) in the others.
    let nibble = _mm256_or_si256(
        _mm256_and_si256(_mm256_srli_epi32::<4>(x), _mm256_set1_epi32(0x0F00_0000)),
        _mm256_set1_epi32(0x0080_8080),
    );
    let payload = _mm256_or_si256(
        _mm256_shuffle_epi8(table(&LEAD_MASKS), nibble),
        _mm256_set1_epi32(0x003F_3F3F),
    );
    let shift = _mm256_srli_epi32::<24>(_mm256_shuffle_epi8(table(&SHIFTS), nibble));
    let bits = _mm256_and_si256(x, payload);
    // b3 + 64·b2 and b1 + 64·b0, then the pairs + 4096·…
    let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
    let joined = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
    _mm256_srlv_epi32(joined, shift)
}

impl Avx2 {
    /// Appends the code points of the characters that start in
    /// `block[from..to]` to `out`, where that span is well-formed whole
    /// characters from a character boundary (`from` < 64, `from` ≤ `to` ≤
    /// 64): the end of the input ([`decode_tail`](Avx2::decode_tail)), or what precedes an error
    /// in a block.
    ///
    /// The block is split at fixed places, 16 bytes each; the starts outside
    /// the span are cleared, so a window takes only the characters that start
    /// in it within the span, and the windows' stores follow each other by
    /// their counts alone. The last window has no bytes after it to read: its
    /// copies moved on by 1 to 3 bytes are shifts of the window (zeros come
    /// in), and none of its characters needs a byte past the end of the span.
    /// Decodes the well-formed characters of `block[from..]`, the end of
    /// the input: [`fused_decoder!`]'s `decode_tail`, which this kernel
    /// always takes.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    fn decode_tail(block: &[u8; 64], from: usize, out: &mut Vec<u32>) -> bool {
        debug_assert!(from < 64);
        Self::decode_span(block, from, 64, out);
        true
    }

    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline]
    fn decode_span(block: &[u8; 64], from: usize, to: usize, out: &mut Vec<u32>) {
        debug_assert!(from < 64 && from <= to && to <= 64);
        let (non_ascii, starts, four) = Self::masks(block);
        // `bzhi` keeps the bits below `to` (all 64 when `to` is 64).
        let starts = _bzhi_u64(starts & u64::MAX << from, to as u32);
        // Every window stores 16 lanes, past its characters: room for them.
        out.reserve(to - from + 16);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..to - from + 16];
        let mut written = 0;
        // The window at `pos`, given its 16 bytes and their copies moved on by
        // 1, 2 and 3 bytes; only if it overlaps the span. (A macro: a closure is
        // compiled without the function's target features, and neither inlines
        // the windows' code nor is inlined.)
        macro_rules! window {
            ($pos:expr, $moved:expr) => {{
                let (pos, moved): (usize, [__m128i; 4]) = ($pos, $moved);
                let lanes = &mut dst[written..];
                written += if (non_ascii >> pos) as u16 == 0 && from <= pos && pos + 16 <= to {
                    let lanes: &mut [MaybeUninit<u32>; 16] =
                        (&mut lanes[..16]).try_into().expect("16 lanes");
                    super::shuffle::widen16(moved[0], lanes);
                    16
                } else if (four >> pos) as u16 == 0 {
                    bmp16_in(
                        [moved[0], moved[1], moved[2]],
                        (starts >> pos) as u16,
                        lanes,
                    )
                } else {
                    window16_in([moved[0], moved[3]], (starts >> pos) as u16, lanes)
                };
            }};
        }
        let load = |at: usize| {
            let bytes: &[u8; 16] = block[at..at + 16].try_into().expect("16 bytes");
            // SAFETY: `bytes` is 16 readable bytes.
            unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
        };
        // Written out, not a loop: a loop over the three kept its positions in
        // an array on the stack.
        if from < 16 && to > 0 {
            window!(0, [load(0), load(1), load(2), load(3)]);
        }
        if from < 32 && to > 16 {
            window!(16, [load(16), load(17), load(18), load(19)]);
        }
        if from < 48 && to > 32 {
            window!(32, [load(32), load(33), load(34), load(35)]);
        }
        if to > 48 {
            let last: &[u8; 16] = block[48..].try_into().expect("16 bytes");
            // SAFETY: `last` is 16 readable bytes.
            let last = unsafe { _mm_loadu_si128(last.as_ptr().cast()) };
            let moved = [
                last,
                _mm_srli_si128::<1>(last),
                _mm_srli_si128::<2>(last),
                _mm_srli_si128::<3>(last),
            ];
            window!(48, moved);
        }
        // SAFETY: the first `written` lanes of the spare capacity hold the code
        // points of the characters that start in `block[from..to]`, in order.
        unsafe { out.set_len(base + written) };
    }
}

impl Avx2 {
    // ---- lossy decoding to UTF-32 --------------------------------------------

    /// Lossy decoding to UTF-32: appends the code points of `bytes` to `out`,
    /// each maximal subpart of an ill-formed sequence replaced by U+FFFD
    /// (Unicode §3.9). `bytes` must start at a character boundary.
    ///
    /// [`decode`](Avx2::decode)'s block loop ([`super::shuffle::decode_blocks!`]), whose
    /// check also keeps the first byte it flags. Where a block fails:
    ///
    /// * if it holds no lead of a multi-byte character (ASCII and stray bytes,
    ///   the common error of ASCII text), every non-ASCII byte in it is a
    ///   maximal subpart by itself, and [`widen_stray_run`] widens it, and the
    ///   blocks after it that are the same, each stray becoming U+FFFD, with no
    ///   branch per stray;
    /// * otherwise the flag gives the error ([`super::fail_after`], no scan);
    ///   the characters before it go through [`decode_span`](Self::decode_span), the block loop's
    ///   own steps, one U+FFFD out, then one per [lone](is_lone) byte after it
    ///   (the continuation bytes a broken character leaves behind, and bytes
    ///   that never occur), and the loop goes on from there: a subpart's end
    ///   leaves nothing open, so the next block is checked on its own.
    ///
    /// The less than a block at the end is validated, and decoded by
    /// [`decode_span`](Self::decode_span) within the input's last 64 bytes.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(crate) fn decode_lossy_utf32(bytes: &[u8], out: &mut Vec<u32>) {
        let mut at = 0;
        loop {
            // The first byte the check flagged in the block that stopped the
            // loop, relative to the block.
            let mut flagged = None;
            let (done, _) =
                super::shuffle::decode_blocks!(Avx2, &bytes[at..], out, |block: &[u8; 64]| {
                    let (low, high) = block.split_at(N);
                    let (low, high) = (
                        Self::load(low.try_into().expect("N bytes")),
                        Self::load(high.try_into().expect("N bytes")),
                    );
                    let (low_errors, high_errors) =
                        (Self::errors(low, Self::zero()), Self::errors(high, low));
                    if Self::any(Self::or(low_errors, high_errors)) {
                        flagged =
                            Self::first(low_errors).or(Self::first(high_errors).map(|f| N + f));
                        return false;
                    }
                    true
                });
            at += done;
            let rest = &bytes[at..];
            let Some(block) = rest.first_chunk::<64>() else {
                match Self::decode_lossy_end(bytes, at, out) {
                    Some(next) => {
                        at = next;
                        continue;
                    }
                    None => return,
                }
            };
            let flag = flagged.expect("a whole block stops the loop only by failing");
            if !holds_multi_byte_lead(block) {
                at = widen_stray_run(bytes, at, out);
                continue;
            }
            // The flag is inside the input: the subpart has an `error_len`.
            let e = super::fail_after(rest, 0, flag);
            let valid = e.valid_up_to();
            Self::decode_span(block, 0, valid, out);
            out.push(REPLACEMENT);
            at += valid + usize::from(e.error_len().expect("the flag is inside the input"));
            at = push_lone_run(bytes, at, out);
        }
    }

    /// [`decode_lossy_utf32`] on the less than a block at `bytes[at..]` (at a
    /// character boundary, nothing open): its well-formed prefix, then a
    /// U+FFFD if an error stops it. Returns where to go on, or `None` when the
    /// input is done.
    ///
    /// [`decode_lossy_utf32`]: Self::decode_lossy_utf32
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    #[inline(never)]
    fn decode_lossy_end(bytes: &[u8], at: usize, out: &mut Vec<u32>) -> Option<usize> {
        let rest = &bytes[at..];
        if rest.is_empty() {
            return None;
        }
        let (valid, error) = match Self::validate(rest).unpack() {
            Ok(()) => (rest.len(), None),
            Err(e) => (e.valid_up_to(), Some(e.error_len())),
        };
        match bytes.last_chunk::<64>() {
            Some(block) => Self::decode_span(block, 64 - rest.len(), 64 - rest.len() + valid, out),
            None => {
                // SAFETY: `rest[..valid]` is well-formed: the kernel's
                // validation says so.
                let text = unsafe { core::str::from_utf8_unchecked(&rest[..valid]) };
                crate::decode::decode_valid_scalar(text, out);
            }
        }
        let length = error?;
        out.push(REPLACEMENT);
        // An incomplete character at the end is one subpart, the last.
        let next = at + valid + usize::from(length?);
        Some(push_lone_run(bytes, next, out))
    }
}

/// U+FFFD as a code point.
const REPLACEMENT: u32 = crate::REPLACEMENT as u32;

/// After a maximal subpart, the [lone](is_lone) bytes from `at` are one
/// each: appends a U+FFFD for each, and returns where they end.
#[inline]
fn push_lone_run(bytes: &[u8], mut at: usize, out: &mut Vec<u32>) -> usize {
    while let Some(&byte) = bytes.get(at) {
        if !is_lone(byte) {
            break;
        }
        out.push(REPLACEMENT);
        at += 1;
    }
    at
}

/// Widens the run of whole blocks from `bytes[at..]` that hold no lead of a
/// multi-byte character, after no open character: every byte is one code
/// point, an ASCII byte its own, any other U+FFFD (a continuation byte with
/// no lead, or a byte that never occurs: each a maximal subpart by itself).
/// Returns where the run ends: at a block with a lead (`at` itself if the
/// first block has one), or less than a block before the end.
///
/// No branch per stray: the bytes are widened as signed, so a non-ASCII
/// byte becomes a lane of 0xFFFF_FF80 or more, and an unsigned minimum with
/// 0xFFFD replaces exactly those.
#[target_feature(enable = "avx2")]
#[inline]
fn widen_stray_run(bytes: &[u8], mut at: usize, out: &mut Vec<u32>) -> usize {
    // One lane per byte.
    out.reserve(bytes.len() - at);
    let base = out.len();
    let dst = &mut out.spare_capacity_mut()[..bytes.len() - at];
    let mut written = 0;
    let replacement = _mm256_set1_epi32(REPLACEMENT as i32);
    while let Some(block) = bytes.get(at..at + 64) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        if holds_multi_byte_lead(block) {
            break;
        }
        let lanes: &mut [MaybeUninit<u32>; 64] = (&mut dst[written..written + 64])
            .try_into()
            .expect("64 lanes");
        for (eight, lanes) in block.chunks_exact(8).zip(lanes.chunks_exact_mut(8)) {
            // SAFETY: `eight` is 8 readable bytes, the width of the load;
            // `lanes` is 8 writable lanes, 32 bytes, the store's width.
            unsafe {
                let values = _mm256_cvtepi8_epi32(_mm_loadl_epi64(eight.as_ptr().cast()));
                _mm256_storeu_si256(
                    lanes.as_mut_ptr().cast(),
                    _mm256_min_epu32(values, replacement),
                );
            }
        }
        at += 64;
        written += 64;
    }
    // SAFETY: `dst[..written]` were written, one lane per byte taken.
    unsafe { out.set_len(base + written) };
    at
}

impl Avx2 {
    // ---- encoding UTF-32 -----------------------------------------------------

    /// Encodes `scalars` as UTF-8 onto `out`, or fails at the first value that
    /// is a surrogate or above U+10FFFF.
    ///
    /// 32 values at a time when all are ASCII (narrowed by saturating packs),
    /// else 16 (two registers) at a time. Per block, tests of the values'
    /// bitwise or pick the path:
    ///
    /// * all below 0x800 (Latin text, and ASCII; no surrogate or out-of-range
    ///   value passes this test) — each value becomes one 16-bit word holding
    ///   its UTF-8 bytes, 8 words packed by one `pshufb` ([`COMPACT2`]);
    /// * all below 0x10000 — the values are packed to 16-bit words and checked
    ///   for surrogates; if all are 3-byte characters (CJK text) one fixed
    ///   control packs them, with no table load and no count to wait for;
    ///   otherwise [`encode_bmp`] builds their 1–3 bytes 16 words at a time;
    /// * otherwise the block is checked for surrogates and values above
    ///   U+10FFFF, each value's 1–4 bytes are built in its 32-bit lane
    ///   ([`utf8_lanes`]) and each 4 lanes packed by a `pshufb` chosen by their
    ///   lengths ([`COMPACT`]).
    ///
    /// A block that holds a value that cannot be encoded goes to the scalar
    /// encoder, which reports the exact index.
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn encode(scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
        // 4 bytes per value, + 64 for the padding of the last block (at most
        // 15 zeros, each a lane whose 16-byte store may reach 4 bytes past it).
        out.reserve(4 * scalars.len() + 64);
        let base = out.len();
        let dst = &mut out.spare_capacity_mut()[..4 * scalars.len() + 64];
        // Invariant: `written` ≤ 4·`at`. Every store below starts at or after
        // `written` and ends by 4 bytes per value of its block: within `dst`.
        let mut written = 0;
        let mut at = 0;
        'runs: loop {
            // 32 ASCII values at a time: one test per 32, predictable (almost
            // always true in ASCII text, almost always false elsewhere).
            while let Some(run) = scalars.get(at..at + 32) {
                let v: [V; 4] = core::array::from_fn(|i| load_u32(&run[8 * i..]));
                if !below(Self::or(Self::or(v[0], v[1]), Self::or(v[2], v[3])), 0x80) {
                    break;
                }
                store_ascii32(&mut dst[written..], v);
                written += 32;
                at += 32;
            }
            if at == scalars.len() {
                break;
            }
            // The 32 values that were not all ASCII, as two blocks of 16; or
            // the last values, a block of up to 16 from a masked load, whose
            // missing lanes are zeros, each of which packs to one byte at the
            // end, taken off again. One call site, so that it is inlined.
            let blocks = if scalars.len() - at >= 32 { 2 } else { 1 };
            for _ in 0..blocks {
                let rest = &scalars[at..];
                let real = rest.len().min(16);
                let block = match rest.get(..16) {
                    Some(full) => [load_u32(full), load_u32(&full[8..])],
                    None => [
                        load_u32_masked(rest),
                        load_u32_masked(rest.get(8..).unwrap_or_default()),
                    ],
                };
                let dst: &mut [MaybeUninit<u8>; 64] = (&mut dst[written..written + 64])
                    .try_into()
                    .expect("64 bytes");
                let Some(n) = encode_block(block, dst) else {
                    break 'runs; // the scalar encoder finds which value it was
                };
                written += n - (16 - real);
                at += real;
            }
        }
        // SAFETY: bytes `base .. base + written` were written above: each
        // store at `written` covers the bytes `written` then advanced over;
        // `written` ≤ 4·`at` ≤ the spare capacity.
        unsafe { out.set_len(base + written) };
        if at == scalars.len() {
            return Ok(());
        }
        crate::encode::encode_scalars(&scalars[at..], out).map_err(|f| EncodeFailure {
            index: f.index + at,
            error: f.error,
        })
    }
}

/// The UTF-8 of 16 values below 0x800 in 16-bit lanes, at the front of
/// `dst`; returns its length. Each becomes a word, `110yyyyy 10xxxxxx`
/// (RFC 3629 §3, lead in the low byte) or the ASCII byte and a zero, and
/// each half's words are packed by its [`COMPACT2`] row.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn encode_below_800(v: V, dst: &mut [MaybeUninit<u8>]) -> usize {
    let s16 = |x: u16| _mm256_set1_epi16(x as i16);
    let lead = _mm256_or_si256(_mm256_srli_epi16::<6>(v), s16(0xC0));
    let tail = _mm256_slli_epi16::<8>(_mm256_or_si256(_mm256_and_si256(v, s16(0x3F)), s16(0x80)));
    let ascii = _mm256_cmpgt_epi16(s16(0x80), v);
    let words = _mm256_blendv_epi8(_mm256_or_si256(lead, tail), v, ascii);
    // Bit i of each half's key: word i is 2-byte. The signed pack of
    // the compare with itself puts the low half's 8 flags in bytes
    // 0..8 and the high half's in bytes 16..24.
    let ascii = _mm256_movemask_epi8(_mm256_packs_epi16(ascii, ascii)) as u32;
    let keys = [!ascii & 0xFF, !ascii >> 16 & 0xFF];
    let mut written = 0;
    for (key, half) in keys.into_iter().zip([low128(words), high128(words)]) {
        // SAFETY: a table row is 16 readable bytes.
        let control = unsafe { _mm_loadu_si128(COMPACT2[key as usize].0.as_ptr().cast()) };
        store16(&mut dst[written..], _mm_shuffle_epi8(half, control));
        written += 8 + key.count_ones() as usize;
    }
    written
}

/// 16 values' UTF-8 bytes, packed at the start of `dst`; how many there
/// are, or `None` if a value is a surrogate or above U+10FFFF (nothing is
/// then written).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn encode_block([a, b]: [V; 2], dst: &mut [MaybeUninit<u8>; 64]) -> Option<usize> {
    // The bits of every value: `below(combined, L)` iff all are below L.
    let combined = Avx2::or(a, b);
    let s32 = |x: u32| _mm256_set1_epi32(x as i32);
    if below(combined, 0x800) {
        // Latin text, and ASCII (one path for both, so that mixing them
        // costs no mispredicted branch): each value becomes a word,
        // `110xxxxx 10xxxxxx` (lead in the low byte) or the ASCII byte and
        // a zero.
        return Some(encode_below_800(to_words(a, b), dst));
    }
    if below(combined, 0x1_0000) {
        // No 4-byte character: the values fit in 16 bits.
        let v = to_words(a, b);
        let s16 = |x: u16| _mm256_set1_epi16(x as i16);
        // Surrogates: 0xD800..=0xDFFF, the values whose top 5 bits are
        // 0xD800 >> 11.
        if Avx2::any(_mm256_cmpeq_epi16(
            _mm256_and_si256(v, s16(0xF800)),
            s16(0xD800),
        )) {
            return None;
        }
        // All-ones where v ≥ 0x800 (unsigned: the maximum with 0x800 is v).
        let k2 = _mm256_cmpeq_epi16(_mm256_max_epu16(v, s16(0x800)), v);
        if _mm256_testc_si256(k2, _mm256_set1_epi8(-1)) == 1 {
            // All 3-byte characters (CJK text, mostly): `1110xxxx 10xxxxxx
            // 10xxxxxx` built in 8 operations a register, one fixed control
            // dropping every lane's fourth byte; 12 bytes per 128-bit lane,
            // each store overwriting the last one's 4 spare bytes. No
            // table, no count to wait for.
            // SAFETY: `THREE` is 16 readable bytes.
            let control =
                _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(THREE.as_ptr().cast()) });
            for (i, x) in [a, b].into_iter().enumerate() {
                let utf8 = Avx2::or(
                    Avx2::or(_mm256_srli_epi32::<12>(x), s32(0x80_80E0)),
                    Avx2::or(
                        _mm256_and_si256(_mm256_slli_epi32::<2>(x), s32(0x3F00)),
                        _mm256_and_si256(_mm256_slli_epi32::<16>(x), s32(0x3F_0000)),
                    ),
                );
                let packed = _mm256_shuffle_epi8(utf8, control);
                store16(&mut dst[24 * i..], low128(packed));
                store16(&mut dst[24 * i + 12..], high128(packed));
            }
            return Some(48);
        }
        return Some(encode_bmp(v, k2, dst));
    }
    let surrogate = |x: V| _mm256_cmpeq_epi32(_mm256_and_si256(x, s32(0xFFFF_F800)), s32(0xD800));
    // Values above U+10FFFF (unsigned: the minimum with 0x110000 is it).
    let bad = |x: V| {
        let too_large = _mm256_cmpeq_epi32(_mm256_min_epu32(x, s32(0x11_0000)), s32(0x11_0000));
        _mm256_or_si256(surrogate(x), too_large)
    };
    if Avx2::any(Avx2::or(bad(a), bad(b))) {
        return None;
    }
    // Every value is now at most 0x10FFFF: signed compares are exact.
    let mut written = 0;
    for x in [a, b] {
        let k1 = _mm256_cmpgt_epi32(x, s32(0x7F));
        let k2 = _mm256_cmpgt_epi32(x, s32(0x7FF));
        let k3 = _mm256_cmpgt_epi32(x, s32(0xFFFF));
        let utf8 = utf8_lanes(x, k1, k2, k3);
        // Per lane, length − 1 in two bits: bit 0 = k1^k2^k3, bit 1 = k2.
        // Each dword takes its low word from bit 0's mask and its high word
        // from bit 1's; a shuffle gathers one byte of each word, in order,
        // to the front of its 128-bit lane: the byte mask's bits 0..8 and
        // 16..24 are the two lanes' [`COMPACT`] keys.
        const GATHER: [u8; 16] = [
            0, 2, 4, 6, 8, 10, 12, 14, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        ];
        let length_bits = _mm256_blend_epi16::<0b1010_1010>(Avx2::xor(Avx2::xor(k1, k2), k3), k2);
        // SAFETY: `GATHER` is 16 readable bytes.
        let gather = unsafe { _mm_loadu_si128(GATHER.as_ptr().cast()) };
        let gathered = _mm256_shuffle_epi8(length_bits, _mm256_broadcastsi128_si256(gather));
        let keys = _mm256_movemask_epi8(gathered) as u32;
        written += store_compact(utf8, keys, &mut dst[written..]);
    }
    Some(written)
}

/// Stores the bytes of each 128-bit lane of `utf8` that its [`COMPACT`]
/// key keeps (`keys`' bits 0..8 for the low lane, 16..24 for the high
/// one), the high lane's after the low one's, at the front of `dst`;
/// returns how many. Each lane's store is 16 bytes wide, so `dst` needs
/// room for 16 past the low lane's count.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store_compact(utf8: V, keys: u32, dst: &mut [MaybeUninit<u8>]) -> usize {
    let mut written = 0;
    for (key, lane) in [keys & 0xFF, keys >> 16 & 0xFF]
        .into_iter()
        .zip([low128(utf8), high128(utf8)])
    {
        let (control, count) = (&COMPACT.0[key as usize].0, COMPACT.1[key as usize]);
        // SAFETY: `control` is 16 readable bytes.
        let control = unsafe { _mm_loadu_si128(control.as_ptr().cast()) };
        store16(&mut dst[written..], _mm_shuffle_epi8(lane, control));
        written += usize::from(count);
    }
    written
}

/// 16 values below 0x10000, none a surrogate, as 16-bit words `v` in
/// order (`k2`: all-ones in the words ≥ 0x800): their UTF-8 bytes, packed
/// at the start of `dst`; how many there are. Text mixing ASCII with CJK
/// (or other 3-byte characters).
///
/// Each word gets a 4-byte slot whose first three bytes end with its
/// character's bytes — `[1110zzzz, 10yyyyyy, 10xxxxxx]`, or
/// `[_, 110yyyyy, 10xxxxxx]`, or `[_, _, 0xxxxxxx]` (RFC 3629 §3) — so
/// that each byte position is one formula per length with no choice of
/// where a byte goes: the last byte is the value's low 6 bits with `10`
/// (or, for ASCII, the value), the middle one bits 6.. with `10` or
/// `110`. Each pair of 128-bit lanes is packed by one 256-bit `pshufb`
/// whose halves are [`TAIL3`] rows (keys: 2 bits per word from the byte
/// masks of `k1` and `k2`), and the four lanes are stored in order.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn encode_bmp(v: V, k2: V, dst: &mut [MaybeUninit<u8>; 64]) -> usize {
    let s16 = |x: u16| _mm256_set1_epi16(x as i16);
    let and = _mm256_and_si256;
    // All-ones where v ≥ 0x80 (unsigned).
    let k1 = _mm256_cmpeq_epi16(_mm256_max_epu16(v, s16(0x80)), v);
    // Only each word's low byte counts below: the high bytes of `middle`
    // and `last` land where the pack never looks (a slot's fourth byte,
    // or shifted out).
    let first = Avx2::or(_mm256_srli_epi16::<12>(v), s16(0xE0));
    // `v >> 6 | 0xC0` is `110yyyyy` below 0x800; from 0x800 bit 6 goes.
    let middle = Avx2::xor(
        Avx2::or(_mm256_srli_epi16::<6>(v), s16(0xC0)),
        and(k2, s16(0x40)),
    );
    // From 0x80, bit 6 goes and bit 7 comes: `10xxxxxx`.
    let last = Avx2::or(
        _mm256_andnot_si256(and(k1, s16(0x40)), v),
        and(k1, s16(0x80)),
    );
    let first_two = Avx2::or(first, _mm256_slli_epi16::<8>(middle));
    // Slots for words 0..4 and 8..12, and for 4..8 and 12..16.
    let slots = [
        _mm256_unpacklo_epi16(first_two, last),
        _mm256_unpackhi_epi16(first_two, last),
    ];
    // Per word, k1 in bit 0 (its low byte's) and k2 in bit 1 (its high
    // byte's): four [`TAIL3`] keys, one per byte of `keys`, for the slots
    // of words 0..4, 4..8, 8..12 and 12..16.
    let keys = (_mm256_movemask_epi8(k1) as u32 & 0x5555_5555)
        | (_mm256_movemask_epi8(k2) as u32 & 0xAAAA_AAAA);
    let key = |j: u32| (keys >> (8 * j) & 0xFF) as usize;
    let mut packed = [_mm256_setzero_si256(); 2];
    for (i, slots) in slots.into_iter().enumerate() {
        let (low, high) = (&TAIL3.0[key(i as u32)].0, &TAIL3.0[key(i as u32 + 2)].0);
        // SAFETY: `low` and `high` are 16 readable bytes each.
        let control = unsafe { _mm256_loadu2_m128i(high.as_ptr().cast(), low.as_ptr().cast()) };
        packed[i] = _mm256_shuffle_epi8(slots, control);
    }
    let mut written = 0;
    for (j, lane) in [
        low128(packed[0]),
        low128(packed[1]),
        high128(packed[0]),
        high128(packed[1]),
    ]
    .into_iter()
    .enumerate()
    {
        store16(&mut dst[written..], lane);
        written += usize::from(TAIL3.1[key(j as u32)]);
    }
    written
}

/// Each lane's UTF-8 form, first byte lowest, zero past its length (`k1`,
/// `k2`, `k3`: all-ones in the lanes ≥ 0x80, ≥ 0x800, ≥ 0x10000; every
/// lane at most 0x10FFFF).
///
/// The four 6-bit fields of the value are spread one per byte, most
/// significant first (`[x>>18, x>>12, x>>6, x] & 0x3F`); a length-`L`
/// character keeps the last `L` (a right shift by 8·(4 − L)) and gets its
/// marker bits (`110xxxxx 10xxxxxx`, …) OR'ed in. ASCII lanes are the value.
#[target_feature(enable = "avx2")]
#[inline]
fn utf8_lanes(x: V, k1: V, k2: V, k3: V) -> V {
    let s32 = |x: u32| _mm256_set1_epi32(x as i32);
    let and = _mm256_and_si256;
    let fields = and(
        Avx2::or(
            Avx2::or(
                _mm256_slli_epi32::<24>(x),
                and(_mm256_slli_epi32::<10>(x), s32(0x00FF_0000)),
            ),
            Avx2::or(
                and(_mm256_srli_epi32::<4>(x), s32(0x0000_FF00)),
                _mm256_srli_epi32::<18>(x),
            ),
        ),
        s32(0x3F3F_3F3F),
    );
    // Shift 16, 8, 0 for length 2, 3, 4 (k3 implies k2: each takes 8 off).
    let shift = _mm256_sub_epi32(_mm256_sub_epi32(s32(16), and(k2, s32(8))), and(k3, s32(8)));
    // Markers 0x80C0, 0x8080E0, 0x808080F0: each length's from the last's
    // by an XOR of the difference.
    let marks = Avx2::xor(
        Avx2::xor(s32(0x80C0), and(k2, s32(0x80C0 ^ 0x80_80E0))),
        and(k3, s32(0x80_80E0 ^ 0x8080_80F0)),
    );
    let multi = Avx2::or(_mm256_srlv_epi32(fields, shift), marks);
    _mm256_blendv_epi8(x, multi, k1)
}

/// 8 values from the start of `values` (which must hold 8).
#[target_feature(enable = "avx2")]
#[inline]
fn load_u32(values: &[u32]) -> V {
    let values: &[u32; 8] = values[..8].try_into().expect("8 values");
    // SAFETY: `values` is 8 readable `u32`s = 32 bytes.
    unsafe { _mm256_loadu_si256(values.as_ptr().cast()) }
}

/// 16 values below 0x10000 as 16-bit words, in order: `a`'s in the low
/// half, `b`'s in the high. The pack interleaves 4-value groups of `a` and
/// `b`; a permute puts them back in order.
#[target_feature(enable = "avx2")]
#[inline]
fn to_words(a: V, b: V) -> V {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b))
}

/// Up to 8 values from the start of `values`; lanes past its end are zero.
#[target_feature(enable = "avx2")]
#[inline]
fn load_u32_masked(values: &[u32]) -> V {
    if values.len() >= 8 {
        return load_u32(values);
    }
    if values.is_empty() {
        // No load at all: an empty slice's pointer is dangling (0x4), and a
        // masked load whose masked-off lanes lie on an unmapped page takes
        // a microcode assist (measured: 64-byte encodes 0.9 GB/s, not 1.3).
        return _mm256_setzero_si256();
    }
    // All-ones in lanes 0..len (the load's mask is each lane's top bit).
    let mask = _mm256_cmpgt_epi32(
        _mm256_set1_epi32(values.len() as i32),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    );
    // SAFETY: a masked load reads only the lanes whose mask bit is set
    // (the others are not accessed and cannot fault): `values[..len]`.
    unsafe { _mm256_maskload_epi32(values.as_ptr().cast(), mask) }
}

/// Whether every lane of `v` (as unsigned) is below `limit`, a power of two.
#[target_feature(enable = "avx2")]
#[inline]
fn below(v: V, limit: u32) -> bool {
    _mm256_testz_si256(v, _mm256_set1_epi32(limit.wrapping_neg() as i32)) == 1
}

#[target_feature(enable = "avx2")]
#[inline]
fn low128(v: V) -> __m128i {
    _mm256_castsi256_si128(v)
}

#[target_feature(enable = "avx2")]
#[inline]
fn high128(v: V) -> __m128i {
    _mm256_extracti128_si256::<1>(v)
}

/// 32 ASCII values narrowed to bytes, stored at the start of `dst`.
#[target_feature(enable = "avx2")]
#[inline]
fn store_ascii32(dst: &mut [MaybeUninit<u8>], [a, b, c, d]: [V; 4]) {
    // Two packs leave each 128-bit lane holding 4 values of each register:
    // 32-bit groups [a0 b0 c0 d0 | a1 b1 c1 d1]; a permute restores order.
    let bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
    let bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    let dst: &mut [MaybeUninit<u8>; 32] = (&mut dst[..32]).try_into().expect("32 bytes");
    // SAFETY: `dst` is 32 writable bytes, the width of the store.
    unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), bytes) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64-byte blocks of text of every mix of character lengths, each at
    /// every rotation of its pattern (so characters straddle every window
    /// edge), and the positions where its characters start (and where the
    /// last whole one ends).
    fn blocks_of_text() -> Vec<([u8; 64], Vec<usize>)> {
        let lengths = ["a", "\u{e9}", "\u{20ac}", "\u{1F600}"];
        let mut out = Vec::new();
        for set in 1..16usize {
            let pattern: String = (0..4)
                .filter(|k| set >> k & 1 == 1)
                .map(|k| lengths[k])
                .collect();
            for rotation in 0..pattern.chars().count() {
                let chars: Vec<char> = pattern.chars().cycle().skip(rotation).take(64).collect();
                let text: String = chars.into_iter().collect();
                let mut block = [0u8; 64];
                block.copy_from_slice(&text.as_bytes()[..64]);
                let bounds = (0..=64).filter(|&i| text.is_char_boundary(i)).collect();
                out.push((block, bounds));
            }
        }
        out
    }

    #[test]
    fn decode_span_takes_exactly_the_characters_of_every_span() {
        if !Avx2::available() {
            eprintln!("no AVX2 on this CPU: nothing to test");
            return;
        }
        for (block, bounds) in blocks_of_text() {
            for (k, &from) in bounds.iter().enumerate() {
                for &to in &bounds[k..] {
                    if from == 64 {
                        continue;
                    }
                    let span = core::str::from_utf8(&block[from..to]).expect("whole characters");
                    let mut expected = vec![7];
                    expected.extend(span.chars().map(u32::from));
                    let mut got = vec![7];
                    // SAFETY: the CPU has AVX2 and the rest (`available`).
                    unsafe { Avx2::decode_span(&block, from, to, &mut got) };
                    assert_eq!(got, expected, "{:02x?} from {from} to {to}", &block[..]);
                }
            }
        }
    }
}
