//! Structured inputs: valid text interleaved with targeted malformations.
//!
//! Random bytes rarely hit the interesting corners of UTF-8: a uniformly
//! random 4-byte string is a well-formed 4-byte sequence with probability
//! about 1 in 400, and an overlong 3-byte NUL never. [`Structured`] builds
//! inputs from [`Piece`]s that each aim at one class the RFC names — overlong
//! forms of a chosen scalar and length, surrogates, values above U+10FFFF in
//! 4-, 5- and 6-byte forms, impossible bytes, stray continuations, cut-off
//! sequences — behind 0–63 bytes of ASCII padding so errors land on every
//! SIMD block offset.
//!
//! The type implements [`arbitrary::Arbitrary`], so one definition serves
//! the cargo-fuzz targets (bytes from libFuzzer), the proptests (bytes from
//! proptest, see [`from_entropy`]) and `utf8conform diff` (bytes from a
//! seeded [`SplitMix64`]).
//!
//! Two more generators serve the audit: [`deep`] puts each error class
//! past every SIMD block edge up to 64 KiB, and [`reuse`] makes sequences
//! of inputs for one decoder object.

pub mod deep;
pub mod reuse;

use arbitrary::{Arbitrary, Unstructured};

/// A code point chosen to be interesting: mostly near the edges of the
/// encoding's ranges, sometimes anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar(pub char);

/// Values at and around every edge of RFC 3629 §3's table and the surrogate
/// gap, plus noncharacters, the BOM and U+FFFD.
const EDGE_SCALARS: &[u32] = &[
    0x0, 0x1, 0x2F, 0x41, 0x7E, 0x7F, 0x80, 0x81, 0xE9, 0x7FE, 0x7FF, 0x800, 0x801, 0xFFF, 0x1000,
    0xD7FF, 0xE000, 0xFDD0, 0xFDEF, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x10001, 0x3FFFF,
    0x40000, 0xFFFFF, 0x100000, 0x10FFFE, 0x10FFFF,
];

impl<'a> Arbitrary<'a> for Scalar {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Scalar> {
        let value = match u.int_in_range(0..=9u8)? {
            0..=2 => u32::from(u.int_in_range(0x20..=0x7Eu8)?),
            3 => *u.choose(EDGE_SCALARS)?,
            4 => u.int_in_range(0x80..=0x7FF)?,
            5 | 6 => u.int_in_range(0x800..=0xFFFF)?,
            7 => u.int_in_range(0x1_0000..=0x10_FFFF)?,
            8 => u.int_in_range(0x4E00..=0x9FFF)?, // CJK, common real text
            _ => u.int_in_range(0x1F300..=0x1FAFF)?, // emoji
        };
        // Surrogates are not chars; step over the gap.
        Ok(Scalar(char::from_u32(value).unwrap_or('\u{E000}')))
    }
}

/// One stretch of a structured input.
#[derive(Clone, Debug, PartialEq, Eq, Arbitrary)]
pub enum Piece {
    /// Well-formed text.
    Text(Vec<Scalar>),
    /// `value` (< 0x10000) encoded in `extra` (1–3) more bytes than it needs
    /// — a non-shortest form (RFC 3629 §10).
    Overlong {
        /// The value to encode.
        value: u16,
        /// How many bytes more than the shortest form, reduced into 1..=3.
        extra: u8,
    },
    /// A surrogate code point encoded as three bytes (CESU-8 style, §3).
    Surrogate(u16),
    /// A supplementary character written as a CESU-8 surrogate pair, the
    /// RFC §3 example of what must not decode.
    CesuPair(Scalar),
    /// A value above U+10FFFF in RFC 2279's 4-, 5- or 6-byte form.
    AboveMax {
        /// Reduced into 0x110000..=0x7FFFFFFF.
        value: u32,
    },
    /// A byte that can never appear in UTF-8: C0, C1, F5–FF.
    Impossible(u8),
    /// 1–8 continuation bytes with nothing to continue.
    Continuations(Vec<u8>),
    /// A multi-byte sequence cut short by `cut` bytes, then whatever follows.
    Truncated {
        /// The character to cut.
        scalar: Scalar,
        /// How many of its bytes to drop from the end (reduced into range).
        cut: u8,
    },
    /// Raw bytes, for everything the other pieces do not aim at.
    Raw(Vec<u8>),
}

