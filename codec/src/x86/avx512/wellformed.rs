//! A block's well-formedness from bit masks, for the `avx512vbmi2`
//! decoders' clean blocks: where the validator's check ([`validator!`])
//! computes a class per byte from three table lookups on each byte and the
//! three before it, this asks two questions of the whole block at once
//! (RFC 3629 §4):
//!
//! * **structure**: the bytes that must be continuations (one after each
//!   lead of 2 or more bytes, a second after each of 3 or 4, a third after
//!   each of 4, and those a character open before the block still wants)
//!   are exactly the bytes that are: one `u64` per lead length, shifted
//!   and compared;
//! * **second bytes**: the ABNF narrows the byte after E0 (A0..BF), ED
//!   (80..9F), F0 (90..BF) and F4 (80..8F), and allows no byte after C0,
//!   C1 and F5..FF. Once the structure holds, that byte is a continuation,
//!   and adding a per-lead constant ([`SECOND`]) to it leaves a
//!   continuation exactly when the pair is allowed.
//!
//! It says only *whether* a block is well-formed, not where it first
//! fails: the decoders send a block it rejects to the validator's check,
//! which gives the exact position, so an error costs both checks and a
//! clean block only this one.
//!
//! [`validator!`]: crate::x86::validator

use super::{Avx512, N, V};
use core::arch::x86_64::*;

