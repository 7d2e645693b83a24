//! `fuzz/fuzz_targets/roundtrip.rs` under AFL++: `utf8conform::properties::roundtrip`.
fn main() {
    afl::fuzz!(|data: &[u8]| utf8conform::properties::roundtrip(data));
}
