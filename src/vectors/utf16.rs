//! The `utf16` category: UTF-16 code units to UTF-8 (RFC 2781 §2.2, then
//! RFC 3629 §3).
//!
//! Every case states whether its surrogates are all paired, and the
//! generator refuses a case where the reference disagrees; well-formed
//! units are built with std's `char::encode_utf16`, so inputs do not come
//! from the code that judges them. The pins in [`super::pinned`] give a
//! sample of the expected answers by hand.

use super::{Case, Utf16Case, VectorFile, SCHEMA_VERSION};

const RFC_2781: &str = "RFC 2781 §2.1, §2.2 (UTF-16: surrogate pairs; a lone W1 or W2 is an error)";
const RFC_3: &str = "RFC 3629 §3 (UTF-8 definition: the encoding table; surrogates prohibited)";
const LOSSY: &str =
    "WHATWG Encoding Standard, UTF-16 decoder (each unpaired surrogate is one U+FFFD), as Rust's String::from_utf16_lossy";

/// std's UTF-16 for a scalar value (independent of the reference).
fn units(scalar: u32) -> Vec<u16> {
    let c = char::from_u32(scalar).expect("a scalar value");
    c.encode_utf16(&mut [0; 2]).to_vec()
}

/// A scalar value's units between two ASCII letters.
fn in_text(scalar: u32) -> Vec<u16> {
    [&[0x61][..], &units(scalar), &[0x7A]].concat()
}

struct Cases {
    cases: Vec<Case>,
    wrong: Vec<String>,
}

impl Cases {
    /// Adds a case; `paired` is what RFC 2781 says of it, stated here and
    /// checked against the reference.
    fn add(
        &mut self,
        id: impl Into<String>,
        input: Vec<u16>,
        paired: bool,
        note: impl Into<String>,
    ) {
        let case = Utf16Case::from_reference(id.into(), &input, note.into());
        if case.valid != paired {
            self.wrong.push(format!(
                "utf16: case {} ({:04x?}) is meant to be {}, the reference says otherwise",
                case.id,
                input,
                if paired { "valid" } else { "invalid" }
            ));
        }
        self.cases.push(Case::Utf16(case));
    }
}

/// Scalars at the edges of RFC 2781's two forms and of RFC 3629's table.
const EDGES: &[(u32, &str)] = &[
    (0x0000, "first scalar: one unit, one UTF-8 byte"),
    (0x007F, "last 1-byte UTF-8"),
    (0x0080, "first 2-byte UTF-8"),
    (0x07FF, "last 2-byte UTF-8"),
    (0x0800, "first 3-byte UTF-8"),
    (0xD7FF, "last unit below the surrogates"),
    (0xE000, "first unit above the surrogates"),
    (0xFEFF, "U+FEFF, a byte order mark: a character, kept"),
    (0xFFFD, "the replacement character itself"),
    (0xFFFE, "noncharacter U+FFFE (a swapped BOM): a valid unit"),
    (0xFFFF, "last single unit, a noncharacter"),
    (0x10000, "first pair, D800 DC00 (§2.1); first 4-byte UTF-8"),
    (0x103FF, "D800 DFFF: the first W1 with the last W2"),
    (0x10FC00, "DBFF DC00: the last W1 with the first W2"),
    (0x10FFFF, "last scalar, DBFF DFFF"),
    (0x1F600, "an emoji, D83D DE00"),
];

