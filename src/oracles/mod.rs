//! Decoders: one trait every decoder implements, and the built-in ones.
//!
//! A decoder states its [`Capabilities`] and answers in [`Answer`]s. Each
//! adapter maps the library's *own* answers into that language and claims
//! only what the library really tells: simdutf8's `basic` API says valid or
//! invalid and nothing more, so its adapter claims `validate` and nothing
//! else. No adapter repairs an answer; a library that disagrees with the RFC
//! must show up as disagreeing.

mod builtin;
pub mod process;

#[cfg(feature = "simdutf")]
pub use builtin::SimdutfDecoder;
pub use builtin::{
    BstrDecoder, CodecDecoder, EncodingRsDecoder, ReferenceDecoder, Simdutf8BasicDecoder,
    Simdutf8CompatDecoder, StdDecoder,
};

use crate::outcome::{Answer, Capabilities, EncodeAnswer, Failure, FailureKind, Verdict};

/// Where a decoder lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Linked into this binary.
    Builtin,
    /// Another process, spoken to over the JSON-lines protocol.
    External,
}

impl Kind {
    /// `builtin` or `external`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Builtin => "builtin",
            Kind::External => "external",
        }
    }
}

/// A UTF-8 decoder under test (or serving as an oracle).
///
/// Methods are only called for what [`capabilities`](Decoder::capabilities)
/// claims; an [`Answer`] field outside the claim is ignored.
pub trait Decoder: Send + Sync {
    /// Name used on the command line and in reports (`std`, `simdutf8-compat`).
    fn name(&self) -> &str;
    /// The library's version, as precisely as it can be known.
    fn version(&self) -> String;
    /// What the decoder answers.
    fn capabilities(&self) -> Capabilities;
    /// Built in or external.
    fn kind(&self) -> Kind {
        Kind::Builtin
    }
    /// Decodes one input. `Err` only when the decoder failed to answer at
    /// all (an external process crashed, hung or broke the protocol).
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure>;
    /// A fast, allocation-free strict verdict (validity, and the first
    /// error's position and length where the decoder gives them), for the
    /// exhaustive sweep; `None` if the decoder has no such path, in which
    /// case the sweep calls [`decode`](Decoder::decode).
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        let _ = bytes;
        None
    }
    /// How many times the decoder had to be restarted (external decoders).
    fn restarts(&self) -> u32 {
        0
    }
    /// Decodes many inputs; external decoders override this to pipeline.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Result<Answer, Failure>> {
        inputs.iter().map(|bytes| self.decode(bytes)).collect()
    }
    /// Encodes one value (only called with the `encode` capability).
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        let _ = scalar;
        Err(unsupported(self.name(), "encode"))
    }
    /// Decodes the concatenation of `chunks`, fed one at a time (only called
    /// with the `stream` capability): strict fields from a strict stream,
    /// `lossy` from a lossy one.
    fn decode_chunks(&self, chunks: &[&[u8]]) -> Result<Answer, Failure> {
        let _ = chunks;
        Err(unsupported(self.name(), "stream"))
    }
}

fn unsupported(name: &str, what: &str) -> Failure {
    Failure {
        kind: FailureKind::ProtocolError,
        detail: format!("{name} does not support {what}"),
    }
}

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

/// Parses a comma-separated list of built-in decoder names; `all` means
/// every one. The error names the unknown entry and lists the known ones.
pub fn parse_list(list: &str) -> Result<Vec<Box<dyn Decoder>>, String> {
    let list = list.trim();
    if list == "all" {
        return Ok(all_builtin());
    }
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
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
