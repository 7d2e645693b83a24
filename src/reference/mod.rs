//! The reference decoder: RFC 3629 §4, rule by rule.
//!
//! This module is the harness's definition of "correct". It is written to be
//! checked against the RFC by eye, not to be fast. The grammar it transcribes
//! (RFC 3629 §4, "Syntax of UTF-8 Byte Sequences") is:
//!
//! ```text
//! UTF8-octets = *( UTF8-char )
//! UTF8-char   = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
//! UTF8-1      = %x00-7F
//! UTF8-2      = %xC2-DF UTF8-tail
//! UTF8-3      = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
//!               %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
//! UTF8-4      = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
//!               %xF4 %x80-8F 2( UTF8-tail )
//! UTF8-tail   = %x80-BF
//! ```
//!
//! [`first_sequence`] has one match arm per alternative of `UTF8-char`, each
//! quoting its rule and spelling the alternative as the list of byte ranges
//! the RFC writes. Scalar values are assembled as §3 describes ("distribute
//! the bits … first the lower-order bits from the last octet"), and
//! [`encode`] fills in §3's table row by row.
//!
//! ## How `error_len` is derived
//!
//! Unicode §3.9 (D93b) defines the *maximal subpart* at an offset as the
//! longest prefix of a well-formed sequence starting there, or one byte if
//! there is none. Every alternative of `UTF8-char` begins with its own set of
//! lead bytes (the sets are disjoint), so at most one alternative can start at
//! a given byte, and the maximal subpart is exactly *how many of that
//! alternative's ranges matched before the first byte that did not*. A lead
//! byte that starts no alternative (80–BF, C0, C1, F5–FF) is a maximal subpart
//! of one byte. If the input ends before the alternative is complete, more
//! bytes could still complete it: that is `error_len() == None`.
//!
//! Replacement (lossy decoding) follows from the same matching: each maximal
//! subpart becomes one U+FFFD and decoding resumes after it (Unicode §3.9,
//! "U+FFFD Substitution of Maximal Subparts"; the WHATWG Encoding Standard
//! requires the same).
//!
//! ## What it deliberately does not do
//!
//! No lookup tables, no bit tricks beyond §3's own, no `unsafe`, no SIMD, no
//! fast path for ASCII. It allocates freely. It does not treat noncharacters
//! (U+FFFE, U+FDD0, …) or U+FEFF specially: the RFC's grammar accepts them,
//! and §6 says a BOM is a character like any other, not to be stripped.

pub mod stream;
pub mod utf16;
pub mod variants;

use crate::outcome::{EncodeError, Utf8Error, REPLACEMENT};
use std::ops::RangeInclusive;

/// `UTF8-tail = %x80-BF`
const UTF8_TAIL: RangeInclusive<u8> = 0x80..=0xBF;

/// What the bytes at the start of an input are, according to `UTF8-char`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequence {
    /// A complete, well-formed `UTF8-char` of `len` bytes encoding `scalar`.
    Char {
        /// The decoded scalar value.
        scalar: char,
        /// 1 to 4.
        len: usize,
    },
    /// An ill-formed sequence whose maximal subpart is `subpart` bytes (1–3).
    IllFormed {
        /// Length of the maximal subpart.
        subpart: usize,
    },
    /// All `len` remaining bytes are a proper prefix of a `UTF8-char`: the
    /// input ended in the middle of a sequence.
    Incomplete {
        /// How many bytes remain (1–3).
        len: usize,
    },
}

