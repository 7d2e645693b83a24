//! The stream decoder, strict and lossy, over any split of the input equals
//! one-shot decoding. The first byte says where to split
//! (`utf8conform::properties::split_plan`), the rest is decoded.
#![no_main]
use libfuzzer_sys::fuzz_target;
use utf8conform::properties::{chunking, split_plan};

fuzz_target!(|data: &[u8]| {
    let (bytes, splits) = split_plan(data);
    chunking(bytes, &splits);
});
