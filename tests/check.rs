//! `utf8conform::check` on decoders with one planted bug each: it finds
//! the bug, names the input that shows it, and survives a decoder that
//! panics or breaks its own claims. Expectations are RFC 3629's: std's
//! `from_utf8` (an independent implementation) is the correct decoder each
//! bug is planted into.

use utf8conform::decoder::Decoder;
use utf8conform::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure};
use utf8conform::{check_with, CheckOptions, Checked};

/// std's strict and lossy decoding, with `bug` applied to the input first
/// (returning the bytes the buggy decoder effectively judges).
struct Planted {
    name: &'static str,
    caps: Capabilities,
    bug: fn(&[u8]) -> Vec<u8>,
}

impl Decoder for Planted {
    fn name(&self) -> &str {
        self.name
    }
    fn version(&self) -> String {
        "planted".into()
    }
    fn capabilities(&self) -> Capabilities {
        self.caps
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let seen = (self.bug)(bytes);
        Ok(Answer::from_results(
            self.caps,
            std::str::from_utf8(&seen)
                .map(|s| s.chars().collect())
                .map_err(Into::into),
            || String::from_utf8_lossy(&seen).chars().collect(),
        ))
    }
}

fn checked(decoder: &dyn Decoder) -> Checked {
    check_with(decoder, &CheckOptions::quick())
}

#[test]
fn a_correct_decoder_conforms() {
    let d = Planted {
        name: "std",
        caps: Capabilities::STRICT.with(Capability::Lossy),
        bug: <[u8]>::to_vec,
    };
    let c = checked(&d);
    assert!(c.conforms(), "{c}");
}

#[test]
fn errors_past_the_first_256_bytes_are_checked() {
    // The SIMD tail bug: only the first 256 bytes are validated.
    let d = Planted {
        name: "first-256",
        caps: Capabilities::NONE.with(Capability::Validate),
        bug: |b| {
            let mut seen = b.to_vec();
            for byte in seen.iter_mut().skip(256) {
                *byte = b'a';
            }
            seen
        },
    };
    let c = checked(&d);
    assert!(!c.conforms());
    let deep = c
        .violations
        .iter()
        .find(|v| v.kind == "level" && v.input.len() / 2 > 256);
    assert!(
        deep.is_some(),
        "no violation on an input over 256 bytes:\n{c}"
    );
}

#[test]
fn an_error_at_one_offset_of_every_64_byte_block_is_found() {
    // A block-edge bug: a bad byte at offset 63 of any block is missed.
    let d = Planted {
        name: "block-edge",
        caps: Capabilities::NONE.with(Capability::Validate),
        bug: |b| {
            let mut seen = b.to_vec();
            for (i, byte) in seen.iter_mut().enumerate() {
                if i % 64 == 63 && *byte >= 0x80 {
                    *byte = b'a';
                }
            }
            seen
        },
    };
    let c = checked(&d);
    assert!(
        c.violations
            .iter()
            .any(|v| v.kind == "level" && v.input.len() / 2 >= 64),
        "{c}"
    );
}

#[test]
fn an_overlong_nul_accepted_is_a_validity_violation_on_its_two_bytes() {
    // Modified UTF-8's C0 80 read as NUL.
    let d = Planted {
        name: "c080",
        caps: Capabilities::STRICT,
        bug: |b| {
            let mut seen = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if b[i..].starts_with(&[0xC0, 0x80]) {
                    seen.push(0);
                    i += 2;
                } else {
                    seen.push(b[i]);
                    i += 1;
                }
            }
            seen
        },
    };
    let c = checked(&d);
    let v = c
        .violations
        .iter()
        .find(|v| v.level.is_some_and(|l| l.letter() == 'V'))
        .unwrap_or_else(|| panic!("no V violation:\n{c}"));
    assert_eq!(
        v.input.replace(' ', ""),
        "c080",
        "the shortest input first:\n{c}"
    );
}

struct PanicsOnF5;

