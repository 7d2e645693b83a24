//! `cargo +nightly fuzz run differential`: the kit's property over the
//! demo decoder, every input libFuzzer makes.
#![no_main]

#[path = "../../tests/mine.rs"]
mod mine;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    utf8conform::properties::differential_with(&[&mine::Mine], data);
    utf8conform::properties::lossy_with(&[&mine::Mine], data);
});
