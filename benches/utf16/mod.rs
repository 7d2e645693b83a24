//! UTF-8 ↔ UTF-16, for `codec.rs`: the codec against simdutf (C++),
//! encoding_rs and std.
//!
//! * `utf16_decode`: strict UTF-8 → UTF-16 of valid text, and the
//!   widening ceiling (`ceiling-widen`, `../ceiling`): the stores' bound
//!   on ASCII;
//! * `utf16_lossy_{0,0.1,1,10}pct`: lossy UTF-8 → UTF-16 with that share
//!   of the bytes replaced by bytes that never occur in UTF-8 (at least one
//!   when the share is not 0); simdutf has no lossy conversion, so its
//!   column is a validate-then-patch loop over its strict one;
//! * `utf16_encode`: strict UTF-16 → UTF-8 of the text's UTF-16.
//!
//! Throughput counts UTF-8 bytes, as everywhere in `codec.rs`: the
//! decoders' input, the encoders' output.

use super::Pool;
use criterion::{Criterion, Throughput};
use std::hint::black_box;
use utf8conform::generate::SplitMix64;
use utf8conform_codec as codec;

/// The shares of invalid bytes measured, in percent, and the group names.
const SHARES: [(f64, &str); 4] = [
    (0.0, "utf16_lossy_0pct"),
    (0.1, "utf16_lossy_0.1pct"),
    (1.0, "utf16_lossy_1pct"),
    (10.0, "utf16_lossy_10pct"),
];

/// `valid` with `percent` % of its bytes (at least one, unless 0 %)
/// replaced by bytes that never occur in UTF-8, as `corrupt` does for 1 %;
/// `salt` chooses which (each input of a row has its own).
fn corrupt_share(valid: &[u8], percent: f64, salt: u64) -> Vec<u8> {
    let mut out = valid.to_vec();
    if percent == 0.0 {
        return out;
    }
    let mut rng =
        SplitMix64::new(0xBAD16 + valid.len() as u64 + (percent * 10.0) as u64 + (salt << 32));
    let count = ((valid.len() as f64 * percent / 100.0).round() as usize).max(1);
    for _ in 0..count {
        let at = rng.below(out.len() as u64) as usize;
        out[at] = [0xFF, 0xC0, 0xF8][rng.below(3) as usize];
    }
    out
}

#[inline(always)]
fn simdutf_decode(bytes: &[u8]) -> Option<Vec<u16>> {
    let mut out = Vec::<u16>::with_capacity(bytes.len());
    // SAFETY: UTF-8 never has more UTF-16 code units than bytes, and the
    // output has room for `bytes.len()`.
    let n =
        unsafe { simdutf::convert_utf8_to_utf16(bytes.as_ptr(), bytes.len(), out.as_mut_ptr()) };
    if n == 0 && !bytes.is_empty() {
        return None;
    }
    // SAFETY: simdutf wrote `n` code units.
    unsafe { out.set_len(n) };
    Some(out)
}

/// Lossy UTF-8 → UTF-16 over simdutf, which has no lossy conversion: the
/// strict one until it fails, then the part before the error again with
/// its conversion of known-valid input (the strict one's output before an
/// error is not specified), one U+FFFD for the maximal subpart (its length
/// from std, on at most 4 bytes), and on.
#[inline(always)]
fn simdutf_lossy(mut bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::<u16>::with_capacity(bytes.len());
    loop {
        let start = out.len();
        // SAFETY: at most one code unit per byte, and `out` has room for
        // one per byte of the whole input, a U+FFFD standing for ≥ 1 byte.
        let result = unsafe {
            simdutf::convert_utf8_to_utf16_with_errors(
                bytes.as_ptr(),
                bytes.len(),
                out.as_mut_ptr().add(start),
            )
        };
        if result.error == simdutf::ErrorCode::Success {
            // SAFETY: simdutf wrote `count` code units.
            unsafe { out.set_len(start + result.count) };
            return out;
        }
        let at = result.count;
        // SAFETY: `bytes[..at]` is valid (simdutf's error is the first),
        // and the room is as above.
        let n = unsafe {
            simdutf::convert_valid_utf8_to_utf16(bytes.as_ptr(), at, out.as_mut_ptr().add(start))
        };
        // SAFETY: simdutf wrote `n` code units.
        unsafe { out.set_len(start + n) };
        out.push(0xFFFD);
        let window = &bytes[at..bytes.len().min(at + 4)];
        match core::str::from_utf8(window)
            .err()
            .and_then(|e| e.error_len())
        {
            Some(len) => bytes = &bytes[at + len..],
            None => return out,
        }
    }
}

#[inline(always)]
fn encoding_rs_decode(bytes: &[u8], replace: bool) -> Option<Vec<u16>> {
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    let mut out = vec![0u16; bytes.len() + 1];
    let read = if replace {
        let (_, read, written, _) = decoder.decode_to_utf16(bytes, &mut out, true);
        out.truncate(written);
        read
    } else {
        let (result, read, written) =
            decoder.decode_to_utf16_without_replacement(bytes, &mut out, true);
        if result != encoding_rs::DecoderResult::InputEmpty {
            return None;
        }
        out.truncate(written);
        read
    };
    debug_assert_eq!(read, bytes.len());
    Some(out)
}

#[inline(always)]
fn simdutf_encode(units: &[u16]) -> Option<Vec<u8>> {
    let mut out = Vec::<u8>::with_capacity(3 * units.len());
    // SAFETY: at most 3 bytes per code unit fit in the capacity.
    let n =
        unsafe { simdutf::convert_utf16_to_utf8(units.as_ptr(), units.len(), out.as_mut_ptr()) };
    if n == 0 && !units.is_empty() {
        return None;
    }
    // SAFETY: simdutf wrote `n` bytes.
    unsafe { out.set_len(n) };
    Some(out)
}

