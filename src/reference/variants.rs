//! The neighbours of UTF-8, each a small reference decoder written from its
//! own specification, so that a decoder that fails UTF-8 can be named for
//! what it really implements — and scored by that format's rules.
//!
//! | format | specification | differs from UTF-8 in |
//! |---|---|---|
//! | `utf-8` | RFC 3629 | (the reference itself) |
//! | `rfc2279` | RFC 2279 (1998), the UTF-8 RFC 3629 obsoleted | 5- and 6-byte forms up to 0x7FFFFFFF; surrogates allowed; shortest forms only |
//! | `cesu-8` | Unicode Technical Report #26 | supplementary characters as two 3-byte surrogates (6 bytes); no 4-byte forms; lone surrogates ill-formed |
//! | `modified-utf-8` | `java.io.DataInput`, "Modified UTF-8" | decoding by bit pattern only: 1- to 3-byte groups, no overlong or surrogate check (C0 80 is NUL); UTF-16 units out, pairs joined |
//! | `wtf-8` | WTF-8 (Simon Sapin, 2014) | lone surrogates allowed as 3-byte forms; a lead surrogate followed by a trail surrogate is ill-formed |
//! | `surrogatepass` | Python's `surrogatepass` error handler (PEP 383's neighbour) | 3-byte surrogates accepted, paired or not, never joined |
//! | `surrogateescape` | Python's `surrogateescape` handler, PEP 383 | never fails: each byte of an ill-formed sequence becomes U+DC80..U+DCFF |
//!
//! Each is a grammar in the shape of [`super::first_sequence`]: what the
//! bytes at the start of an input are (a value of some length, an
//! ill-formed sequence with its maximal subpart under *that* grammar, or an
//! incomplete end), with the whole-input walk written once
//! ([`Format::expected`]). Values are raw `u32`s: a neighbour may yield a
//! surrogate or 0x7FFFFFFF.

use crate::outcome::Answer;
use std::ops::RangeInclusive;

/// A format next to UTF-8 (or UTF-8 itself).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// RFC 3629.
    #[default]
    Utf8,
    /// RFC 2279's UTF-8: up to six bytes, 0x7FFFFFFF.
    Rfc2279,
    /// Unicode TR #26.
    Cesu8,
    /// `java.io.DataInput`'s Modified UTF-8.
    ModifiedUtf8,
    /// WTF-8.
    Wtf8,
    /// Python's `surrogatepass`.
    SurrogatePass,
    /// Python's `surrogateescape` (PEP 383).
    SurrogateEscape,
}

/// What the bytes at the start of an input are, under a format's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seq {
    /// A well-formed sequence of `len` bytes with this value.
    Char(u32, usize),
    /// An ill-formed sequence; its maximal subpart's length.
    Bad(usize),
    /// The input ends inside a sequence more bytes could complete.
    Incomplete,
}

const TAIL: RangeInclusive<u8> = 0x80..=0xBF;

impl Format {
    /// Every format, UTF-8 first.
    pub const ALL: [Format; 7] = [
        Format::Utf8,
        Format::Rfc2279,
        Format::Cesu8,
        Format::ModifiedUtf8,
        Format::Wtf8,
        Format::SurrogatePass,
        Format::SurrogateEscape,
    ];

