//! Every byte string of length 1, 2 and 3 — 16,843,008 inputs — through the
//! reference, the codec and `core::str::from_utf8`, strict and lossy (to
//! UTF-32 and UTF-16); every `u32` scalar candidate up to 0x110000 (plus
//! the top of the range) through the three encoders; and every UTF-16 code
//! unit, alone and next to a sample of surrogates, through the codec's
//! UTF-16 → UTF-8 conversions against `String::from_utf16{,_lossy}`.
//!
//! std is an independent implementation (with its own test suite), so this
//! pins the reference to it and the codec to both on every short input —
//! every lead byte, every second and third byte, every truncation.

use rayon::prelude::*;
use utf8conform::outcome::Utf8Error;
use utf8conform::reference;
use utf8conform_codec as codec;

fn std_strict(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.chars().map(u32::from).collect())
        .map_err(Utf8Error::from)
}

fn check_one(bytes: &[u8]) {
    let expected = std_strict(bytes);
    let reference = reference::decode(bytes).map(|c| c.into_iter().map(u32::from).collect());
    assert_eq!(reference, expected, "reference vs std on {bytes:02x?}");
    assert_eq!(
        codec::validate(bytes),
        expected.as_ref().map(|_| ()).map_err(|e| *e),
        "codec::validate vs std on {bytes:02x?}"
    );
    assert_eq!(
        codec::decode_utf32(bytes),
        expected,
        "codec::decode_utf32 on {bytes:02x?}"
    );
    let lossy: Vec<u32> = String::from_utf8_lossy(bytes)
        .chars()
        .map(u32::from)
        .collect();
    let reference_lossy: Vec<u32> = reference::decode_lossy(bytes)
        .into_iter()
        .map(u32::from)
        .collect();
    assert_eq!(
        reference_lossy, lossy,
        "reference lossy vs std on {bytes:02x?}"
    );
    assert_eq!(
        codec::decode_lossy_utf32(bytes),
        lossy,
        "codec lossy on {bytes:02x?}"
    );
    // UTF-16 output: std's `str::encode_utf16` of std's answers.
    let utf16 = core::str::from_utf8(bytes)
        .map(|s| s.encode_utf16().collect::<Vec<u16>>())
        .map_err(Utf8Error::from);
    assert_eq!(
        codec::decode_utf16(bytes),
        utf16,
        "codec::decode_utf16 on {bytes:02x?}"
    );
    let lossy16: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
    assert_eq!(
        codec::decode_lossy_utf16(bytes),
        lossy16,
        "codec::decode_lossy_utf16 on {bytes:02x?}"
    );
}

#[test]
fn every_input_of_one_and_two_bytes() {
    for a in 0..=255u8 {
        check_one(&[a]);
        for b in 0..=255u8 {
            check_one(&[a, b]);
        }
    }
}

#[test]
fn every_input_of_three_bytes() {
    (0..=255u8).into_par_iter().for_each(|a| {
        let mut buf = [a, 0, 0];
        for b in 0..=255u8 {
            buf[1] = b;
            for c in 0..=255u8 {
                buf[2] = c;
                check_one(&buf);
            }
        }
    });
}

#[test]
fn every_three_byte_input_after_ascii_padding_crosses_a_block_edge() {
    // The codec's fast loop works in 16-byte blocks: the same 3-byte inputs,
    // placed so they straddle the first block edge, must give the same
    // answers (offset by the padding).
    (0xC0..=0xFFu8).into_par_iter().for_each(|a| {
        for pad in [14usize, 15] {
            let mut buf = vec![b'x'; pad + 3];
            buf[pad] = a;
            for b in 0..=255u8 {
                buf[pad + 1] = b;
                for c in [
                    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xFF,
                ] {
                    buf[pad + 2] = c;
                    check_one(&buf);
                }
            }
        }
    });
}

#[test]
fn every_scalar_candidate_encodes_like_std() {
    let tops = (0xFFFF_FF00..=u32::MAX).chain([0x7FFF_FFFF, 0x8000_0000]);
    for value in (0..=0x11_0100u32).chain(tops) {
        let std = char::from_u32(value).map(|c| c.encode_utf8(&mut [0; 4]).as_bytes().to_vec());
        let reference = reference::encode(value).ok();
        assert_eq!(reference, std, "reference::encode({value:#x})");
        let codec = codec::encode_scalar(value)
            .ok()
            .map(|e| e.as_bytes().to_vec());
        assert_eq!(codec, std, "codec::encode_scalar({value:#x})");
        // The refusal reason is the RFC's: surrogate or out of range.
        if let Err(e) = reference::encode(value) {
            let surrogate = (0xD800..=0xDFFF).contains(&value);
            assert_eq!(e == utf8conform::outcome::EncodeError::Surrogate, surrogate);
        }
    }
}

fn check_utf16(units: &[u16]) {
    assert_eq!(
        codec::from_utf16(units),
        reference::utf16::to_string(units),
        "codec::from_utf16 on {units:04x?}"
    );
    assert_eq!(
        codec::from_utf16_lossy(units),
        String::from_utf16_lossy(units),
        "codec::from_utf16_lossy on {units:04x?}"
    );
}

#[test]
fn every_code_unit_before_and_after_every_kind_of_surrogate() {
    // Both ends of both surrogate ranges, and every 17th surrogate between.
    let mut surrogates: Vec<u16> = (0xD800..=0xDFFF).step_by(17).collect();
    surrogates.extend([0xD800, 0xDBFF, 0xDC00, 0xDFFF]);
    (0..=0xFFFFu16).into_par_iter().for_each(|unit| {
        check_utf16(&[unit]);
        for &s in &surrogates {
            check_utf16(&[unit, s]);
            check_utf16(&[s, unit]);
        }
    });
}
