//! The properties' own tests: the reference walk, the fast paths, and
//! properties that fail on broken decoders.

use super::expected::{
    ascii_run, lossy_from_strict, strict_of, walk_reference, Expected, Scratch, Strict, Walk,
};
use super::fast::{answers_agree, builtins, lossy_finding_of, strict_finding_of};
use super::*;
use crate::decoder::Decoder;
use crate::decoders;
use crate::differential::{self, Field};
use crate::generate::Structured;
use crate::outcome::{Answer, Capabilities, Capability, Failure};
use crate::reference;

const VALIDATE: Capabilities = Capabilities::NONE.with(Capability::Validate);
const VALIDATE_POSITION_SUBPART: Capabilities = VALIDATE
    .with(Capability::Position)
    .with(Capability::Subpart);
const SIMDUTF: Capabilities = VALIDATE
    .with(Capability::Position)
    .with(Capability::Decode)
    .with(Capability::Encode);

/// Short inputs at the edges the RFC names, valid and not.
const CASES: &[&[u8]] = &[
    b"",
    b"plain ASCII",
    b"\x41\xE2\x89\xA2\xCE\x91\x2E",         // RFC 3629 §7
    b"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4", // §7
    b"\xEF\xBB\xBF\xF0\xA3\x8E\xB4",         // BOM, U+233B4
    b"\x2F\xC0\xAE\x2E\x2F",                 // §10 overlong
    b"\xC0\x80",
    b"\xE0\x80\x80",
    b"\xE0\x9F\xBF",
    b"\xF0\x80\x80\x80",
    b"\xF0\x8F\xBF\xBF",
    b"\xED\xA0\x80",
    b"\xED\xBF\xBF",
    b"\xED\xA1\x8C\xED\xBE\xB4", // §3 CESU-8 pair
    b"\xF4\x90\x80\x80",
    b"\xF4\x8F\xBF\xBF",
    b"\xF5\x80\x80\x80",
    b"\xF8\x88\x80\x80\x80",
    b"\xFC\x84\x80\x80\x80\x80",
    b"\xFE\xFF",
    b"\x80\xBF\x80",
    b"a\xE2\x82",
    b"a\xE2\x82b",
    b"\xF1\x80\x80\xE1\x80\xC2\x41",
    b"\xF0\x9F\x98",
    b"\xEF\xBF\xBD\xEF\xBF\xBE\xEF\xBF\xBF",
    b"0123456789abcdef0123456789abcdef\xF4\x8F\xBF\xBF\xE0\xA0",
];

fn ref_walk(bytes: &[u8]) -> (Strict, Vec<u32>, Vec<u8>) {
    let mut lossy = Vec::new();
    let mut text = Vec::new();
    let strict = walk_reference(bytes, Walk::Lossy, &mut lossy, &mut text);
    if strict.is_ok() {
        text = bytes.to_vec();
    }
    (strict, lossy, text)
}

/// Both walks against the reference's own loops: the whole walk gives
/// `validate`'s result, `decode_lossy`'s output and (as UTF-8)
/// `from_utf8_lossy`'s; the strict walk the same result and `decode`'s
/// scalars up to the first error.
fn check_walk(bytes: &[u8]) {
    let (strict, lossy, text) = ref_walk(bytes);
    let want_strict = strict_of(reference::validate(bytes));
    assert_eq!(strict, want_strict, "{bytes:02x?}");
    let want: Vec<u32> = reference::decode_lossy(bytes)
        .iter()
        .map(|&c| u32::from(c))
        .collect();
    assert_eq!(lossy, want, "{bytes:02x?}");
    let std = String::from_utf8_lossy(bytes);
    assert_eq!(text, std.as_bytes(), "{bytes:02x?}");
    let mut prefix = vec![0xDEAD];
    let mut untouched = Vec::new();
    let strict = walk_reference(bytes, Walk::Strict, &mut prefix, &mut untouched);
    assert_eq!(strict, want_strict, "{bytes:02x?}");
    let up_to = want_strict.err().map_or(bytes.len(), |e| e.0);
    let want: Vec<u32> = reference::decode(&bytes[..up_to])
        .expect("valid before its first error")
        .iter()
        .map(|&c| u32::from(c))
        .collect();
    assert_eq!(prefix, want, "{bytes:02x?}");
    assert!(untouched.is_empty(), "{bytes:02x?}");
}