    /// The name in reports and in adapters.toml's `format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Utf8 => "utf-8",
            Format::Rfc2279 => "rfc2279",
            Format::Cesu8 => "cesu-8",
            Format::ModifiedUtf8 => "modified-utf-8",
            Format::Wtf8 => "wtf-8",
            Format::SurrogatePass => "surrogatepass",
            Format::SurrogateEscape => "surrogateescape",
        }
    }

    /// The format a name names.
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Where its rules come from.
    pub fn specification(self) -> &'static str {
        match self {
            Format::Utf8 => "RFC 3629",
            Format::Rfc2279 => "RFC 2279",
            Format::Cesu8 => "Unicode Technical Report #26 (CESU-8)",
            Format::ModifiedUtf8 => "java.io.DataInput, Modified UTF-8",
            Format::Wtf8 => "WTF-8 (Simon Sapin, 2014)",
            Format::SurrogatePass => "Python's surrogatepass error handler",
            Format::SurrogateEscape => "PEP 383, Python's surrogateescape error handler",
        }
    }

    /// The grammar's first sequence of `input` (not empty).
    fn first(self, input: &[u8]) -> Seq {
        match self {
            Format::Utf8 => match super::first_sequence(input) {
                super::Sequence::Char { scalar, len } => Seq::Char(u32::from(scalar), len),
                super::Sequence::IllFormed { subpart } => Seq::Bad(subpart),
                super::Sequence::Incomplete { .. } => Seq::Incomplete,
            },
            Format::Rfc2279 => rfc2279(input),
            Format::Cesu8 => cesu8(input),
            Format::ModifiedUtf8 => modified(input),
            Format::Wtf8 | Format::SurrogatePass | Format::SurrogateEscape => {
                utf8_with_surrogates(input, self == Format::SurrogateEscape)
            }
        }
    }

    /// What a decoder of this format answers for `bytes`: validity, the
    /// values or the first error (position and maximal subpart under this
    /// grammar), and the replacing decode (one U+FFFD per maximal subpart;
    /// for `surrogateescape`, each byte of it escaped).
    pub fn expected(self, bytes: &[u8]) -> Answer {
        let mut values = Vec::new();
        let mut lossy = Vec::new();
        let mut error: Option<(usize, Option<u8>)> = None;
        let mut at = 0;
        while at < bytes.len() {
            let (len, bad) = match self.first(&bytes[at..]) {
                Seq::Char(v, len) => {
                    values.push(v);
                    lossy.push(v);
                    at += len;
                    continue;
                }
                Seq::Bad(n) => (n, Some(n as u8)),
                Seq::Incomplete => (bytes.len() - at, None),
            };
            if error.is_none() {
                error = Some((at, bad));
            }
            if self == Format::SurrogateEscape {
                lossy.extend(bytes[at..at + len].iter().map(|&b| 0xDC00 + u32::from(b)));
            } else {
                lossy.push(0xFFFD);
            }
            at += len;
        }
        if self == Format::ModifiedUtf8 {
            values = join_pairs(&values);
            lossy = join_pairs(&lossy);
        }
        // A split pair is WTF-8's first error wherever it is found:
        // `split_pair` walks the grammar's sequences and stops, with `None`,
        // at the first sequence that is not one, so a pair it finds comes
        // before any error of the grammar.
        if self == Format::Wtf8 {
            if let Some(pair) = split_pair(bytes) {
                error = Some(pair);
            }
        }
        if self == Format::SurrogateEscape {
            // It never fails: every byte it cannot decode is escaped.
            return Answer {
                valid: Some(true),
                scalars: Some(lossy.clone()),
                lossy: Some(lossy),
                ..Answer::default()
            };
        }
        match error {
            None => Answer {
                valid: Some(true),
                scalars: Some(values),
                lossy: Some(lossy),
                ..Answer::default()
            },
            Some((valid_up_to, error_len)) => Answer {
                valid: Some(false),
                valid_up_to: Some(valid_up_to),
                error_len: Some(error_len),
                lossy: Some(lossy),
                ..Answer::default()
            },
        }
    }
}

/// One alternative: byte ranges after the lead, then the value from the
/// bits (the lead's after its high 1s and 0, six from each tail).
fn alternative(input: &[u8], lead_bits: u8, ranges: &[RangeInclusive<u8>]) -> Seq {
    for (i, range) in ranges.iter().enumerate() {
        match input.get(i + 1) {
            None => return Seq::Incomplete,
            Some(b) if range.contains(b) => {}
            Some(_) => return Seq::Bad(i + 1),
        }
    }
    let value = input[1..=ranges.len()]
        .iter()
        .fold(u32::from(input[0] & lead_bits), |acc, &t| {
            acc << 6 | u32::from(t & 0x3F)
        });
    Seq::Char(value, ranges.len() + 1)
}

