//! simdutf8's two promises: `basic` (fastest, valid or invalid only) and
//! `compat` (std-compatible `valid_up_to` and `error_len`).

use crate::decoder::{Decoder, Path};
use crate::outcome::{Answer, Capabilities, Capability, Failure, Verdict};

/// simdutf8's `basic` API.
pub struct Simdutf8BasicDecoder;

impl Decoder for Simdutf8BasicDecoder {
    fn name(&self) -> &str {
        "simdutf8-basic"
    }
    fn version(&self) -> String {
        format!("simdutf8 {} (basic)", env!("UTF8CONFORM_VERSION_SIMDUTF8"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE.with(Capability::Validate)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Verdict {
            valid: simdutf8::basic::from_utf8(bytes).is_ok(),
            ..Verdict::default()
        })
    }
    fn api(&self, _: Path) -> &'static str {
        "simdutf8::basic::from_utf8"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer {
            valid: Some(simdutf8::basic::from_utf8(bytes).is_ok()),
            ..Answer::default()
        })
    }
}

/// simdutf8's `compat` API.
pub struct Simdutf8CompatDecoder;

impl Simdutf8CompatDecoder {
    /// The library's answer, its numbers as they come (a `Utf8Error`
    /// would refuse an `error_len` outside 1..=3, and a broken release
    /// must be reported, not crash the harness).
    fn verdict_of(bytes: &[u8]) -> Verdict {
        match simdutf8::compat::from_utf8(bytes) {
            Ok(_) => Verdict {
                valid: true,
                ..Verdict::default()
            },
            Err(e) => Verdict {
                valid: false,
                valid_up_to: Some(e.valid_up_to()),
                error_len: Some(e.error_len().map(|n| n as u8)),
            },
        }
    }
}

impl Decoder for Simdutf8CompatDecoder {
    fn name(&self) -> &str {
        "simdutf8-compat"
    }
    fn version(&self) -> String {
        format!("simdutf8 {} (compat)", env!("UTF8CONFORM_VERSION_SIMDUTF8"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
            .with(Capability::Validate)
            .with(Capability::Position)
            .with(Capability::Subpart)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Self::verdict_of(bytes))
    }
    fn api(&self, _: Path) -> &'static str {
        "simdutf8::compat::from_utf8"
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer::from_verdict(Self::verdict_of(bytes)))
    }
}
