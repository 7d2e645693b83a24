//! Builds every vector category.
//!
//! Each category is a function that says what it covers and lists inputs
//! with stable ids and notes; the expected outcome of every decode case is
//! computed by [`crate::reference`], and of every encode case by
//! [`crate::reference::encode`]. Valid inputs are built with std's
//! `char::encode_utf8` and ill-formed ones with [`encode_any`] (RFC 2279's
//! bit layout), so inputs do not come from the code that judges them.
//!
//! Two independent checks guard the expectations: each category states
//! whether its cases must all be valid or all invalid, and every entry in
//! [`super::pinned::PINNED`] (hand-written from RFC 3629 and Unicode §3.9)
//! must match the generated case with its id exactly.

use super::pinned::{Pin, PINNED};
use super::{Case, DecodeCase, EncodeCase, StreamCase, VectorFile, SCHEMA_VERSION};
use crate::generate::encode_any;
use crate::hex;
use crate::outcome::{StreamMode, StreamRun};
use crate::reference;
use std::collections::HashSet;

/// An input under construction.
struct Input {
    id: String,
    bytes: Vec<u8>,
    note: String,
}

/// What every case of a category must be, stated independently of the
/// reference decoder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Intent {
    AllValid,
    AllInvalid,
    Mixed,
}

struct Category {
    name: &'static str,
    description: &'static str,
    references: &'static [&'static str],
    intent: Intent,
    inputs: Vec<Input>,
}

impl Category {
    fn new(
        name: &'static str,
        description: &'static str,
        references: &'static [&'static str],
        intent: Intent,
    ) -> Category {
        Category {
            name,
            description,
            references,
            intent,
            inputs: Vec::new(),
        }
    }

    fn add(&mut self, id: impl Into<String>, bytes: impl Into<Vec<u8>>, note: impl Into<String>) {
        self.inputs.push(Input {
            id: id.into(),
            bytes: bytes.into(),
            note: note.into(),
        });
    }

    fn build(self) -> Result<VectorFile, String> {
        let mut cases = Vec::with_capacity(self.inputs.len());
        for input in self.inputs {
            let strict = reference::decode(&input.bytes);
            match (self.intent, strict.is_ok()) {
                (Intent::AllValid, false) | (Intent::AllInvalid, true) => {
                    return Err(format!(
                        "{}: case {} ({}) breaks the category's intent: the reference says {}",
                        self.name,
                        input.id,
                        hex::encode(&input.bytes),
                        if strict.is_ok() { "valid" } else { "invalid" }
                    ));
                }
                _ => {}
            }
            let case = DecodeCase::from_reference(input.id, &input.bytes, input.note);
            cases.push(Case::Decode(case));
        }
        Ok(VectorFile {
            schema: SCHEMA_VERSION,
            category: self.name.to_string(),
            description: self.description.to_string(),
            references: self.references.iter().map(|r| r.to_string()).collect(),
            cases,
        })
    }
}

