//! Decoding well-formed text to UTF-32 with 128-bit byte shuffles (SSSE3):
//! the `decode_valid` of the SSE4.1 and AVX2 kernels, which have no
//! compress instructions.
//!
//! **The step.** Text is taken in 64-byte blocks. For each block, one
//! mask marks the bytes that start a character (every byte but a
//! continuation, 0x80..=0xBF). A step stands at a character boundary `pos`
//! and reads the mask's 12 bits after it: they say where the next
//! characters start, so they alone fix which bytes form each of the
//! characters that end within 12 bytes. [`STEPS`] holds, for each of the
//! 4096 keys, a `pshufb` control that gathers up to four of those
//! characters into 32-bit lanes (last byte lowest, lead byte highest), and
//! how many characters and bytes that is. Four 3-byte characters (CJK) fill
//! a step; 4-byte ones take three.
//!
//! **The arithmetic.** Each gathered byte keeps its payload bits: an AND
//! with a mask looked up by its high nibble (0x7F for ASCII, 0x3F for a
//! continuation, 0x1F/0x0F/0x07 for a 2/3/4-byte lead, RFC 3629 §3's table
//! of `x` bits). Then `maddubs` joins byte pairs (`b0 + 64·b1`) and `madd`
//! joins the pairs (`w0 + 4096·w1`): the scalar value, `b0 | b1 << 6 | b2
//! << 12 | b3 << 18`.
//!
//! **The dependency chain.** The next step's key depends on this step's
//! byte count, a table load: the mask is computed once per block, not per
//! step, so the chain is a shift, a load and an add. Blocks of ASCII skip
//! the table and are widened whole.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// One step's `pshufb` control, aligned for a single load.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Step {
    shuffle: [u8; 16],
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

/// Per high nibble, the payload bits of a byte with that nibble: ASCII
/// 0x7F, continuation 0x3F, 2-, 3-, 4-byte lead 0x1F, 0x0F, 0x07 (and 0 for
/// the zero bytes of unused lane positions, whose nibble is 0: 0 & 0x7F).
const PAYLOAD: [u8; 16] = [
    0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x3F, 0x3F, 0x3F, 0x3F, 0x1F, 0x1F, 0x0F, 0x07,
];

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

/// Appends the code points of `text` to `out`, a step of up to four
/// characters at a time. `masks` gives a block's non-ASCII bytes and its
/// character starts (bit `i` for byte `i`); `widen` stores the 64 code
/// points of a block of ASCII (the kernel's widest stores). The last bytes
/// (less than a block) take the scalar loop.
#[target_feature(enable = "ssse3,sse4.1")]
#[inline]
pub(super) fn decode_valid(
    text: &str,
    out: &mut Vec<u32>,
    masks: impl Fn(&[u8; 64]) -> (u64, u64),
    widen: impl Fn(&[u8; 64], &mut [MaybeUninit<u32>; 64]),
) {
    let bytes = text.as_bytes();
    // One lane per byte at most; every store lies within it (see below).
    out.reserve(bytes.len());
    let base = out.len();
    let dst = &mut out.spare_capacity_mut()[..bytes.len()];
    let mut at = 0;
    let mut written = 0;
    // Invariant: `at` is a character boundary and `written` ≤ `at` (one
    // code point per character, each at least a byte).
    while let Some(block) = bytes.get(at..at + 64) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        let (non_ascii, starts) = masks(block);
        if non_ascii == 0 {
            let lanes: &mut [MaybeUninit<u32>; 64] = (&mut dst[written..written + 64])
                .try_into()
                .expect("64 lanes");
            widen(block, lanes);
            at += 64;
            written += 64;
            continue;
        }
        // Steps while the 16 bytes at `pos` and the 12 mask bits after it
        // lie in the block. A step takes at least one character (every key
        // of well-formed text has a start within 4 bytes) and stores at
        // most 16 lanes at `written` ≤ `at + pos`: they end before `at +
        // pos + 16` ≤ the input's length, within `dst`.
        let mut pos = 0;
        while pos <= 48 {
            let window: &[u8; 16] = block[pos..pos + 16].try_into().expect("16 bytes");
            // SAFETY: `window` is 16 readable bytes.
            let window = unsafe { _mm_loadu_si128(window.as_ptr().cast()) };
            if (non_ascii >> pos) as u16 == 0 {
                // 16 ASCII bytes (text with a few accents is mostly runs).
                let lanes: &mut [MaybeUninit<u32>; 16] = (&mut dst[written..written + 16])
                    .try_into()
                    .expect("16 lanes");
                widen16(window, lanes);
                pos += 16;
                written += 16;
                continue;
            }
            let key = (starts >> (pos + 1)) as usize & 0xFFF;
            let counts = COUNTS[key];
            debug_assert!(counts != 0, "no character ends within 12 bytes");
            // SAFETY: the control is an aligned 16-byte static.
            let control = unsafe { _mm_load_si128(STEPS[key].shuffle.as_ptr().cast()) };
            let values = scalars(_mm_shuffle_epi8(window, control));
            let lanes = &mut dst[written..written + 4];
            // SAFETY: `lanes` is 4 writable u32 lanes (16 bytes); `storeu`
            // has no alignment requirement.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), values) };
            pos += usize::from(counts & 0x0F);
            written += usize::from(counts >> 4);
        }
        at += pos;
    }
    // SAFETY: the first `written` lanes of the spare capacity hold the code
    // points of `bytes[..at]` (every step wrote the lanes it counted).
    unsafe { out.set_len(base + written) };
    // `at` is a boundary of the `&str`.
    super::super::decode::decode_valid_scalar(&text[at..], out);
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
