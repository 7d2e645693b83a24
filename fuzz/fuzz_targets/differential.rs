//! Every built-in decoder against the reference on raw bytes, on every
//! level it claims (V, P, S, R). See `utf8conform::properties::differential`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8conform::properties::differential(data));