impl Decoder for PanicsOnF5 {
    fn name(&self) -> &str {
        "panics-on-f5"
    }
    fn version(&self) -> String {
        "planted".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        assert!(!bytes.contains(&0xF5), "F5 is not handled");
        Ok(Answer::from_results(
            self.capabilities(),
            std::str::from_utf8(bytes)
                .map(|s| s.chars().collect())
                .map_err(Into::into),
            Vec::new,
        ))
    }
}

#[test]
fn a_decoder_that_panics_is_reported_with_its_input_not_aborted_on() {
    let c = checked(&PanicsOnF5);
    let panic = c
        .violations
        .iter()
        .find(|v| v.kind == "panic")
        .unwrap_or_else(|| panic!("no panic reported:\n{c}"));
    assert_eq!(panic.input.replace(' ', ""), "f5", "minimised:\n{c}");
    assert!(panic.got.contains("F5 is not handled"), "{}", panic.got);
    // The rest of the check ran: the inputs without F5 were all answered
    // and right, so nothing else is wrong.
    assert!(
        c.violations
            .iter()
            .all(|v| v.kind == "panic" || v.kind == "incomplete"),
        "{c}"
    );
}

struct ClaimsOnlyValidity;

impl Decoder for ClaimsOnlyValidity {
    fn name(&self) -> &str {
        "claims-only-validity"
    }
    fn version(&self) -> String {
        "planted".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE.with(Capability::Validate)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        // Answers scalars and positions it never claimed.
        Ok(Answer::from_results(
            Capabilities::STRICT,
            std::str::from_utf8(bytes)
                .map(|s| s.chars().collect())
                .map_err(Into::into),
            Vec::new,
        ))
    }
}

#[test]
fn an_answer_outside_the_claimed_capabilities_is_a_broken_claim() {
    let c = checked(&ClaimsOnlyValidity);
    let claim = c
        .violations
        .iter()
        .find(|v| v.kind == "claim")
        .unwrap_or_else(|| panic!("no broken claim reported:\n{c}"));
    assert!(!claim.got.is_empty(), "{claim}");
}

/// std's decoder and `char::encode_utf8`, except that `surrogates`
/// encodes U+D800..U+DFFF in the generalized 3-byte form (ED A0 80 for
/// U+D800) instead of refusing them, as RFC 3629 §3 requires.
struct Encoder {
    surrogates: bool,
}

impl Decoder for Encoder {
    fn name(&self) -> &str {
        "encoder"
    }
    fn version(&self) -> String {
        "planted".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT.with(Capability::Encode)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let strict = std::str::from_utf8(bytes)
            .map(|s| s.chars().collect())
            .map_err(Into::into);
        Ok(Answer::from_results(self.capabilities(), strict, Vec::new))
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        if self.surrogates && (0xD800..=0xDFFF).contains(&scalar) {
            let b = [
                0xE0 | (scalar >> 12) as u8,
                0x80 | ((scalar >> 6) & 0x3F) as u8,
                0x80 | (scalar & 0x3F) as u8,
            ];
            return Ok(EncodeAnswer::Bytes(b.to_vec()));
        }
        Ok(match char::from_u32(scalar) {
            Some(c) => EncodeAnswer::Bytes(c.encode_utf8(&mut [0; 4]).as_bytes().to_vec()),
            None => EncodeAnswer::Refused(None),
        })
    }
}

#[test]
fn the_encode_vectors_are_asked_and_judged() {
    // A correct encoder passes every encode vector: no cell of the
    // "encode" file is other than a pass (the report keeps only those).
    let c = checked(&Encoder { surrogates: false });
    assert!(c.conforms(), "{c}");
    let not_passed: Vec<_> = c
        .report
        .vector_cells
        .iter()
        .filter(|(id, _)| id.starts_with("encode/"))
        .collect();
    assert!(
        not_passed.is_empty(),
        "encode vectors not passed: {not_passed:?}"
    );

    // One that encodes surrogates fails E on the vector that says so.
    let c = checked(&Encoder { surrogates: true });
    assert_eq!(
        c.report
            .vector_cells
            .get("encode/encode-u+d800")
            .map(String::as_str),
        Some("fail:E"),
        "{c}"
    );
}