/// RFC 2279 §2: `0xxxxxxx` to `1111110x`, shortest forms only (its §6 warns
/// that decoders accepting others are a security risk), so the second byte
/// is bounded after the leads that could start an overlong form, as RFC
/// 3629 bounds E0 and F0. Surrogates and values up to 0x7FFFFFFF are
/// characters to it.
fn rfc2279(input: &[u8]) -> Seq {
    match input[0] {
        0x00..=0x7F => Seq::Char(u32::from(input[0]), 1),
        0xC2..=0xDF => alternative(input, 0x1F, &[TAIL]),
        0xE0 => alternative(input, 0x0F, &[0xA0..=0xBF, TAIL]),
        0xE1..=0xEF => alternative(input, 0x0F, &[TAIL, TAIL]),
        0xF0 => alternative(input, 0x07, &[0x90..=0xBF, TAIL, TAIL]),
        0xF1..=0xF7 => alternative(input, 0x07, &[TAIL, TAIL, TAIL]),
        0xF8 => alternative(input, 0x03, &[0x88..=0xBF, TAIL, TAIL, TAIL]),
        0xF9..=0xFB => alternative(input, 0x03, &[TAIL, TAIL, TAIL, TAIL]),
        0xFC => alternative(input, 0x01, &[0x84..=0xBF, TAIL, TAIL, TAIL, TAIL]),
        0xFD => alternative(input, 0x01, &[TAIL, TAIL, TAIL, TAIL, TAIL]),
        _ => Seq::Bad(1),
    }
}

/// CESU-8 (UTR #26 §2): UTF-8's one- to three-byte forms for the BMP, and a
/// supplementary character as its UTF-16 surrogate pair, each half a
/// three-byte form: ED A0-AF xx ED B0-BF xx. No four-byte forms; a
/// surrogate outside a pair is ill-formed.
fn cesu8(input: &[u8]) -> Seq {
    match input[0] {
        0xF0..=0xF4 => Seq::Bad(1),
        0xED => match input.get(1) {
            None => Seq::Incomplete,
            Some(0x80..=0x9F) => alternative(input, 0x0F, &[0x80..=0x9F, TAIL]),
            // A lead surrogate: the pair's six bytes are one sequence.
            Some(0xA0..=0xAF) => {
                let ranges = [0xA0..=0xAF, TAIL, 0xED..=0xED, 0xB0..=0xBF, TAIL];
                for (i, range) in ranges.iter().enumerate() {
                    match input.get(i + 1) {
                        None => return Seq::Incomplete,
                        Some(b) if range.contains(b) => {}
                        Some(_) => return Seq::Bad(i + 1),
                    }
                }
                let unit = |b: &[u8]| {
                    u32::from(b[0] & 0x0F) << 12
                        | u32::from(b[1] & 0x3F) << 6
                        | u32::from(b[2] & 0x3F)
                };
                let (high, low) = (unit(&input[..3]), unit(&input[3..6]));
                Seq::Char(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), 6)
            }
            Some(_) => Seq::Bad(1),
        },
        _ => match super::first_sequence(input) {
            super::Sequence::Char { scalar, len } => Seq::Char(u32::from(scalar), len),
            super::Sequence::IllFormed { subpart } => Seq::Bad(subpart),
            super::Sequence::Incomplete { .. } => Seq::Incomplete,
        },
    }
}

