//! The UTF-16 property: the codec's UTF-8 ↔ UTF-16 conversions against
//! std, the reference, encoding_rs and (with the `simdutf` feature)
//! simdutf.

use super::finding::fail_plain;
use super::kernels::each_kernel;
use super::split_plan;
use crate::differential::{self, Field};
use crate::reference;
use utf8conform_codec::{self as codec, Utf16Error, Utf8Error};

const P: &str = "utf16";

/// std's strict UTF-8 → UTF-16: the code units, or the error.
fn std_decode(bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.encode_utf16().collect())
        .map_err(Utf8Error::from)
}

/// std's strict UTF-16 → UTF-8, with the index of the first lone surrogate
/// (the code units `char::decode_utf16` decodes before its first error;
/// `String::from_utf16` only says that there is one).
fn std_from_utf16(units: &[u16]) -> Result<String, Utf16Error> {
    String::from_utf16(units).map_err(|_| {
        let at = char::decode_utf16(units.iter().copied())
            .map_while(Result::ok)
            .map(char::len_utf16)
            .sum();
        Utf16Error::new(at)
    })
}

/// Property: the codec converts UTF-8 to UTF-16 and back as std does.
///
/// `data`, after a [`split_plan`] header, is read twice:
///
/// * as UTF-8: [`codec::decode_utf16`] and [`codec::decode_utf16_into`]
///   give `str::encode_utf16` of the text, or `core::str::from_utf8`'s
///   error (and the UTF-16 of the bytes before it);
///   [`codec::decode_lossy_utf16`] gives `String::from_utf8_lossy`'s
///   output as UTF-16, which is also the reference's lossy scalars as
///   UTF-16 and encoding_rs's `decode_to_utf16`; the codec's streaming
///   decoders, fed the pieces of the split plan, give the same as in one
///   call; simdutf's `convert_utf8_to_utf16` (with the `simdutf` feature)
///   accepts the same inputs and gives the same code units;
/// * the reference's UTF-16 (`reference::utf16`, RFC 2781 §2) of its
///   scalars is std's, and its decoding of the UTF-16 below (strict and
///   lossy) is std's;
/// * as UTF-16 (little-endian code unit pairs, an odd last byte dropped):
///   [`codec::from_utf16`] and [`codec::from_utf16_into`] give
///   `String::from_utf16`'s string or fail at the first lone surrogate
///   (`char::decode_utf16`'s first error); [`codec::from_utf16_lossy`]
///   gives `String::from_utf16_lossy`'s string and encoding_rs's
///   `encode_from_utf16`; simdutf's `convert_utf16_to_utf8` accepts the
///   same inputs and gives the same bytes.
///
/// ```
/// utf8conform::properties::utf16(b"\x80a\xF0\x9F\x98\x80\xED\xA0\x80b");
/// ```
pub fn utf16(data: &[u8]) {
    let (bytes, splits) = split_plan(data);
    utf8_to_utf16(bytes, &splits);
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    utf16_to_utf8(bytes, &units);
}

