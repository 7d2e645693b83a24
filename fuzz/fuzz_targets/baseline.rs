//! Not a property: a yardstick. Five of `differential`'s oracles validate
//! the input and must agree with each other on validity and `valid_up_to`
//! — no reference, no codec, no decoding. Its exec/s on a corpus is the
//! ceiling for `differential` on the same machine and build, so the ratio
//! of the two says what the reference and the codec cost (fuzz/README.md,
//! "Speed"). Built with the other targets, but not in nightly.sh's TARGETS.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let std = core::str::from_utf8(data).map_err(|e| e.valid_up_to());
    let basic = simdutf8::basic::from_utf8(data).is_ok();
    let compat = simdutf8::compat::from_utf8(data).map_err(|e| e.valid_up_to());
    let simdutf = simdutf::validate_utf8_with_errors(data).error == simdutf::ErrorCode::Success;
    let up_to = encoding_rs::Encoding::utf8_valid_up_to(data);
    assert_eq!(std.map(|_| ()), compat.map(|_| ()), "simdutf8::compat");
    assert_eq!(std.is_ok(), basic, "simdutf8::basic");
    assert_eq!(std.is_ok(), simdutf, "simdutf");
    assert_eq!(std.err().unwrap_or(data.len()), up_to, "encoding_rs");
});
