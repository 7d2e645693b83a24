//! bstr: `ByteSlice::to_str` (std-compatible `Utf8Error`) and
//! `to_str_lossy` (documented as substitution of maximal subparts).

use crate::decoder::{Decoder, Path};
use crate::outcome::{Answer, Capabilities, Capability, Failure, Verdict};
use bstr::ByteSlice;

/// bstr.
pub struct BstrDecoder;

impl BstrDecoder {
    /// `to_str`'s answer, its numbers as they come.
    fn verdict_of(bytes: &[u8]) -> (Verdict, &str) {
        match bytes.to_str() {
            Ok(s) => (
                Verdict {
                    valid: true,
                    ..Verdict::default()
                },
                s,
            ),
            Err(e) => (
                Verdict {
                    valid: false,
                    valid_up_to: Some(e.valid_up_to()),
                    error_len: Some(e.error_len().map(|n| n as u8)),
                },
                // bstr says the bytes before `valid_up_to` are UTF-8.
                bytes[..e.valid_up_to()].to_str().unwrap_or(""),
            ),
        }
    }
}

impl Decoder for BstrDecoder {
    fn name(&self) -> &str {
        "bstr"
    }
    fn version(&self) -> String {
        format!("bstr {}", env!("UTF8CONFORM_VERSION_BSTR"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT.with(Capability::Lossy)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Self::verdict_of(bytes).0)
    }
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        let (verdict, text) = Self::verdict_of(bytes);
        out.extend(text.chars().map(u32::from));
        Some(verdict)
    }
    fn lossy_text_into(&self, bytes: &[u8], out: &mut String) -> bool {
        out.push_str(&bytes.to_str_lossy());
        true
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict | Path::DecodeInto => "ByteSlice::to_str",
            Path::LossyText | Path::LossyInto => "ByteSlice::to_str_lossy",
            _ => "ByteSlice::to_str + to_str_lossy",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let (verdict, text) = Self::verdict_of(bytes);
        let mut answer = Answer::from_verdict(verdict);
        answer.lossy = Some(bytes.to_str_lossy().chars().map(u32::from).collect());
        if verdict.valid {
            answer.scalars = Some(text.chars().map(u32::from).collect());
        }
        Ok(answer)
    }
}