#[inline(always)]
fn encoding_rs_encode(units: &[u16]) -> Vec<u8> {
    let mut encoder = encoding_rs::UTF_8.new_encoder();
    let mut out = vec![0u8; 3 * units.len() + 4];
    let (_, read, written, _) = encoder.encode_from_utf16(units, &mut out, true);
    debug_assert_eq!(read, units.len());
    out.truncate(written);
    out
}

/// The UTF-16 groups for one row (`tag`: `class/size`; `variants`, its
/// inputs, one per call in turn), in `round`.
pub fn groups(c: &mut Criterion, round: &str, tag: &str, variants: &[Vec<u8>]) {
    let n = variants[0].len() as u64;
    let units: Vec<Vec<u16>> = variants
        .iter()
        .map(|bytes| {
            let text = core::str::from_utf8(bytes).expect("the inputs are valid");
            text.encode_utf16().collect()
        })
        .collect();
    let (text_pool, units_pool) = (Pool::new(variants), Pool::new(&units));
    let (texts, unit_runs) = (text_pool.inputs(), units_pool.inputs());

    // Every contender must give std's answer before it is timed: the
    // simdutf lossy loop above is ours, not simdutf's.
    for (bytes, units) in variants.iter().zip(&units) {
        let text = core::str::from_utf8(bytes).expect("the inputs are valid");
        assert_eq!(codec::decode_utf16(bytes).as_ref(), Ok(units), "{tag}");
        assert_eq!(simdutf_decode(bytes).as_ref(), Some(units), "{tag}");
        assert_eq!(
            encoding_rs_decode(bytes, false).as_ref(),
            Some(units),
            "{tag}"
        );
        assert_eq!(codec::from_utf16(units).as_deref(), Ok(text), "{tag}");
        assert_eq!(simdutf_encode(units).as_deref(), Some(&bytes[..]), "{tag}");
        assert_eq!(encoding_rs_encode(units), *bytes, "{tag}");
    }

    let mut g = c.benchmark_group(format!("utf16_decode/{tag}"));
    g.throughput(Throughput::Bytes(n));
    g.bench_function(format!("ours{round}"), |b| {
        iter_placed!(b, texts, |bytes| codec::decode_utf16(bytes))
    });
    g.bench_function(format!("simdutf{round}"), |b| {
        iter_placed!(b, texts, |bytes| simdutf_decode(bytes))
    });
    g.bench_function(format!("encoding_rs{round}"), |b| {
        iter_placed!(b, texts, |bytes| encoding_rs_decode(bytes, false))
    });
    g.bench_function(format!("std{round}"), |b| {
        iter_placed!(b, texts, |bytes| {
            core::str::from_utf8(bytes).map(|s| s.encode_utf16().collect::<Vec<u16>>())
        })
    });
    let widen = <u16 as super::ceiling::Lane>::widener();
    g.bench_function(format!("ceiling-widen{round}"), |b| {
        iter_placed!(b, texts, |bytes| super::ceiling::widen(bytes, widen))
    });
    g.finish();

    for (share, name) in SHARES {
        let bad: Vec<Vec<u8>> = variants
            .iter()
            .enumerate()
            .map(|(k, v)| corrupt_share(v, share, k as u64))
            .collect();
        for bad in &bad {
            let want: Vec<u16> = String::from_utf8_lossy(bad).encode_utf16().collect();
            assert_eq!(codec::decode_lossy_utf16(bad), want, "{name}/{tag}");
            assert_eq!(simdutf_lossy(bad), want, "{name}/{tag}");
            assert_eq!(
                encoding_rs_decode(bad, true).as_ref(),
                Some(&want),
                "{name}/{tag}"
            );
        }
        let bad_pool = Pool::new(&bad);
        let bads = bad_pool.inputs();
        let mut g = c.benchmark_group(format!("{name}/{tag}"));
        g.throughput(Throughput::Bytes(n));
        g.bench_function(format!("ours{round}"), |b| {
            iter_placed!(b, bads, |bad| codec::decode_lossy_utf16(bad))
        });
        g.bench_function(format!("simdutf{round}"), |b| {
            iter_placed!(b, bads, |bad| simdutf_lossy(bad))
        });
        g.bench_function(format!("encoding_rs{round}"), |b| {
            iter_placed!(b, bads, |bad| encoding_rs_decode(bad, true))
        });
        g.bench_function(format!("std{round}"), |b| {
            iter_placed!(b, bads, |bad| {
                String::from_utf8_lossy(bad)
                    .encode_utf16()
                    .collect::<Vec<u16>>()
            })
        });
        g.finish();
    }

    let mut g = c.benchmark_group(format!("utf16_encode/{tag}"));
    g.throughput(Throughput::Bytes(n));
    g.bench_function(format!("ours{round}"), |b| {
        iter_placed!(b, unit_runs, |units| codec::from_utf16(units))
    });
    g.bench_function(format!("simdutf{round}"), |b| {
        iter_placed!(b, unit_runs, |units| simdutf_encode(units))
    });
    g.bench_function(format!("encoding_rs{round}"), |b| {
        iter_placed!(b, unit_runs, |units| encoding_rs_encode(units))
    });
    g.bench_function(format!("std{round}"), |b| {
        iter_placed!(b, unit_runs, |units| String::from_utf16(units))
    });
    g.finish();
}
