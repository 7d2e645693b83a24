//! UTF-16 both ways, on every kernel this CPU runs (the scalar one
//! included) and through the dispatcher's entry points, against std alone:
//!
//! * UTF-8 → UTF-16: `core::str::from_utf8` (the error's `valid_up_to`
//!   and `error_len`) then `str::encode_utf16`; lossy, the UTF-16 of
//!   `String::from_utf8_lossy`; streaming, the same whatever the split;
//! * UTF-16 → UTF-8: `String::from_utf16`, with the error at the first
//!   unit `char::decode_utf16` refuses (std says only that one is
//!   there); lossy, `String::from_utf16_lossy`.
//!
//! The scalar loops read ASCII 8 units or 16 bytes at a time and the SIMD
//! kernels 32 or 64, so characters, errors and surrogate pairs sit at
//! every offset around those edges. Expected values never come from the
//! codec.

mod common;

use common::{kernels, Rng, BAD, EDGES};
use utf8conform_codec::{self as codec, Kernel, StreamDecoder, Utf16Error, Utf8Error};

// ---------------------------------------------------------------------
// std's answers

/// std's UTF-8 → UTF-16: the code units, or the error.
fn std_utf16(bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.encode_utf16().collect())
        .map_err(Utf8Error::from)
}

/// std's UTF-16 of the well-formed prefix of `bytes` (all of it, or the
/// bytes before the first error).
fn std_prefix_utf16(bytes: &[u8]) -> Vec<u16> {
    let end = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |s| s.len());
    core::str::from_utf8(&bytes[..end])
        .expect("std's well-formed prefix")
        .encode_utf16()
        .collect()
}

/// std's lossy UTF-8 → UTF-16.
fn std_lossy_utf16(bytes: &[u8]) -> Vec<u16> {
    String::from_utf8_lossy(bytes).encode_utf16().collect()
}

/// Index of the first unpaired surrogate, by `char::decode_utf16`: the
/// units of the characters it decodes before its first error.
fn std_first_lone(units: &[u16]) -> Option<usize> {
    let mut at = 0;
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => at += c.len_utf16(),
            Err(_) => return Some(at),
        }
    }
    None
}

/// std's UTF-16 → UTF-8: the string, or the error at the first unpaired
/// surrogate.
fn std_from_utf16(units: &[u16]) -> Result<String, Utf16Error> {
    let converted = String::from_utf16(units);
    match std_first_lone(units) {
        None => Ok(converted.expect("std: well-formed")),
        Some(at) => {
            assert!(
                converted.is_err(),
                "std disagrees with itself: {units:04x?}"
            );
            Err(Utf16Error::new(at))
        }
    }
}

/// std's UTF-8 of the well-formed prefix of `units`.
fn std_prefix_utf8(units: &[u16]) -> String {
    let end = std_first_lone(units).unwrap_or(units.len());
    String::from_utf16(&units[..end]).expect("std's well-formed prefix")
}

// ---------------------------------------------------------------------
// The checks

/// What the `_into` functions find in their buffer: it stays.
const OLD_UNITS: [u16; 3] = [0x2A, 0xD83D, 0xDE00];
const OLD_TEXT: &str = "~é😀";

/// Every UTF-8 → UTF-16 entry point, every kernel's and the dispatcher's,
/// on one input.
fn check_decode(bytes: &[u8]) {
    let expected = std_utf16(bytes);
    let verdict = expected.as_ref().map(|_| ()).map_err(|e| *e);
    let mut prefix = OLD_UNITS.to_vec();
    prefix.extend(std_prefix_utf16(bytes));
    let lossy = std_lossy_utf16(bytes);
    for k in kernels() {
        let name = k.name;
        assert_eq!(
            k.decode_utf16(bytes),
            expected,
            "{name} decode_utf16 {bytes:02x?}"
        );
        let mut out = OLD_UNITS.to_vec();
        assert_eq!(
            k.decode_utf16_into(bytes, &mut out),
            verdict,
            "{name} decode_utf16_into {bytes:02x?}"
        );
        assert_eq!(out, prefix, "{name} decode_utf16_into {bytes:02x?}");
        assert_eq!(
            k.decode_lossy_utf16(bytes),
            lossy,
            "{name} decode_lossy_utf16 {bytes:02x?}"
        );
    }
    assert_eq!(
        codec::decode_utf16(bytes),
        expected,
        "decode_utf16 {bytes:02x?}"
    );
    let mut out = OLD_UNITS.to_vec();
    assert_eq!(
        codec::decode_utf16_into(bytes, &mut out),
        verdict,
        "decode_utf16_into {bytes:02x?}"
    );
    assert_eq!(out, prefix, "decode_utf16_into {bytes:02x?}");
    assert_eq!(
        codec::decode_lossy_utf16(bytes),
        lossy,
        "decode_lossy_utf16 {bytes:02x?}"
    );
}

