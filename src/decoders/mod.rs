//! The built-in decoders, one file per library, and the decoder that
//! speaks to another process ([`process`]).
//!
//! | name | library | file |
//! |---|---|---|
//! | `reference` | RFC 3629 §4 transliterated ([`crate::reference`]) | `reference.rs` |
//! | `codec` | [`utf8conform_codec`], with its active kernel | `codec.rs` |
//! | `std` | `core::str::from_utf8`, `String::from_utf8_lossy`, `char::encode_utf8` | `std.rs` |
//! | `simdutf8-basic`, `simdutf8-compat` | simdutf8 | `simdutf8.rs` |
//! | `simdutf` | the C++ simdutf library (feature `simdutf`) | `simdutf.rs` |
//! | `encoding_rs` | encoding_rs's UTF-8 (WHATWG) | `encoding_rs.rs` |
//! | `bstr` | bstr's `ByteSlice` | `bstr.rs` |

mod bstr;
mod codec;
mod encoding_rs;
pub mod process;
mod reference;
#[cfg(feature = "simdutf")]
mod simdutf;
mod simdutf8;
mod std;

pub use self::bstr::BstrDecoder;
pub use self::codec::CodecDecoder;
pub use self::encoding_rs::EncodingRsDecoder;
pub use self::reference::ReferenceDecoder;
#[cfg(feature = "simdutf")]
pub use self::simdutf::SimdutfDecoder;
pub use self::simdutf8::{Simdutf8BasicDecoder, Simdutf8CompatDecoder};
pub use self::std::StdDecoder;

use crate::decoder::Decoder;
use crate::outcome::{StreamAnswer, StreamError, StreamRun};

/// The names of the built-in decoders, in the order reports list them.
pub const BUILTIN_NAMES: &[&str] = &[
    "reference",
    "codec",
    "std",
    "simdutf8-basic",
    "simdutf8-compat",
    #[cfg(feature = "simdutf")]
    "simdutf",
    "encoding_rs",
    "bstr",
];

/// A built-in decoder by name, or `None`.
pub fn builtin(name: &str) -> Option<Box<dyn Decoder>> {
    Some(match name {
        "reference" => Box::new(ReferenceDecoder),
        "codec" => Box::new(CodecDecoder),
        "std" => Box::new(StdDecoder),
        "simdutf8-basic" => Box::new(Simdutf8BasicDecoder),
        "simdutf8-compat" => Box::new(Simdutf8CompatDecoder),
        #[cfg(feature = "simdutf")]
        "simdutf" => Box::new(SimdutfDecoder),
        "encoding_rs" => Box::new(EncodingRsDecoder),
        "bstr" => Box::new(BstrDecoder),
        _ => return None,
    })
}

/// Every built-in decoder.
pub fn all_builtin() -> Vec<Box<dyn Decoder>> {
    BUILTIN_NAMES
        .iter()
        .map(|n| builtin(n).expect("every listed name is built in"))
        .collect()
}

/// The one-line description of a built-in decoder: the library and the
/// calls each path makes.
pub fn builtin_description(name: &str) -> &'static str {
    match name {
        "reference" => "utf8conform's reference decoder: RFC 3629 §4 ABNF transliterated",
        "codec" => "utf8conform-codec (validate, decode, lossy, encode, StreamDecoder)",
        "std" => "Rust core::str::from_utf8, String::from_utf8_lossy, char::encode_utf8",
        "simdutf8-basic" => "simdutf8::basic::from_utf8 (valid/invalid only)",
        "simdutf8-compat" => "simdutf8::compat::from_utf8 (std-compatible Utf8Error)",
        "simdutf" => "C++ simdutf via the simdutf crate: validate_utf8_with_errors, convert_utf8_to_utf32, convert_utf32_to_utf8",
        "encoding_rs" => "encoding_rs UTF_8 (WHATWG): utf8_valid_up_to, streaming Decoder, decode_without_bom_handling",
        "bstr" => "bstr ByteSlice::to_str and to_str_lossy",
        _ => "",
    }
}

/// Parses a comma-separated list of built-in decoder names; `all` means
/// every one. The error names the unknown entry and lists the known ones.
pub fn parse_list(list: &str) -> Result<Vec<Box<dyn Decoder>>, String> {
    let list = list.trim();
    if list == "all" {
        return Ok(all_builtin());
    }
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err(format!(
            "no decoder named; known: all, {}",
            BUILTIN_NAMES.join(", ")
        ));
    }
    names
        .into_iter()
        .map(|name| {
            builtin(name).ok_or_else(|| {
                format!(
                    "unknown decoder {name:?}; known: {}",
                    BUILTIN_NAMES.join(", ")
                )
            })
        })
        .collect()
}

/// Runs `runs` in a row on one library object, `state`, as
/// [`Decoder::reuse`] asks: `run` answers one run; before each run the
/// object starts a new stream (`new_stream`) unless the run before it was
/// left open, unflushed and without an error, so that the next run goes on
/// with it. The way to write [`Decoder::reuse`] over a library's object.
pub fn drive_reuse<S>(
    state: &mut S,
    runs: &[StreamRun],
    mut new_stream: impl FnMut(&mut S),
    mut run: impl FnMut(&mut S, &StreamRun) -> StreamAnswer,
) -> Vec<StreamAnswer> {
    let mut open = false;
    runs.iter()
        .map(|r| {
            if !open {
                new_stream(state);
            }
            let answer = run(state, r);
            open = !r.flush && answer.error.is_none();
            answer
        })
        .collect()
}

/// What one call of a strict stream reports: the error's whole-stream
/// position and `error_len`, each only when the library told it.
pub type CallError = (Option<usize>, Option<Option<u8>>);

/// Runs a library's incremental decoder over `run`, one `call` per chunk
/// and then, if the run is flushed, one with `last` set and no bytes. A
/// call appends what it returns to its `out`; an `Err` (the position and
/// `error_len` the library told, in whole-stream terms) stops the run
/// there, as a strict decoder stops. The way to write
/// [`Decoder::stream`] over a library's incremental API.
pub fn drive(
    run: &StreamRun,
    mut call: impl FnMut(&[u8], bool, &mut Vec<u32>) -> Result<(), CallError>,
) -> StreamAnswer {
    let mut calls = Vec::with_capacity(run.calls());
    let last = run.flush.then_some(&[][..]);
    for (index, (chunk, is_last)) in run
        .chunks
        .iter()
        .map(|c| (c.as_slice(), false))
        .chain(last.map(|c| (c, true)))
        .enumerate()
    {
        let mut out = Vec::new();
        let result = call(chunk, is_last, &mut out);
        calls.push(out);
        if let Err((valid_up_to, error_len)) = result {
            return StreamAnswer {
                calls: Some(calls),
                error: Some(StreamError {
                    call: index,
                    valid_up_to,
                    error_len,
                }),
                valid: None,
            };
        }
    }
    StreamAnswer {
        calls: Some(calls),
        error: None,
        valid: None,
    }
}
