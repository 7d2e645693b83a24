//! `fuzz/fuzz_targets/chunking.rs` under AFL++: the split header, then
//! `utf8conform::properties::chunking`.
use utf8conform::properties::{chunking, split_plan};

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let (bytes, splits) = split_plan(data);
        chunking(bytes, &splits);
    });
}
