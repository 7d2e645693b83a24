//! `fuzz/fuzz_targets/variants.rs` under AFL++: the same property, from
//! `fuzz/properties/variants.rs`.
#[path = "../../../properties/variants.rs"]
mod variants;

fn main() {
    afl::fuzz!(|data: &[u8]| variants::variants(data));
}
