//! Rust's standard library: `core::str::from_utf8` (strict, with
//! `Utf8Error`), `String::from_utf8_lossy` and `char::encode_utf8`.

use crate::decoder::{Decoder, Path};
use crate::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure, Utf8Error, Verdict};

/// std.
pub struct StdDecoder;

impl Decoder for StdDecoder {
    fn name(&self) -> &str {
        "std"
    }
    fn version(&self) -> String {
        env!("UTF8CONFORM_RUSTC_VERSION").to_string()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
            .with(Capability::Lossy)
            .with(Capability::Encode)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Verdict::from_result(
            core::str::from_utf8(bytes)
                .map(|_| ())
                .map_err(Utf8Error::from),
        ))
    }
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        let result = core::str::from_utf8(bytes);
        let valid = match &result {
            Ok(s) => s,
            // std says the bytes before `valid_up_to` are UTF-8.
            Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        };
        out.extend(valid.chars().map(u32::from));
        Some(Verdict::from_result(
            result.map(|_| ()).map_err(Utf8Error::from),
        ))
    }
    fn lossy_text_into(&self, bytes: &[u8], out: &mut String) -> bool {
        out.push_str(&String::from_utf8_lossy(bytes));
        true
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict => "core::str::from_utf8",
            Path::DecodeInto => "core::str::from_utf8 + str::chars",
            Path::LossyText | Path::LossyInto => "String::from_utf8_lossy",
            Path::Encode => "char::from_u32 + char::encode_utf8",
            _ => "core::str::from_utf8 + String::from_utf8_lossy",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let strict = core::str::from_utf8(bytes)
            .map(|s| s.chars().collect())
            .map_err(Utf8Error::from);
        Ok(Answer::from_results(self.capabilities(), strict, || {
            String::from_utf8_lossy(bytes).chars().collect()
        }))
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        // `char::from_u32` refuses without a reason, so none is reported.
        Ok(match char::from_u32(scalar) {
            Some(c) => EncodeAnswer::Bytes(c.encode_utf8(&mut [0; 4]).as_bytes().to_vec()),
            None => EncodeAnswer::Refused(None),
        })
    }
}
