//! The decoders linked into the harness: ours and the Rust-callable oracles.

use super::Decoder;
use crate::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure, Utf8Error, Verdict};
use crate::reference;
use utf8conform_codec as codec;

/// [`crate::reference`]: RFC 3629 §4 transliterated.
pub struct ReferenceDecoder;

impl Decoder for ReferenceDecoder {
    fn name(&self) -> &str {
        "reference"
    }
    fn version(&self) -> String {
        format!("utf8conform {}", env!("CARGO_PKG_VERSION"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT
            .with(Capability::Lossy)
            .with(Capability::Encode)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Verdict::from_result(reference::validate(bytes)))
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer::from_results(
            self.capabilities(),
            reference::decode(bytes),
            || reference::decode_lossy(bytes),
        ))
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        Ok(match reference::encode(scalar) {
            Ok(bytes) => EncodeAnswer::Bytes(bytes),
            Err(e) => EncodeAnswer::Refused(Some(e)),
        })
    }
}

/// [`utf8conform_codec`]: the optimized codec under test, with its active kernel.
pub struct CodecDecoder;

impl Decoder for CodecDecoder {
    fn name(&self) -> &str {
        "codec"
    }
    fn version(&self) -> String {
        format!(
            "utf8conform {} (kernel {})",
            env!("CARGO_PKG_VERSION"),
            codec::active_kernel().name
        )
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Verdict::from_result(codec::validate(bytes)))
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        // `validate` and `decode_utf32` are separate code paths (the kernel
        // and the engine); both are checked: the answer's validity and
        // position come from `validate`, the scalars from `decode_utf32`.
        let mut answer = Answer {
            lossy: Some(codec::decode_lossy_utf32(bytes)),
            ..Answer::default()
        };
        match codec::validate(bytes) {
            Ok(()) => {
                answer.valid = Some(true);
                answer.scalars = codec::decode_utf32(bytes).ok();
            }
            Err(e) => {
                answer.valid = Some(false);
                answer.valid_up_to = Some(e.valid_up_to());
                answer.error_len = Some(e.error_len());
                // The engine must fail at the same place; if it does not,
                // report what it said so the difference is visible.
                match codec::decode_utf32(bytes) {
                    Err(e2) if e2 == e => {}
                    Err(e2) => {
                        answer.valid_up_to = Some(e2.valid_up_to());
                        answer.error_len = Some(e2.error_len());
                    }
                    Ok(scalars) => answer.scalars = Some(scalars),
                }
            }
        }
        Ok(answer)
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        Ok(match codec::encode_scalar(scalar) {
            Ok(e) => EncodeAnswer::Bytes(e.as_bytes().to_vec()),
            Err(e) => EncodeAnswer::Refused(Some(e)),
        })
    }
    fn decode_chunks(&self, chunks: &[&[u8]]) -> Result<Answer, Failure> {
        let mut strict = codec::StreamDecoder::strict();
        let mut scalars = Vec::new();
        let mut result = Ok(());
        for chunk in chunks {
            result = strict.feed_utf32(chunk, &mut scalars);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = strict.finish_utf32(&mut scalars);
        }
        let mut lossy_decoder = codec::StreamDecoder::lossy();
        let mut lossy = Vec::new();
        for chunk in chunks {
            // A lossy stream never fails.
            let _ = lossy_decoder.feed_utf32(chunk, &mut lossy);
        }
        let _ = lossy_decoder.finish_utf32(&mut lossy);
        let mut answer = Answer {
            valid: Some(result.is_ok()),
            lossy: Some(lossy),
            ..Answer::default()
        };
        match result {
            Ok(()) => answer.scalars = Some(scalars),
            Err(e) => {
                answer.valid_up_to = Some(e.valid_up_to());
                answer.error_len = Some(e.error_len());
            }
        }
        Ok(answer)
    }
}

/// Rust's standard library: `core::str::from_utf8` (strict, with
/// `Utf8Error`), `String::from_utf8_lossy` and `char::encode_utf8`.
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

/// simdutf8's `basic` API: fastest, and it only says valid or invalid.
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
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(Answer {
            valid: Some(simdutf8::basic::from_utf8(bytes).is_ok()),
            ..Answer::default()
        })
    }
}