/// Matches `UTF8-char` at the start of `input` (which must not be empty).
///
/// ```
/// use utf8conform::reference::{first_sequence, Sequence};
/// assert_eq!(first_sequence(b"\xE2\x82\xAC!"), Sequence::Char { scalar: '€', len: 3 });
/// // ED A0 80 would be U+D800, a surrogate: %xED allows only %x80-9F next.
/// assert_eq!(first_sequence(b"\xED\xA0\x80"), Sequence::IllFormed { subpart: 1 });
/// assert_eq!(first_sequence(b"\xF0\x90\x80"), Sequence::Incomplete { len: 3 });
/// ```
///
/// # Panics
/// If `input` is empty.
pub fn first_sequence(input: &[u8]) -> Sequence {
    assert!(!input.is_empty(), "first_sequence needs at least one byte");
    match input[0] {
        // UTF8-1      = %x00-7F
        0x00..=0x7F => alternative(input, &[0x00..=0x7F]),

        // UTF8-2      = %xC2-DF UTF8-tail
        0xC2..=0xDF => alternative(input, &[0xC2..=0xDF, UTF8_TAIL]),

        // UTF8-3      = %xE0 %xA0-BF UTF8-tail
        0xE0 => alternative(input, &[0xE0..=0xE0, 0xA0..=0xBF, UTF8_TAIL]),
        //             / %xE1-EC 2( UTF8-tail )
        0xE1..=0xEC => alternative(input, &[0xE1..=0xEC, UTF8_TAIL, UTF8_TAIL]),
        //             / %xED %x80-9F UTF8-tail
        0xED => alternative(input, &[0xED..=0xED, 0x80..=0x9F, UTF8_TAIL]),
        //             / %xEE-EF 2( UTF8-tail )
        0xEE..=0xEF => alternative(input, &[0xEE..=0xEF, UTF8_TAIL, UTF8_TAIL]),

        // UTF8-4      = %xF0 %x90-BF 2( UTF8-tail )
        0xF0 => alternative(input, &[0xF0..=0xF0, 0x90..=0xBF, UTF8_TAIL, UTF8_TAIL]),
        //             / %xF1-F3 3( UTF8-tail )
        0xF1..=0xF3 => alternative(input, &[0xF1..=0xF3, UTF8_TAIL, UTF8_TAIL, UTF8_TAIL]),
        //             / %xF4 %x80-8F 2( UTF8-tail )
        0xF4 => alternative(input, &[0xF4..=0xF4, 0x80..=0x8F, UTF8_TAIL, UTF8_TAIL]),

        // No alternative of UTF8-char begins with a UTF8-tail byte (80–BF),
        // with C0 or C1 (only overlong 2-byte forms start there), or with
        // F5–FF (above U+10FFFF, or RFC 2279's retired 5- and 6-byte forms).
        0x80..=0xBF | 0xC0 | 0xC1 | 0xF5..=0xFF => Sequence::IllFormed { subpart: 1 },
    }
}

/// Matches one alternative — a concatenation of byte ranges, the first of
/// which the lead byte is already known to match — against `input`.
fn alternative(input: &[u8], ranges: &[RangeInclusive<u8>]) -> Sequence {
    for (matched, range) in ranges.iter().enumerate() {
        match input.get(matched) {
            // The input ended after `matched` bytes, all of which fit: more
            // bytes could complete the sequence.
            None => return Sequence::Incomplete { len: matched },
            Some(byte) if range.contains(byte) => {}
            // `matched` ≥ 1 bytes fit (the lead byte always does): they are
            // the maximal subpart, see the module documentation.
            Some(_) => return Sequence::IllFormed { subpart: matched },
        }
    }
    let bytes = &input[..ranges.len()];
    Sequence::Char {
        scalar: scalar_from_bits(bytes),
        len: bytes.len(),
    }
}

/// RFC 3629 §3, "Decoding a UTF-8 character": the x bits of the lead octet
/// (the bits after its `n` high-order 1s and the 0 that follows them, or
/// the low 7 bits of a one-octet sequence), then six bits from each
/// following octet, lowest-order bits last.
fn scalar_from_bits(bytes: &[u8]) -> char {
    let lead_bits = match bytes.len() {
        1 => bytes[0] & 0b0111_1111, // 0xxxxxxx
        2 => bytes[0] & 0b0001_1111, // 110xxxxx
        3 => bytes[0] & 0b0000_1111, // 1110xxxx
        _ => bytes[0] & 0b0000_0111, // 11110xxx
    };
    let value = bytes[1..].iter().fold(u32::from(lead_bits), |acc, &tail| {
        (acc << 6) | u32::from(tail & 0b0011_1111) // 10xxxxxx
    });
    // The grammar admits only shortest forms of U+0000..U+10FFFF outside the
    // surrogates, so this cannot fail for a sequence `alternative` accepted.
    char::from_u32(value).expect("the §4 grammar only admits scalar values")
}