#[test]
fn the_walk_is_the_reference_on_every_short_input() {
    let check = check_walk;
    for case in CASES {
        check(case);
    }
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

/// ASCII runs are skipped 32 bytes, then a word, at a time: a non-ASCII
/// byte at every offset of runs up to two blocks and a word long (every
/// such byte in the first three words), and at either end of a word or
/// a block, must stop the run exactly there.
#[test]
fn the_walk_is_the_reference_across_ascii_runs() {
    let check = |bytes: &[u8]| {
        let naive = bytes.iter().take_while(|b| b.is_ascii()).count();
        assert_eq!(ascii_run(bytes), naive, "{bytes:02x?}");
        check_walk(bytes);
    };
    for len in 0..=72 {
        let mut bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        check(&bytes);
        for at in 0..len {
            let highs = if len <= 24 {
                0x80..=0xFFu8
            } else {
                0xBF..=0xC3
            };
            for high in highs {
                bytes[at] = high;
                check(&bytes);
                // A second one later: the walk resumes after the first.
                if at + 9 < len {
                    bytes[at + 9] = 0xC3;
                    check(&bytes);
                    bytes[at + 9] = b'z';
                }
            }
            bytes[at] = 0x7F;
            check(&bytes);
        }
    }
}

proptest::proptest! {
    /// Mostly ASCII with anything in between: long runs, as in text.
    #[test]
    fn the_walk_is_the_reference_on_mostly_ascii(
        bytes in proptest::collection::vec(
            proptest::prop_oneof![4 => 0u8..0x80, 1 => proptest::num::u8::ANY],
            0..200,
        )
    ) {
        check_walk(&bytes);
    }
}

#[test]
fn every_property_holds_on_the_edge_cases() {
    for case in CASES {
        differential(case);
        lossy(case);
        roundtrip(case);
        encode(case);
        let every: Vec<usize> = (0..=case.len()).collect();
        chunking(case, &every);
        chunking(case, &[]);
        chunking(case, &[case.len() / 2, 1, 9999]);
    }
    let (payload, splits) = split_plan(b"\x80\xE2\x82\xAC\xF0\x9F");
    chunking(payload, &splits);
}

#[test]
fn properties_hold_on_a_mebibyte() {
    // Valid text from the RFC's examples, then the same with an error
    // every 4 KiB: long inputs must neither panic nor crawl.
    let unit = "A≢Α. 한국어 日本語 \u{233B4} ok ".as_bytes();
    let valid: Vec<u8> = unit.iter().copied().cycle().take(1 << 20).collect();
    let valid = &valid[..reference::validate(&valid)
        .err()
        .map_or(valid.len(), |e| e.valid_up_to())];
    let mut broken = valid.to_vec();
    for i in (0..broken.len()).step_by(4096) {
        broken[i] = [0xC0, 0xED, 0xF4, 0x80, 0xFF][i / 4096 % 5];
    }
    for bytes in [valid, &broken[..]] {
        differential(bytes);
        lossy(bytes);
        roundtrip(bytes);
        chunking(bytes, &[1, 4095, 4096, 4097, 65537, 700_001]);
    }
    encode(&broken[..1 << 16]);
    let every: Vec<usize> = (0..broken.len()).step_by(3).collect();
    chunking(&broken[..1 << 16], &every);
}

#[test]
fn structured_inputs_hold() {
    use arbitrary::{Arbitrary, Unstructured};
    for seed in 0..200u64 {
        let entropy = crate::generate::SplitMix64::new(seed).bytes(200);
        if let Ok(input) = Structured::arbitrary(&mut Unstructured::new(&entropy)) {
            structured(&input);
        }
    }
}

#[test]
fn answers_agree_is_compare_without_the_text() {
    let caps_list = [
        Capabilities::ALL,
        Capabilities::STRICT,
        VALIDATE,
        VALIDATE_POSITION_SUBPART,
        SIMDUTF,
        Capabilities::NONE.with(Capability::Lossy),
    ];
    for case in CASES {
        let expected = differential::expected(case);
        let mut variants = vec![expected.clone(), Answer::default()];
        let mut flipped = expected.clone();
        flipped.valid = expected.valid.map(|v| !v);
        variants.push(flipped);
        let mut moved = expected.clone();
        moved.valid_up_to = expected.valid_up_to.map(|n| n + 1);
        variants.push(moved);
        let mut shorter = expected.clone();
        shorter.error_len = Some(Some(3));
        variants.push(shorter);
        let mut lossy = expected.clone();
        lossy.lossy = Some(vec![]);
        variants.push(lossy);
        let mut scalars = expected.clone();
        scalars.scalars = Some(vec![0xD800]);
        variants.push(scalars);
        for got in &variants {
            for caps in caps_list {
                assert_eq!(
                    answers_agree(&expected, got, caps),
                    differential::compare(&expected, got, caps).is_empty(),
                    "{case:02x?} {got:?} {caps:?}"
                );
            }
        }
    }
}

/// A decoder that accepts the overlong NUL C0 80, as Java's "modified
/// UTF-8" does.
struct AcceptsOverlongNul;

impl Decoder for AcceptsOverlongNul {
    fn name(&self) -> &str {
        "accepts-c0-80"
    }
    fn version(&self) -> String {
        "test".into()
    }
    fn capabilities(&self) -> Capabilities {
        VALIDATE
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let cleaned: Vec<u8> = bytes
            .iter()
            .copied()
            .filter(|&b| b != 0xC0)
            .map(|b| if b == 0x80 { 0 } else { b })
            .collect();
        Ok(Answer {
            valid: Some(core::str::from_utf8(&cleaned).is_ok()),
            ..Answer::default()
        })
    }
}

#[test]
fn differential_with_a_good_list_is_quiet() {
    let all = decoders::all_builtin();
    let decoders: Vec<&dyn Decoder> = all.iter().map(|d| d.as_ref()).collect();
    for case in CASES {
        differential_with(&decoders, case);
    }
}

#[test]
#[should_panic(
    expected = "accepts-c0-80 (Decoder::decode) disagrees with the reference on valid (level V)"
)]
fn differential_fails_on_a_broken_decoder() {
    differential_with(
        &[&decoders::StdDecoder, &AcceptsOverlongNul],
        b"text \xC0\x80 more",
    );
}