fn utf8_to_utf16(bytes: &[u8], splits: &[usize]) {
    let expected = std_decode(bytes);
    // The reference's UTF-16 (RFC 2781 §2.1 of its scalars) is std's.
    let reference = reference::decode(bytes).map(|scalars| reference::utf16::encode(&scalars));
    if reference.as_ref().ok() != expected.as_ref().ok() {
        fail_plain(
            P,
            "reference::utf16::encode of reference::decode",
            Field::Scalars,
            bytes,
            &format!("std {expected:04x?}, reference {reference:04x?}"),
        );
    }
    let got = codec::decode_utf16(bytes);
    if got != expected {
        let field = match (&got, &expected) {
            (Ok(_), Ok(_)) => Field::Scalars,
            (Err(g), Err(e)) if g.valid_up_to() == e.valid_up_to() => Field::ErrorLen,
            (Err(_), Err(_)) => Field::ValidUpTo,
            _ => Field::Valid,
        };
        fail_plain(
            P,
            "codec::decode_utf16",
            field,
            bytes,
            &format!("std {expected:04x?}, codec {got:04x?}"),
        );
    }
    let valid = expected
        .as_ref()
        .map_or_else(|e| e.valid_up_to(), |_| bytes.len());
    let mut prefix = vec![0x7E];
    prefix.extend(std_decode(&bytes[..valid]).unwrap_or_default());
    let mut into = vec![0x7E];
    let result = codec::decode_utf16_into(bytes, &mut into);
    if into != prefix || result != expected.as_ref().map(|_| ()).map_err(|e| *e) {
        fail_plain(
            P,
            "codec::decode_utf16_into",
            Field::Scalars,
            bytes,
            &format!("after [7e]: expected {prefix:04x?} {expected:?}, got {into:04x?} {result:?}"),
        );
    }

    let lossy: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
    let reference = reference::utf16::encode(&reference::decode_lossy(bytes));
    if reference != lossy {
        fail_plain(
            P,
            "reference::utf16::encode of reference::decode_lossy",
            Field::Lossy,
            bytes,
            &format!("as UTF-16: std {lossy:04x?}, reference {reference:04x?}"),
        );
    }
    let got = codec::decode_lossy_utf16(bytes);
    if got != lossy {
        fail_plain(
            P,
            "codec::decode_lossy_utf16",
            Field::Lossy,
            bytes,
            &format!("std {lossy:04x?}, codec {got:04x?}"),
        );
    }
    // Each kernel through its own methods, held to the same answers.
    each_kernel(P, bytes, |k| {
        let who = |what: &str| format!("kernel {}: {what}", k.name);
        let got = k.decode_utf16(bytes);
        if got != expected {
            fail_plain(
                P,
                &who("decode_utf16"),
                Field::Scalars,
                bytes,
                &format!("std {expected:04x?}, kernel {got:04x?}"),
            );
        }
        let mut into = vec![0x7E];
        let result = k.decode_utf16_into(bytes, &mut into);
        if into != prefix || result != expected.as_ref().map(|_| ()).map_err(|e| *e) {
            fail_plain(
                P,
                &who("decode_utf16_into"),
                Field::Scalars,
                bytes,
                &format!(
                    "after [7e]: expected {prefix:04x?} {expected:?}, got {into:04x?} {result:?}"
                ),
            );
        }
        let got = k.decode_lossy_utf16(bytes);
        if got != lossy {
            fail_plain(
                P,
                &who("decode_lossy_utf16"),
                Field::Lossy,
                bytes,
                &format!("std {lossy:04x?}, kernel {got:04x?}"),
            );
        }
    });
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    let mut out = vec![0u16; bytes.len() + 1];
    let (_, read, written, _) = decoder.decode_to_utf16(bytes, &mut out, true);
    if read != bytes.len() || out[..written] != lossy[..] {
        fail_plain(
            P,
            "encoding_rs decode_to_utf16",
            Field::Lossy,
            bytes,
            &format!("std {lossy:04x?}, encoding_rs {:04x?}", &out[..written]),
        );
    }

    let pieces = differential::split_at(bytes, splits);
    let mut d = codec::StreamDecoder::lossy();
    let mut out = Vec::new();
    for piece in &pieces {
        // Lossy decoding cannot fail.
        let _ = d.feed_utf16(piece, &mut out);
    }
    let _ = d.finish_utf16(&mut out);
    if out != lossy {
        fail_plain(
            P,
            "codec::StreamDecoder::lossy feed_utf16",
            Field::Chunking,
            bytes,
            &format!("split at {splits:?}: std {lossy:04x?}, stream {out:04x?}"),
        );
    }
    let mut d = codec::StreamDecoder::strict();
    let mut out = Vec::new();
    let result = pieces
        .iter()
        .try_for_each(|piece| d.feed_utf16(piece, &mut out))
        .and_then(|()| d.finish_utf16(&mut out));
    let whole = expected.as_ref().map(|_| ()).map_err(|e| *e);
    if result != whole || !prefix[1..].starts_with(&out) {
        fail_plain(
            P,
            "codec::StreamDecoder::strict feed_utf16",
            Field::Chunking,
            bytes,
            &format!(
                "split at {splits:?}: std {whole:?} after {:04x?}, stream {result:?} after {out:04x?}",
                &prefix[1..]
            ),
        );
    }

    #[cfg(feature = "simdutf")]
    {
        let mut out = Vec::<u16>::with_capacity(bytes.len());
        // SAFETY: UTF-8 never has more UTF-16 code units than bytes, and
        // `out` has room for one per byte.
        let n = unsafe {
            simdutf::convert_utf8_to_utf16(bytes.as_ptr(), bytes.len(), out.as_mut_ptr())
        };
        let got = match expected {
            Ok(ref units) if n == units.len() => {
                // SAFETY: simdutf wrote `n` code units.
                unsafe { out.set_len(n) };
                Some(out)
            }
            _ if n == 0 => None,
            // A wrong count: nothing to read back.
            _ => Some(Vec::new()),
        };
        if got.as_ref() != expected.as_ref().ok() && !bytes.is_empty() {
            fail_plain(
                P,
                "simdutf::convert_utf8_to_utf16",
                Field::Valid,
                bytes,
                &format!("std {expected:04x?}, simdutf {n} units {got:04x?}"),
            );
        }
    }
}

