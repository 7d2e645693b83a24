//! The encoding properties: round trips through the codec and the
//! reference ([`roundtrip`]), and every encoder against RFC 3629 §3
//! ([`encode`], [`encode_with`]).

use super::fast::builtins;
use super::finding::fail_plain;
use crate::decoder::Decoder;
use crate::differential::{self, show_scalars, Field};
use crate::hex;
use crate::outcome::{Capability, EncodeAnswer, EncodeError};
use crate::reference::{self, Sequence};
use utf8conform_codec as codec;

/// Test values for encoders, four input bytes each: the raw little-endian
/// number (anything up to `u32::MAX`), and the same bits aimed at a region
/// that matters — anywhere below 0x200000 (so just past U+10FFFF too),
/// around the surrogates, around U+10FFFF, or next to an edge of RFC 3629
/// §3's table.
pub fn scalars_from(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    const EDGES: [u32; 12] = [
        0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF,
    ];
    bytes.chunks(4).flat_map(|chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let raw = u32::from_le_bytes(word);
        let rest = raw >> 2;
        let aimed = match raw & 3 {
            0 => raw >> 11,
            1 => 0xD700 + rest % 0x1200,
            2 => 0x10_FF00 + rest % 0x200,
            _ => EDGES[(rest % 12) as usize]
                .wrapping_add((rest >> 4) % 5)
                .wrapping_sub(2),
        };
        [raw, aimed]
    })
}

/// What RFC 3629 §3 says encoding `value` gives: its length, or why not.
pub(super) fn expected_encoding(value: u32) -> Result<usize, EncodeError> {
    match value {
        0xD800..=0xDFFF => Err(EncodeError::Surrogate),
        0..=0x7F => Ok(1),
        0x80..=0x7FF => Ok(2),
        0x800..=0xFFFF => Ok(3),
        0x1_0000..=0x10_FFFF => Ok(4),
        _ => Err(EncodeError::OutOfRange),
    }
}

/// Encoding `value` with the codec and the reference: each refuses exactly
/// the surrogates and the values above U+10FFFF, with that reason, and
/// otherwise gives the shortest form, which decodes back to `value`.
pub(super) fn check_encode_one(property: &str, bytes: &[u8], value: u32) {
    let expected = expected_encoding(value);
    let reference = reference::encode(value);
    let codec = codec::encode_scalar(value);
    let show = |r: &Result<&[u8], EncodeError>| match r {
        Ok(b) => hex::encode(b),
        Err(e) => format!("refused ({})", e.as_str()),
    };
    let got_ref = reference.as_deref().map_err(|e| *e);
    let got_codec = codec.as_ref().map(|e| e.as_bytes()).map_err(|e| *e);
    for (who, got) in [
        ("reference::encode", got_ref),
        ("codec::encode_scalar", got_codec),
    ] {
        let ok = match (&expected, &got) {
            (Ok(len), Ok(out)) => {
                out.len() == *len
                    && reference::first_sequence(out)
                        == Sequence::Char {
                            scalar: char::from_u32(value).unwrap_or('\0'),
                            len: *len,
                        }
            }
            (Err(e), Err(g)) => e == g,
            _ => false,
        };
        if !ok {
            let want = match expected {
                Ok(len) => format!("{len} bytes that decode back to U+{value:04X}"),
                Err(e) => format!("refused ({})", e.as_str()),
            };
            fail_plain(
                property,
                who,
                Field::Encode,
                bytes,
                &format!("U+{value:04X}: expected {want}, got {}", show(&got)),
            );
        }
    }
    if got_ref != got_codec {
        fail_plain(
            property,
            "codec::encode_scalar",
            Field::Encode,
            bytes,
            &format!(
                "U+{value:04X}: reference {}, codec {}",
                show(&got_ref),
                show(&got_codec)
            ),
        );
    }
}

