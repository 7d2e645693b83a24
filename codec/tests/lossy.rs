//! Lossy decoding, on every kernel this CPU runs and through the
//! dispatcher, against `String::from_utf8_lossy` (one U+FFFD per maximal
//! subpart, Unicode §3.9).

mod common;

use common::{kernels, lossy, placed, text, utf32, Rng, BAD};
use utf8conform_codec as codec;

fn check(bytes: &[u8]) {
    let expected = lossy(bytes);
    let expected32 = utf32(&expected);
    for k in kernels() {
        assert_eq!(
            k.decode_lossy(bytes),
            expected,
            "{} decode_lossy {bytes:02x?}",
            k.name
        );
        assert_eq!(
            k.decode_lossy_utf32(bytes),
            expected32,
            "{} decode_lossy_utf32 {bytes:02x?}",
            k.name
        );
    }
    assert_eq!(
        codec::decode_lossy(bytes),
        expected,
        "decode_lossy {bytes:02x?}"
    );
    assert_eq!(
        codec::decode_lossy_utf32(bytes),
        expected32,
        "decode_lossy_utf32 {bytes:02x?}"
    );
}

#[test]
fn every_input_of_up_to_two_bytes() {
    common::every_input_of_up_to_two_bytes(check);
}

#[test]
fn every_kind_of_character_and_error_at_every_offset() {
    for input in placed() {
        check(&input);
    }
}

#[test]
fn runs_of_three_byte_characters_around_a_space_with_one_fault() {
    common::three_byte_runs_around_a_space(check);
}

#[test]
fn runs_of_errors_of_every_kind_between_text() {
    // Runs of lone bytes, then text: the rest after the first error is
    // short and clean, short and broken, or longer than a block.
    for a in BAD {
        for b in BAD {
            for gap in [
                "",
                "z",
                "\u{e9}\u{20ac}",
                &"ascii ".repeat(12),
                &"\u{1F600}".repeat(20),
            ] {
                let mut input = b"head ".to_vec();
                input.extend_from_slice(a);
                input.extend_from_slice(gap.as_bytes());
                input.extend_from_slice(b);
                input.extend_from_slice(gap.as_bytes());
                check(&input);
            }
        }
    }
}

#[test]
fn random_text_dense_and_sparse_in_errors() {
    let mut rng = Rng(3);
    for i in 0..2000 {
        check(&text(&mut rng, i % 150, [5, 50, 400][i % 3]));
    }
    // Longer than the engine's spans (128 bytes after an error, 16 KiB).
    for per_mille in [0, 1, 30] {
        check(&text(&mut rng, 15_000, per_mille));
    }
}
