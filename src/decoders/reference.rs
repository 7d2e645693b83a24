//! [`crate::reference`] as a decoder: RFC 3629 §4 transliterated, and its
//! streaming expectations ([`crate::reference::stream`]).

use crate::decoder::Decoder;
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, Failure, StreamAnswer, StreamMode, StreamRun,
    Verdict,
};
use crate::reference;

/// The reference decoder.
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
            .union(Capabilities::STREAM)
            .with(Capability::Reuse)
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
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        Ok(reference::stream::expect(mode, run))
    }
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        Ok(reference::stream::expect_reuse(mode, runs))
    }
}
