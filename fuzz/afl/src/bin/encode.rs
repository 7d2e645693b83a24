//! `fuzz/fuzz_targets/encode.rs` under AFL++: `utf8conform::properties::encode`.
fn main() {
    afl::fuzz!(|data: &[u8]| utf8conform::properties::encode(data));
}