#[test]
fn the_failure_message_names_decoder_field_and_input() {
    let run =
        std::panic::AssertUnwindSafe(|| differential_with(&[&AcceptsOverlongNul], b"ab\xC0\x80"));
    let panic = std::panic::catch_unwind(run).expect_err("must fail");
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("hex: 6162c080"), "{message}");
    assert!(message.contains("minimized (1 bytes): [80]"), "{message}");
    assert!(message.contains("reference: false"), "{message}");
}

#[test]
fn lossy_from_strict_counts_subparts() {
    // Unicode §3.9 table 3-8's shape: F1 80 80 | E1 80 | C2 | 41.
    let (out, n) = lossy_from_strict(b"\xF1\x80\x80\xE1\x80\xC2\x41");
    assert_eq!((out, n), (vec![0xFFFD, 0xFFFD, 0xFFFD, 0x41], 3));
    // An incomplete tail is one subpart.
    assert_eq!(lossy_from_strict(b"a\xF0\x9F\x98"), (vec![0x61, 0xFFFD], 1));
}

#[test]
fn scalars_from_reaches_every_region() {
    let values: Vec<u32> = scalars_from(&[0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF]).collect();
    // Raw 1 and its aimed value (surrogate region), then a 3-byte tail
    // padded with zero.
    assert_eq!(values[0], 1);
    assert!((0xD700..0xE900).contains(&values[1]));
    assert_eq!(values[2], 0x00FF_FFFF);
    assert_eq!(values.len(), 4);
}

/// Every built-in decoder's fast paths cover what it claims, so the
/// fuzzers never fall back to the slow `decode` on it.
#[test]
fn every_builtin_has_fast_paths_for_its_claims() {
    for d in builtins() {
        let caps = d.capabilities();
        let mut out = Vec::new();
        for case in CASES {
            let fast = d.verdict(case).or_else(|| d.decode_into(case, &mut out));
            assert!(
                fast.is_some() || !caps.has(Capability::Validate),
                "{}",
                d.name()
            );
            if caps.has(Capability::Decode) {
                assert!(d.decode_into(case, &mut out).is_some(), "{}", d.name());
            }
            if caps.has(Capability::Lossy) {
                let mut text = String::new();
                assert!(
                    d.lossy_into(case, &mut out) || d.lossy_text_into(case, &mut text),
                    "{}",
                    d.name()
                );
            }
        }
    }
}

/// The fast paths answer what `decode` answers.
#[test]
fn fast_paths_agree_with_decode() {
    for d in builtins() {
        for case in CASES {
            let answer = d.decode(case).unwrap();
            if let Some(v) = d.verdict(case) {
                assert_eq!(
                    Some(v.valid),
                    answer.valid.or(Some(v.valid)),
                    "{} {case:02x?}",
                    d.name()
                );
                if let Some(at) = v.valid_up_to {
                    assert_eq!(Some(at), answer.valid_up_to, "{} {case:02x?}", d.name());
                }
            }
            let mut out = Vec::new();
            if let Some(v) = d.decode_into(case, &mut out) {
                if v.valid {
                    assert_eq!(
                        Some(&out),
                        answer.scalars.as_ref().or(Some(&out)),
                        "{} {case:02x?}",
                        d.name()
                    );
                }
            }
            let mut lossy = Vec::new();
            if d.lossy_into(case, &mut lossy) {
                assert_eq!(
                    Some(&lossy),
                    answer.lossy.as_ref(),
                    "{} {case:02x?}",
                    d.name()
                );
            }
            let mut text = String::new();
            if d.lossy_text_into(case, &mut text) {
                let from_text: Vec<u32> = text.chars().map(u32::from).collect();
                assert_eq!(
                    Some(&from_text),
                    answer.lossy.as_ref(),
                    "{} {case:02x?}",
                    d.name()
                );
            }
        }
    }
}

