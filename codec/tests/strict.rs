//! Strict validation and decoding, on every kernel this CPU runs (the
//! scalar one included) and through the dispatcher's entry points, against
//! `core::str::from_utf8`.

mod common;

use common::{kernels, placed, prefix, strict, text, Rng};
use utf8conform_codec as codec;

/// Every strict entry point on one input.
fn check(bytes: &[u8]) {
    let expected = strict(bytes);
    let verdict = expected.as_ref().map(|_| ()).map_err(|e| *e);
    for k in kernels() {
        assert_eq!(
            k.validate(bytes),
            verdict,
            "{} validate {bytes:02x?}",
            k.name
        );
        assert_eq!(
            k.decode_utf32(bytes),
            expected,
            "{} decode_utf32 {bytes:02x?}",
            k.name
        );
        // Appended after a few lanes, so that the output starts at every
        // place in a kernel's vector width over the inputs (16-byte
        // aligned allocations alone leave most of them out).
        let kept = (bytes.len() + bytes.first().map_or(0, |&b| usize::from(b))) % 16;
        check_appended(k, bytes, kept as u32, verdict);
        let chars = k
            .decode_chars(bytes)
            .map(|c| c.into_iter().map(u32::from).collect());
        assert_eq!(chars, expected, "{} decode_chars {bytes:02x?}", k.name);
    }
    assert_eq!(codec::validate(bytes), verdict, "validate {bytes:02x?}");
    let as_str = codec::from_utf8(bytes).map(|s| s.as_bytes().to_vec());
    assert_eq!(
        as_str,
        verdict.map(|()| bytes.to_vec()),
        "from_utf8 {bytes:02x?}"
    );
    assert_eq!(
        codec::decode_utf32(bytes),
        expected,
        "decode_utf32 {bytes:02x?}"
    );
    let chars = codec::decode_chars(bytes).map(|c| c.into_iter().map(u32::from).collect());
    assert_eq!(chars, expected, "decode_chars {bytes:02x?}");
    let mut out = vec![0x2A];
    assert_eq!(codec::decode_utf32_into(bytes, &mut out), verdict);
    assert_eq!(out[0], 0x2A, "decode_utf32_into keeps what was there");
    assert_eq!(out[1..], prefix(bytes), "decode_utf32_into {bytes:02x?}");
}

#[test]
fn text_after_every_output_offset() {
    // A kernel may align its stores to the output: the bytes it takes to
    // get there depend on where the caller's buffer ends, so each input
    // is decoded after 0 to 15 lanes already in the buffer. ASCII that
    // turns to text with characters (or an error) a little after the
    // first 64 bytes, so that the alignment step ends just before a
    // block that needs its check.
    let mut pieces: Vec<Vec<u8>> = common::BAD.iter().map(|b| b.to_vec()).collect();
    pieces.extend(common::EDGES.iter().map(|c| c.to_string().into_bytes()));
    for len in [80, 96, 128, 200] {
        for piece in &pieces {
            for at in 60..72 {
                let mut input = vec![b'a'; len];
                input[at..at + piece.len()].copy_from_slice(piece);
                let expected = strict(&input);
                let verdict = expected.as_ref().map(|_| ()).map_err(|e| *e);
                for k in kernels() {
                    for kept in 0..16 {
                        check_appended(k, &input, kept, verdict);
                    }
                }
            }
        }
    }
}

/// `decode_utf32_into` with kernel `k` into a buffer that holds `kept`
/// lanes already: they stay, and the prefix's code points follow.
fn check_appended(
    k: &'static codec::Kernel,
    bytes: &[u8],
    kept: u32,
    verdict: Result<(), codec::Utf8Error>,
) {
    let mut out: Vec<u32> = (0..kept).collect();
    assert_eq!(
        k.decode_utf32_into(bytes, &mut out),
        verdict,
        "{} decode_utf32_into after {kept} lanes {bytes:02x?}",
        k.name
    );
    let (before, after) = out.split_at(kept as usize);
    assert!(
        before.iter().copied().eq(0..kept),
        "{} decode_utf32_into keeps what was there",
        k.name
    );
    assert_eq!(
        after,
        prefix(bytes),
        "{} decode_utf32_into after {kept} lanes {bytes:02x?}",
        k.name
    );
}

#[test]
fn every_input_of_up_to_two_bytes() {
    common::every_input_of_up_to_two_bytes(check);
}

#[test]
fn every_third_byte_after_every_lead_and_continuation() {
    // Every DFA state a 3- or 4-byte sequence passes through, then every
    // byte: a lead of C0..FF, a second byte of 80..BF, any third byte.
    for lead in 0xC0..=0xFFu8 {
        for second in 0x80..=0xBFu8 {
            for third in 0..=255u8 {
                check(&[lead, second, third]);
            }
        }
    }
}

