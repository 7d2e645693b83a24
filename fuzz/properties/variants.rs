//! The `variants` property: the reference's neighbours of UTF-8
//! (`utf8conform::reference::variants`) against independent
//! implementations of each. Shared by the cargo-fuzz target
//! (`fuzz/fuzz_targets/variants.rs`) and the AFL++ one
//! (`fuzz/afl/src/bin/variants.rs`) through `#[path]`: it lives here, not
//! in `utf8conform::properties`, because its oracles (`cesu8`, `wtf8`,
//! `tendril`, pinned as in `ecosystem/Cargo.toml`) must not become
//! dependencies of the published crate.
//!
//! The input is read twice: as bytes, which every format decodes, and as
//! UTF-16 code units (little endian, an odd last byte dropped), which the
//! oracles encode for the reference to decode back.
//!
//! | format | oracle | what must hold |
//! |---|---|---|
//! | every one | std (`str::from_utf8`) | RFC 3629 text is text in each neighbour, with the same values (CESU-8 and Modified UTF-8: when it has no 4-byte form); `utf-8` is std exactly, lossy output included |
//! | `cesu-8` | `cesu8::from_cesu8`, `to_cesu8` | same validity and values (inputs without F0..F4, see [`cesu8`]); CESU-8 of any text decodes to it; a valid input is the CESU-8 of its values |
//! | `modified-utf-8` | `cesu8::from_java_cesu8`, `to_java_cesu8` | whatever the crate accepts decodes to the same values; what the reference refuses the crate refuses (see [`modified_utf8`]); Java's bytes for any text decode to it |
//! | `wtf-8` | `tendril`'s `fmt::WTF8` validation; `wtf8::Wtf8Buf` | same validity (but after a stray continuation byte, see [`wtf8`]); a valid input is the WTF-8 of its values; the WTF-8 of any UTF-16 decodes to the crate's code points |
//! | `surrogatepass` | `wtf8::Wtf8Buf` (one code point at a time) | the 3-byte forms of any code units, pairs included, decode to those units, never joined |
//! | `surrogateescape` | std's `Utf8Chunks`, PEP 383 | valid always; each byte std cannot decode becomes U+DC00 + byte |
//! | `rfc2279` | RFC 2279 §2's table, as `utf8conform::generate` writes it (`encode_any`, `natural_len`) | the shortest form of any value up to 0x7FFFFFFF decodes to it; a longer form is refused |

use std::hash::{Hash, Hasher};
use std::sync::Once;
use utf8conform::generate::{encode_any, natural_len};
use utf8conform::hex;
use utf8conform::reference::variants::Format;

/// Panics with the format, what differed and the input in hex.
macro_rules! check {
    ($cond:expr, $format:expr, $bytes:expr, $($what:tt)+) => {
        if !$cond {
            panic!(
                "variants: {} ({}): {}\n  input: {}",
                $format.name(),
                $format.specification(),
                format!($($what)+),
                hex::encode($bytes)
            );
        }
    };
}

/// The property (see the module's doc).
pub fn variants(data: &[u8]) {
    static KNOWN: Once = Once::new();
    KNOWN.call_once(|| {
        wtf8_bytes_are_what_the_spec_says();
        names_are_the_report_schemas();
    });
    names(data);
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    utf8_subset(data);
    cesu8(data, &units);
    modified_utf8(data, &units);
    wtf8(data, &units);
    surrogatepass(&units);
    surrogateescape(data);
    rfc2279(data);
}

/// The formats' names, in `Format::ALL`'s order, as the report's schema
/// spells them (`src/report.schema.json`, `variants`' enum), which is also
/// what adapters.toml's `format` takes.
const SCHEMA_NAMES: [&str; 7] = [
    "utf-8",
    "rfc2279",
    "cesu-8",
    "modified-utf-8",
    "wtf-8",
    "surrogatepass",
    "surrogateescape",
];

