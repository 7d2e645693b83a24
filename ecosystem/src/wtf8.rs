//! `wtf8` (Simon Sapin's WTF-8, the design behind std's `OsString` on
//! Windows). "Since WTF-8 must not be used for interchange, this library
//! deliberately does not provide access to the underlying bytes of WTF-8
//! strings, nor can it decode WTF-8 from arbitrary bytes": it has no
//! decoder to audit, so this claims only `encode`, through its one way out
//! to UTF-8 bytes:
//!
//! * `CodePoint::from_u32` ("Return `None` if `value` is above 0x10FFFF"):
//!   refused, out of range;
//! * `Wtf8Buf::push(code_point)` then `Wtf8Buf::into_string` ("If the
//!   contents are not well-formed UTF-8 (that is, if the string contains
//!   surrogates), the original WTF-8 string is returned instead"): refused,
//!   surrogate; otherwise the UTF-8 bytes.
//!
//! (A WTF-8 validator from bytes is audited as `tendril-wtf8`.)

use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{Answer, Capabilities, Capability, EncodeAnswer, EncodeError, Failure};
use wtf8::{CodePoint, Wtf8Buf};

/// wtf8's way from code points to UTF-8.
pub struct Wtf8Decoder;

impl Decoder for Wtf8Decoder {
    fn name(&self) -> &str {
        "wtf8"
    }
    fn version(&self) -> String {
        format!("wtf8 {}", env!("ECOSYSTEM_VERSION_WTF8"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE.with(Capability::Encode)
    }
    fn api(&self, _: Path) -> &'static str {
        "CodePoint::from_u32 + Wtf8Buf::push + Wtf8Buf::into_string"
    }
    fn decode(&self, _bytes: &[u8]) -> Result<Answer, Failure> {
        // No decoding capability is claimed: nothing is answered.
        Ok(Answer::default())
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        let Some(code_point) = CodePoint::from_u32(scalar) else {
            return Ok(EncodeAnswer::Refused(Some(EncodeError::OutOfRange)));
        };
        let mut buf = Wtf8Buf::new();
        buf.push(code_point);
        Ok(match buf.into_string() {
            Ok(s) => EncodeAnswer::Bytes(s.into_bytes()),
            Err(_) => EncodeAnswer::Refused(Some(EncodeError::Surrogate)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // From the crate's documentation of `from_u32` and `into_string`.
    #[test]
    fn encodes_scalars_and_refuses_the_rest_with_its_reason() {
        assert_eq!(
            Wtf8Decoder.encode(0x20AC).unwrap(),
            EncodeAnswer::Bytes(vec![0xE2, 0x82, 0xAC])
        );
        assert_eq!(
            Wtf8Decoder.encode(0xDC00).unwrap(),
            EncodeAnswer::Refused(Some(EncodeError::Surrogate))
        );
        assert_eq!(
            Wtf8Decoder.encode(0x110000).unwrap(),
            EncodeAnswer::Refused(Some(EncodeError::OutOfRange))
        );
        assert_eq!(Wtf8Decoder.decode(b"\xFF").unwrap(), Answer::default());
    }
}
