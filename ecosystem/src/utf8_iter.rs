//! `utf8_iter` (Henri Sivonen's; used by `idna` and ICU4X): iteration by
//! `char` over potentially-invalid UTF-8 "such that errors are handled
//! according to the WHATWG Encoding Standard (i.e. the same way as in
//! `String::from_utf8_lossy`)". Its iterators are double-ended, so each is
//! audited both ways:
//!
//! * `utf8_iter`: `ErrorReportingUtf8CharIndices` forwards gives
//!   `(index, Ok(char) | Err(Utf8CharsError))`, "exactly one
//!   `Utf8CharsError` per each error as defined by the WHATWG Encoding
//!   Standard": `valid` (no `Err`), `scalars`, and `valid_up_to` (the index
//!   of the first `Err`); `Utf8Chars` gives `lossy`;
//! * `utf8_iter-rev`: the same two iterators driven by `next_back`, their
//!   items put back in input order; `valid_up_to` is the lowest index of
//!   an `Err`.
//!
//! Not `subpart`: `Utf8CharsError` carries nothing, and it does not tell an
//! input that ends inside a sequence from an invalid one (an `error_len`
//! read off the indices could never be null). No incremental API: the
//! iterators work on a whole slice.

use utf8_iter::{ErrorReportingUtf8CharIndices, Utf8Chars};
use utf8conform::decoder::{Decoder, Path};
use utf8conform::outcome::{Answer, Capabilities, Capability, Failure};

/// utf8_iter, iterated forwards.
pub struct Utf8IterDecoder;

/// utf8_iter, iterated backwards.
pub struct Utf8IterRevDecoder;

fn capabilities() -> Capabilities {
    Capabilities::NONE
        .with(Capability::Validate)
        .with(Capability::Position)
        .with(Capability::Decode)
        .with(Capability::Lossy)
}

/// The answer from the error-reporting iterator's items (in input order)
/// and the lossy iterator's `char`s.
fn answer(items: &[(usize, Result<char, utf8_iter::Utf8CharsError>)], lossy: Vec<u32>) -> Answer {
    let first_error = items
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|&(i, _)| i)
        .min();
    let mut answer = Answer {
        valid: Some(first_error.is_none()),
        lossy: Some(lossy),
        ..Answer::default()
    };
    match first_error {
        None => {
            answer.scalars = Some(
                items
                    .iter()
                    .filter_map(|(_, r)| r.ok())
                    .map(u32::from)
                    .collect(),
            )
        }
        Some(at) => answer.valid_up_to = Some(at),
    }
    answer
}

impl Decoder for Utf8IterDecoder {
    fn name(&self) -> &str {
        "utf8_iter"
    }
    fn version(&self) -> String {
        format!(
            "utf8_iter {} (forwards)",
            env!("ECOSYSTEM_VERSION_UTF8_ITER")
        )
    }
    fn capabilities(&self) -> Capabilities {
        capabilities()
    }
    fn api(&self, _: Path) -> &'static str {
        "ErrorReportingUtf8CharIndices + Utf8Chars (next)"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let items: Vec<_> = ErrorReportingUtf8CharIndices::new(bytes).collect();
        let lossy = Utf8Chars::new(bytes).map(u32::from).collect();
        Ok(answer(&items, lossy))
    }
}

impl Decoder for Utf8IterRevDecoder {
    fn name(&self) -> &str {
        "utf8_iter-rev"
    }
    fn version(&self) -> String {
        format!(
            "utf8_iter {} (backwards)",
            env!("ECOSYSTEM_VERSION_UTF8_ITER")
        )
    }
    fn capabilities(&self) -> Capabilities {
        capabilities()
    }
    fn api(&self, _: Path) -> &'static str {
        "ErrorReportingUtf8CharIndices + Utf8Chars (next_back)"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut items: Vec<_> = ErrorReportingUtf8CharIndices::new(bytes).rev().collect();
        items.reverse();
        let mut lossy: Vec<u32> = Utf8Chars::new(bytes).rev().map(u32::from).collect();
        lossy.reverse();
        Ok(answer(&items, lossy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FFFD;

    // The crate's own example: "a\xFFb\xFF\x80c\xF0\x9F\xA4\xA6\xF0\x9F\xA4\xF0\x9F\xF0d"
    // iterates like String::from_utf8_lossy, one error per WHATWG error.
    const DOC: &[u8] = b"a\xFFb\xFF\x80c\xF0\x9F\xA4\xA6\xF0\x9F\xA4\xF0\x9F\xF0d";
    const DOC_LOSSY: &[u32] = &[
        0x61, FFFD, 0x62, FFFD, FFFD, 0x63, 0x1F926, FFFD, FFFD, FFFD, 0x64,
    ];

    #[test]
    fn forwards_is_from_utf8_lossy() {
        let a = Utf8IterDecoder.decode(DOC).unwrap();
        assert_eq!(a.valid, Some(false));
        assert_eq!(a.valid_up_to, Some(1));
        assert_eq!(a.error_len, None);
        assert_eq!(a.lossy.as_deref(), Some(DOC_LOSSY));
        let a = Utf8IterDecoder.decode("aé€😀".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0x61, 0xE9, 0x20AC, 0x1F600]));
    }

    #[test]
    fn backwards_answers_in_input_order() {
        let a = Utf8IterRevDecoder.decode("aé€😀".as_bytes()).unwrap();
        assert_eq!(a.scalars, Some(vec![0x61, 0xE9, 0x20AC, 0x1F600]));
        let a = Utf8IterRevDecoder.decode(b"ab\xFF").unwrap();
        assert_eq!((a.valid, a.valid_up_to), (Some(false), Some(2)));
        assert_eq!(a.lossy, Some(vec![0x61, 0x62, FFFD]));
    }
}