/// Each format's name is the schema's, parses back to it, and its
/// specification is named (UTF-8's is RFC 3629, RFC 2279's RFC 2279).
fn names_are_the_report_schemas() {
    for (f, want) in Format::ALL.into_iter().zip(SCHEMA_NAMES) {
        let spec = f.specification();
        check!(
            f.name() == want
                && Format::parse(want) == Some(f)
                && !spec.is_empty()
                && (f != Format::Utf8 || spec.contains("3629"))
                && (f != Format::Rfc2279 || spec.contains("2279")),
            f,
            want.as_bytes(),
            "named {:?} (the schema: {want:?}), parse gives {:?}, specification {spec:?}",
            f.name(),
            Format::parse(want)
        );
    }
}

/// The input read as a name: a format exactly when it is one of the
/// schema's names.
fn names(data: &[u8]) {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let want = SCHEMA_NAMES
        .iter()
        .position(|n| *n == text)
        .map(|i| Format::ALL[i]);
    let got = Format::parse(text);
    check!(
        got == want,
        want.or(got).unwrap_or_default(),
        data,
        "parse({text:?}) gave {got:?}, the schema's names give {want:?}"
    );
}

fn values(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// A `String` of `values` if each is a scalar value.
fn text_of(values: &[u32]) -> Option<String> {
    values.iter().map(|&v| char::from_u32(v)).collect()
}

/// RFC 3629 is a subset of every neighbour but CESU-8 and Modified UTF-8,
/// which have no 4-byte forms (UTR #26 §2; `java.io.DataInput`: `1111xxxx`
/// is an error): text std accepts is valid in each, with std's values.
/// `utf-8` itself is std exactly: validity, `valid_up_to`, lossy output.
fn utf8_subset(bytes: &[u8]) {
    let std = core::str::from_utf8(bytes);
    let four_byte = bytes.iter().any(|b| (0xF0..=0xF4).contains(b));
    for f in Format::ALL {
        let got = f.expected(bytes);
        if let Ok(text) = std {
            if matches!(f, Format::Cesu8 | Format::ModifiedUtf8) && four_byte {
                check!(
                    got.valid == Some(false),
                    f,
                    bytes,
                    "a 4-byte form was accepted"
                );
                continue;
            }
            check!(
                got.valid == Some(true) && got.scalars.as_deref() == Some(&values(text)[..]),
                f,
                bytes,
                "UTF-8 text: std decodes {:x?}, the reference {:x?}",
                values(text),
                got.scalars
            );
        }
        if f == Format::Utf8 {
            check!(
                got.valid == Some(std.is_ok())
                    && got.valid_up_to == std.err().map(|e| e.valid_up_to()),
                f,
                bytes,
                "std says {std:?}, the reference {got:?}"
            );
            let lossy = values(&String::from_utf8_lossy(bytes));
            check!(
                got.lossy.as_deref() == Some(&lossy[..]),
                f,
                bytes,
                "lossy: std {lossy:x?}, the reference {:x?}",
                got.lossy
            );
        }
    }
}

/// CESU-8 against the `cesu8` crate, which claims UTR #26 in full with one
/// documented shortcut: `from_cesu8` first tries `str::from_utf8` ("16-bit
/// Unicode characters are the same in UTF-8 and CESU-8") and returns valid
/// UTF-8 as it is, 4-byte forms included, which UTR #26 §2 forbids
/// ("supplementary characters ... are encoded as 6 bytes"; a 4-byte form
/// is ill-formed CESU-8). So on an input with a byte F0..F4 only the
/// reference's refusal is checked (by [`utf8_subset`] and here); on every
/// other input the two must agree on validity and values.
fn cesu8(bytes: &[u8], units: &[u16]) {
    let f = Format::Cesu8;
    let got = f.expected(bytes);
    let four_byte = bytes.iter().any(|b| (0xF0..=0xF4).contains(b));
    if four_byte {
        check!(
            got.valid == Some(false),
            f,
            bytes,
            "a 4-byte lead was accepted"
        );
    } else {
        let oracle = cesu8::from_cesu8(bytes).ok().map(|t| values(&t));
        check!(
            got.valid == Some(oracle.is_some()) && got.scalars == oracle,
            f,
            bytes,
            "cesu8::from_cesu8 gives {oracle:x?}, the reference {got:?}"
        );
    }
    // CESU-8 is one form per character: a valid input is the CESU-8 of
    // its values, or the reference accepted a second form of something.
    if let Some(text) = got.scalars.as_deref().and_then(text_of) {
        let again = cesu8::to_cesu8(&text);
        check!(
            *again == *bytes,
            f,
            bytes,
            "cesu8::to_cesu8 of the values is {}",
            hex::encode(&again)
        );
    }
    // The other way: the CESU-8 of any text decodes back to it.
    let text = String::from_utf16_lossy(units);
    let encoded = cesu8::to_cesu8(&text);
    let back = f.expected(&encoded);
    check!(
        back.scalars.as_deref() == Some(&values(&text)[..]),
        f,
        &encoded,
        "cesu8::to_cesu8 of {:x?} decodes to {back:?}",
        values(&text)
    );
}

/// Modified UTF-8 against `cesu8`'s Java variant. `java.io.DataInput`
/// decodes by bit pattern alone (the reference's grammar: `0xxxxxxx`,
/// `110xxxxx 10xxxxxx`, `1110xxxx 10xxxxxx 10xxxxxx`, pairs of surrogates
/// joined by UTF-16); `from_java_cesu8` is stricter than that: it refuses
/// overlong forms other than C0 80, lone surrogates and (outside its
/// `str::from_utf8` shortcut) a raw 00 byte, and through the shortcut it
/// accepts 4-byte forms, which DataInput refuses. Both claim the result
/// where the crate accepts something with no F0..F4 byte (then the values
/// must agree), and where the reference refuses (then the crate must too:
/// everything DataInput refuses the crate refuses, 4-byte forms aside).
fn modified_utf8(bytes: &[u8], units: &[u16]) {
    let f = Format::ModifiedUtf8;
    let got = f.expected(bytes);
    let four_byte = bytes.iter().any(|b| (0xF0..=0xF4).contains(b));
    match cesu8::from_java_cesu8(bytes) {
        Ok(text) if !four_byte => check!(
            got.scalars.as_deref() == Some(&values(&text)[..]),
            f,
            bytes,
            "cesu8::from_java_cesu8 gives {:x?}, the reference {got:?}",
            values(&text)
        ),
        Ok(_) => check!(
            got.valid == Some(false),
            f,
            bytes,
            "a 4-byte form was accepted"
        ),
        Err(_) => {}
    }
    if got.valid == Some(false) && !four_byte {
        check!(
            cesu8::from_java_cesu8(bytes).is_err(),
            f,
            bytes,
            "refused, but cesu8::from_java_cesu8 accepts it: {got:?}"
        );
    }
    // Java's bytes for any text (C0 80 for NUL, pairs as two 3-byte
    // forms) decode back to it.
    let text = String::from_utf16_lossy(units);
    let encoded = cesu8::to_java_cesu8(&text);
    let back = f.expected(&encoded);
    check!(
        back.scalars.as_deref() == Some(&values(&text)[..]),
        f,
        &encoded,
        "cesu8::to_java_cesu8 of {:x?} decodes to {back:?}",
        values(&text)
    );
}

/// Records what a `Hash` impl writes.
#[derive(Default)]
struct Recorder(Vec<u8>);

impl Hasher for Recorder {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

/// The bytes of a WTF-8 string. The `wtf8` crate "deliberately does not
/// provide access to the underlying bytes"; its `Hash` impl (0.1.0, pinned)
/// writes them, then a 0xFE, to the hasher, so a hasher that records is
/// the one way to them. Checked against the length the crate reports on
/// every call, and against the WTF-8 spec's bytes once
/// ([`wtf8_bytes_are_what_the_spec_says`]).
fn wtf8_bytes(s: &wtf8::Wtf8) -> Vec<u8> {
    let mut recorder = Recorder::default();
    s.hash(&mut recorder);
    let mut bytes = recorder.0;
    assert_eq!(
        bytes.pop(),
        Some(0xFE),
        "wtf8's Hash no longer ends with 0xFE"
    );
    assert_eq!(
        bytes.len(),
        s.len(),
        "wtf8's Hash no longer writes the bytes"
    );
    bytes
}

/// WTF-8 §4 (encoding): U+D800 alone is ED A0 80, and U+D83D U+DE00
/// concatenated is the 4-byte form of U+1F600, F0 9F 98 80.
fn wtf8_bytes_are_what_the_spec_says() {
    let lone = wtf8::Wtf8Buf::from_ill_formed_utf16(&[0x61, 0xD800]);
    assert_eq!(wtf8_bytes(&lone), b"a\xED\xA0\x80");
    let mut pair = wtf8::Wtf8Buf::new();
    pair.push(wtf8::CodePoint::from_u32(0xD83D).unwrap());
    pair.push(wtf8::CodePoint::from_u32(0xDE00).unwrap());
    assert_eq!(wtf8_bytes(&pair), b"\xF0\x9F\x98\x80");
}

/// One code point's generalized UTF-8 (a surrogate's 3-byte form too), as
/// the `wtf8` crate writes it into an empty string.
fn wtf8_of(value: u32) -> Vec<u8> {
    let mut buf = wtf8::Wtf8Buf::new();
    buf.push(wtf8::CodePoint::from_u32(value).expect("a code point"));
    wtf8_bytes(&buf)
}

/// Whether `tendril`'s `fmt::WTF8` validation accepts `bytes`.
fn tendril_wtf8(bytes: &[u8]) -> bool {
    tendril::Tendril::<tendril::fmt::WTF8>::try_from_byte_slice(bytes).is_ok()
}

/// WTF-8: validity against `tendril`'s `fmt::WTF8` (its own classifier,
/// with the split-pair rule), values against the `wtf8` crate, which cannot
/// decode bytes but writes the one WTF-8 form of any code points.
///
/// tendril 0.5.1 accepts a stray continuation byte after a complete
/// sequence (`c28080`) and skips the bytes after it: its `classify` rewinds
/// from the stray byte to the sequence before it, and `validate` advances
/// by that sequence's length (reports/ecosystem/README.md, "tendril",
/// found by the audit). So where the input's first error is a continuation
/// byte 80..BF where a character should start, tendril's answer is not
/// compared; everywhere else it must be the reference's.
fn wtf8(bytes: &[u8], units: &[u16]) {
    let f = Format::Wtf8;
    let got = f.expected(bytes);
    let stray = got
        .valid_up_to
        .is_some_and(|at| (0x80..=0xBF).contains(&bytes[at]));
    if !stray {
        let tendril = tendril_wtf8(bytes);
        check!(
            got.valid == Some(tendril),
            f,
            bytes,
            "tendril's fmt::WTF8 says valid = {tendril}, the reference {got:?}"
        );
    }
    if let Some(values) = &got.scalars {
        // WTF-8 is one form per code point sequence (its push joins a lead
        // and a trail surrogate): a valid input is the WTF-8 of its values.
        let mut buf = wtf8::Wtf8Buf::new();
        for &v in values {
            match wtf8::CodePoint::from_u32(v) {
                Some(c) => buf.push(c),
                None => check!(false, f, bytes, "value {v:#x} is not a code point"),
            }
        }
        let again = wtf8_bytes(&buf);
        check!(
            again == bytes,
            f,
            bytes,
            "Wtf8Buf of the values {values:x?} is {}",
            hex::encode(&again)
        );
    }
    if let Some(up_to) = got.valid_up_to {
        let prefix = &bytes[..up_to];
        check!(
            tendril_wtf8(prefix),
            f,
            bytes,
            "the {up_to} bytes before the error are not WTF-8 to tendril"
        );
    }
    // The other way: the WTF-8 of any UTF-16 decodes to its code points.
    let buf = wtf8::Wtf8Buf::from_ill_formed_utf16(units);
    let encoded = wtf8_bytes(&buf);
    let expected: Vec<u32> = buf.code_points().map(|c| c.to_u32()).collect();
    let back = f.expected(&encoded);
    check!(
        back.scalars.as_deref() == Some(&expected[..]),
        f,
        &encoded,
        "wtf8's code points {expected:x?}, the reference {back:?}"
    );
}

/// Python's `surrogatepass` writes each code point, a surrogate too, in
/// its own (3-byte) form and reads them back unjoined: the units one by
/// one, then the code points `char::decode_utf16` makes of them (pairs
/// joined, lone surrogates kept), each encoded alone by `wtf8`, decode to
/// exactly those values.
fn surrogatepass(units: &[u16]) {
    let f = Format::SurrogatePass;
    let joined: Vec<u32> = char::decode_utf16(units.iter().copied())
        .map(|r| r.map_or_else(|e| u32::from(e.unpaired_surrogate()), u32::from))
        .collect();
    let apart: Vec<u32> = units.iter().map(|&u| u32::from(u)).collect();
    for cps in [apart, joined] {
        let encoded: Vec<u8> = cps.iter().flat_map(|&v| wtf8_of(v)).collect();
        let back = f.expected(&encoded);
        check!(
            back.scalars.as_deref() == Some(&cps[..]),
            f,
            &encoded,
            "the code points {cps:x?} decode to {back:?}"
        );
    }
}

/// PEP 383: "On decoding, replace byte with individual surrogate code
/// ranging from U+DC80 to U+DCFF" — every byte of what UTF-8 cannot
/// decode, which std's `Utf8Chunks` sets apart.
fn surrogateescape(bytes: &[u8]) {
    let f = Format::SurrogateEscape;
    let got = f.expected(bytes);
    let mut expected = Vec::new();
    for chunk in bytes.utf8_chunks() {
        expected.extend(values(chunk.valid()));
        expected.extend(chunk.invalid().iter().map(|&b| 0xDC00 + u32::from(b)));
    }
    check!(
        got.valid == Some(true)
            && got.scalars.as_deref() == Some(&expected[..])
            && got.lossy.as_deref() == Some(&expected[..]),
        f,
        bytes,
        "std's chunks escaped give {expected:x?}, the reference {got:?}"
    );
}

/// RFC 2279: values up to 0x7FFFFFFF (surrogates too) from the input, 4
/// bytes each (little endian, the top bit dropped), in their shortest
/// forms, decode back; each value's next longer form (up to 6 bytes) is
/// refused ("only the shortest form is legal", §6's warning).
fn rfc2279(bytes: &[u8]) {
    let f = Format::Rfc2279;
    let vals: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & 0x7FFF_FFFF)
        .collect();
    let encoded: Vec<u8> = vals
        .iter()
        .flat_map(|&v| encode_any(v, natural_len(v)))
        .collect();
    let back = f.expected(&encoded);
    check!(
        back.scalars.as_deref() == Some(&vals[..]),
        f,
        &encoded,
        "the values {vals:x?} decode to {back:?}"
    );
    for &v in vals.iter().take(4) {
        let len = natural_len(v);
        if len < 6 {
            let overlong = encode_any(v, len + 1);
            check!(
                f.expected(&overlong).valid == Some(false),
                f,
                &overlong,
                "{v:#x}'s {}-byte form was accepted",
                len + 1
            );
        }
    }
}