/// Property: round trips. For the valid part of the input (all of it, or
/// the prefix before the reference's first error — which must itself be
/// valid), decoding then encoding gives the same bytes through the codec
/// and through the reference, and the two decode to the same scalars. For
/// the values [`scalars_from`] derives from the input, encoding refuses
/// exactly the surrogates and the values above U+10FFFF, and the scalar
/// values among them survive encode then decode.
///
/// ```
/// utf8conform::properties::roundtrip("a€\u{10FFFF}\u{D7FF}".as_bytes());
/// utf8conform::properties::roundtrip(b"ok \xED\xA0\x80 rest");
/// ```
///
/// # Panics
/// When a round trip changes the data or an encoder is wrong.
pub fn roundtrip(bytes: &[u8]) {
    const P: &str = "roundtrip";
    let valid = match reference::validate(bytes) {
        Ok(()) => bytes,
        Err(e) => &bytes[..e.valid_up_to()],
    };
    let chars = match reference::decode(valid) {
        Ok(chars) => chars,
        Err(e) => fail_plain(
            P,
            "reference::decode",
            Field::ValidUpTo,
            bytes,
            &format!(
                "the {} bytes before its first error are not valid to it: {e}",
                valid.len()
            ),
        ),
    };
    let scalars: Vec<u32> = chars.iter().map(|&c| u32::from(c)).collect();
    match codec::decode_utf32(valid) {
        Ok(got) if got == scalars => {}
        got => fail_plain(
            P,
            "codec::decode_utf32",
            Field::Scalars,
            bytes,
            &format!(
                "decoding the {} valid bytes: reference {}, codec {:?}",
                valid.len(),
                show_scalars(&scalars),
                got.map(|s| show_scalars(&s))
            ),
        ),
    }
    match codec::encode_utf32(&scalars) {
        Ok(out) if out == valid => {}
        out => fail_plain(
            P,
            "codec::encode_utf32",
            Field::Encode,
            bytes,
            &format!(
                "re-encoding {}: expected {}, got {:?}",
                show_scalars(&scalars),
                hex::encode(valid),
                out.map(|b| hex::encode(&b))
            ),
        ),
    }
    let mut out = Vec::with_capacity(valid.len());
    for &c in &chars {
        match reference::encode(u32::from(c)) {
            Ok(b) => out.extend_from_slice(&b),
            Err(e) => fail_plain(
                P,
                "reference::encode",
                Field::Encode,
                bytes,
                &format!("U+{:04X} (a decoded scalar) refused: {e}", u32::from(c)),
            ),
        }
    }
    if out != valid {
        fail_plain(
            P,
            "reference::encode",
            Field::Encode,
            bytes,
            &format!("re-encoding gives {}", hex::encode(&out)),
        );
    }
    let derived: Vec<u32> = scalars_from(bytes).collect();
    for &value in &derived {
        check_encode_one(P, bytes, value);
    }
    let good: Vec<u32> = derived
        .into_iter()
        .filter(|&v| expected_encoding(v).is_ok())
        .collect();
    let back = codec::encode_utf32(&good)
        .ok()
        .map(|encoded| (codec::decode_utf32(&encoded), reference::decode(&encoded)));
    let ok = matches!(&back, Some((Ok(c), Ok(r))) if *c == good && r.iter().map(|&ch| u32::from(ch)).eq(good.iter().copied()));
    if !ok {
        fail_plain(
            P,
            "codec::encode_utf32 then decode",
            Field::Encode,
            bytes,
            &format!("encode then decode of {} changed it", show_scalars(&good)),
        );
    }
}

/// Property [`encode`] for any encoders: each that claims `encode` gives
/// the reference's bytes, or refuses with the reference's reason (a
/// refusal without a reason agrees with any), on the values
/// [`scalars_from`] derives from the input.
///
/// ```
/// use utf8conform::decoders::StdDecoder;
/// utf8conform::properties::encode_with(&[&StdDecoder], b"\x00\xD8\x00\x00\xFF\xFF\x10\x00");
/// ```
///
/// # Panics
/// When an encoder is wrong.
pub fn encode_with(decoders: &[&dyn Decoder], bytes: &[u8]) {
    const P: &str = "encode";
    let encoders: Vec<&dyn Decoder> = decoders
        .iter()
        .copied()
        .filter(|d| d.capabilities().has(Capability::Encode))
        .collect();
    for value in scalars_from(bytes) {
        let want = reference::encode(value);
        for decoder in &encoders {
            let agrees = match (decoder.encode(value), &want) {
                (Ok(EncodeAnswer::Bytes(got)), Ok(want)) => got == *want,
                (Ok(EncodeAnswer::Refused(None)), Err(_)) => true,
                (Ok(EncodeAnswer::Refused(Some(got))), Err(want)) => got == *want,
                _ => false,
            };
            if agrees {
                continue;
            }
            let m = differential::check_encode(*decoder, value).unwrap_or(differential::Mismatch {
                field: Field::Encode,
                expected: format!("{want:?}"),
                got: "a different answer (check_encode agreed, so it is nondeterministic)".into(),
            });
            fail_plain(
                P,
                decoder.name(),
                m.field,
                bytes,
                &format!("reference: {}\n  got: {}", m.expected, m.got),
            );
        }
    }
}

/// Property: every encoder agrees with the reference on the values
/// [`scalars_from`] derives from the input (level E): the codec and the
/// reference against RFC 3629 §3 directly, every built-in decoder that
/// claims `encode` through [`differential::check_encode`], and the codec's
/// batch encoder, each kernel's too, which must fail at the first
/// non-scalar with its reason.
///
/// # Panics
/// When an encoder is wrong.
pub fn encode(bytes: &[u8]) {
    const P: &str = "encode";
    let values: Vec<u32> = scalars_from(bytes).collect();
    for &value in &values {
        check_encode_one(P, bytes, value);
    }
    encode_with(&builtins(), bytes);
    super::kernels::encode_kernels(P, bytes, &values);
    let first_bad = values
        .iter()
        .enumerate()
        .find_map(|(i, &v)| expected_encoding(v).err().map(|e| (i, e)));
    match (codec::encode_utf32(&values), first_bad) {
        (Ok(out), None) => {
            let mut want = Vec::with_capacity(out.len());
            for &v in &values {
                want.extend(reference::encode(v).unwrap_or_default());
            }
            if out != want {
                fail_plain(
                    P,
                    "codec::encode_utf32",
                    Field::Encode,
                    bytes,
                    &format!("expected {}, got {}", hex::encode(&want), hex::encode(&out)),
                );
            }
        }
        (Err(e), Some((i, why))) if e.index == i && e.error == why => {}
        (got, want) => fail_plain(
            P,
            "codec::encode_utf32",
            Field::Encode,
            bytes,
            &format!(
                "expected {}, got {}",
                want.map_or("success".into(), |(i, e)| format!(
                    "refusal at index {i} ({})",
                    e.as_str()
                )),
                match got {
                    Ok(_) => "success".into(),
                    Err(e) => format!("refusal at index {} ({})", e.index, e.error.as_str()),
                }
            ),
        ),
    }
}