/// std's UTF-8 for a scalar value (independent of the reference).
fn utf8(scalar: u32) -> Vec<u8> {
    let c = char::from_u32(scalar).expect("a scalar value");
    c.encode_utf8(&mut [0; 4]).as_bytes().to_vec()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

const RFC_3: &str = "RFC 3629 §3 (UTF-8 definition: the encoding table; surrogates prohibited)";
const RFC_4: &str = "RFC 3629 §4 (ABNF: UTF8-1, UTF8-2, UTF8-3, UTF8-4, UTF8-tail)";
const RFC_6: &str = "RFC 3629 §6 (Byte order mark: U+FEFF is a character, not stripped)";
const RFC_7: &str = "RFC 3629 §7 (Examples)";
const RFC_10: &str =
    "RFC 3629 §10 (Security Considerations: overlongs, surrogates, above U+10FFFF)";
const UNICODE_MAXIMAL: &str =
    "Unicode §3.9 D93b and 'U+FFFD Substitution of Maximal Subparts' (Tables 3-8 to 3-12)";
const UNICODE_NONCHAR: &str = "Unicode §23.7 (Noncharacters are valid scalar values)";
const WHATWG: &str = "WHATWG Encoding Standard, UTF-8 decoder (same replacement as Unicode §3.9)";

/// The edge scalars of RFC 3629 §3's table and the surrogate gap.
const EDGES: &[(u32, &str)] = &[
    (0x0000, "first scalar, first 1-byte"),
    (0x007F, "last 1-byte"),
    (0x0080, "first 2-byte"),
    (0x07FF, "last 2-byte"),
    (0x0800, "first 3-byte"),
    (0xD7FF, "last before the surrogates"),
    (0xE000, "first after the surrogates"),
    (0xFFFD, "the replacement character itself"),
    (0xFFFF, "last 3-byte (a noncharacter)"),
    (0x10000, "first 4-byte"),
    (0x10FFFF, "last scalar, last 4-byte"),
];

fn boundaries() -> Category {
    let mut c = Category::new(
        "boundaries",
        "First and last scalar value of each sequence length, both sides of the surrogate gap, U+FFFD, U+FEFF (BOM) at the start and in the middle, and all 66 noncharacters. Every case is valid.",
        &[RFC_3, RFC_4, RFC_6, UNICODE_NONCHAR],
        Intent::AllValid,
    );
    for &(s, what) in EDGES {
        c.add(
            format!("scalar-u+{s:04x}"),
            utf8(s),
            format!("U+{s:04X}: {what}"),
        );
        c.add(
            format!("scalar-u+{s:04x}-in-text"),
            cat(&[b"a", &utf8(s), b"z"]),
            format!("U+{s:04X} between ASCII letters"),
        );
    }
    let bom = utf8(0xFEFF);
    c.add("bom-alone", bom.clone(), "U+FEFF alone: a character (§6)");
    c.add(
        "bom-start",
        cat(&[&bom, b"A"]),
        "BOM at the start is decoded, not stripped (§6)",
    );
    c.add(
        "bom-middle",
        cat(&[b"A", &bom, b"B"]),
        "U+FEFF in the middle is ZERO WIDTH NO-BREAK SPACE (§6)",
    );
    c.add(
        "bom-twice",
        cat(&[&bom, &bom]),
        "two BOMs: both are characters",
    );
    for s in 0xFDD0..=0xFDEF {
        c.add(
            format!("nonchar-u+{s:04x}"),
            utf8(s),
            format!("noncharacter U+{s:04X} (FDD0..FDEF): valid"),
        );
    }
    for plane in 0..=0x10u32 {
        for low in [0xFFFE, 0xFFFF] {
            let s = plane << 16 | low;
            c.add(
                format!("nonchar-u+{s:04x}"),
                utf8(s),
                format!("noncharacter U+{s:04X} (last two of plane {plane}): valid"),
            );
        }
    }
    c
}

/// Continuation-byte edges: the ends of UTF8-tail and of the narrowed second
/// byte ranges of %xE0, %xED, %xF0 and %xF4.
const TAIL_EDGES: [u8; 6] = [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF];

fn lead_class(b: u8) -> &'static str {
    match b {
        0x00..=0x7F => "UTF8-1",
        0x80..=0xBF => "UTF8-tail byte, cannot lead",
        0xC0 | 0xC1 => "never appears (overlong 2-byte lead)",
        0xC2..=0xDF => "UTF8-2 lead",
        0xE0 => "UTF8-3 lead, %xE0 %xA0-BF",
        0xE1..=0xEC | 0xEE | 0xEF => "UTF8-3 lead",
        0xED => "UTF8-3 lead, %xED %x80-9F",
        0xF0 => "UTF8-4 lead, %xF0 %x90-BF",
        0xF1..=0xF3 => "UTF8-4 lead",
        0xF4 => "UTF8-4 lead, %xF4 %x80-8F",
        0xF5..=0xF7 => "never appears (above U+10FFFF)",
        0xF8..=0xFD => "never appears (RFC 2279 5- and 6-byte lead)",
        0xFE | 0xFF => "never appears",
    }
}

fn lead_bytes() -> Category {
    let mut c = Category::new(
        "lead-bytes",
        "Every byte 00-FF alone, and every byte followed by each continuation-byte edge (80, 8F, 90, 9F, A0, BF), then by two more 80s. C0, C1 and F5-FF can never appear; E0, ED, F0 and F4 narrow their second byte.",
        &[RFC_4, RFC_10, UNICODE_MAXIMAL],
        Intent::Mixed,
    );
    for b in 0..=0xFFu8 {
        c.add(
            format!("alone-{b:02x}"),
            [b],
            format!("{b:02X} alone: {}", lead_class(b)),
        );
    }
    for b in 0..=0xFFu8 {
        for t in TAIL_EDGES {
            c.add(
                format!("lead-{b:02x}-then-{t:02x}"),
                [b, t],
                format!("{b:02X} ({}) then {t:02X}", lead_class(b)),
            );
            c.add(
                format!("lead-{b:02x}-then-{t:02x}-80-80"),
                [b, t, 0x80, 0x80],
                format!("{b:02X} ({}) then {t:02X} 80 80", lead_class(b)),
            );
        }
    }
    c
}

