//! `pshufb` controls that pack UTF-8 bytes built in fixed-width slots to
//! the front of a 16-byte register, and the store that follows: the
//! encoders' last step, shared by the AVX-512 and AVX2 kernels (both pack
//! one 128-bit lane at a time where they have no byte compress) and the
//! SSE4.1 kernel's UTF-16 encoder.

use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_shuffle_epi8, _mm_storeu_si128};
use core::mem::MaybeUninit;

/// A `pshufb` control, aligned so that loading it never splits a cache
/// line.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(super) struct Control(pub(super) [u8; 16]);

/// A packing table: for each 4-slot key (2 bits per 4-byte slot, a code
/// that `lens` maps to the slot's byte count), the `pshufb` control that
/// packs each slot's bytes to the front, in order, and the byte count
/// (apart: 17-byte rows put a quarter of the controls across two cache
/// lines). A slot's bytes are its first ones (`end` `None`) or those that
/// end at byte `end` of the slot (the encoders that build a character
/// flush against the end of its slot, with no choice per length of where
/// its first byte goes).
const fn packing(lens: [usize; 4], end: Option<usize>) -> ([Control; 256], [u8; 256]) {
    let mut controls = [Control([0x80u8; 16]); 256];
    let mut counts = [0u8; 256];
    let mut key = 0;
    while key < 256 {
        let mut pos = 0;
        let mut slot = 0;
        while slot < 4 {
            let len = lens[(key >> (2 * slot)) & 3];
            let mut b = match end {
                Some(end) => end - len,
                None => 0,
            };
            let last = b + len;
            while b < last {
                controls[key].0[pos] = (4 * slot + b) as u8;
                pos += 1;
                b += 1;
            }
            slot += 1;
        }
        counts[key] = pos as u8;
        key += 1;
    }
    (controls, counts)
}

/// For each 4-lane key (2 bits per lane: length − 1), the control that
/// packs the lanes' UTF-8 bytes, each lane's from its first byte.
pub(super) static COMPACT: ([Control; 256], [u8; 256]) = packing([1, 2, 3, 4], None);

/// For each 4-slot key (2 bits per slot: bit 0 set for a character of 2
/// or 3 bytes, bit 1 for one of 3), the control that packs the bytes each
/// 4-byte slot ends its first three with: the last 1, 2 or 3 of them (the
/// BMP encoders'). (Key bits `10`, a 3-byte character that is not 2-or-3,
/// never occur; they keep 2 bytes.)
pub(super) static TAIL3: ([Control; 256], [u8; 256]) = packing([1, 2, 2, 3], Some(3));

/// For each 4-slot key (2 bits per slot: length − 1), the control that
/// packs the last 1 to 4 bytes of each 4-byte slot: [`TAIL3`] for
/// characters of every length (the SSE4.1 UTF-32 encoder's).
pub(super) static TAIL4: ([Control; 256], [u8; 256]) = packing([1, 2, 3, 4], Some(4));

/// The bits of `n` (8 at most) spread to the even bits: bit `i` to bit
/// `2i`.
const fn spread(n: usize) -> u16 {
    let mut out = 0;
    let mut i = 0;
    while i < 8 {
        out |= ((n >> i & 1) << (2 * i)) as u16;
        i += 1;
    }
    out
}

/// Bits 0..4 of a nibble spread to bits 0, 2, 4, 6.
pub(super) const SPREAD: [u8; 16] = {
    let mut t = [0; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = spread(n) as u8;
        n += 1;
    }
    t
};

/// [`SPREAD`] of a byte: its 8 bits to the even bits of a word.
pub(super) static SPREAD_BYTE: [u16; 256] = {
    let mut t = [0; 256];
    let mut n = 0;
    while n < 256 {
        t[n] = spread(n);
        n += 1;
    }
    t
};

/// For each 8-bit key (bit `i`: word `i` holds a 2-byte character), the
/// `pshufb` control that packs 8 words to their UTF-8 bytes. A word is a
/// value below 0x800 as UTF-8, first byte low: both bytes are kept for a
/// 2-byte character, the low byte (the value) for an ASCII one. The count
/// is `8 + key.count_ones()`.
pub(super) static COMPACT2: [Control; 256] = {
    let mut t = [Control([0x80u8; 16]); 256];
    let mut key = 0;
    while key < 256 {
        let mut pos = 0;
        let mut word = 0;
        while word < 8 {
            t[key].0[pos] = (2 * word) as u8;
            pos += 1;
            if key >> word & 1 == 1 {
                t[key].0[pos] = (2 * word + 1) as u8;
                pos += 1;
            }
            word += 1;
        }
        key += 1;
    }
    t
};

/// The control for 4 lanes of 3-byte characters: every lane's fourth
/// byte dropped, 12 bytes packed to the front.
pub(super) const THREE: [u8; 16] = [
    0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80,
];

/// Stores `v` at the start of `dst` (16 bytes; SSE2, which every x86-64
/// CPU has).
#[inline]
pub(super) fn store16(dst: &mut [MaybeUninit<u8>], v: __m128i) {
    let dst: &mut [MaybeUninit<u8>; 16] = (&mut dst[..16]).try_into().expect("16 bytes");
    // SAFETY: `dst` is 16 writable bytes, the width of the store.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
}

/// Packs the 4 slots of `lane` by [`COMPACT`]'s row `key` and stores the
/// bytes at the start of `dst` (a 16-byte store); returns how many it
/// keeps.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn store_compact_lane(dst: &mut [MaybeUninit<u8>], lane: __m128i, key: usize) -> usize {
    let (control, count) = (&COMPACT.0[key].0, COMPACT.1[key]);
    // SAFETY: `control` is 16 readable bytes.
    let control = unsafe { _mm_loadu_si128(control.as_ptr().cast()) };
    store16(dst, _mm_shuffle_epi8(lane, control));
    usize::from(count)
}

/// Packs the 8 words of `half` by [`COMPACT2`]'s row `key` and stores the
/// bytes at the start of `dst` (a 16-byte store); returns how many it
/// keeps.
#[target_feature(enable = "sse4.1,ssse3,popcnt")]
#[inline]
pub(super) fn store_compact2(dst: &mut [MaybeUninit<u8>], half: __m128i, key: u8) -> usize {
    // SAFETY: a table row is 16 readable bytes.
    let control = unsafe { _mm_loadu_si128(COMPACT2[usize::from(key)].0.as_ptr().cast()) };
    store16(dst, _mm_shuffle_epi8(half, control));
    8 + key.count_ones() as usize
}