/// Decodes `bytes` strictly: every scalar value, or the first error.
///
/// ```
/// use utf8conform::reference;
/// // RFC 3629 §7: "한국어" is encoded as ED 95 9C EA B5 AD EC 96 B4.
/// let text = reference::decode(b"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4").unwrap();
/// assert_eq!(text, ['\u{D55C}', '\u{AD6D}', '\u{C5B4}']);
/// // RFC 3629 §10: the overlong "/" in 2F C0 AE 2E 2F must be rejected.
/// let err = reference::decode(b"\x2F\xC0\xAE\x2E\x2F").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (1, Some(1)));
/// ```
pub fn decode(bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
    let mut chars = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match first_sequence(&bytes[at..]) {
            Sequence::Char { scalar, len } => {
                chars.push(scalar);
                at += len;
            }
            Sequence::IllFormed { subpart } => {
                return Err(Utf8Error::new(at, Some(subpart as u8)));
            }
            Sequence::Incomplete { .. } => return Err(Utf8Error::new(at, None)),
        }
    }
    Ok(chars)
}

/// Checks `bytes` against `UTF8-octets = *( UTF8-char )`: the same walk as
/// [`decode`], without collecting the characters.
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    let mut at = 0;
    while at < bytes.len() {
        match first_sequence(&bytes[at..]) {
            Sequence::Char { len, .. } => at += len,
            Sequence::IllFormed { subpart } => {
                return Err(Utf8Error::new(at, Some(subpart as u8)));
            }
            Sequence::Incomplete { .. } => return Err(Utf8Error::new(at, None)),
        }
    }
    Ok(())
}

/// Decodes `bytes`, replacing each maximal subpart of an ill-formed sequence
/// (and an incomplete sequence at the end) with one U+FFFD.
///
/// ```
/// use utf8conform::reference;
/// // Unicode §3.9, table 3-8's pattern: F1 80 80 is one maximal subpart,
/// // E1 80 another, C2 a third; 41 is decoded.
/// let lossy = reference::decode_lossy(b"\xF1\x80\x80\xE1\x80\xC2\x41");
/// assert_eq!(lossy, ['\u{FFFD}', '\u{FFFD}', '\u{FFFD}', 'A']);
/// ```
pub fn decode_lossy(bytes: &[u8]) -> Vec<char> {
    let mut chars = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match first_sequence(&bytes[at..]) {
            Sequence::Char { scalar, len } => {
                chars.push(scalar);
                at += len;
            }
            Sequence::IllFormed { subpart: len } | Sequence::Incomplete { len } => {
                chars.push(REPLACEMENT);
                at += len;
            }
        }
    }
    chars
}

/// Encodes one scalar value, filling in RFC 3629 §3's table:
///
/// ```text
/// Char. number range  |        UTF-8 octet sequence
///    (hexadecimal)    |              (binary)
/// --------------------+---------------------------------------------
/// 0000 0000-0000 007F | 0xxxxxxx
/// 0000 0080-0000 07FF | 110xxxxx 10xxxxxx
/// 0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
/// 0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
/// ```
///
/// Surrogates are refused ("The definition of UTF-8 prohibits encoding
/// character numbers between U+D800 and U+DFFF"), and so is everything past
/// the table's last row.
///
/// ```
/// use utf8conform::{reference, outcome::EncodeError};
/// assert_eq!(reference::encode(0x10FFFF), Ok(vec![0xF4, 0x8F, 0xBF, 0xBF]));
/// assert_eq!(reference::encode(0xD800), Err(EncodeError::Surrogate));
/// assert_eq!(reference::encode(0x110000), Err(EncodeError::OutOfRange));
/// ```
pub fn encode(scalar: u32) -> Result<Vec<u8>, EncodeError> {
    /// `10xxxxxx` filled with the six bits of `scalar` starting at `shift`.
    fn tail(scalar: u32, shift: u32) -> u8 {
        0b1000_0000 | ((scalar >> shift) & 0b0011_1111) as u8
    }
    match scalar {
        0xD800..=0xDFFF => Err(EncodeError::Surrogate),
        // 0000 0000-0000 007F | 0xxxxxxx
        0x0000..=0x007F => Ok(vec![scalar as u8]),
        // 0000 0080-0000 07FF | 110xxxxx 10xxxxxx
        0x0080..=0x07FF => Ok(vec![0b1100_0000 | (scalar >> 6) as u8, tail(scalar, 0)]),
        // 0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
        0x0800..=0xFFFF => Ok(vec![
            0b1110_0000 | (scalar >> 12) as u8,
            tail(scalar, 6),
            tail(scalar, 0),
        ]),
        // 0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
        0x1_0000..=0x10_FFFF => Ok(vec![
            0b1111_0000 | (scalar >> 18) as u8,
            tail(scalar, 12),
            tail(scalar, 6),
            tail(scalar, 0),
        ]),
        _ => Err(EncodeError::OutOfRange),
    }
}