fn utf16_to_utf8(bytes: &[u8], units: &[u16]) {
    let expected = std_from_utf16(units);
    let reference = reference::utf16::to_string(units);
    if reference != expected {
        fail_plain(
            P,
            "reference::utf16::to_string",
            Field::Encode,
            bytes,
            &format!("on UTF-16 {units:04x?}: std {expected:?}, reference {reference:?}"),
        );
    }
    let got = codec::from_utf16(units);
    if got != expected {
        fail_plain(
            P,
            "codec::from_utf16",
            Field::Encode,
            bytes,
            &format!("on UTF-16 {units:04x?}: std {expected:?}, codec {got:?}"),
        );
    }
    // Utf16Error::shifted: cut the input inside its well-formed part (not
    // between the halves of a pair); the tail's error, shifted by the cut,
    // is the whole input's.
    if let Err(e) = &expected {
        let mut cut = e.valid_up_to() / 2;
        if cut > 0 && (0xD800..=0xDBFF).contains(&units[cut - 1]) {
            cut -= 1;
        }
        let tail = codec::from_utf16(&units[cut..]).map_err(|t| t.shifted(cut));
        if tail.as_ref().err() != Some(e) {
            fail_plain(
                P,
                "codec::Utf16Error::shifted",
                Field::Encode,
                bytes,
                &format!("on UTF-16 {units:04x?}: std {e:?}, the tail from {cut} shifted {tail:?}"),
            );
        }
    }
    let prefix = match &expected {
        Ok(s) => s.clone(),
        Err(e) => String::from_utf16_lossy(&units[..e.valid_up_to()]),
    };
    let mut into = String::from("~");
    let result = codec::from_utf16_into(units, &mut into);
    if into[1..] != prefix || result != expected.as_ref().map(|_| ()).map_err(|e| *e) {
        fail_plain(
            P,
            "codec::from_utf16_into",
            Field::Encode,
            bytes,
            &format!(
                "on UTF-16 {units:04x?}: expected ~{prefix:?} {expected:?}, got {into:?} {result:?}"
            ),
        );
    }
    let lossy = String::from_utf16_lossy(units);
    let reference = String::from_iter(reference::utf16::decode_lossy(units));
    if reference != lossy {
        fail_plain(
            P,
            "reference::utf16::decode_lossy",
            Field::Lossy,
            bytes,
            &format!("on UTF-16 {units:04x?}: std {lossy:?}, reference {reference:?}"),
        );
    }
    let got = codec::from_utf16_lossy(units);
    if got != lossy {
        fail_plain(
            P,
            "codec::from_utf16_lossy",
            Field::Lossy,
            bytes,
            &format!("on UTF-16 {units:04x?}: std {lossy:?}, codec {got:?}"),
        );
    }
    each_kernel(P, bytes, |k| {
        let who = |what: &str| format!("kernel {}: {what}", k.name);
        let got = k.from_utf16(units);
        if got != expected {
            fail_plain(
                P,
                &who("from_utf16"),
                Field::Encode,
                bytes,
                &format!("on UTF-16 {units:04x?}: std {expected:?}, kernel {got:?}"),
            );
        }
        let mut into = String::from("~");
        let result = k.from_utf16_into(units, &mut into);
        if into[1..] != prefix || result != expected.as_ref().map(|_| ()).map_err(|e| *e) {
            fail_plain(
                P,
                &who("from_utf16_into"),
                Field::Encode,
                bytes,
                &format!(
                    "on UTF-16 {units:04x?}: expected ~{prefix:?} {expected:?}, got {into:?} {result:?}"
                ),
            );
        }
        let got = k.from_utf16_lossy(units);
        if got != lossy {
            fail_plain(
                P,
                &who("from_utf16_lossy"),
                Field::Lossy,
                bytes,
                &format!("on UTF-16 {units:04x?}: std {lossy:?}, kernel {got:?}"),
            );
        }
    });
    // The error's message names the lone surrogate ("surrogate", std's
    // word in `FromUtf16Error`'s) and its index (its doc).
    if let Err(e) = &expected {
        let message = e.to_string();
        let std = String::from_utf16(units)
            .expect_err("std refuses it too")
            .to_string();
        let names_it = message.contains(&e.valid_up_to().to_string())
            && message.contains("surrogate")
            && std.contains("surrogate");
        if !names_it {
            fail_plain(
                P,
                "codec::Utf16Error's Display",
                Field::Encode,
                bytes,
                &format!("{e:?} says {message:?}; std says {std:?}"),
            );
        }
    }
    let mut encoder = encoding_rs::UTF_8.new_encoder();
    let mut out = vec![0u8; 3 * units.len() + 4];
    let (_, read, written, _) = encoder.encode_from_utf16(units, &mut out, true);
    if read != units.len() || out[..written] != *lossy.as_bytes() {
        fail_plain(
            P,
            "encoding_rs encode_from_utf16",
            Field::Lossy,
            bytes,
            &format!(
                "on UTF-16 {units:04x?}: std {lossy:?}, encoding_rs {:02x?}",
                &out[..written]
            ),
        );
    }

    #[cfg(feature = "simdutf")]
    {
        let mut out = Vec::<u8>::with_capacity(3 * units.len());
        // SAFETY: at most 3 bytes per code unit, and `out` has room for 3
        // per unit.
        let n = unsafe {
            simdutf::convert_utf16_to_utf8(units.as_ptr(), units.len(), out.as_mut_ptr())
        };
        let got = match expected {
            Ok(ref s) if n == s.len() => {
                // SAFETY: simdutf wrote `n` bytes.
                unsafe { out.set_len(n) };
                Some(out)
            }
            _ if n == 0 => None,
            _ => Some(Vec::new()),
        };
        let want = expected.as_ref().ok().map(|s| s.as_bytes().to_vec());
        if got != want && !units.is_empty() {
            fail_plain(
                P,
                "simdutf::convert_utf16_to_utf8",
                Field::Encode,
                bytes,
                &format!("on UTF-16 {units:04x?}: std {expected:?}, simdutf {n} bytes"),
            );
        }
    }
}
