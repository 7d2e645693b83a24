//! The streaming decoder over every split of tricky inputs: one cut at every
//! position, and every pair of cuts, must give the one-shot answer — both
//! strict (scalars or the same error, offsets counted from the stream's
//! start) and lossy.

use utf8conform::outcome::Utf8Error;
use utf8conform::reference;
use utf8conform_codec::StreamDecoder;

/// Inputs where a split can fall inside every kind of sequence and error.
const TRICKY: &[&[u8]] = &[
    b"",
    b"plain ascii",
    "caf\u{e9} \u{20ac} \u{65e5}\u{672c} \u{1F600}!".as_bytes(),
    b"\xF0\x9F\x98",                                     // cut-off emoji at the end
    b"a\xE1\x80b",                                       // 2-byte maximal subpart
    b"\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", // Unicode table 3-8
    b"\xED\xA1\x8C\xED\xBE\xB4",                         // RFC 3629 §3 CESU-8 pair
    b"\x2F\xC0\xAE\x2E\x2F",                             // RFC 3629 §10
    b"\xF4\x90\x80\x80\xF4\x8F\xBF\xBF",                 // U+110000 then U+10FFFF
    b"\xEF\xBB\xBF\xF0\xA3\x8E\xB4",                     // RFC §7: BOM + U+233B4
    b"\xE0\xA0\xF0\x90\x80",                             // two truncations in a row
    b"\xFF\xFE\xC1\xBF\x80",
];

fn feed_all(chunks: &[&[u8]]) -> (Result<Vec<char>, Utf8Error>, Vec<char>) {
    let mut strict = StreamDecoder::strict();
    let mut out = String::new();
    let mut result = Ok(());
    for c in chunks {
        result = result.and_then(|()| strict.feed(c, &mut out));
    }
    let strict = result
        .and_then(|()| strict.finish(&mut out))
        .map(|()| out.chars().collect());
    let mut lossy = StreamDecoder::lossy();
    let mut out = String::new();
    for c in chunks {
        lossy.feed(c, &mut out).expect("lossy never fails");
    }
    lossy.finish(&mut out).expect("lossy never fails");
    (strict, out.chars().collect())
}

fn check(input: &[u8], chunks: &[&[u8]]) {
    let (strict, lossy) = feed_all(chunks);
    assert_eq!(
        strict,
        reference::decode(input),
        "strict, chunks {chunks:02x?}"
    );
    assert_eq!(
        lossy,
        reference::decode_lossy(input),
        "lossy, chunks {chunks:02x?}"
    );
}

#[test]
fn every_single_split_point() {
    for input in TRICKY {
        for cut in 0..=input.len() {
            let (a, b) = input.split_at(cut);
            check(input, &[a, b]);
        }
    }
}

#[test]
fn every_pair_of_split_points() {
    for input in TRICKY {
        for i in 0..=input.len() {
            for j in i..=input.len() {
                check(input, &[&input[..i], &input[i..j], &input[j..]]);
            }
        }
    }
}

#[test]
fn one_byte_at_a_time() {
    for input in TRICKY {
        let chunks: Vec<&[u8]> = input.chunks(1).collect();
        check(input, &chunks);
    }
}

#[test]
fn a_strict_stream_keeps_its_error_and_reports_the_absolute_offset() {
    let mut d = StreamDecoder::strict();
    let mut out = String::new();
    d.feed(b"abc", &mut out).unwrap();
    // The error's offset counts the 3 bytes of the first chunk.
    let e = d.feed(b"d\xC0\x80", &mut out).unwrap_err();
    assert_eq!((e.valid_up_to(), e.error_len()), (4, Some(1)));
    assert_eq!(d.feed(b"more", &mut out), Err(e));
    assert!(!d.is_mid_sequence());
}

#[test]
fn a_stream_reports_when_it_holds_part_of_a_character() {
    let mut d = StreamDecoder::lossy();
    let mut out = String::new();
    d.feed(b"\xF0\x9F", &mut out).unwrap();
    assert!(d.is_mid_sequence());
    assert_eq!(out, "");
    d.feed(b"\x98\x80", &mut out).unwrap();
    assert!(!d.is_mid_sequence());
    assert_eq!(out, "\u{1F600}");
}