fn continuations() -> Category {
    let mut c = Category::new(
        "continuations",
        "Continuation bytes (UTF8-tail, 80-BF) where no sequence expects them: alone, in runs of 1 to 64, after a complete sequence of each length, and between ASCII. Each stray continuation byte is its own maximal subpart: one U+FFFD each.",
        &[RFC_4, UNICODE_MAXIMAL],
        Intent::AllInvalid,
    );
    c.add("lone-80", [0x80], "the lowest continuation byte alone");
    c.add("lone-bf", [0xBF], "the highest continuation byte alone");
    for n in 1..=64usize {
        let run: Vec<u8> = (0..n).map(|i| 0x80 + (i % 64) as u8).collect();
        c.add(
            format!("run-{n}"),
            run,
            format!("{n} continuation bytes 80, 81, … in a row: {n} × U+FFFD"),
        );
    }
    for (len, scalar) in [(1, 0x41), (2, 0x80), (3, 0x800), (4, 0x10000)] {
        for t in [0x80u8, 0xBF] {
            c.add(
                format!("after-{len}-byte-{t:02x}"),
                cat(&[&utf8(scalar), &[t]]),
                format!("{t:02X} after a complete {len}-byte sequence (U+{scalar:04X})"),
            );
        }
    }
    for n in 1..=3 {
        c.add(
            format!("excess-after-4-byte-{n}"),
            cat(&[&utf8(0x10FFFF), &vec![0xBF; n]]),
            format!("U+10FFFF then {n} more continuation byte(s): a 5th+ byte is never part of a sequence"),
        );
    }
    c.add(
        "between-ascii",
        *b"a\x80b",
        "one continuation byte between ASCII letters",
    );
    c.add(
        "between-ascii-2",
        *b"a\x80\xBFb",
        "two continuation bytes between ASCII letters",
    );
    c
}

fn overlong() -> Category {
    let mut c = Category::new(
        "overlong",
        "Non-shortest forms: every 2-byte overlong (C0 80 … C1 BF), the 3-byte (E0 80-9F) and 4-byte (F0 80-8F) overlongs at their edges, overlong NUL and '/' in every length up to RFC 2279's 6 bytes, the largest overlong of each length, and the RFC §10 example 2F C0 AE 2E 2F. Their lead bytes either never appear (C0, C1, F8-FD) or forbid the second byte, so each byte is its own maximal subpart.",
        &[RFC_3, RFC_4, RFC_10, UNICODE_MAXIMAL],
        Intent::AllInvalid,
    );
    for lead in [0xC0u8, 0xC1] {
        for tail in 0x80..=0xBFu8 {
            let value = u32::from(lead & 0x1F) << 6 | u32::from(tail & 0x3F);
            c.add(
                format!("overlong-2-{lead:02x}{tail:02x}"),
                [lead, tail],
                format!("U+{value:04X} in 2 bytes (needs 1)"),
            );
        }
    }
    for second in 0x80..=0x9Fu8 {
        for third in [0x80u8, 0xBF] {
            let value = u32::from(second & 0x3F) << 6 | u32::from(third & 0x3F);
            c.add(
                format!("overlong-3-e0{second:02x}{third:02x}"),
                [0xE0, second, third],
                format!("U+{value:04X} in 3 bytes (E0 needs A0-BF next)"),
            );
        }
    }
    for second in 0x80..=0x8Fu8 {
        for third in [0x80u8, 0xBF] {
            for fourth in [0x80u8, 0xBF] {
                let value = u32::from(second & 0x3F) << 12
                    | u32::from(third & 0x3F) << 6
                    | u32::from(fourth & 0x3F);
                c.add(
                    format!("overlong-4-f0{second:02x}{third:02x}{fourth:02x}"),
                    [0xF0, second, third, fourth],
                    format!("U+{value:04X} in 4 bytes (F0 needs 90-BF next)"),
                );
            }
        }
    }
    for len in 2..=6 {
        c.add(
            format!("overlong-nul-{len}"),
            encode_any(0, len),
            format!("U+0000 in {len} bytes"),
        );
    }
    let max = [
        (2, 0x7F),
        (3, 0x7FF),
        (4, 0xFFFF),
        (5, 0x1F_FFFF),
        (6, 0x3FF_FFFF),
    ];
    for (len, value) in max {
        c.add(
            format!("overlong-max-{len}"),
            encode_any(value, len),
            format!(
                "the largest overlong in {len} bytes (U+{value:04X}, which needs {} bytes)",
                len - 1
            ),
        );
    }
    for len in 2..=6 {
        c.add(
            format!("overlong-slash-{len}"),
            cat(&[b"a", &encode_any(0x2F, len), b"b"]),
            format!(
                "'/' (U+002F) in {len} bytes between ASCII: the path-traversal vector of RFC §10"
            ),
        );
    }
    c.add(
        "rfc10-attack",
        *b"\x2F\xC0\xAE\x2E\x2F",
        "RFC 3629 §10: 2F C0 AE 2E 2F, an overlong '.' in '/../'",
    );
    c
}