/// `java.io.DataInput`'s decoding, by bit pattern only: `0xxxxxxx` is one
/// byte, `110xxxxx 10xxxxxx` two, `1110xxxx 10xxxxxx 10xxxxxx` three;
/// `10xxxxxx` or `1111xxxx` first is an error. No check for overlong forms
/// or surrogates. (Its output is UTF-16 units: see [`join_pairs`].)
fn modified(input: &[u8]) -> Seq {
    match input[0] {
        0x00..=0x7F => Seq::Char(u32::from(input[0]), 1),
        0xC0..=0xDF => alternative(input, 0x1F, &[TAIL]),
        0xE0..=0xEF => alternative(input, 0x0F, &[TAIL, TAIL]),
        _ => Seq::Bad(1),
    }
}

/// UTF-8 with the surrogates' three-byte forms (ED A0-BF xx) allowed: the
/// grammar of WTF-8, `surrogatepass` and, for what it can decode,
/// `surrogateescape` (which is strict UTF-8: `strict` keeps the surrogates
/// out).
fn utf8_with_surrogates(input: &[u8], strict: bool) -> Seq {
    if input[0] == 0xED && !strict {
        return alternative(input, 0x0F, &[TAIL, TAIL]);
    }
    Format::Utf8.first(input)
}

/// UTF-16 units joined as UTF-16 decoding joins them: a high surrogate
/// followed by a low one is one supplementary value; any other surrogate
/// stays as it is.
fn join_pairs(units: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let (u, next) = (units[i], units.get(i + 1).copied());
        if let (0xD800..=0xDBFF, Some(low @ 0xDC00..=0xDFFF)) = (u, next) {
            out.push(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
            i += 2;
        } else {
            out.push(u);
            i += 1;
        }
    }
    out
}

/// WTF-8's one rule beyond its grammar: a lead surrogate's three bytes
/// followed by a trail surrogate's is ill-formed (the pair has a four-byte
/// form). The error is the trail's first byte, a subpart of one (ED
/// followed by B0-BF starts nothing well-formed there).
fn split_pair(bytes: &[u8]) -> Option<(usize, Option<u8>)> {
    let mut at = 0;
    let mut after_lead = false;
    while at < bytes.len() {
        let Seq::Char(v, len) = Format::Wtf8.first(&bytes[at..]) else {
            return None;
        };
        if after_lead && (0xDC00..=0xDFFF).contains(&v) {
            return Some((at, Some(1)));
        }
        after_lead = (0xD800..=0xDBFF).contains(&v);
        at += len;
    }
    None
}

#[cfg(test)]
mod tests {
    //! Expectations written by hand from each specification.
    use super::*;

    fn values(f: Format, bytes: &[u8]) -> Option<Vec<u32>> {
        f.expected(bytes).scalars
    }

    #[test]
    fn rfc2279_has_six_bytes_and_surrogates_but_no_overlongs() {
        let f = Format::Rfc2279;
        assert_eq!(values(f, b"\xF8\x88\x80\x80\x80"), Some(vec![0x20_0000]));
        assert_eq!(
            values(f, b"\xFD\xBF\xBF\xBF\xBF\xBF"),
            Some(vec![0x7FFF_FFFF])
        );
        assert_eq!(values(f, b"\xED\xA0\x80"), Some(vec![0xD800]));
        assert_eq!(values(f, b"\xF4\x90\x80\x80"), Some(vec![0x11_0000]));
        assert_eq!(values(f, b"\xC0\x80"), None);
        assert_eq!(
            values(f, b"\xFC\x83\xBF\xBF\xBF\xBF"),
            None,
            "0x3FFFFFF fits in 5"
        );
        assert_eq!(values(f, b"\xFE"), None);
    }

    #[test]
    fn cesu8_pairs_surrogates_and_refuses_four_byte_forms() {
        let f = Format::Cesu8;
        // UTR #26: U+10400 is ED A0 81 ED B0 80.
        assert_eq!(values(f, b"\xED\xA0\x81\xED\xB0\x80"), Some(vec![0x10400]));
        assert_eq!(values(f, b"\xF0\x90\x90\x80"), None);
        let lone = f.expected(b"\xED\xA0\x81A");
        assert_eq!((lone.valid_up_to, lone.error_len), (Some(0), Some(Some(3))));
        assert_eq!(values(f, b"\xED\xB0\x80"), None, "a trail first");
        assert_eq!(values(f, b"\xE2\x82\xAC"), Some(vec![0x20AC]));
    }

