//! `cesu8` (Eric Kidd's; the `jni` crate's string conversion): CESU-8 and
//! Java's Modified UTF-8, variants of UTF-8 on purpose. "16-bit Unicode
//! characters are the same in UTF-8 and CESU-8"; a supplementary character
//! is a 6-byte surrogate pair (`ED A0 81 ED B0 81` for U+10401), and the
//! Java variant writes U+0000 as `C0 80`. So each differs from RFC 3629 by
//! design, and the audit shows where.
//!
//! * `cesu8`: `from_cesu8` ("Returns an error if the data cannot be
//!   represented as valid UTF-8") gives `validate` + `decode`; `to_cesu8`
//!   gives `encode`.
//! * `cesu8-java`: `from_java_cesu8` and `to_java_cesu8`.
//!
//! `Cesu8DecodingError` carries nothing: no `position`, no `subpart`; the
//! crate has no lossy mode ("If you have a use case for lossy conversion
//! ... please feel free to submit a pull request"). The encoders take a
//! `&str`, which cannot hold a surrogate or a number above U+10FFFF:
//! those are refused without a reason (`char::from_u32`, the only way to
//! make the `&str`), as the kit's `std` decoder reports them.

use crate::scalars;
use std::borrow::Cow;
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure};

/// CESU-8.
pub struct Cesu8Decoder;

/// Java's Modified UTF-8.
pub struct Cesu8JavaDecoder;

fn capabilities() -> Capabilities {
    Capabilities::NONE
        .with(Capability::Validate)
        .with(Capability::Decode)
        .with(Capability::Encode)
}

fn answer(result: Result<Cow<'_, str>, cesu8::Cesu8DecodingError>) -> Answer {
    match result {
        Ok(text) => Answer {
            valid: Some(true),
            scalars: Some(scalars(&text).collect()),
            ..Answer::default()
        },
        Err(_) => Answer {
            valid: Some(false),
            ..Answer::default()
        },
    }
}

fn encode(scalar: u32, to: fn(&str) -> Cow<'_, [u8]>) -> EncodeAnswer {
    match char::from_u32(scalar) {
        Some(c) => EncodeAnswer::Bytes(to(c.encode_utf8(&mut [0; 4])).into_owned()),
        None => EncodeAnswer::Refused(None),
    }
}

impl Decoder for Cesu8Decoder {
    fn name(&self) -> &str {
        "cesu8"
    }
    fn version(&self) -> String {
        format!("cesu8 {} (CESU-8)", env!("ECOSYSTEM_VERSION_CESU8"))
    }
    fn capabilities(&self) -> Capabilities {
        capabilities()
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Encode => "cesu8::to_cesu8",
            _ => "cesu8::from_cesu8",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(answer(cesu8::from_cesu8(bytes)))
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        Ok(encode(scalar, cesu8::to_cesu8))
    }
}

impl Decoder for Cesu8JavaDecoder {
    fn name(&self) -> &str {
        "cesu8-java"
    }
    fn version(&self) -> String {
        format!(
            "cesu8 {} (Java Modified UTF-8)",
            env!("ECOSYSTEM_VERSION_CESU8")
        )
    }
    fn capabilities(&self) -> Capabilities {
        capabilities()
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Encode => "cesu8::to_java_cesu8",
            _ => "cesu8::from_java_cesu8",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(answer(cesu8::from_java_cesu8(bytes)))
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        Ok(encode(scalar, cesu8::to_java_cesu8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The crate documentation's examples.
    #[test]
    fn surrogate_pairs_decode_to_one_supplementary_character() {
        let a = Cesu8Decoder
            .decode(&[0xED, 0xA0, 0x81, 0xED, 0xB0, 0x81])
            .unwrap();
        assert_eq!((a.valid, a.scalars), (Some(true), Some(vec![0x10401])));
        let a = Cesu8Decoder.decode("aé日".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0x61, 0xE9, 0x65E5]));
        let a = Cesu8JavaDecoder.decode(&[0xC0, 0x80, 0xC0, 0x80]).unwrap();
        assert_eq!(a.scalars, Some(vec![0, 0]));
        // Plain CESU-8 has no C0 80.
        assert_eq!(
            Cesu8Decoder.decode(&[0xC0, 0x80]).unwrap().valid,
            Some(false)
        );
    }

    #[test]
    fn supplementary_characters_encode_as_six_bytes() {
        assert_eq!(
            Cesu8Decoder.encode(0x10401).unwrap(),
            EncodeAnswer::Bytes(vec![0xED, 0xA0, 0x81, 0xED, 0xB0, 0x81])
        );
        assert_eq!(
            Cesu8JavaDecoder.encode(0).unwrap(),
            EncodeAnswer::Bytes(vec![0xC0, 0x80])
        );
        assert_eq!(
            Cesu8Decoder.encode(0).unwrap(),
            EncodeAnswer::Bytes(vec![0])
        );
        assert_eq!(
            Cesu8Decoder.encode(0xD800).unwrap(),
            EncodeAnswer::Refused(None)
        );
    }
}