fn surrogates() -> Category {
    let mut c = Category::new(
        "surrogates",
        "Every one of the 2048 surrogate code points U+D800-U+DFFF encoded in three bytes (ED A0 80 … ED BF BF), the RFC §3 CESU-8 example, high+low and low+high pairs, and surrogates beside ASCII. %xED allows only %x80-9F next, so each byte of a surrogate is its own maximal subpart.",
        &[RFC_3, RFC_4, RFC_10, UNICODE_MAXIMAL],
        Intent::AllInvalid,
    );
    for s in 0xD800..=0xDFFFu32 {
        c.add(
            format!("surrogate-u+{s:04x}"),
            encode_any(s, 3),
            format!("U+{s:04X} (surrogate) in 3 bytes"),
        );
    }
    c.add(
        "cesu8-rfc3-example",
        *b"\xED\xA1\x8C\xED\xBE\xB4",
        "RFC 3629 §3: the surrogate pair ED A1 8C ED BE B4 must not decode to U+233B4",
    );
    for (hi, lo) in [(0xD800, 0xDC00), (0xDBFF, 0xDFFF), (0xD83D, 0xDE00)] {
        c.add(
            format!("pair-u+{hi:04x}-u+{lo:04x}"),
            cat(&[&encode_any(hi, 3), &encode_any(lo, 3)]),
            format!("high U+{hi:04X} then low U+{lo:04X} (CESU-8): not a character"),
        );
        c.add(
            format!("reversed-pair-u+{lo:04x}-u+{hi:04x}"),
            cat(&[&encode_any(lo, 3), &encode_any(hi, 3)]),
            format!("low U+{lo:04X} then high U+{hi:04X}"),
        );
    }
    c.add(
        "surrogate-then-ascii",
        cat(&[&encode_any(0xD800, 3), b"A"]),
        "U+D800 then 'A': 'A' survives",
    );
    c.add(
        "ascii-then-surrogate",
        cat(&[b"A", &encode_any(0xDFFF, 3)]),
        "'A' then U+DFFF: valid_up_to 1",
    );
    c.add(
        "surrogate-prefix-eda0",
        *b"\xED\xA0",
        "ED A0 at the end is not incomplete: no sequence starts ED A0",
    );
    c
}