/// Per lead byte (C0..FF, by its low six bits, as `vpermb` indexes): what
/// to add to the byte after it, itself a continuation (80..BF), so that
/// the sum is a continuation exactly when the ABNF allows the pair:
///
/// * E0: −0x20, so 80..9F (overlong) become 60..7F, A0..BF 80..9F;
/// * ED: +0x20, so A0..BF (surrogates) become C0..DF, 80..9F A0..BF;
/// * F0: −0x10, so 80..8F (overlong) become 70..7F, 90..BF 80..AF;
/// * F4: +0x30, so 90..BF (above U+10FFFF) become C0..EF, 80..8F B0..BF;
/// * C0, C1, F5..FF: +0x40, so every continuation becomes C0..FF;
/// * the other leads: 0, every continuation allowed.
pub(crate) const SECOND: [u8; N] = {
    let mut t = [0u8; N];
    let mut i = 0;
    while i < N {
        t[i] = match 0xC0 + i {
            0xC0 | 0xC1 | 0xF5..=0xFF => 0x40,
            0xE0 => 0x20u8.wrapping_neg(),
            0xED => 0x20,
            0xF0 => 0x10u8.wrapping_neg(),
            0xF4 => 0x30,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// Byte `i`: `i + 1`, the `vpermt2b` control that shifts a block down by
/// one byte, the next block's first byte coming in at the top.
const ONE_ON: [u8; N] = {
    let mut t = [0u8; N];
    let mut i = 0;
    while i < N {
        t[i] = (i + 1) as u8;
        i += 1;
    }
    t
};

/// What [`Avx512::well_formed`] found of a block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Non-zero unless the block is well-formed (given what was open
    /// before it); which bits are set says nothing more.
    pub(crate) errors: u64,
    /// The continuations the block's last character still wants from the
    /// next block: bits 0 to 2, for the next block's first three bytes.
    pub(crate) carry: u64,
    /// The block's continuation bytes (80..BF): every other byte starts a
    /// character.
    pub(crate) continuations: u64,
    /// The bytes ≥ C0: the leads of 2 bytes or more (and C0, C1, F5..FF).
    /// This and the next two are the decoders' dispatch and lanes, taken
    /// from here rather than from compares of their own: on Intel, every
    /// 512-bit compare into a mask issues on the one port that also runs
    /// the decoders' permutes and compresses.
    pub(crate) two: u64,
    /// The bytes ≥ E0: the leads of 3 bytes or more.
    pub(crate) three: u64,
    /// The bytes ≥ F0: the leads of 4 bytes (and F5..FF).
    pub(crate) four: u64,
}

impl Shape {
    /// Whether the block is well-formed and leaves nothing open: the
    /// verdict on a last block, which nothing follows.
    #[inline]
    pub(crate) fn is_clean_end(self) -> bool {
        self.errors | self.carry == 0
    }
}

impl Avx512 {
    /// Whether the block `v` is well-formed ([module docs](self)), given
    /// the continuations due at its start (`carry`, bits 0 to 2: what the
    /// block before left open, its second byte already checked there) and
    /// `next`, the block after it (its first byte is the second byte of a
    /// character whose lead is `v`'s last byte; zero where there is none,
    /// which makes such a lead an error).
    ///
    /// A tail block zero-padded to 64 bytes is checked as it is: a
    /// character its end cuts wants a continuation where the padding has
    /// a zero, an error, so a tail that passes carries nothing.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    pub(crate) fn well_formed(v: V, next: V, carry: u64) -> Shape {
        let at_least = |b: u8| _mm512_cmpge_epu8_mask(v, Self::splat(b));
        let (non_ascii, lead2, lead3, lead4) = (
            _mm512_movepi8_mask(v),
            at_least(0xC0),
            at_least(0xE0),
            at_least(0xF0),
        );
        let continuations = non_ascii & !lead2;
        let due = lead2 << 1 | lead3 << 2 | lead4 << 3 | carry;
        // The byte after each, plus its lead's constant: as i8, a
        // continuation is below −64 (0x80..=0xBF).
        let seconds = _mm512_permutex2var_epi8(v, Self::load(&ONE_ON), next);
        let sums = _mm512_add_epi8(seconds, _mm512_permutexvar_epi8(v, Self::load(&SECOND)));
        let barred = _mm512_mask_cmpge_epi8_mask(lead2, sums, _mm512_set1_epi8(-64));
        Shape {
            errors: (continuations ^ due) | barred,
            carry: lead2 >> 63 | lead3 >> 62 | lead4 >> 61,
            continuations,
            two: lead2,
            three: lead3,
            four: lead4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mask check as a validator: block after block, each passing its
    /// carry to the next, nothing open at the end.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn validate_by_masks(bytes: &[u8]) -> bool {
        let block = |at: usize| match bytes.get(at..at + N) {
            Some(whole) => Avx512::load(whole.try_into().expect("N bytes")),
            None if at < bytes.len() => Avx512::load_tail(&bytes[at..]),
            None => Avx512::zero(),
        };
        let mut carry = 0;
        for at in (0..bytes.len()).step_by(N) {
            let shape = Avx512::well_formed(block(at), block(at + N), carry);
            if shape.errors != 0 {
                return false;
            }
            carry = shape.carry;
        }
        carry == 0
    }

    /// Bytes of every class the ABNF tells apart: ASCII, the edges of the
    /// narrowed second-byte ranges, every kind of lead, and the bytes that
    /// never occur.
    const KINDS: [u8; 27] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF,
    ];

    /// Exact both ways, held to `core::str::from_utf8`: a block it wrongly
    /// passed would let ill-formed input through the decoders, and one it
    /// wrongly failed would cost them the validator's check (not seen in
    /// their output, so tested here). Every 4 bytes of [`KINDS`] at each
    /// offset across a block edge and at the input's end, after ASCII and
    /// after 2-, 3- and 4-byte characters.
    #[test]
    fn passes_exactly_what_std_passes_across_block_edges() {
        if !Avx512::available_vbmi2() {
            eprintln!("no AVX-512 VBMI on this CPU: nothing to test");
            return;
        }
        for filler in ["x", "\u{e9}", "\u{20ac}", "\u{1F600}"] {
            let text: Vec<u8> = filler.repeat(128).into_bytes();
            for at in [60, 61, 62, 63, 64, 124, 125, 126, 127, 128] {
                // Whole characters of the filler before `at`, ASCII up to it.
                let mut head = text[..at].to_vec();
                while core::str::from_utf8(&head).is_err() {
                    head.pop();
                }
                head.resize(at, b'x');
                for tail in [&b""[..], b"yz"] {
                    let mut input = [&head[..], &[0; 4], tail].concat();
                    for a in KINDS {
                        for b in KINDS {
                            for c in KINDS {
                                for d in KINDS {
                                    input[at..at + 4].copy_from_slice(&[a, b, c, d]);
                                    let std = core::str::from_utf8(&input).is_ok();
                                    // SAFETY: `available_vbmi2` said so.
                                    let masks = unsafe { validate_by_masks(&input) };
                                    assert_eq!(masks, std, "{:02x?} at {at}", [a, b, c, d]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
