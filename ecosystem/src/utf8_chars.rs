//! `utf8-chars`: `BufReadCharsExt::read_char_raw` reads one `char` from any
//! `BufRead`, returning `Ok(Some(char))`, `Ok(None)` at the end, or a
//! `ReadCharError` whose `as_bytes()` is "a byte sequence, representing an
//! invalid or incomplete UTF-8-encoded char" and whose I/O error kind is
//! `UnexpectedEof` "if a multi-byte char was unexpectedly terminated" or
//! `InvalidData` if the bytes were "not recognised as a valid UTF-8".
//!
//! The input is a `Cursor` over the bytes, read char by char until the end
//! or the first error: `validate`, `decode`; `valid_up_to` is the cursor's
//! position before the failing read (what the library had consumed);
//! `error_len` is the length of the error's bytes, or null for
//! `UnexpectedEof` (`position`, `subpart`).
//!
//! No `lossy` (the crate has no replacing mode), no streams: a `BufRead`
//! is pulled from until it says it has ended, and there is no call that
//! says "more input follows".

use std::io::{Cursor, ErrorKind};
use utf8_chars::BufReadCharsExt;
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{Answer, Capabilities, Failure, FailureKind};

/// utf8-chars.
pub struct Utf8CharsDecoder;

impl Decoder for Utf8CharsDecoder {
    fn name(&self) -> &str {
        "utf8-chars"
    }
    fn version(&self) -> String {
        format!("utf8-chars {}", env!("ECOSYSTEM_VERSION_UTF8_CHARS"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
    }
    fn api(&self, _: Path) -> &'static str {
        "BufReadCharsExt::read_char_raw on a Cursor"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut reader = Cursor::new(bytes);
        let mut chars = Vec::new();
        loop {
            let at = reader.position() as usize;
            match reader.read_char_raw() {
                Ok(Some(c)) => chars.push(u32::from(c)),
                Ok(None) => {
                    return Ok(Answer {
                        valid: Some(true),
                        scalars: Some(chars),
                        ..Answer::default()
                    })
                }
                Err(e) => {
                    let error_len = match e.as_io_error().kind() {
                        ErrorKind::UnexpectedEof => None,
                        ErrorKind::InvalidData => Some(crate::len_u8(e.as_bytes().len())),
                        other => {
                            return Err(Failure {
                                kind: FailureKind::ProtocolError,
                                detail: format!("an I/O error from a Cursor: {other:?}"),
                            })
                        }
                    };
                    return Ok(Answer {
                        valid: Some(false),
                        valid_up_to: Some(at),
                        error_len: Some(error_len),
                        ..Answer::default()
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // From the crate's documentation and its own tests: C2 alone is
    // UnexpectedEof with bytes [C2]; C1 BF is InvalidData with both bytes.
    #[test]
    fn errors_carry_their_bytes_and_kind() {
        let a = Utf8CharsDecoder.decode(b"a\xC2").unwrap();
        assert_eq!(a.valid, Some(false));
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(None)));
        let a = Utf8CharsDecoder.decode(b"a\xC1\xBF").unwrap();
        assert_eq!((a.valid_up_to, a.error_len), (Some(1), Some(Some(2))));
        let a = Utf8CharsDecoder.decode("АБ\0".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0x410, 0x411, 0]));
    }
}
