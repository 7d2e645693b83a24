//! The vectors' UTF-16 expectations, held to independent implementations,
//! and every codec kernel held to them.
//!
//! No [`Decoder`](utf8conform::Decoder) capability is UTF-16, so the
//! vector runner (and the audit) never asks these; this file does:
//!
//! * every decode case's `utf16` and `lossy_utf16` against std
//!   (`str::encode_utf16` of `from_utf8`, `from_utf8_lossy`) and
//!   encoding_rs (`decode_to_utf16`, which replaces as Unicode §3.9 does);
//! * every `utf16` case against std (`String::from_utf16`,
//!   `char::decode_utf16` for the index of the first unpaired surrogate,
//!   `String::from_utf16_lossy`);
//! * then each codec kernel this CPU runs, both ways, against the files.

use utf8conform::vectors::{self, Case, DecodeCase, Utf16Case};
use utf8conform_codec as codec;

fn cases() -> Vec<Case> {
    vectors::bundled()
        .into_iter()
        .flat_map(|f| {
            assert_eq!(f.schema, vectors::SCHEMA_VERSION, "{}", f.category);
            f.cases
        })
        .collect()
}

fn decode_cases() -> Vec<DecodeCase> {
    cases()
        .into_iter()
        .filter_map(|c| match c {
            Case::Decode(d) => Some(d),
            _ => None,
        })
        .collect()
}

fn utf16_cases() -> Vec<Utf16Case> {
    cases()
        .into_iter()
        .filter_map(|c| match c {
            Case::Utf16(u) => Some(u),
            _ => None,
        })
        .collect()
}

/// encoding_rs's UTF-8 → UTF-16 with replacement, whole input at once.
fn encoding_rs_lossy(bytes: &[u8]) -> Vec<u16> {
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    let cap = decoder
        .max_utf16_buffer_length(bytes.len())
        .expect("small inputs");
    let mut out = vec![0u16; cap];
    let (result, read, written, _) = decoder.decode_to_utf16(bytes, &mut out, true);
    assert_eq!(result, encoding_rs::CoderResult::InputEmpty);
    assert_eq!(read, bytes.len());
    out.truncate(written);
    out
}

#[test]
fn decode_cases_carry_the_utf16_std_and_encoding_rs_give() {
    let cases = decode_cases();
    assert!(cases.len() > 5000, "{} decode cases", cases.len());
    for case in &cases {
        let bytes = case.input();
        let std_strict: Option<Vec<u16>> = std::str::from_utf8(&bytes)
            .ok()
            .map(|s| s.encode_utf16().collect());
        assert_eq!(case.utf16, std_strict, "{}: utf16", case.id);
        let std_lossy: Vec<u16> = String::from_utf8_lossy(&bytes).encode_utf16().collect();
        assert_eq!(
            case.lossy_utf16.as_ref(),
            Some(&std_lossy),
            "{}: lossy_utf16",
            case.id
        );
        assert_eq!(
            encoding_rs_lossy(&bytes),
            std_lossy,
            "{}: encoding_rs",
            case.id
        );
    }
}

/// Where the first unpaired surrogate is, by std's `char::decode_utf16`
/// (which names the surrogate, not its index: the index is the units of
/// the characters before it).
fn std_error_index(units: &[u16]) -> Option<usize> {
    let mut at = 0;
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => at += c.len_utf16(),
            Err(_) => return Some(at),
        }
    }
    None
}

#[test]
fn utf16_cases_are_what_std_gives() {
    let cases = utf16_cases();
    assert!(cases.len() > 50, "{} utf16 cases", cases.len());
    assert!(cases.iter().any(|c| c.valid) && cases.iter().any(|c| !c.valid));
    for case in &cases {
        let want = match String::from_utf16(&case.units) {
            Ok(s) => Ok(s.into_bytes()),
            Err(_) => Err(std_error_index(&case.units).expect("std found one")),
        };
        assert_eq!(case.expected(), want, "{}", case.id);
        assert_eq!(
            case.expected_lossy(),
            String::from_utf16_lossy(&case.units).into_bytes(),
            "{}: lossy",
            case.id
        );
    }
}

#[test]
fn every_kernel_converts_utf8_to_utf16_as_the_vectors_say() {
    let cases = decode_cases();
    for kernel in codec::kernels() {
        let name = kernel.name;
        for case in &cases {
            let bytes = case.input();
            let got = kernel.decode_utf16(&bytes);
            match (&case.utf16, got) {
                (Some(want), Ok(got)) => assert_eq!(&got, want, "{name} {}", case.id),
                (None, Err(e)) => {
                    let a = &case.expected;
                    assert_eq!(Some(e.valid_up_to()), a.valid_up_to, "{name} {}", case.id);
                    assert_eq!(Some(e.error_len()), a.error_len, "{name} {}", case.id);
                }
                (want, got) => panic!("{name} {}: want {want:04x?}, got {got:04x?}", case.id),
            }
            assert_eq!(
                Some(kernel.decode_lossy_utf16(&bytes)),
                case.lossy_utf16,
                "{name} {}: lossy",
                case.id
            );
        }
    }
}

#[test]
fn every_kernel_converts_utf16_to_utf8_as_the_vectors_say() {
    let cases = utf16_cases();
    for kernel in codec::kernels() {
        let name = kernel.name;
        for case in &cases {
            let got = kernel
                .from_utf16(&case.units)
                .map(String::into_bytes)
                .map_err(|e| e.valid_up_to());
            assert_eq!(got, case.expected(), "{name} {}", case.id);
            assert_eq!(
                kernel.from_utf16_lossy(&case.units).into_bytes(),
                case.expected_lossy(),
                "{name} {}: lossy",
                case.id
            );
        }
    }
}