    #[test]
    fn modified_utf8_checks_bit_patterns_only() {
        let f = Format::ModifiedUtf8;
        assert_eq!(values(f, b"\xC0\x80"), Some(vec![0]), "NUL's two-byte form");
        assert_eq!(
            values(f, b"\xC0\xAF"),
            Some(vec![0x2F]),
            "no overlong check"
        );
        assert_eq!(
            values(f, b"\xED\xA0\xBD\xED\xB8\x80"),
            Some(vec![0x1F600]),
            "a pair, joined"
        );
        assert_eq!(
            values(f, b"\xED\xA0\x80"),
            Some(vec![0xD800]),
            "a lone surrogate"
        );
        assert_eq!(values(f, b"\xF0\x9F\x98\x80"), None, "1111xxxx is an error");
        assert_eq!(values(f, b"\x00"), Some(vec![0]));
    }

    #[test]
    fn wtf8_allows_lone_surrogates_but_not_split_pairs() {
        let f = Format::Wtf8;
        assert_eq!(values(f, b"\xED\xA0\x80"), Some(vec![0xD800]));
        assert_eq!(
            values(f, b"\xED\xB0\x80\xED\xA0\x80"),
            Some(vec![0xDC00, 0xD800]),
            "trail then lead is fine"
        );
        let pair = f.expected(b"a\xED\xA0\x80\xED\xB0\x80");
        assert_eq!((pair.valid, pair.valid_up_to), (Some(false), Some(4)));
        assert_eq!(values(f, b"\xF0\x90\x80\x80"), Some(vec![0x10000]));
        // A split pair before an ill-formed sequence is the first error:
        // the six bytes before ED AF 41 are not WTF-8 (found by the
        // `variants` fuzz target against tendril).
        let both = f.expected(b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41");
        assert_eq!((both.valid_up_to, both.error_len), (Some(3), Some(Some(1))));
    }

    #[test]
    fn surrogatepass_keeps_pairs_apart_and_surrogateescape_never_fails() {
        assert_eq!(
            values(Format::SurrogatePass, b"\xED\xA0\x80\xED\xB0\x80"),
            Some(vec![0xD800, 0xDC00])
        );
        assert_eq!(values(Format::SurrogatePass, b"\xC0\x80"), None);
        // PEP 383: each undecodable byte to U+DC80..U+DCFF.
        let e = Format::SurrogateEscape.expected(b"\xE2\x82A\xFF");
        assert_eq!(e.valid, Some(true));
        assert_eq!(e.lossy, Some(vec![0xDCE2, 0xDC82, 0x41, 0xDCFF]));
        assert_eq!(
            values(Format::SurrogateEscape, b"\xED\xA0\x80"),
            Some(vec![0xDCED, 0xDCA0, 0xDC80])
        );
    }

    #[test]
    fn utf8_is_the_reference() {
        for bytes in [&b"\xF0\x9F\x98\x80"[..], b"\xC0\xAF", b"a\xE2\x82", b""] {
            assert_eq!(
                Format::Utf8.expected(bytes),
                crate::differential::expected(bytes),
                "{bytes:02x?}"
            );
        }
    }

    #[test]
    fn formats_are_parsed_by_the_names_of_the_module_table() {
        // The module documentation's table (and adapters.toml's `format`):
        // each name, in ALL's order, parses to its format and to no other.
        let names = [
            ("utf-8", Format::Utf8),
            ("rfc2279", Format::Rfc2279),
            ("cesu-8", Format::Cesu8),
            ("modified-utf-8", Format::ModifiedUtf8),
            ("wtf-8", Format::Wtf8),
            ("surrogatepass", Format::SurrogatePass),
            ("surrogateescape", Format::SurrogateEscape),
        ];
        for (name, format) in names {
            assert_eq!(Format::parse(name), Some(format), "{name}");
        }
        assert_eq!(Format::parse("utf8"), None);
        assert_eq!(Format::parse(""), None);
    }

    #[test]
    fn each_format_names_the_specification_of_the_module_table() {
        // The module table's "specification" column: the document each
        // grammar is written from, as a report shows it.
        let documents = [
            (Format::Utf8, "RFC 3629"),
            (Format::Rfc2279, "RFC 2279"),
            (Format::Cesu8, "Technical Report #26"),
            (Format::ModifiedUtf8, "java.io.DataInput"),
            (Format::Wtf8, "WTF-8"),
            (Format::SurrogatePass, "surrogatepass"),
            (Format::SurrogateEscape, "PEP 383"),
        ];
        for (format, document) in documents {
            let spec = format.specification();
            assert!(spec.contains(document), "{format:?}: {spec}");
        }
    }

    #[test]
    fn rfc2279_rows_first_and_last_values_and_their_non_shortest_forms() {
        // RFC 2279 §2's table, row by row: the first and last value of
        // each row (bits distributed as it shows), then the same row's
        // encoding of the previous row's last value, a non-shortest form
        // that its §6 says must not be decoded: the lead byte alone is
        // then the maximal subpart.
        let f = Format::Rfc2279;
        let rows: [(&[u8], u32); 12] = [
            (b"\x00", 0),
            (b"\x7F", 0x7F),
            (b"\xC2\x80", 0x80),
            (b"\xDF\xBF", 0x7FF),
            (b"\xE0\xA0\x80", 0x800),
            (b"\xEF\xBF\xBF", 0xFFFF),
            (b"\xF0\x90\x80\x80", 0x1_0000),
            (b"\xF7\xBF\xBF\xBF", 0x1F_FFFF),
            (b"\xF8\x88\x80\x80\x80", 0x20_0000),
            (b"\xFB\xBF\xBF\xBF\xBF", 0x3FF_FFFF),
            (b"\xFC\x84\x80\x80\x80\x80", 0x400_0000),
            (b"\xFD\xBF\xBF\xBF\xBF\xBF", 0x7FFF_FFFF),
        ];
        for (bytes, value) in rows {
            assert_eq!(values(f, bytes), Some(vec![value]), "{bytes:02x?}");
        }
        // F9 80 80 80 80: 111110xx with xx = 01, then four zero tails.
        assert_eq!(values(f, b"\xF9\x80\x80\x80\x80"), Some(vec![0x100_0000]));
        for bytes in [
            &b"\xC1\xBF"[..],
            b"\xE0\x9F\xBF",
            b"\xF0\x8F\xBF\xBF",
            b"\xF8\x87\xBF\xBF\xBF",
            b"\xFC\x83\xBF\xBF\xBF\xBF",
        ] {
            let a = f.expected(bytes);
            assert_eq!(
                (a.valid_up_to, a.error_len),
                (Some(0), Some(Some(1))),
                "{bytes:02x?}"
            );
        }
    }

    #[test]
    fn cesu8_joins_the_first_and_last_surrogate_pairs() {
        // UTR #26 §2: a supplementary character is the 3-byte form of each
        // surrogate of its UTF-16 pair. U+10000 is D800 DC00, U+10FFFF is
        // DBFF DFFF (Unicode §3.9, UTF-16).
        let f = Format::Cesu8;
        assert_eq!(values(f, b"\xED\xA0\x80\xED\xB0\x80"), Some(vec![0x1_0000]));
        assert_eq!(
            values(f, b"\xED\xAF\xBF\xED\xBF\xBF"),
            Some(vec![0x10_FFFF])
        );
    }
}
