//! The Rust ecosystem's UTF-8 decoders, each behind
//! [`utf8conform::decoder::Decoder`] (issue 31).
//!
//! One file per crate. Each type maps only what the crate's own API tells
//! into the kit's terms and claims only that: a field the crate does not
//! tell is left out, and nothing is repaired, so a crate that disagrees
//! with RFC 3629 shows up as disagreeing. The header comment of each file
//! names the calls behind each capability and why it claims no more.
//!
//! | name | crate | calls |
//! |---|---|---|
//! | `utf-8` | utf-8 | `decode`, `Incomplete::try_complete`, `LossyDecoder` |
//! | `utf8parse` | utf8parse | `Parser::advance` with a `Receiver` |
//! | `utf8_iter` | utf8_iter | `ErrorReportingUtf8CharIndices`, `Utf8Chars` forwards |
//! | `utf8_iter-rev` | utf8_iter | the same iterators backwards (`next_back`) |
//! | `encoding` | encoding (rust-encoding) | `RawDecoder::raw_feed`/`raw_finish`, `decode(.., DecoderTrap::Replace)` |
//! | `tendril` | tendril | `StrTendril::try_from_byte_slice`, `stream::Utf8LossyDecoder` |
//! | `tendril-wtf8` | tendril (its vendored futf) | `Tendril::<fmt::WTF8>::try_from_byte_slice` |
//! | `cesu8`, `cesu8-java` | cesu8 | `from_cesu8`/`to_cesu8`, `from_java_cesu8`/`to_java_cesu8` |
//! | `wtf8` | wtf8 | `CodePoint::from_u32`, `Wtf8Buf::push`, `Wtf8Buf::into_string` |
//! | `utf8-chars` | utf8-chars | `BufReadCharsExt::read_char_raw` |

#![warn(missing_docs)]

mod cesu8;
mod encoding;
mod tendril;
mod utf8_chars;
mod utf8_iter;
mod utf8parse;
mod utf_8;
mod wtf8;

pub use crate::cesu8::{Cesu8Decoder, Cesu8JavaDecoder};
pub use crate::encoding::EncodingDecoder;
pub use crate::tendril::{TendrilDecoder, TendrilWtf8Decoder};
pub use crate::utf8_chars::Utf8CharsDecoder;
pub use crate::utf8_iter::{Utf8IterDecoder, Utf8IterRevDecoder};
pub use crate::utf8parse::Utf8parseDecoder;
pub use crate::utf_8::Utf8CrateDecoder;
pub use crate::wtf8::Wtf8Decoder;

use utf8conform::decoder::Decoder;

/// Every decoder's name, in the order `list` prints them.
pub const NAMES: &[&str] = &[
    "utf-8",
    "utf8parse",
    "utf8_iter",
    "utf8_iter-rev",
    "encoding",
    "tendril",
    "tendril-wtf8",
    "cesu8",
    "cesu8-java",
    "wtf8",
    "utf8-chars",
];

/// A decoder by name, or `None`.
pub fn by_name(name: &str) -> Option<Box<dyn Decoder>> {
    Some(match name {
        "utf-8" => Box::new(Utf8CrateDecoder),
        "utf8parse" => Box::new(Utf8parseDecoder),
        "utf8_iter" => Box::new(Utf8IterDecoder),
        "utf8_iter-rev" => Box::new(Utf8IterRevDecoder),
        "encoding" => Box::new(EncodingDecoder),
        "tendril" => Box::new(TendrilDecoder),
        "tendril-wtf8" => Box::new(TendrilWtf8Decoder),
        "cesu8" => Box::new(Cesu8Decoder),
        "cesu8-java" => Box::new(Cesu8JavaDecoder),
        "wtf8" => Box::new(Wtf8Decoder),
        "utf8-chars" => Box::new(Utf8CharsDecoder),
        _ => return None,
    })
}

pub(crate) use utf8conform::decoders::{drive, drive_reuse};

/// The code points of `s`.
pub(crate) fn scalars(s: &str) -> impl Iterator<Item = u32> + '_ {
    s.chars().map(u32::from)
}

/// A length the library told, as the kit's `error_len` (a length that
/// does not fit a byte is impossible for these libraries; it saturates
/// rather than wraps, so it still shows as wrong).
pub(crate) fn len_u8(n: usize) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the unit tests: inputs and expectations written by hand
    //! from each crate's documentation.
    use utf8conform::outcome::StreamRun;

    /// A flushed run of these chunks.
    pub fn run(chunks: &[&[u8]]) -> StreamRun {
        StreamRun::new(chunks.iter().map(|c| c.to_vec()).collect())
    }

    /// An unflushed run of these chunks.
    pub fn open(chunks: &[&[u8]]) -> StreamRun {
        StreamRun {
            chunks: chunks.iter().map(|c| c.to_vec()).collect(),
            flush: false,
        }
    }

    /// U+FFFD.
    pub const FFFD: u32 = 0xFFFD;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_a_decoder_of_that_name() {
        for name in NAMES {
            let decoder = by_name(name).unwrap();
            assert_eq!(decoder.name(), *name);
            assert!(!decoder.version().contains("unknown"), "{name}");
        }
        assert!(by_name("std").is_none());
    }
}
