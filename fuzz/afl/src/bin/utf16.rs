//! `fuzz/fuzz_targets/utf16.rs` under AFL++: `utf8conform::properties::utf16`.
fn main() {
    afl::fuzz!(|data: &[u8]| utf8conform::properties::utf16(data));
}