#[test]
fn every_fourth_byte_of_four_byte_forms() {
    for lead in 0xF0..=0xF4u8 {
        for second in [0x80, 0x8F, 0x90, 0xBF] {
            for third in [0x80, 0xBF] {
                for fourth in 0..=255u8 {
                    check(&[lead, second, third, fourth]);
                    check(&[b'x', lead, second, third, fourth]);
                }
            }
        }
    }
}

#[test]
fn every_kind_of_character_and_error_at_every_offset() {
    for input in placed() {
        check(&input);
    }
}

#[test]
fn random_text_with_errors() {
    let mut rng = Rng(7);
    for i in 0..3000 {
        let input = text(&mut rng, i % 90, 20);
        check(&input);
    }
}

#[test]
fn long_text_with_one_late_error() {
    // Past the engine's 16 KiB span and the scalar validator's blocks.
    let mut rng = Rng(11);
    let clean = text(&mut rng, 12_000, 0);
    check(&clean);
    for at in [clean.len() / 3, clean.len() - 5] {
        let mut input = clean.clone();
        input.insert(at, 0xFF);
        check(&input);
    }
}

#[test]
fn runs_of_three_byte_characters_with_one_fault_anywhere() {
    // CJK-like text (a SIMD kernel may take twenty 3-byte characters at
    // once), the run starting 0 to 3 bytes into a block, with one byte
    // replaced anywhere in its first 200 bytes: by a continuation of
    // either half of 0x80..=0xBF (the edge of E0's and ED's second byte,
    // RFC 3629 §4), ASCII, a 2-, 3- or 4-byte lead, 0xE0 or 0xED (whose
    // next byte may then be out of their range), or a byte that is never
    // in UTF-8.
    let chars = [
        '\u{800}', '\u{D7FF}', '\u{E000}', '\u{FFFF}', '一', '語', '\u{1000}',
    ];
    let run: String = (0..100).map(|i| chars[i * 5 % chars.len()]).collect();
    for lead in 0..4 {
        let mut base = "a".repeat(lead).into_bytes();
        base.extend_from_slice(run.as_bytes());
        check(&base);
        for at in 0..200 {
            for byte in [
                0x80, 0x9F, 0xA0, 0xBF, 0x41, 0xC2, 0xE1, 0xE0, 0xED, 0xF0, 0xFF,
            ] {
                let mut input = base.clone();
                input[lead + at] = byte;
                check(&input);
            }
        }
    }
}

#[test]
fn runs_of_three_byte_characters_around_a_space_with_one_fault() {
    common::three_byte_runs_around_a_space(check);
}

#[test]
fn runs_of_three_byte_characters_with_shorter_ones_anywhere() {
    // Well-formed CJK-like text with a 1- or 2-byte character (or two)
    // put between any two of its 3-byte ones: a kernel that takes a run
    // of 3-byte characters by their starts alone (every third byte) must
    // not take such a character, whose start looks the same, for one.
    let run: Vec<char> = (0..110).map(|i| ['一', '語', '\u{800}'][i % 3]).collect();
    for lead in 0..4 {
        for at in 0..run.len() {
            for short in ["a", "é", "aé", "éa", "ab"] {
                let mut input = "a".repeat(lead);
                input.extend(&run[..at]);
                input.push_str(short);
                input.extend(&run[at..]);
                check(input.as_bytes());
            }
        }
    }
}

#[test]
fn ascii_text_with_lone_characters_up_to_every_end() {
    // English-like text: long runs of ASCII with a character or an error
    // here and there, which a kernel's run of ASCII may take in its stride,
    // and inputs that end in ASCII, whose last bytes a kernel may decode by
    // widening the input's last 64 bytes over lanes it already wrote. One
    // piece (every edge character, every kind of error) at every place in
    // the last 100 bytes of inputs of 128 to 260 bytes, alone and after a
    // character near the start (so that a run begins after it).
    let mut pieces: Vec<Vec<u8>> = common::BAD.iter().map(|b| b.to_vec()).collect();
    pieces.extend(common::EDGES.iter().map(|c| c.to_string().into_bytes()));
    for len in [128, 150, 191, 192, 193, 230, 260] {
        for early in [None, Some("\u{e9}"), Some("\u{20ac}")] {
            let mut base = vec![b'a'; len];
            if let Some(c) = early {
                base[5..5 + c.len()].copy_from_slice(c.as_bytes());
            }
            check(&base);
            for piece in &pieces {
                for at in len - 100..=len - piece.len() {
                    let mut input = base.clone();
                    input[at..at + piece.len()].copy_from_slice(piece);
                    check(&input);
                }
            }
        }
    }
}