/// Every UTF-16 → UTF-8 entry point, every kernel's and the dispatcher's,
/// on one input. Compared as bytes: a faulty kernel's `String` may not be
/// UTF-8, and printing it would panic again.
fn check_encode(units: &[u16]) {
    let bytes = |r: Result<String, Utf16Error>| r.map(String::into_bytes);
    let expected = bytes(std_from_utf16(units));
    let verdict = expected.as_ref().map(|_| ()).map_err(|e| *e);
    let prefix = format!("{OLD_TEXT}{}", std_prefix_utf8(units)).into_bytes();
    let lossy = String::from_utf16_lossy(units).into_bytes();
    for k in kernels() {
        let name = k.name;
        assert_eq!(
            bytes(k.from_utf16(units)),
            expected,
            "{name} from_utf16 {units:04x?}"
        );
        let mut out = String::from(OLD_TEXT);
        assert_eq!(
            k.from_utf16_into(units, &mut out),
            verdict,
            "{name} from_utf16_into {units:04x?}"
        );
        assert_eq!(
            out.into_bytes(),
            prefix,
            "{name} from_utf16_into {units:04x?}"
        );
        assert_eq!(
            k.from_utf16_lossy(units).into_bytes(),
            lossy,
            "{name} from_utf16_lossy {units:04x?}"
        );
    }
    assert_eq!(
        bytes(codec::from_utf16(units)),
        expected,
        "from_utf16 {units:04x?}"
    );
    let mut out = String::from(OLD_TEXT);
    assert_eq!(
        codec::from_utf16_into(units, &mut out),
        verdict,
        "from_utf16_into {units:04x?}"
    );
    assert_eq!(out.into_bytes(), prefix, "from_utf16_into {units:04x?}");
    assert_eq!(
        codec::from_utf16_lossy(units).into_bytes(),
        lossy,
        "from_utf16_lossy {units:04x?}"
    );
}

/// Every streaming decoder (the dispatcher's and each kernel's, strict and
/// lossy) fed `bytes` cut at `cuts` (ascending), against std on the whole.
fn check_stream(bytes: &[u8], cuts: &[usize]) {
    let verdict = std_utf16(bytes).map(|_| ());
    let prefix = std_prefix_utf16(bytes);
    let lossy = std_lossy_utf16(bytes);
    let mut edges = vec![0];
    edges.extend_from_slice(cuts);
    edges.push(bytes.len());
    let mut decoders = vec![(
        "dispatcher",
        StreamDecoder::strict(),
        StreamDecoder::lossy(),
    )];
    for k in kernels() {
        decoders.push((k.name, k.stream_strict(), k.stream_lossy()));
    }
    for (name, mut strict, mut lossy_decoder) in decoders {
        let what = || format!("{name} {bytes:02x?} cut at {cuts:?}");
        let (mut out, mut lossy_out) = (OLD_UNITS.to_vec(), OLD_UNITS.to_vec());
        let mut result = Ok(());
        for w in edges.windows(2) {
            let chunk = &bytes[w[0]..w[1]];
            lossy_decoder
                .feed_utf16(chunk, &mut lossy_out)
                .expect("lossy never fails");
            let r = strict.feed_utf16(chunk, &mut out);
            if result.is_ok() {
                result = r;
            } else {
                assert_eq!(r, result, "the same error again, {}", what());
            }
        }
        let end = strict.finish_utf16(&mut out);
        if result.is_ok() {
            result = end;
        }
        lossy_decoder
            .finish_utf16(&mut lossy_out)
            .expect("lossy never fails");
        assert_eq!(result, verdict, "strict, {}", what());
        assert_eq!(out[..3], OLD_UNITS, "strict appends, {}", what());
        assert_eq!(out[3..], prefix, "strict output, {}", what());
        assert_eq!(lossy_out[..3], OLD_UNITS, "lossy appends, {}", what());
        assert_eq!(lossy_out[3..], lossy, "lossy output, {}", what());
    }
}

// ---------------------------------------------------------------------
// Inputs