/// The `utf16` vector file.
pub fn category() -> Result<VectorFile, String> {
    let mut c = Cases {
        cases: Vec::new(),
        wrong: Vec::new(),
    };
    c.add("utf16-empty", Vec::new(), true, "no units: empty UTF-8");
    for &(s, what) in EDGES {
        c.add(
            format!("utf16-u+{s:04x}"),
            units(s),
            true,
            format!("U+{s:04X}: {what}"),
        );
        c.add(
            format!("utf16-u+{s:04x}-in-text"),
            in_text(s),
            true,
            format!("U+{s:04X} between ASCII letters"),
        );
    }
    let pair = units(0x10000);
    for (w, kind) in [
        (0xD800u16, "high"),
        (0xDBFF, "high"),
        (0xDC00, "low"),
        (0xDFFF, "low"),
    ] {
        let what = format!("a lone {kind} surrogate {w:04X}");
        c.add(
            format!("lone-{w:04x}"),
            vec![w],
            false,
            format!("{what}, the whole input"),
        );
        c.add(
            format!("lone-{w:04x}-start"),
            vec![w, 0x41],
            false,
            format!("{what} before 'A'"),
        );
        c.add(
            format!("lone-{w:04x}-middle"),
            vec![0x41, w, 0x42],
            false,
            format!("{what} between 'A' and 'B'"),
        );
        c.add(
            format!("lone-{w:04x}-end"),
            vec![0x41, w],
            false,
            format!("{what} at the end"),
        );
        c.add(
            format!("lone-{w:04x}-after-pair"),
            [&pair[..], &[w]].concat(),
            false,
            format!("{what} after a pair: the pair is kept"),
        );
    }
    // A high surrogate followed by each kind of unit that is not a low one.
    for (next, what) in [
        (0x0000u16, "U+0000"),
        (0xD7FF, "D7FF, the unit just below the surrogates"),
        (0xE000, "E000, the unit just above them"),
        (0xFFFF, "FFFF"),
        (0xD800, "another high surrogate"),
        (0xDBFF, "the last high surrogate"),
    ] {
        c.add(
            format!("high-then-{next:04x}"),
            vec![0xD800, next],
            false,
            format!("D800 then {what}: no W2 in DC00-DFFF (§2.2 step 3)"),
        );
    }
    c.add(
        "reversed-pair",
        vec![0xDC00, 0xD800],
        false,
        "DC00 D800: a low surrogate first is an error (§2.2 step 2), and the high one then ends the input",
    );
    c.add(
        "low-low",
        vec![0xDC00, 0xDC00],
        false,
        "two low surrogates: each alone",
    );
    c.add(
        "high-high-low",
        vec![0xD800, 0xD800, 0xDC00],
        false,
        "D800 D800 DC00: the first high surrogate is unpaired, the second pairs",
    );
    c.add(
        "high-pair-low",
        vec![0xD800, 0xDC00, 0xDC00],
        false,
        "D800 DC00 DC00: a pair, then a lone low surrogate",
    );
    c.add(
        "three-highs",
        vec![0xD800, 0xD800, 0xD800],
        false,
        "three high surrogates: three U+FFFD",
    );
    c.add(
        "pairs-in-text",
        [&[0x41][..], &units(0x10000), &units(0x10FFFF), &[0x42]].concat(),
        true,
        "two pairs between ASCII letters",
    );
    c.add(
        "lone-between-pairs",
        [&units(0x1F600)[..], &[0xDE00], &units(0x1F600)].concat(),
        false,
        "a lone DE00 between two pairs: each pair is kept",
    );
    // Long inputs, so that a converter working in blocks meets the
    // unpaired surrogate deep inside one, and at a block's edge.
    for at in [15usize, 16, 31, 32, 63, 64] {
        let mut input = vec![0x41u16; 80];
        input[at] = 0xD800;
        c.add(
            format!("lone-d800-at-{at}"),
            input,
            false,
            format!("a lone D800 at unit {at} of 80 'A's"),
        );
    }
    for edge in [16usize, 32, 64] {
        let mut split = vec![0x41u16; 80];
        split[edge - 1] = 0xD800;
        split[edge] = 0xDC00;
        c.add(
            format!("pair-across-{edge}"),
            split,
            true,
            format!(
                "a pair at units {} and {edge} of 80: across a {edge}-unit block's edge",
                edge - 1
            ),
        );
    }
    if !c.wrong.is_empty() {
        return Err(c.wrong.join("\n"));
    }
    Ok(VectorFile {
        schema: SCHEMA_VERSION,
        category: "utf16".into(),
        description: "UTF-16 code units to UTF-8: every edge of RFC 2781's single units and surrogate pairs, and unpaired surrogates alone, at the start, middle and end, after a pair, before every kind of unit, and at and across the edges of 16-, 32- and 64-unit blocks. Valid: the UTF-8. Invalid: the index of the first unpaired surrogate. Always: the lossy UTF-8, one U+FFFD per unpaired surrogate.".into(),
        references: vec![RFC_2781.into(), RFC_3.into(), LOSSY.into()],
        cases: c.cases,
    })
}
