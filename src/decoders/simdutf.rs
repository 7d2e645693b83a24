//! The C++ simdutf library through the `simdutf` crate (feature
//! `simdutf`: it needs a C++ toolchain).

use crate::decoder::{Decoder, Path};
use crate::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure, Verdict};

/// The C++ simdutf library through the `simdutf` crate (feature
/// `simdutf`):
/// `validate_utf8_with_errors` (validity and the error's position; its error
/// codes do not give the maximal subpart's length, and a truncated tail is
/// `TOO_SHORT` like any other), `convert_utf8_to_utf32` and
/// `convert_utf32_to_utf8`.
pub struct SimdutfDecoder;

impl Decoder for SimdutfDecoder {
    fn name(&self) -> &str {
        "simdutf"
    }
    fn version(&self) -> String {
        format!("simdutf crate {}", env!("UTF8CONFORM_VERSION_SIMDUTF"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
            .with(Capability::Validate)
            .with(Capability::Position)
            .with(Capability::Decode)
            .with(Capability::Encode)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        let result = simdutf::validate_utf8_with_errors(bytes);
        let valid = result.error == simdutf::ErrorCode::Success;
        Some(Verdict {
            valid,
            valid_up_to: (!valid).then_some(result.count),
            error_len: None,
        })
    }
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        let verdict = self.verdict(bytes)?;
        if verdict.valid {
            let start = out.len();
            out.resize(start + bytes.len(), 0);
            // SAFETY: `bytes` is a live slice of `bytes.len()` bytes and
            // `out[start..]` holds `bytes.len()` u32s; UTF-8 never yields
            // more code points than bytes, so the writes stay in `out`; the
            // two buffers are distinct allocations.
            let n = unsafe {
                simdutf::convert_utf8_to_utf32(
                    bytes.as_ptr(),
                    bytes.len(),
                    out[start..].as_mut_ptr(),
                )
            };
            out.truncate(start + n);
        }
        Some(verdict)
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict => "simdutf::validate_utf8_with_errors",
            Path::DecodeInto => "simdutf::convert_utf8_to_utf32",
            Path::Encode => "simdutf::convert_utf32_to_utf8",
            _ => "simdutf::validate_utf8_with_errors + convert_utf8_to_utf32",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let result = simdutf::validate_utf8_with_errors(bytes);
        let valid = result.error == simdutf::ErrorCode::Success;
        let mut answer = Answer {
            valid: Some(valid),
            ..Answer::default()
        };
        if valid {
            let mut out = vec![0u32; bytes.len()];
            // SAFETY: `bytes` is a live slice of `bytes.len()` bytes; `out`
            // has room for `bytes.len()` u32s, and UTF-8 never yields more
            // code points than bytes; the two buffers are distinct objects.
            let n = unsafe {
                simdutf::convert_utf8_to_utf32(bytes.as_ptr(), bytes.len(), out.as_mut_ptr())
            };
            // simdutf returns 0 for invalid input; for valid non-empty input a
            // 0 would be simdutf contradicting its own validator: report it
            // as the (empty) scalars it produced so the divergence shows.
            out.truncate(n);
            answer.scalars = Some(out);
        } else {
            answer.valid_up_to = Some(result.count);
        }
        Ok(answer)
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        let src = [scalar];
        let mut out = [0u8; 4];
        // SAFETY: `src` holds 1 u32; one UTF-32 value encodes to at most 4
        // bytes, and `out` has 4; the buffers are distinct stack arrays.
        let n = unsafe { simdutf::convert_utf32_to_utf8(src.as_ptr(), 1, out.as_mut_ptr()) };
        Ok(if n == 0 {
            // simdutf returns 0 without a reason.
            EncodeAnswer::Refused(None)
        } else {
            EncodeAnswer::Bytes(out[..n].to_vec())
        })
    }
}