/// Well-formed text of every UTF-8 length, at least `len` bytes, cut back
/// to a character boundary at or past `len`: the characters turn through
/// 1, 2, 3 and 4 bytes and the edges of each length.
fn mixed_text(len: usize, turn: usize) -> Vec<u8> {
    let chars = [
        "a",
        "é",
        "€",
        "😀",
        "\u{7F}",
        "\u{80}",
        "\u{7FF}",
        "\u{800}",
        "b",
        "\u{D7FF}",
        "\u{E000}",
        "\u{FFFF}",
        "c",
        "\u{10000}",
        "\u{10FFFF}",
        "d",
    ];
    let mut out = Vec::new();
    let mut i = turn;
    while out.len() < len {
        out.extend_from_slice(chars[i % chars.len()].as_bytes());
        i += 1;
    }
    out
}

/// Offsets around each edge of 16, 32 and 64 bytes (or units) up to
/// `len`: from 3 before to 3 after.
fn around_edges(len: usize) -> Vec<usize> {
    let mut out: Vec<usize> = [16, 32, 48, 64, 96, 128, 192, 256]
        .iter()
        .flat_map(|&e: &usize| e.saturating_sub(3)..=e + 3)
        .filter(|&o| o <= len)
        .collect();
    out.extend([0, 1, 2, len.saturating_sub(1), len]);
    out.sort_unstable();
    out.dedup();
    out
}

/// Long inputs, 64 to 300 bytes, of mixed text, clean and with one of
/// [`BAD`] planted at every offset around the block edges (which may cut
/// a character of the text: std decides what that is).
fn long_inputs(lens: &[usize], every_bad: bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (turn, &len) in lens.iter().enumerate() {
        let clean = mixed_text(len, turn);
        out.push(clean.clone());
        for at in around_edges(clean.len()) {
            for (b, bad) in BAD.iter().enumerate() {
                if !every_bad && b % 5 != at % 5 {
                    continue;
                }
                let mut input = clean[..at].to_vec();
                input.extend_from_slice(bad);
                input.extend_from_slice(&clean[at..]);
                out.push(input);
            }
        }
    }
    out
}

/// Code units of every kind UTF-16 → UTF-8 tells apart: the edges of each
/// UTF-8 length (RFC 3629 §3), both surrogate ranges' edges (Unicode §3.9,
/// D91), U+FFFD itself and U+FFFF.
const KINDS: [u16; 14] = [
    0x00, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD,
    0xFFFF,
];

/// Offsets in a 100-unit run around the 8-, 16-, 32- and 64-unit edges.
fn unit_offsets() -> Vec<usize> {
    let mut out: Vec<usize> = [0, 8, 16, 24, 32, 48, 64, 96]
        .iter()
        .flat_map(|&e: &usize| e.saturating_sub(2)..=e + 2)
        .filter(|&o| o < 100)
        .collect();
    out.push(99);
    out.dedup();
    out
}

// ---------------------------------------------------------------------
// UTF-8 → UTF-16

#[test]
fn decode_every_input_of_up_to_two_bytes() {
    common::every_input_of_up_to_two_bytes(check_decode);
}

#[test]
fn decode_three_and_four_byte_inputs() {
    // Every lead, a second byte at each edge of the ranges Unicode §3.9's
    // table 3-7 names (and just outside them), then every third byte.
    for lead in 0xC0..=0xFFu8 {
        for second in [0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
            for third in 0..=255u8 {
                check_decode(&[lead, second, third]);
            }
        }
    }
    for lead in 0xF0..=0xF4u8 {
        for second in [0x80, 0x8F, 0x90, 0xBF] {
            for third in [0x80, 0xBF] {
                for fourth in 0..=255u8 {
                    check_decode(&[lead, second, third, fourth]);
                    check_decode(&[b'x', lead, second, third, fourth]);
                }
            }
        }
    }
}

#[test]
fn decode_every_character_edge_behind_ascii_of_every_length() {
    for c in EDGES {
        let c = c.to_string();
        for n in 0..40 {
            let mut input = "a".repeat(n);
            input.push_str(&c);
            check_decode(input.as_bytes());
            input.push_str("b, and then past the next block of sixteen");
            check_decode(input.as_bytes());
        }
    }
}

#[test]
fn decode_long_inputs_with_an_error_at_every_offset_around_block_edges() {
    for input in long_inputs(&[64, 65, 100, 129, 200, 300], true) {
        check_decode(&input);
    }
}

#[test]
fn decode_random_text_with_errors() {
    let mut rng = Rng(16);
    for i in 0..1500 {
        check_decode(&common::text(&mut rng, i % 120, [0, 5, 50][i % 3]));
    }
}

// ---------------------------------------------------------------------
// Streaming UTF-8 → UTF-16