/// simdutf8's `compat` API: std-compatible `valid_up_to` and `error_len`.
pub struct Simdutf8CompatDecoder;

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
        Some(Verdict::from_result(
            simdutf8::compat::from_utf8(bytes)
                .map(|_| ())
                .map_err(|e| Utf8Error::new(e.valid_up_to(), e.error_len().map(|n| n as u8))),
        ))
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        Ok(match simdutf8::compat::from_utf8(bytes) {
            Ok(_) => Answer {
                valid: Some(true),
                ..Answer::default()
            },
            Err(e) => Answer {
                valid: Some(false),
                valid_up_to: Some(e.valid_up_to()),
                error_len: Some(e.error_len().map(|n| n as u8)),
                ..Answer::default()
            },
        })
    }
}

/// The C++ simdutf library through the `simdutf` crate (feature
/// `simdutf`):
/// `validate_utf8_with_errors` (validity and the error's position; its error
/// codes do not give the maximal subpart's length, and a truncated tail is
/// `TOO_SHORT` like any other), `convert_utf8_to_utf32` and
/// `convert_utf32_to_utf8`.
#[cfg(feature = "simdutf")]
pub struct SimdutfDecoder;

#[cfg(feature = "simdutf")]
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

/// encoding_rs (Firefox's implementation of the WHATWG Encoding Standard):
/// `Encoding::utf8_valid_up_to`, its streaming `Decoder` without replacement
/// (which reports each malformed sequence's length, and holds an incomplete
/// tail until told the input has ended), and `decode_without_bom_handling`.
pub struct EncodingRsDecoder;

impl EncodingRsDecoder {
    /// The strict answer from encoding_rs's streaming decoder: run it over
    /// the whole input as a non-final chunk, then end the stream.
    fn strict(bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
        use encoding_rs::DecoderResult;
        let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
        let mut out = String::with_capacity(bytes.len() + 4);
        let (result, read) = decoder.decode_to_string_without_replacement(bytes, &mut out, false);
        match result {
            DecoderResult::Malformed(bad, after) => {
                let valid_up_to = read - usize::from(bad) - usize::from(after);
                return Err(Utf8Error::new(valid_up_to, Some(bad)));
            }
            DecoderResult::OutputFull => unreachable!("capacity covers the whole input"),
            DecoderResult::InputEmpty => {}
        }
        let (result, _) = decoder.decode_to_string_without_replacement(b"", &mut out, true);
        match result {
            // At end of stream, what it held is reported as malformed: the
            // input ended inside a sequence.
            DecoderResult::Malformed(held, _) => {
                Err(Utf8Error::new(bytes.len() - usize::from(held), None))
            }
            _ => Ok(out.chars().collect()),
        }
    }
}

impl Decoder for EncodingRsDecoder {
    fn name(&self) -> &str {
        "encoding_rs"
    }
    fn version(&self) -> String {
        format!("encoding_rs {}", env!("UTF8CONFORM_VERSION_ENCODING_RS"))
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT.with(Capability::Lossy)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        // The validator gives the position only; error_len needs the
        // decoder (and an allocation), so the sweep checks it on the
        // lengths it decodes in full.
        let up_to = encoding_rs::Encoding::utf8_valid_up_to(bytes);
        let valid = up_to == bytes.len();
        Some(Verdict {
            valid,
            valid_up_to: (!valid).then_some(up_to),
            error_len: None,
        })
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut answer = Answer::from_results(self.capabilities(), Self::strict(bytes), || {
            encoding_rs::UTF_8
                .decode_without_bom_handling(bytes)
                .0
                .chars()
                .collect()
        });
        // `utf8_valid_up_to` is encoding_rs's own validator; if it disagrees
        // with its decoder about where the error is, show the validator's.
        let up_to = encoding_rs::Encoding::utf8_valid_up_to(bytes);
        if answer.valid == Some(false) && answer.valid_up_to != Some(up_to) {
            answer.valid_up_to = Some(up_to);
        }
        Ok(answer)
    }
}

/// bstr: `ByteSlice::to_str` (std-compatible `Utf8Error`) and
/// `to_str_lossy` (documented as substitution of maximal subparts).
pub struct BstrDecoder;

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
        use bstr::ByteSlice;
        Some(Verdict::from_result(bytes.to_str().map(|_| ()).map_err(
            |e| Utf8Error::new(e.valid_up_to(), e.error_len().map(|n| n as u8)),
        )))
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        use bstr::ByteSlice;
        let strict = bytes
            .to_str()
            .map(|s| s.chars().collect())
            .map_err(|e| Utf8Error::new(e.valid_up_to(), e.error_len().map(|n| n as u8)));
        Ok(Answer::from_results(self.capabilities(), strict, || {
            bytes.to_str_lossy().chars().collect()
        }))
    }
}
