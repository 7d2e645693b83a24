//! The demo decoder as the kit sees it: what it claims, and its answers
//! in the kit's terms. Shared by the tests, the example and the fuzz
//! target.

use utf8conform::decoder::Decoder;
use utf8conform::outcome::{Answer, Capabilities, Capability, Failure, Utf8Error};

/// `kit_demo`'s strict and lossy decoders.
pub struct Mine;

impl Decoder for Mine {
    fn name(&self) -> &str {
        "kit-demo"
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::STRICT.with(Capability::Lossy)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        let strict = kit_demo::decode(bytes).map_err(|e| Utf8Error::new(e.valid_up_to, e.error_len));
        Ok(Answer::from_results(self.capabilities(), strict, || kit_demo::decode_lossy(bytes)))
    }
}
