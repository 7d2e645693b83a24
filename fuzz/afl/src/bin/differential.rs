//! `fuzz/fuzz_targets/differential.rs` under AFL++: `utf8conform::properties::differential`.
fn main() {
    afl::fuzz!(|data: &[u8]| utf8conform::properties::differential(data));
}