/// The bytes of `value` in an `len`-byte sequence of RFC 2279's pattern
/// (1 ≤ len ≤ 6), whether or not that is the shortest form or even a legal
/// value: this is how overlongs and out-of-range forms are made.
///
/// ```
/// use utf8conform::generate::encode_any;
/// assert_eq!(encode_any(0x2F, 2), [0xC0, 0xAF]); // RFC §10's overlong "/"
/// assert_eq!(encode_any(0, 3), [0xE0, 0x80, 0x80]);
/// assert_eq!(encode_any(0x7FFF_FFFF, 6), [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]);
/// ```
///
/// # Panics
/// If `len` is 0 or above 6, or `value` does not fit in `len` bytes.
pub fn encode_any(value: u32, len: usize) -> Vec<u8> {
    assert!(
        (1..=6).contains(&len),
        "sequence length {len} outside 1..=6"
    );
    if len == 1 {
        assert!(value < 0x80, "{value:#x} needs more than one byte");
        return vec![value as u8];
    }
    // The lead carries 7 - len bits, each tail 6.
    let payload_bits = (7 - len) + 6 * (len - 1);
    assert!(
        payload_bits >= 32 || value >> payload_bits == 0,
        "{value:#x} does not fit in {len} bytes"
    );
    let mut bytes = vec![0u8; len];
    let mut v = value;
    for b in bytes[1..].iter_mut().rev() {
        *b = 0x80 | (v & 0x3F) as u8;
        v >>= 6;
    }
    let marker = (0xFF00u16 >> len) as u8; // len high-order 1 bits
    bytes[0] = marker | v as u8;
    bytes
}

/// Shortest-form length of `value` under RFC 2279's 6-byte scheme (its
/// §2 table), the length [`encode_any`] needs for the value's shortest
/// form.
///
/// ```
/// use utf8conform::generate::{encode_any, natural_len};
/// assert_eq!(natural_len(0x7FF), 2);
/// assert_eq!(encode_any(0x4000000, natural_len(0x4000000)).len(), 6);
/// ```
pub fn natural_len(value: u32) -> usize {
    match value {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    }
}

impl Piece {
    /// Appends this piece's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Piece::Text(scalars) => {
                for s in scalars {
                    out.extend_from_slice(s.0.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            Piece::Overlong { value, extra } => {
                let value = u32::from(*value);
                let len = (natural_len(value) + 1 + usize::from(*extra % 3)).min(6);
                out.extend(encode_any(value, len));
            }
            Piece::Surrogate(s) => out.extend(encode_any(0xD800 | u32::from(*s & 0x7FF), 3)),
            Piece::CesuPair(Scalar(c)) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.extend(encode_any(u32::from(*unit), natural_len(u32::from(*unit))));
                }
            }
            Piece::AboveMax { value } => {
                let value = 0x11_0000 + value % (0x8000_0000 - 0x11_0000);
                out.extend(encode_any(value, natural_len(value)));
            }
            Piece::Impossible(b) => {
                const NEVER: [u8; 13] = [
                    0xC0, 0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
                ];
                out.push(NEVER[usize::from(*b) % NEVER.len()]);
            }
            Piece::Continuations(bytes) => {
                let n = bytes.len().clamp(1, 8);
                out.extend((0..n).map(|i| 0x80 | (bytes.get(i).copied().unwrap_or(0) & 0x3F)));
            }
            Piece::Truncated { scalar, cut } => {
                let mut buf = [0; 4];
                let full = scalar.0.encode_utf8(&mut buf).as_bytes();
                if full.len() > 1 {
                    let keep = full.len() - 1 - usize::from(*cut) % (full.len() - 1);
                    out.extend_from_slice(&full[..keep]);
                } else {
                    out.push(0xE2); // a 1-byte char cannot be cut: use a bare lead
                }
            }
            Piece::Raw(bytes) => out.extend(bytes.iter().take(16)),
        }
    }
}

/// An input: ASCII padding, then pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// 0–63 bytes of ASCII in front (reduced mod 64), to move every later
    /// byte across SIMD block offsets.
    pub padding: u8,
    /// The content.
    pub pieces: Vec<Piece>,
}

/// At most this many pieces per input: enough for interactions between
/// neighbouring malformations, few enough to keep inputs short.
const MAX_PIECES: usize = 24;

impl<'a> Arbitrary<'a> for Structured {
    /// Pieces are drawn until the entropy runs out (or up to a cap), so
    /// more entropy means more pieces, and a fuzzer's mutations of any byte
    /// change the input rather than being ignored.
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Structured> {
        let padding = u.arbitrary()?;
        let mut pieces = Vec::new();
        while !u.is_empty() && pieces.len() < MAX_PIECES {
            pieces.push(u.arbitrary()?);
        }
        Ok(Structured { padding, pieces })
    }
}

