//! `fuzz/fuzz_targets/structured.rs` under AFL++. The bytes become a
//! `Structured` exactly as libfuzzer-sys makes its typed input
//! (too short: skipped; then `arbitrary_take_rest`), so the two engines read one corpus alike.
use arbitrary::{Arbitrary, Unstructured};
use utf8conform::generate::Structured;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.len() < Structured::size_hint(0).0 {
            return;
        }
        if let Ok(input) = Structured::arbitrary_take_rest(Unstructured::new(data)) {
            utf8conform::properties::structured(&input);
        }
    });
}
