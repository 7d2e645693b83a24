//! UTF-8's neighbours (CESU-8, Modified UTF-8, WTF-8, RFC 2279, Python's
//! surrogate handlers): the reference's `variants` against the `cesu8`,
//! `wtf8` and `tendril` crates, std and the specifications' own tables
//! (`fuzz/properties/variants.rs`); the input read as bytes and as UTF-16
//! code units.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../properties/variants.rs"]
mod variants;

fuzz_target!(|data: &[u8]| variants::variants(data));
