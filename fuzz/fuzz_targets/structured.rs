//! The differential and chunking properties on structured inputs: valid text
//! interleaved with overlongs, surrogates, values above U+10FFFF, impossible
//! bytes, stray continuations and truncations (`utf8conform::generate`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use utf8conform::generate::Structured;

fuzz_target!(|input: Structured| utf8conform::properties::structured(&input));
