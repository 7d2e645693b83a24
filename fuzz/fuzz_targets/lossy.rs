//! Lossy decoding: codec, reference and std agree, and give one U+FFFD per
//! maximal subpart (Unicode §3.9).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8conform::properties::lossy(data));
