//! Decode ∘ encode and encode ∘ decode are the identity; encoding refuses
//! exactly the surrogates and the values above U+10FFFF.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8conform::properties::roundtrip(data));