fn beyond_max() -> Category {
    let mut c = Category::new(
        "beyond-max",
        "Values above U+10FFFF: F4 90-BF (U+110000 and up), the 4-byte forms F5-F7 up to U+1FFFFF, RFC 2279's 5-byte (F8-FB) and 6-byte (FC-FD) forms up to U+7FFFFFFF, and FE, FF. UTF-8 ends at U+10FFFF (RFC 3629 §3, §12).",
        &[RFC_3, RFC_4, RFC_10, UNICODE_MAXIMAL],
        Intent::AllInvalid,
    );
    for second in [0x90u8, 0x9F, 0xA0, 0xBF] {
        c.add(
            format!("f4-{second:02x}-80-80"),
            [0xF4, second, 0x80, 0x80],
            format!("F4 {second:02X} 80 80: F4 allows only 80-8F next"),
        );
    }
    c.add(
        "f4-bf-bf-bf",
        [0xF4, 0xBF, 0xBF, 0xBF],
        "F4 BF BF BF (would be U+13FFFF)",
    );
    for (value, len) in [
        (0x11_0000u32, 4),
        (0x13_FFFF, 4),
        (0x14_0000, 4),
        (0x1F_FFFF, 4),
        (0x20_0000, 5),
        (0x3FF_FFFF, 5),
        (0x400_0000, 6),
        (0x7FFF_FFFF, 6),
    ] {
        c.add(
            format!("above-0x{value:x}-{len}-byte"),
            encode_any(value, len),
            format!("0x{value:X} in RFC 2279's {len}-byte form"),
        );
    }
    for lead in 0xF5..=0xF7u8 {
        for tail in [0x80u8, 0xBF] {
            c.add(
                format!("lead-{lead:02x}-3x{tail:02x}"),
                [lead, tail, tail, tail],
                format!(
                    "{lead:02X} {tail:02X} {tail:02X} {tail:02X}: a 4-byte form above U+10FFFF"
                ),
            );
        }
    }
    for lead in 0xF8..=0xFBu8 {
        for tail in [0x80u8, 0xBF] {
            c.add(
                format!("lead-{lead:02x}-4x{tail:02x}"),
                [lead, tail, tail, tail, tail],
                format!("{lead:02X} then four {tail:02X}: a 5-byte form"),
            );
        }
    }
    for lead in [0xFCu8, 0xFD] {
        for tail in [0x80u8, 0xBF] {
            c.add(
                format!("lead-{lead:02x}-5x{tail:02x}"),
                [lead, tail, tail, tail, tail, tail],
                format!("{lead:02X} then five {tail:02X}: a 6-byte form"),
            );
        }
    }
    for lead in [0xFEu8, 0xFF] {
        c.add(
            format!("{lead:02x}-alone"),
            [lead],
            format!("{lead:02X} never appears in UTF-8"),
        );
        c.add(
            format!("{lead:02x}-then-6x80"),
            [lead, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
            format!("{lead:02X} then six continuation bytes"),
        );
    }
    c.add(
        "u+110000-then-ascii",
        cat(&[&encode_any(0x11_0000, 4), b"A"]),
        "U+110000 then 'A'",
    );
    c
}

fn truncated() -> Category {
    let mut c = Category::new(
        "truncated",
        "Every multi-byte sequence length cut at every position, for the edge scalars, at the end of the input (error_len null: more bytes could complete it) and followed by ASCII, by another lead byte and by a complete sequence (error_len = bytes kept: the maximal subpart).",
        &[RFC_4, UNICODE_MAXIMAL, WHATWG],
        Intent::AllInvalid,
    );
    let scalars = [
        0x0080, 0x07FF, 0x0800, 0x20AC, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
    ];
    for s in scalars {
        let full = utf8(s);
        for keep in 1..full.len() {
            let cut = &full[..keep];
            let shown = hex::encode(cut);
            let base = format!("trunc-u+{s:04x}-{keep}");
            c.add(
                format!("{base}-end"),
                cut.to_vec(),
                format!(
                    "U+{s:04X} cut to {keep} of {} bytes ({shown}) at the end",
                    full.len()
                ),
            );
            c.add(
                format!("{base}-then-ascii"),
                cat(&[cut, b"A"]),
                format!("U+{s:04X} cut to {shown}, then 'A'"),
            );
            c.add(
                format!("{base}-then-lead"),
                cat(&[cut, b"\xC3"]),
                format!("U+{s:04X} cut to {shown}, then a lone lead C3 at the end"),
            );
            c.add(
                format!("{base}-then-char"),
                cat(&[cut, &utf8(0x20AC)]),
                format!("U+{s:04X} cut to {shown}, then a complete U+20AC"),
            );
        }
    }
    c.add(
        "two-truncations",
        *b"\xE0\xA0\xF0\x90\x80",
        "E0 A0 then F0 90 80: two maximal subparts",
    );
    c
}

fn replacement() -> Category {
    let mut c = Category::new(
        "replacement",
        "Cases in the shape of Unicode §3.9's tables, where the exact number of U+FFFD is the point: one per maximal subpart, never one per ill-formed run and never one per byte of a valid prefix.",
        &[UNICODE_MAXIMAL, WHATWG],
        Intent::AllInvalid,
    );
    c.add(
        "unicode-table-3-8",
        *b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
        "Unicode Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
    );
    c.add(
        "unicode-table-3-9",
        *b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41",
        "Unicode Table 3-9 (non-shortest forms): one U+FFFD per byte",
    );
    c.add(
        "unicode-table-3-10",
        *b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41",
        "Unicode Table 3-10 (surrogates): one U+FFFD per byte",
    );
    c.add(
        "unicode-table-3-11",
        *b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42",
        "Unicode Table 3-11 (other ill-formed): one U+FFFD per byte",
    );
    c.add(
        "unicode-table-3-12",
        *b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41",
        "Unicode Table 3-12 (truncated): one U+FFFD per truncated sequence",
    );
    let singles: [(&str, &[u8], &str); 12] = [
        (
            "subpart-3-f1-80-80",
            b"\xF1\x80\x80A",
            "F1 80 80: one subpart of 3 bytes, then A",
        ),
        (
            "subpart-2-e1-80",
            b"\xE1\x80A",
            "E1 80: one subpart of 2 bytes, then A",
        ),
        ("subpart-1-c2", b"\xC2A", "C2 then A: one subpart of 1 byte"),
        (
            "subpart-f0-80",
            b"\xF0\x80\x80\x80",
            "F0 80 80 80: F0 allows 90-BF next, so four subparts",
        ),
        (
            "subpart-f4-90",
            b"\xF4\x90\x80\x80",
            "F4 90 80 80: four subparts",
        ),
        (
            "subpart-e0-a0-c0",
            b"\xE0\xA0\xC0",
            "E0 A0 then C0: two subparts (E0 A0) and (C0)",
        ),
        (
            "subpart-c2-c2-80",
            b"\xC2\xC2\x80",
            "C2 then C2 80: one subpart, then U+0080",
        ),
        (
            "subpart-e1-e1-80-80",
            b"\xE1\xE1\x80\x80",
            "E1 then E1 80 80: one subpart, then U+1000",
        ),
        (
            "subpart-ed-9f-c0",
            b"\xED\x9F\xC0",
            "ED 9F (a valid prefix) then C0: two subparts",
        ),
        (
            "subpart-f1-80-e1-80-c2",
            b"\xF1\x80\xE1\x80\xC2",
            "three prefixes of decreasing length, at the end",
        ),
        (
            "subpart-run-of-leads",
            b"\xE1\xE1\xE1A",
            "three lone E1 leads: three subparts",
        ),
        (
            "subpart-incomplete-4",
            b"A\xF3\xBF\xBF",
            "F3 BF BF at the end: one U+FFFD for the incomplete sequence",
        ),
    ];
    for (id, bytes, note) in singles {
        c.add(id, bytes, note);
    }
    c
}

fn rfc_examples() -> Category {
    let mut c = Category::new(
        "rfc-examples",
        "Every example in RFC 3629: the four encodings of §7 with the exact bytes and characters given there, and the ill-formed sequences named in §3 and §10.",
        &[RFC_3, RFC_7, RFC_10],
        Intent::Mixed,
    );
    c.add(
        "rfc7-a-not-identical-to-alpha",
        *b"\x41\xE2\x89\xA2\xCE\x91\x2E",
        "§7: \"A<NOT IDENTICAL TO><ALPHA>.\" is 41 E2 89 A2 CE 91 2E",
    );
    c.add(
        "rfc7-korean",
        *b"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4",
        "§7: Korean \"hangugeo\" is ED 95 9C EA B5 AD EC 96 B4",
    );
    c.add(
        "rfc7-japanese",
        *b"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
        "§7: Japanese \"nihongo\" is E6 97 A5 E6 9C AC E8 AA 9E",
    );
    c.add(
        "rfc7-bom-u+233b4",
        *b"\xEF\xBB\xBF\xF0\xA3\x8E\xB4",
        "§7: U+233B4 preceded by a BOM is EF BB BF F0 A3 8E B4",
    );
    c.add(
        "rfc7-u+233b4",
        *b"\xF0\xA3\x8E\xB4",
        "§7: U+233B4 (a Chinese character) is F0 A3 8E B4",
    );
    c.add(
        "rfc3-overlong-nul",
        *b"\xC0\x80",
        "§3: a naive decoder may decode C0 80 into U+0000",
    );
    c.add(
        "rfc3-cesu8-pair",
        *b"\xED\xA1\x8C\xED\xBE\xB4",
        "§3: or the surrogate pair ED A1 8C ED BE B4 into U+233B4",
    );
    c.add(
        "rfc10-overlong-slash",
        *b"\x2F\xC0\xAE\x2E\x2F",
        "§10: 2F C0 AE 2E 2F, the overlong '.' of a '/../' attack",
    );
    c
}

fn interrupted() -> Category {
    let mut c = Category::new(
        "interrupted",
        "What other suites check and the other categories did not: the empty input; sequences cut short by a byte that can never follow (C0, C1, F5-FF, or ASCII NUL); sequences cut short after valid text and followed by ASCII, by a lead byte or by a bad byte; bad lead bytes after valid text; a BOM repeated and in the middle.",
        &[RFC_4, RFC_6, UNICODE_MAXIMAL, WHATWG],
        Intent::Mixed,
    );
    c.add(
        "empty",
        Vec::new(),
        "the empty input: valid, nothing decoded",
    );
    let sequences: [(u32, &str); 6] = [
        (0x00E9, "2-byte"),
        (0x0800, "3-byte after E0"),
        (0x20AC, "3-byte"),
        (0xD7FF, "3-byte after ED"),
        (0x10000, "4-byte after F0"),
        (0x10FFFF, "4-byte after F4"),
    ];
    let breakers: [(u8, &str); 6] = [
        (0xC0, "C0"),
        (0xC1, "C1"),
        (0xF5, "F5"),
        (0xFE, "FE"),
        (0xFF, "FF"),
        (0x00, "NUL"),
    ];
    for (s, what) in sequences {
        let full = utf8(s);
        for keep in 1..full.len() {
            let cut = &full[..keep];
            for (b, name) in breakers {
                c.add(
                    format!("cut-u+{s:04x}-{keep}-by-{}", name.to_lowercase()),
                    cat(&[cut, &[b]]),
                    format!("{what} U+{s:04X} cut to {} by {name}", hex::encode(cut)),
                );
            }
        }
    }
    let text = "a\u{e9}\u{20ac}".as_bytes();
    for (s, what) in [(0x00E9, "2-byte"), (0x20AC, "3-byte"), (0x1F600, "4-byte")] {
        let full = utf8(s);
        for keep in 1..full.len() {
            let cut = &full[..keep];
            for (after, name) in [
                (&b"A"[..], "ascii"),
                (b"\xC3\xA9", "lead"),
                (b"\xFF", "bad"),
            ] {
                c.add(
                    format!("text-then-cut-u+{s:04x}-{keep}-then-{name}"),
                    cat(&[text, cut, after]),
                    format!(
                        "valid text, {what} U+{s:04X} cut to {}, then {name}",
                        hex::encode(cut)
                    ),
                );
            }
        }
    }
    for (lead, name) in [
        (0x80u8, "80"),
        (0xBF, "bf"),
        (0xC0, "c0"),
        (0xC1, "c1"),
        (0xF5, "f5"),
        (0xF8, "f8"),
        (0xFE, "fe"),
        (0xFF, "ff"),
    ] {
        c.add(
            format!("text-then-bad-lead-{name}"),
            cat(&[text, &[lead], b"z"]),
            format!(
                "valid text, then {} which starts no sequence, then 'z'",
                name.to_uppercase()
            ),
        );
    }
    let bom = utf8(0xFEFF);
    c.add(
        "bom-repeated-then-text",
        cat(&[&bom, &bom, b"A"]),
        "two BOMs at the start: both are characters (§6)",
    );
    c.add(
        "bom-thrice",
        cat(&[&bom, &bom, &bom]),
        "three BOMs and nothing else",
    );
    c.add(
        "bom-repeated-in-text",
        cat(&[b"A", &bom, &bom, b"B"]),
        "two BOMs in the middle of text",
    );
    c
}

/// A category of streaming cases: each input in each mode, fed in the
/// chunkings that matter; the expected calls from [`reference::stream`],
/// cross-checked against the pins.
struct StreamCategory {
    cases: Vec<Case>,
}

impl StreamCategory {
    fn add(&mut self, id: &str, chunks: &[&[u8]], note: &str) {
        for mode in [StreamMode::Strict, StreamMode::Lossy] {
            let run = StreamRun::new(chunks.iter().map(|c| c.to_vec()).collect());
            self.cases.push(Case::Stream(StreamCase {
                id: format!("{id}-{}", mode.as_str()),
                mode,
                chunks: chunks.iter().map(|c| hex::encode(c)).collect(),
                expected: reference::stream::expect(mode, &run),
                note: note.to_string(),
            }));
        }
    }
}

fn streaming() -> VectorFile {
    let mut c = StreamCategory { cases: Vec::new() };
    // The web-platform-tests' streaming expectations.
    c.add(
        "wpt-e0-80-then-80",
        &[b"\xE0\x80", b"\x80"],
        "E0 80 | 80: both U+FFFDs of E0 80 at once (80 cannot follow E0), one more for the 80",
    );
    c.add(
        "wpt-f0-9f-92-then-a9",
        &[b"\xF0\x9F\x92", b"\xA9"],
        "F0 9F 92 | A9: nothing until A9 completes U+1F4A9",
    );
    c.add(
        "cut-u+1f600-every-byte",
        &[b"\xF0", b"\x9F", b"\x98", b"\x80"],
        "U+1F600 a byte at a time: nothing until the last",
    );
    c.add(
        "cut-u+20ac-then-ascii",
        &[b"\xE2\x82", b"A"],
        "E2 82 | A: the U+FFFD comes with the A, not before",
    );
    c.add(
        "truncated-at-the-end",
        &[b"A\xE2\x82"],
        "a tail cut at the end: one U+FFFD from the flush (lossy), error_len null (strict)",
    );
    c.add(
        "surrogate-start-then-tail",
        &[b"\xED\xA0", b"\x80"],
        "ED A0 | 80: ED A0 can never be completed (a surrogate): decided at once",
    );
    c.add(
        "above-max-byte-by-byte",
        &[b"\xF4", b"\x90", b"\x80", b"\x80"],
        "F4 | 90 | 80 | 80: F4 90 is already impossible in the second call",
    );
    c.add(
        "empty-chunks",
        &[b"", b"\xC3", b"", b"\xA9", b""],
        "empty chunks are calls that return nothing",
    );
    c.add("no-chunks", &[], "no input at all, only the flush");
    c.add(
        "bom-split",
        &[b"\xEF", b"\xBB\xBF", b"A"],
        "a BOM split across chunks: a character like any other (§6)",
    );
    c.add(
        "bom-split-repeated",
        &[b"\xEF\xBB", b"\xBF\xEF", b"\xBB\xBF"],
        "two BOMs, each split",
    );
    c.add(
        "bad-byte-between-chunks",
        &[b"A", b"\xFF", b"B"],
        "a lone FF between two letters",
    );
    c.add(
        "cut-by-c0",
        &[b"\xC2", b"\xC0"],
        "C2 | C0: C0 cannot continue C2, and is a subpart itself",
    );
    c.add("cut-by-ff", &[b"\xF0\x90\x80", b"\xFF"], "F0 90 80 | FF");
    c.add(
        "error-after-text",
        &[b"ab\xC0", b"\xAFcd"],
        "an overlong split after text: strict stops in the first call",
    );
    VectorFile {
        schema: SCHEMA_VERSION,
        category: "streaming".into(),
        description: "Inputs fed in chunks to one decoder object, then flushed: what each call must return (the WHATWG Encoding Standard's streaming decode, which Unicode §3.9's maximal subparts imply: every character a call completes, a U+FFFD as soon as a sequence can no longer be completed, nothing for one that still can), in strict and lossy mode.".into(),
        references: vec![RFC_4.into(), UNICODE_MAXIMAL.into(), WHATWG.into()],
        cases: c.cases,
    }
}

fn encode() -> Result<VectorFile, String> {
    let mut cases = Vec::new();
    let mut add = |id: String, scalar: u32, note: String| {
        let (bytes, error) = match reference::encode(scalar) {
            Ok(b) => (Some(hex::encode(&b)), None),
            Err(e) => (None, Some(e.as_str().to_string())),
        };
        cases.push(Case::Encode(EncodeCase {
            id,
            scalar,
            bytes,
            error,
            note,
        }));
    };
    for &(s, what) in EDGES {
        add(format!("encode-u+{s:04x}"), s, format!("U+{s:04X}: {what}"));
    }
    for (s, what) in [
        (0xFEFF, "BOM"),
        (0x41, "§7 'A'"),
        (0x2262, "§7 NOT IDENTICAL TO"),
        (0x0391, "§7 ALPHA"),
        (0xD55C, "§7 Korean"),
        (0x65E5, "§7 Japanese"),
        (0x233B4, "§7 U+233B4"),
        (0xFDD0, "a noncharacter: encodable"),
        (0x10FFFE, "a noncharacter: encodable"),
    ] {
        add(format!("encode-u+{s:04x}"), s, format!("U+{s:04X}: {what}"));
    }
    for s in [0xD800u32, 0xDBFF, 0xDC00, 0xDFFF] {
        add(
            format!("encode-u+{s:04x}"),
            s,
            format!("U+{s:04X}: a surrogate, prohibited by §3"),
        );
    }
    for v in [
        0x11_0000u32,
        0x1F_FFFF,
        0x20_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
    ] {
        add(
            format!("encode-0x{v:x}"),
            v,
            format!("0x{v:X}: above U+10FFFF (§3, §12)"),
        );
    }
    Ok(VectorFile {
        schema: SCHEMA_VERSION,
        category: "encode".into(),
        description: "Scalar values to UTF-8 at every edge of RFC 3629 §3's table, and the values an encoder must refuse: surrogates and everything above U+10FFFF.".into(),
        references: vec![RFC_3.into(), RFC_7.into()],
        cases,
    })
}

/// Every category, in file-name order, with expectations checked against
/// [`PINNED`] and ids unique across all files.
pub fn all() -> Result<Vec<VectorFile>, String> {
    let mut files = Vec::new();
    for category in [
        beyond_max(),
        boundaries(),
        continuations(),
        lead_bytes(),
        overlong(),
        replacement(),
        rfc_examples(),
        surrogates(),
        truncated(),
        interrupted(),
    ] {
        files.push(category.build()?);
    }
    files.push(encode()?);
    files.push(streaming());
    files.push(super::utf16::category()?);
    files.sort_by(|a, b| a.category.cmp(&b.category));
    let mut ids = HashSet::new();
    for f in &files {
        for case in &f.cases {
            if !ids.insert(case.id().to_string()) {
                return Err(format!(
                    "duplicate case id {} (in {})",
                    case.id(),
                    f.category
                ));
            }
        }
    }
    check_pins(&files)?;
    Ok(files)
}

/// Every pinned expectation must match the generated case of that id.
pub fn check_pins(files: &[VectorFile]) -> Result<(), String> {
    for pin in PINNED {
        let found = files
            .iter()
            .filter(|f| f.category == pin.category)
            .flat_map(|f| &f.cases)
            .find(|c| c.id() == pin.id)
            .ok_or_else(|| format!("pinned case {}/{} was not generated", pin.category, pin.id))?;
        let mismatch = |what: &str| {
            Err(format!(
                "pinned case {}/{} ({}): {what} differs from the hand-written expectation",
                pin.category, pin.id, pin.source
            ))
        };
        match (found, &pin.pin) {
            (Case::Decode(d), Pin::Decode { bytes, expect }) => {
                if d.bytes != hex::encode(bytes) {
                    return mismatch("the input");
                }
                let want = expect.answer();
                for (field, same) in [
                    ("valid", d.expected.valid == want.valid),
                    ("scalars", d.expected.scalars == want.scalars),
                    ("valid_up_to", d.expected.valid_up_to == want.valid_up_to),
                    ("error_len", d.expected.error_len == want.error_len),
                    ("lossy", d.expected.lossy == want.lossy),
                ] {
                    if !same {
                        return mismatch(field);
                    }
                }
            }
            (
                Case::Encode(e),
                Pin::Encode {
                    scalar,
                    bytes,
                    error,
                },
            ) => {
                if e.scalar != *scalar {
                    return mismatch("the scalar");
                }
                if e.bytes != bytes.map(hex::encode) || e.error.as_deref() != *error {
                    return mismatch("the encoding");
                }
            }
            (
                Case::Stream(t),
                Pin::Stream {
                    chunks,
                    calls,
                    error,
                },
            ) => {
                let want: Vec<String> = chunks.iter().map(|c| hex::encode(c)).collect();
                if t.chunks != want {
                    return mismatch("the chunks");
                }
                let got_calls = t.expected.calls.as_deref().unwrap_or_default();
                if got_calls.len() != calls.len()
                    || got_calls.iter().zip(*calls).any(|(g, w)| g != w)
                {
                    return mismatch("the calls");
                }
                let got_error = t
                    .expected
                    .error
                    .map(|e| (e.call, e.valid_up_to, e.error_len));
                if got_error != error.map(|(call, at, len)| (call, Some(at), Some(len))) {
                    return mismatch("the error");
                }
            }
            (
                Case::Utf16(u),
                Pin::Utf16 {
                    units,
                    bytes,
                    error_index,
                    lossy,
                },
            ) => {
                if u.units != *units {
                    return mismatch("the units");
                }
                if u.bytes != bytes.map(hex::encode) || u.error_index != *error_index {
                    return mismatch("the strict result");
                }
                if u.lossy != hex::encode(lossy) {
                    return mismatch("the lossy result");
                }
            }
            _ => return mismatch("the kind of case"),
        }
    }
    Ok(())
}
