//! [`utf8conform_codec`]: the optimized codec under test, with its active
//! kernel. Its validator (the kernel) and its decoders (the engine, the
//! one-pass lossy kernels) are separate code paths, and each is a fast
//! path of its own here, so every one is held to the reference.

use crate::decoder::{Decoder, Path};
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, Failure, StreamAnswer, StreamMode, StreamRun,
    Verdict,
};
use utf8conform_codec as codec;

/// The codec.
pub struct CodecDecoder;

impl Decoder for CodecDecoder {
    fn name(&self) -> &str {
        "codec"
    }
    fn version(&self) -> String {
        format!(
            "utf8conform-codec {} (kernel {})",
            env!("CARGO_PKG_VERSION"),
            codec::active_kernel().name
        )
    }
    fn capabilities(&self) -> Capabilities {
        // No `reuse`: `StreamDecoder::finish` takes the decoder by value,
        // so its API cannot be used again after the end of a stream.
        Capabilities::STRICT
            .with(Capability::Lossy)
            .with(Capability::Encode)
            .union(Capabilities::STREAM)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        Some(Verdict::from_result(codec::validate(bytes)))
    }
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        Some(Verdict::from_result(codec::decode_utf32_into(bytes, out)))
    }
    fn lossy_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> bool {
        out.extend_from_slice(&codec::decode_lossy_utf32(bytes));
        true
    }
    fn lossy_text_into(&self, bytes: &[u8], out: &mut String) -> bool {
        out.push_str(&codec::decode_lossy(bytes));
        true
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict => "codec::validate",
            Path::DecodeInto => "codec::decode_utf32_into",
            Path::LossyInto => "codec::decode_lossy_utf32",
            Path::LossyText => "codec::decode_lossy",
            Path::Decode => "codec::validate + decode_utf32 + decode_lossy_utf32",
            Path::Encode => "codec::encode_scalar",
            Path::Stream => "codec::StreamDecoder",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        // Validity and position from the validator, the scalars from the
        // decoder; where the two disagree, the decoder's error is shown.
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
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        let mut decoder = Some(match mode {
            StreamMode::Strict => codec::StreamDecoder::strict(),
            StreamMode::Lossy => codec::StreamDecoder::lossy(),
        });
        Ok(super::drive(run, |chunk, last, out| {
            let result = match (last, decoder.take()) {
                (false, Some(mut d)) => {
                    let r = d.feed_utf32(chunk, out);
                    decoder = Some(d);
                    r
                }
                (true, Some(d)) => d.finish_utf32(out),
                (_, None) => unreachable!("drive makes no call after the last"),
            };
            result.map_err(|e| (Some(e.valid_up_to()), Some(e.error_len())))
        }))
    }
}
