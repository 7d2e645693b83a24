//! `fuzz/fuzz_targets/lossy.rs` under AFL++: `utf8conform::properties::lossy`.
fn main() {
    afl::fuzz!(|data: &[u8]| utf8conform::properties::lossy(data));
}