/// Every fast check can fail: held to a deliberately wrong expectation,
/// each built-in decoder's reports the field that differs.
#[test]
fn fast_checks_catch_a_wrong_expectation() {
    let mut scratch = Scratch::default();
    let find = |name: &str, bytes: &[u8], expected: &Expected, scratch: &mut Scratch| {
        let d = builtins().into_iter().find(|d| d.name() == name).unwrap();
        strict_finding_of(d, bytes, expected, scratch)
            .or_else(|| lossy_finding_of(d, bytes, expected, scratch))
            .map(|f| f.field)
    };
    let names: Vec<&str> = builtins().iter().map(|d| d.name()).collect();
    // A valid input expected to be invalid: everyone claims validity.
    let wrong = Expected {
        strict: Err((1, Some(1))),
        lossy: &[0x61, 0xFFFD],
        lossy_text: "a\u{FFFD}".as_bytes(),
    };
    for name in &names {
        assert_eq!(
            find(name, b"ab", &wrong, &mut scratch),
            Some(Field::Valid),
            "{name}"
        );
    }
    // The right validity, wrong scalars: those that decode say so.
    let wrong = Expected {
        strict: Ok(()),
        lossy: &[0x61, 0x63],
        lossy_text: b"ac",
    };
    for name in names
        .iter()
        .filter(|n| ["codec", "std", "simdutf", "encoding_rs", "bstr"].contains(n))
    {
        assert_eq!(
            find(name, b"ab", &wrong, &mut scratch),
            Some(Field::Scalars),
            "{name}"
        );
    }
    // Wrong position, then wrong subpart, then wrong lossy output.
    let bytes = b"a\xE1\x80b";
    let right_text = "a\u{FFFD}b".as_bytes();
    let wrong = Expected {
        strict: Err((0, Some(2))),
        lossy: &[0x61, 0xFFFD, 0x62],
        lossy_text: right_text,
    };
    for name in names.iter().filter(|n| **n != "simdutf8-basic") {
        assert_eq!(
            find(name, bytes, &wrong, &mut scratch),
            Some(Field::ValidUpTo),
            "{name}"
        );
    }
    let wrong = Expected {
        strict: Err((1, Some(1))),
        lossy: &[0x61, 0xFFFD, 0x62],
        lossy_text: right_text,
    };
    for name in names
        .iter()
        .filter(|n| ["codec", "std", "simdutf8-compat", "encoding_rs", "bstr"].contains(n))
    {
        assert_eq!(
            find(name, bytes, &wrong, &mut scratch),
            Some(Field::ErrorLen),
            "{name}"
        );
    }
    let wrong = Expected {
        strict: Err((1, Some(2))),
        lossy: &[0x61, 0xFFFD, 0xFFFD, 0x62],
        lossy_text: "a\u{FFFD}\u{FFFD}b".as_bytes(),
    };
    for name in names
        .iter()
        .filter(|n| ["codec", "std", "encoding_rs", "bstr"].contains(n))
    {
        assert_eq!(
            find(name, bytes, &wrong, &mut scratch),
            Some(Field::Lossy),
            "{name}"
        );
    }
}

/// A streaming decoder that is right in the end but late, as Node's
/// StringDecoder is: it holds every byte until the flush.
struct LateStream;

impl Decoder for LateStream {
    fn name(&self) -> &str {
        "late"
    }
    fn version(&self) -> String {
        "test".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE.with(Capability::StreamLossy)
    }
    fn decode(&self, _: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer::default())
    }
    fn stream(
        &self,
        _: crate::outcome::StreamMode,
        run: &crate::outcome::StreamRun,
    ) -> Result<crate::outcome::StreamAnswer, Failure> {
        let mut calls: Vec<Vec<u32>> = run.chunks.iter().map(|_| Vec::new()).collect();
        calls.push(
            String::from_utf8_lossy(&run.bytes())
                .chars()
                .map(u32::from)
                .collect(),
        );
        Ok(crate::outcome::StreamAnswer {
            calls: Some(calls),
            ..Default::default()
        })
    }
}

#[test]
#[should_panic(expected = "holds back in call 0")]
fn chunking_fails_on_a_late_decoder() {
    chunking_with(&[&LateStream], b"ab", &[1]);
}
