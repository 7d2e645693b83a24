//! Every encoder against RFC 3629 §3 on values derived from the input, four
//! bytes each (`utf8conform::properties::scalars_from`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8conform::properties::encode(data));