#[test]
fn stream_every_split_of_long_inputs() {
    for input in long_inputs(&[64, 100, 150], false).iter().step_by(3) {
        for cut in 0..=input.len() {
            check_stream(input, &[cut]);
        }
    }
}

#[test]
fn stream_byte_at_a_time_and_in_pairs_of_cuts() {
    for input in long_inputs(&[70], true) {
        let every: Vec<usize> = (1..input.len()).collect();
        check_stream(&input, &every);
    }
    for a in BAD {
        for b in BAD {
            let mut input = a.to_vec();
            input.extend_from_slice("é".as_bytes());
            input.extend_from_slice(b);
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    check_stream(&input, &[i, j]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------
// UTF-16 → UTF-8

#[test]
fn encode_every_code_unit_alone_and_next_to_each_surrogate() {
    check_encode(&[]);
    for unit in 0..=0xFFFFu16 {
        check_encode(&[unit]);
        check_encode(&[0xD800, unit]);
        check_encode(&[unit, 0xDC00]);
        check_encode(&[0x41, 0xDBFF, unit, 0x42]);
    }
}

#[test]
fn encode_every_kind_alone_in_pairs_and_in_threes() {
    for a in KINDS {
        check_encode(&[a]);
        for b in KINDS {
            check_encode(&[a, b]);
            for c in KINDS {
                check_encode(&[a, b, c]);
            }
        }
    }
}

#[test]
fn encode_every_kind_at_every_offset_around_unit_edges() {
    for filler in [0x61u16, 0xE9, 0x20AC] {
        for &unit in &KINDS {
            for at in unit_offsets() {
                let mut units = vec![filler; 100];
                units[at] = unit;
                check_encode(&units);
                check_encode(&units[..=at]);
            }
        }
    }
}

#[test]
fn encode_every_pair_of_kinds_at_every_offset_across_unit_edges() {
    // A pair at `at` = edge − 1 straddles the edge.
    let pairs: Vec<[u16; 2]> = KINDS
        .iter()
        .flat_map(|&a| KINDS.iter().map(move |&b| [a, b]))
        .chain([[0xD83D, 0xDE00], [0xDBFF, 0xDFFF], [0xD800, 0xDC00]])
        .collect();
    for pair in pairs {
        for at in unit_offsets().into_iter().filter(|&o| o < 99) {
            let mut units = vec![0x61u16; 100];
            units[at..at + 2].copy_from_slice(&pair);
            check_encode(&units);
            check_encode(&units[..at + 2]);
        }
    }
}

#[test]
fn encode_random_units() {
    // Mostly well-formed text as UTF-16, with lone surrogates.
    let mut rng = Rng(61);
    for i in 0..2000 {
        let bytes = common::text(&mut rng, i % 150, 0);
        let mut units: Vec<u16> = core::str::from_utf8(&bytes)
            .expect("text without errors")
            .encode_utf16()
            .collect();
        for _ in 0..(i % 4) {
            if units.is_empty() {
                break;
            }
            let at = rng.below(units.len());
            units[at] = 0xD800 + rng.below(0x800) as u16;
        }
        check_encode(&units);
    }
}

// ---------------------------------------------------------------------
// Utf16Error

#[test]
fn utf16_error_says_where_the_lone_surrogate_is() {
    for n in [0, 1, 7, 100, usize::MAX / 2] {
        let e = Utf16Error::new(n);
        assert_eq!(e.valid_up_to(), n);
        let shown = e.to_string();
        assert!(shown.contains("lone surrogate"), "{shown}");
        assert!(shown.contains(&format!(" {n} ")), "{shown}");
        for offset in [0, 1, 5, 64] {
            assert_eq!(e.shifted(offset).valid_up_to(), n + offset);
            assert_eq!(e.shifted(offset), Utf16Error::new(n + offset));
        }
    }
    assert_ne!(
        Utf16Error::new(3).to_string(),
        Utf16Error::new(4).to_string()
    );
    let e: &dyn std::error::Error = &Utf16Error::new(2);
    assert!(e.source().is_none());
}

#[test]
fn utf16_error_shifted_is_the_error_in_the_larger_input() {
    // An error found in a tail, shifted by the units before it, is the
    // whole input's error (std's index), whatever well-formed head.
    let heads: [&[u16]; 4] = [&[], &[0x41], &[0xD83D, 0xDE00, 0xE9], &[0x61; 40]];
    let tails: [&[u16]; 4] = [
        &[0xDC00],
        &[0x41, 0xD800],
        &[0xD83D, 0xDE00, 0xDFFF, 0x42],
        &[0x61, 0xDBFF, 0xDBFF, 0xDC00],
    ];
    for head in heads {
        for tail in tails {
            let whole: Vec<u16> = [head, tail].concat();
            let in_tail = codec::from_utf16(tail).unwrap_err();
            assert_eq!(
                Err(in_tail.shifted(head.len())),
                std_from_utf16(&whole),
                "{whole:04x?}"
            );
        }
    }
}

#[test]
fn kernels_run_here() {
    // The checks above iterate kernels(): it must hold the scalar kernel
    // at least, and every name once.
    let names: Vec<&str> = kernels().iter().map(|k: &&Kernel| k.name).collect();
    assert_eq!(names.last(), Some(&"scalar"));
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique, names);
}

// ---------------------------------------------------------------------
// Long runs: the SIMD kernels' loops (32-byte steps, a 64-byte ASCII
// loop, 16-unit blocks) reached with every kind around their edges

#[test]
fn decode_characters_whole_and_cut_between_long_ascii_runs() {
    // ASCII long enough for a 64-byte ASCII loop on both sides, a
    // character of every edge between, whole or cut short (then the error
    // is a character left open at the end of a step, before ASCII), at
    // every offset of two 64-byte loops.
    for c in EDGES {
        let mut buf = [0; 4];
        let c = c.encode_utf8(&mut buf).as_bytes();
        for n in 0..160 {
            for cut in 1..=c.len() {
                let mut input = vec![b'a'; n];
                input.extend_from_slice(&c[..cut]);
                input.extend_from_slice(&[b'b'; 140]);
                check_decode(&input);
            }
        }
    }
}

#[test]
fn decode_dense_text_of_each_kind_with_an_error_at_every_offset() {
    // Text of one kind of character (each group of a step then takes the
    // same path), ASCII-led or not, clean and with each error of BAD at
    // every offset up to 200 bytes.
    for c in ["é", "€", "😀", "a😀", "é€", "\u{10FFFF}€a"] {
        for lead in ["", "a", "ab", "abc"] {
            let text = format!("{lead}{}", c.repeat(240 / c.len()));
            let text = text.as_bytes();
            check_decode(text);
            for at in 0..200 {
                let bad = BAD[at % BAD.len()];
                let mut input = text[..at].to_vec();
                input.extend_from_slice(bad);
                input.extend_from_slice(&text[at..]);
                check_decode(&input);
            }
        }
    }
}

#[test]
fn encode_lone_surrogates_at_every_offset_among_pairs_and_bmp_text() {
    // Base texts whose 16-unit blocks take each SIMD path (ASCII, Latin,
    // CJK, pairs at both alignments, a mix), with runs of lone and paired
    // surrogates planted at every offset 0..110: each within a block, on
    // its last lane (a high surrogate waiting for the next block) and
    // across 16- and 32-unit edges.
    let bases = ["a", "é", "中", "😀", "a😀", "é中😀b"];
    let runs: [&[u16]; 9] = [
        &[0xD800],
        &[0xDC00],
        &[0xDBFF, 0xDBFF],
        &[0xD800, 0xD800, 0xDC00],
        &[0xDC00, 0xD800],
        &[0xD83D, 0xDE00, 0xDC00],
        &[0xD800, 0x41],
        &[0xDFFF, 0xDFFF],
        &[0xDBFF, 0xDFFF],
    ];
    for base in bases {
        let base: Vec<u16> = base.repeat(130).encode_utf16().take(130).collect();
        check_encode(&base);
        for run in runs {
            for at in 0..110 {
                let mut units = base[..at].to_vec();
                units.extend_from_slice(run);
                units.extend_from_slice(&base[at..]);
                check_encode(&units);
                check_encode(&units[..at + run.len()]);
            }
        }
    }
}

#[test]
fn decode_cjk_runs_after_each_length_of_character_at_every_offset() {
    // A run of 3-byte characters that a 32-byte step or a 16-byte group
    // may begin in the middle of: after the last 1 to 3 bytes of a 2-, 3-
    // or 4-byte character placed at every offset, clean and with an error
    // in the run.
    for before in ["é", "€", "😀"] {
        for n in 0..70 {
            let text = format!("{}{before}{}xyz", "a".repeat(n), "中".repeat(40));
            check_decode(text.as_bytes());
            let run = n + before.len();
            for k in 0..4 {
                let bad = BAD[(n + k) % BAD.len()];
                let at = run + 7 * k + 1;
                let mut input = text.as_bytes()[..at].to_vec();
                input.extend_from_slice(bad);
                input.extend_from_slice(&text.as_bytes()[at..]);
                check_decode(&input);
            }
        }
    }
}
