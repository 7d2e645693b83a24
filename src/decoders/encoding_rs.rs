//! encoding_rs, Firefox's implementation of the WHATWG Encoding Standard:
//! its validator (`Encoding::utf8_valid_up_to`), its streaming `Decoder`
//! with and without replacement (which reports each malformed sequence's
//! length and holds an incomplete tail until told the input has ended),
//! and `decode_without_bom_handling`.

use crate::decoder::{Decoder, Path};
use crate::outcome::{
    Answer, Capabilities, Capability, Failure, FailureKind, StreamAnswer, StreamMode, StreamRun,
    Verdict,
};
use encoding_rs::DecoderResult;

/// encoding_rs's UTF-8.
pub struct EncodingRsDecoder;

/// One call of the streaming decoder without replacement: `Err` with the
/// whole-stream position and `error_len` when it reports a malformed
/// sequence. `consumed` counts the bytes it has read over the whole stream.
fn strict_call(
    decoder: &mut encoding_rs::Decoder,
    chunk: &[u8],
    last: bool,
    out: &mut String,
    consumed: &mut usize,
) -> Result<(), (usize, Option<u8>)> {
    // The decoder writes into spare capacity only; this much always suffices.
    let need = decoder
        .max_utf8_buffer_length_without_replacement(chunk.len())
        .unwrap_or(chunk.len() + 4);
    out.reserve(need);
    let (result, read) = decoder.decode_to_string_without_replacement(chunk, out, last);
    *consumed += read;
    match result {
        // "The malformed bytes may have been part of an earlier input
        // buffer": counted back from what was consumed, the position is a
        // whole-stream one. The end-of-stream call (which gets no bytes)
        // reports held bytes this way: the input ended inside a sequence.
        DecoderResult::Malformed(bad, after) => {
            let at = *consumed - usize::from(bad) - usize::from(after);
            Err((at, (!last).then_some(bad)))
        }
        DecoderResult::InputEmpty | DecoderResult::OutputFull => Ok(()),
    }
}

impl EncodingRsDecoder {
    /// The strict answer from the streaming decoder: the whole input as a
    /// non-final chunk, then the end of the stream.
    fn strict(bytes: &[u8], text: &mut String) -> Verdict {
        let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
        let mut consumed = 0;
        let result = strict_call(&mut decoder, bytes, false, text, &mut consumed)
            .and_then(|()| strict_call(&mut decoder, b"", true, text, &mut consumed));
        match result {
            Ok(()) => Verdict {
                valid: true,
                ..Verdict::default()
            },
            Err((at, len)) => Verdict {
                valid: false,
                valid_up_to: Some(at),
                error_len: Some(len),
            },
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
        // No `reuse`: its documentation says a decoder must not be used
        // once the stream has ended.
        Capabilities::STRICT
            .with(Capability::Lossy)
            .union(Capabilities::STREAM)
    }
    fn verdict(&self, bytes: &[u8]) -> Option<Verdict> {
        // The validator gives the position only; `error_len` comes from
        // the decoder (`decode_into`).
        let up_to = encoding_rs::Encoding::utf8_valid_up_to(bytes);
        let valid = up_to == bytes.len();
        Some(Verdict {
            valid,
            valid_up_to: (!valid).then_some(up_to),
            error_len: None,
        })
    }
    fn decode_into(&self, bytes: &[u8], out: &mut Vec<u32>) -> Option<Verdict> {
        let mut text = String::with_capacity(bytes.len() + 4);
        let verdict = Self::strict(bytes, &mut text);
        out.extend(text.chars().map(u32::from));
        Some(verdict)
    }
    fn lossy_text_into(&self, bytes: &[u8], out: &mut String) -> bool {
        out.push_str(&encoding_rs::UTF_8.decode_without_bom_handling(bytes).0);
        true
    }
    fn api(&self, path: Path) -> &'static str {
        match path {
            Path::Verdict => "Encoding::utf8_valid_up_to",
            Path::DecodeInto => "Decoder::decode_to_string_without_replacement",
            Path::LossyText | Path::LossyInto => "Encoding::decode_without_bom_handling",
            Path::Stream => "Decoder::decode_to_string(_without_replacement)",
            _ => "utf8_valid_up_to + Decoder + decode_without_bom_handling",
        }
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let mut text = String::new();
        let verdict = Self::strict(bytes, &mut text);
        let mut answer = Answer::from_verdict(verdict);
        let (lossy, _) = encoding_rs::UTF_8.decode_without_bom_handling(bytes);
        answer.lossy = Some(lossy.chars().map(u32::from).collect());
        if verdict.valid {
            answer.scalars = Some(text.chars().map(u32::from).collect());
        } else {
            // `utf8_valid_up_to` is encoding_rs's own validator; if it
            // disagrees with its decoder about where the error is, show the
            // validator's.
            let up_to = encoding_rs::Encoding::utf8_valid_up_to(bytes);
            if answer.valid_up_to != Some(up_to) {
                answer.valid_up_to = Some(up_to);
            }
        }
        Ok(answer)
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
        let mut consumed = 0;
        let mut full = false;
        let answer = super::drive(run, |chunk, last, out| {
            let mut text = String::new();
            let result = match mode {
                StreamMode::Strict => {
                    strict_call(&mut decoder, chunk, last, &mut text, &mut consumed)
                }
                StreamMode::Lossy => {
                    text.reserve(
                        decoder
                            .max_utf8_buffer_length(chunk.len())
                            .unwrap_or(chunk.len() * 3 + 4),
                    );
                    let (result, _, _) = decoder.decode_to_string(chunk, &mut text, last);
                    full |= result == encoding_rs::CoderResult::OutputFull;
                    Ok(())
                }
            };
            out.extend(text.chars().map(u32::from));
            result.map_err(|(at, len)| (Some(at), Some(len)))
        });
        if full {
            return Err(Failure {
                kind: FailureKind::ProtocolError,
                detail: "encoding_rs said OutputFull with max_utf8_buffer_length reserved".into(),
            });
        }
        Ok(answer)
    }
}