#[cfg(test)]
mod tests {
    //! Expectations here are written by hand from RFC 3629 and Unicode §3.9,
    //! never computed by the code under test. The broad checks (every input
    //! of up to three bytes against std, proptest on arbitrary bytes) live in
    //! `tests/`.
    use super::*;

    fn err(bytes: &[u8]) -> (usize, Option<u8>) {
        let e = decode(bytes).expect_err("input should be rejected");
        (e.valid_up_to(), e.error_len())
    }

    #[test]
    fn rfc_section_7_examples_decode_to_the_given_characters() {
        // "A<NOT IDENTICAL TO><ALPHA>." → 41 E2 89 A2 CE 91 2E
        assert_eq!(
            decode(&[0x41, 0xE2, 0x89, 0xA2, 0xCE, 0x91, 0x2E]).unwrap(),
            ['\u{0041}', '\u{2262}', '\u{0391}', '\u{002E}']
        );
        // "日本語" → E6 97 A5 E6 9C AC E8 AA 9E
        assert_eq!(
            decode(&[0xE6, 0x97, 0xA5, 0xE6, 0x9C, 0xAC, 0xE8, 0xAA, 0x9E]).unwrap(),
            ['\u{65E5}', '\u{672C}', '\u{8A9E}']
        );
        // U+233B4 → F0 A3 8E B4
        assert_eq!(decode(&[0xF0, 0xA3, 0x8E, 0xB4]).unwrap(), ['\u{233B4}']);
        // BOM + U+233B4 → EF BB BF F0 A3 8E B4: the BOM stays (§6).
        assert_eq!(
            decode(&[0xEF, 0xBB, 0xBF, 0xF0, 0xA3, 0x8E, 0xB4]).unwrap(),
            ['\u{FEFF}', '\u{233B4}']
        );
    }

    #[test]
    fn section_3_table_boundaries_encode_and_decode() {
        let rows: [(u32, &[u8]); 8] = [
            (0x0000, &[0x00]),
            (0x007F, &[0x7F]),
            (0x0080, &[0xC2, 0x80]),
            (0x07FF, &[0xDF, 0xBF]),
            (0x0800, &[0xE0, 0xA0, 0x80]),
            (0xFFFF, &[0xEF, 0xBF, 0xBF]),
            (0x1_0000, &[0xF0, 0x90, 0x80, 0x80]),
            (0x10_FFFF, &[0xF4, 0x8F, 0xBF, 0xBF]),
        ];
        for (scalar, bytes) in rows {
            assert_eq!(encode(scalar).unwrap(), bytes, "encode U+{scalar:04X}");
            let decoded = decode(bytes).unwrap();
            assert_eq!(decoded.len(), 1);
            assert_eq!(decoded[0] as u32, scalar, "decode {bytes:02X?}");
        }
    }

    #[test]
    fn rfc_section_3_and_10_attacks_are_rejected() {
        // §3: a naive decoder "may decode the overlong UTF-8 sequence C0 80
        // into the character U+0000": C0 starts nothing.
        assert_eq!(err(&[0xC0, 0x80]), (0, Some(1)));
        // §3: "or the surrogate pair ED A1 8C ED BE B4 into U+233B4":
        // after ED only 80–9F may follow, so A1 breaks the match at once.
        assert_eq!(err(&[0xED, 0xA1, 0x8C, 0xED, 0xBE, 0xB4]), (0, Some(1)));
        // §10: "2F C0 AE 2E 2F" (an overlong "/../"-style attack).
        assert_eq!(err(&[0x2F, 0xC0, 0xAE, 0x2E, 0x2F]), (1, Some(1)));
    }