impl Structured {
    /// The input's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![b'.'; usize::from(self.padding % 64)];
        for piece in &self.pieces {
            piece.write(&mut out);
        }
        out
    }
}

/// Builds a structured input from arbitrary bytes (for proptest, which
/// shrinks the bytes, and for replaying fuzzer inputs).
pub fn from_entropy(entropy: &[u8]) -> Vec<u8> {
    Structured::arbitrary(&mut Unstructured::new(entropy))
        .map(|s| s.to_bytes())
        .unwrap_or_default()
}

/// Well-formed text only, built from arbitrary bytes: exercises the valid
/// path (decoded scalars, the ASCII/multi-byte transitions) at full length.
pub fn valid_text(entropy: &[u8]) -> Vec<u8> {
    let mut u = Unstructured::new(entropy);
    let mut out = Vec::new();
    while let (false, Ok(Scalar(c))) = (u.is_empty(), Scalar::arbitrary(&mut u)) {
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    out
}

/// SplitMix64: a tiny, well-known, seedable generator; enough to turn a seed
/// into entropy for [`Unstructured`] reproducibly on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`, for test data: the modulo bias is below 2⁻³²
    /// for every `n` below 2³².
    ///
    /// # Panics
    /// If `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

/// The `index`-th input of the campaign seeded with `seed`: mostly
/// structured, one in eight raw random bytes. Deterministic in
/// `(seed, index)`, so any input of a run can be regenerated alone.
pub fn campaign_input(seed: u64, index: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407));
    let kind = rng.next_u64();
    let len = 8 + (rng.next_u64() % 248) as usize;
    let entropy = rng.bytes(len);
    match kind % 8 {
        0 => entropy,
        1 => valid_text(&entropy),
        _ => from_entropy(&entropy),
    }
}

/// Split points for a chunked decode of an `len`-byte input, deterministic
/// in `(seed, index)`.
pub fn campaign_splits(seed: u64, index: u64, len: usize) -> Vec<usize> {
    let mut rng = SplitMix64::new(!seed ^ index.wrapping_mul(0x9FB2_1C65_1E98_DF25));
    let count = (rng.next_u64() % 5) as usize;
    (0..count)
        .map(|_| (rng.next_u64() % (len as u64 + 1)) as usize)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    #[test]
    fn overlongs_are_rejected_and_marked_as_such() {
        for value in [0u16, 0x2F, 0x7F, 0x7FF, 0xFFFF] {
            for extra in 0..3 {
                let mut out = Vec::new();
                Piece::Overlong { value, extra }.write(&mut out);
                assert!(out.len() > natural_len(u32::from(value)));
                assert!(reference::validate(&out).is_err(), "{out:02x?}");
            }
        }
    }

    #[test]
    fn every_malformation_piece_is_ill_formed() {
        let pieces = [
            Piece::Surrogate(0),
            Piece::Surrogate(0x7FF),
            Piece::CesuPair(Scalar('\u{233B4}')),
            Piece::AboveMax { value: 0 },
            Piece::AboveMax { value: u32::MAX },
            Piece::Impossible(0),
            Piece::Impossible(12),
            Piece::Continuations(vec![0x3F; 20]),
            Piece::Truncated {
                scalar: Scalar('€'),
                cut: 0,
            },
            Piece::Truncated {
                scalar: Scalar('\u{10FFFF}'),
                cut: 2,
            },
        ];
        for piece in pieces {
            let mut out = Vec::new();
            piece.write(&mut out);
            assert!(reference::validate(&out).is_err(), "{piece:?} → {out:02x?}");
        }
        // The §3 CESU-8 example exactly.
        let mut out = Vec::new();
        Piece::CesuPair(Scalar('\u{233B4}')).write(&mut out);
        assert_eq!(out, [0xED, 0xA1, 0x8C, 0xED, 0xBE, 0xB4]);
    }

    #[test]
    fn campaign_inputs_are_reproducible_and_varied() {
        assert_eq!(campaign_input(7, 3), campaign_input(7, 3));
        let inputs: Vec<Vec<u8>> = (0..200).map(|i| campaign_input(1, i)).collect();
        let invalid = inputs
            .iter()
            .filter(|i| reference::validate(i).is_err())
            .count();
        // Mostly, but not only, ill-formed: both sides of the RFC get exercised.
        assert!(invalid > 120 && invalid < 190, "{invalid} of 200 invalid");
        assert!(reference::validate(&valid_text(&[7; 100])).is_ok());
    }
}
