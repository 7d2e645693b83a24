//! UTF-8 ↔ UTF-16: the codec's conversions (strict, lossy, streaming over
//! the input's split plan) against std, the reference, encoding_rs and
//! simdutf; the input read as UTF-8 and as UTF-16 code units.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8conform::properties::utf16(data));