    #[test]
    fn error_len_counts_the_matched_prefix_of_the_one_possible_alternative() {
        // E0 needs A0–BF next; 80 is not in it → subpart is E0 alone.
        assert_eq!(err(&[0xE0, 0x80, 0x80]), (0, Some(1)));
        // E0 A0 matched, then 41 is not a tail → subpart E0 A0.
        assert_eq!(err(&[0xE0, 0xA0, 0x41]), (0, Some(2)));
        // F1 80 80 matched three of four ranges, then 41 → subpart of 3.
        assert_eq!(err(&[0x61, 0xF1, 0x80, 0x80, 0x41]), (1, Some(3)));
        // F4 allows only 80–8F next: F4 90 80 80 (U+110000) fails at once.
        assert_eq!(err(&[0xF4, 0x90, 0x80, 0x80]), (0, Some(1)));
        // Input ends inside a 4-byte sequence: incomplete, not ill-formed.
        assert_eq!(err(&[0xF4, 0x8F, 0xBF]), (0, None));
        assert_eq!(err(&[0x41, 0xC2]), (1, None));
        // A lone tail byte, C1 and FF start nothing.
        assert_eq!(err(&[0x80]), (0, Some(1)));
        assert_eq!(err(&[0xC1, 0xBF]), (0, Some(1)));
        assert_eq!(err(&[0xFF]), (0, Some(1)));
    }

    #[test]
    fn lossy_matches_unicode_table_3_8_pattern() {
        // Unicode 15, §3.9, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64
        // → a FFFD FFFD FFFD b FFFD c FFFD FFFD d.
        let input = [
            0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64,
        ];
        let expected: Vec<char> = "a\u{FFFD}\u{FFFD}\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}d"
            .chars()
            .collect();
        assert_eq!(decode_lossy(&input), expected);
    }

    #[test]
    fn lossy_replaces_non_shortest_forms_and_surrogates_byte_by_byte() {
        // Unicode §3.9, Table 3-9 (non-shortest forms): C0 AF E0 80 BF F0 81 82 41
        // → 8 × FFFD then A: no alternative matches past the lead byte.
        let input = [0xC0, 0xAF, 0xE0, 0x80, 0xBF, 0xF0, 0x81, 0x82, 0x41];
        let mut expected = vec![REPLACEMENT; 8];
        expected.push('A');
        assert_eq!(decode_lossy(&input), expected);
        // Table 3-10 (surrogates): ED A0 80 ED BF BF ED AF 41 → 8 × FFFD, A.
        let input = [0xED, 0xA0, 0x80, 0xED, 0xBF, 0xBF, 0xED, 0xAF, 0x41];
        assert_eq!(decode_lossy(&input), expected);
        // Table 3-11 (other ill-formed): F4 91 92 93 FF 41 80 BF 42
        // → 4 × FFFD, FFFD, A, FFFD, FFFD, B.
        let input = [0xF4, 0x91, 0x92, 0x93, 0xFF, 0x41, 0x80, 0xBF, 0x42];
        let expected: Vec<char> = "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}B"
            .chars()
            .collect();
        assert_eq!(decode_lossy(&input), expected);
        // Table 3-12 (truncated): E1 80 E2 F0 91 92 F1 BF 41
        // → FFFD FFFD FFFD FFFD A.
        let input = [0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41];
        let expected: Vec<char> = "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}A".chars().collect();
        assert_eq!(decode_lossy(&input), expected);
    }

    #[test]
    fn encode_refuses_exactly_surrogates_and_values_past_u10ffff() {
        assert_eq!(encode(0xD7FF), Ok(vec![0xED, 0x9F, 0xBF]));
        assert_eq!(encode(0xD800), Err(EncodeError::Surrogate));
        assert_eq!(encode(0xDFFF), Err(EncodeError::Surrogate));
        assert_eq!(encode(0xE000), Ok(vec![0xEE, 0x80, 0x80]));
        assert_eq!(encode(0x11_0000), Err(EncodeError::OutOfRange));
        assert_eq!(encode(0x7FFF_FFFF), Err(EncodeError::OutOfRange));
        assert_eq!(encode(u32::MAX), Err(EncodeError::OutOfRange));
    }

    #[test]
    fn noncharacters_and_the_bom_are_characters() {
        // U+FFFE, U+FFFF, U+FDD0, U+10FFFE are valid scalar values (RFC 3629
        // has no exception for them); U+FEFF mid-text is kept (§6).
        let input = [
            0xEF, 0xBF, 0xBE, 0xEF, 0xBF, 0xBF, 0xEF, 0xB7, 0x90, 0xF4, 0x8F, 0xBF, 0xBE, 0x41,
            0xEF, 0xBB, 0xBF,
        ];
        assert_eq!(
            decode(&input).unwrap(),
            [
                '\u{FFFE}',
                '\u{FFFF}',
                '\u{FDD0}',
                '\u{10FFFE}',
                'A',
                '\u{FEFF}'
            ]
        );
    }
}
