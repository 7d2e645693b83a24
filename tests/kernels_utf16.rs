//! Every kernel's UTF-16 conversions, called directly: UTF-16 → UTF-8
//! against the reference (`reference::utf16`, RFC 2781 §2.2: the string,
//! or where the first unpaired surrogate is; its own tests pin it to std)
//! and `String::from_utf16_lossy`, and streaming UTF-8 → UTF-16 against
//! the UTF-16 of the reference's answers. One-shot UTF-8 → UTF-16 is in tests/kernels.rs, on every
//! input its sweeps make. Expected values never come from a kernel.
//!
//! The SIMD kernels read 32 code units a step and pair a high surrogate
//! with the unit after it, so the cases put every kind of unit, and every
//! pair of kinds, at every offset around the step edges.

use rayon::prelude::*;
use utf8conform::generate::SplitMix64;
use utf8conform::reference;
use utf8conform_codec::{self as codec, Kernel};

fn kernels() -> impl Iterator<Item = &'static Kernel> {
    codec::kernels()
}

/// One input through one kernel's strict (appending after what the string
/// held) and lossy conversions.
fn check(kernel: &'static Kernel, units: &[u16]) {
    let name = kernel.name;
    let strict = reference::utf16::to_string(units);
    let mut got = String::from("~");
    let result = kernel.from_utf16_into(units, &mut got);
    assert_eq!(
        result,
        strict.as_ref().map(|_| ()).map_err(|e| *e),
        "{name} from_utf16_into {units:04x?}"
    );
    let prefix = match &strict {
        Ok(s) => s.clone(),
        Err(e) => String::from_utf16(&units[..e.valid_up_to()]).expect("std's prefix"),
    };
    assert_eq!(
        got,
        format!("~{prefix}"),
        "{name} from_utf16_into {units:04x?}"
    );
    assert_eq!(
        kernel.from_utf16(units),
        strict,
        "{name} from_utf16 {units:04x?}"
    );
    assert_eq!(
        kernel.from_utf16_lossy(units),
        String::from_utf16_lossy(units),
        "{name} from_utf16_lossy {units:04x?}"
    );
}

/// One code unit of each kind UTF-16 → UTF-8 tells apart: the edges of
/// each UTF-8 length (RFC 3629 §3), of both surrogate ranges (Unicode
/// §3.9, D91) and the replacement character itself.
const KINDS: [u16; 15] = [
    0x00, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD,
    0xFFFF, 0xD83D,
];

/// Fillers: runs of one kind of text, as UTF-16, each at least `len` units.
fn filler(kind: usize, len: usize) -> Vec<u16> {
    let text = ["a", "é", "€", "😀"][kind];
    text.repeat(len).encode_utf16().take(len).collect()
}

#[test]
fn every_code_unit_alone_and_at_every_lane_of_a_step() {
    for kernel in kernels() {
        (0..=0xFFFFu16).into_par_iter().for_each(|unit| {
            check(kernel, &[unit]);
            for pad in [1, 15, 16, 30, 31, 32, 33, 63] {
                let mut units = vec![0x41; pad];
                units.push(unit);
                units.push(0x42);
                check(kernel, &units);
            }
        });
    }
}

#[test]
fn every_three_units_of_every_kind_at_every_offset_in_every_filler() {
    for kernel in kernels() {
        (0..70usize).into_par_iter().for_each(|pad| {
            for kind in 0..4 {
                // A pair filler cut at an odd length leaves a lone high
                // surrogate before the probe: a case of its own.
                let mut units = filler(kind, pad);
                let start = units.len();
                units.extend([0; 3]);
                for &a in &KINDS {
                    for &b in &KINDS {
                        for &c in &KINDS {
                            units[start..].copy_from_slice(&[a, b, c]);
                            check(kernel, &units);
                            check(kernel, &units[..start + 2]);
                        }
                    }
                }
            }
        });
    }
}

#[test]
fn long_random_utf16_with_sparse_lone_surrogates() {
    let mut rng = SplitMix64::new(16);
    for round in 0..40 {
        let mut text = String::new();
        for _ in 0..(rng.below(3000) + 1) {
            let c = match rng.below(4) {
                0 => char::from_u32(rng.below(0x80) as u32),
                1 => char::from_u32(0x80 + rng.below(0x780) as u32),
                2 => char::from_u32(0x800 + rng.below(0xF800) as u32),
                _ => char::from_u32(0x10000 + rng.below(0x10_0000) as u32),
            };
            text.extend(c);
        }
        let mut units: Vec<u16> = text.encode_utf16().collect();
        if round % 2 == 1 {
            for _ in 0..rng.below(5) + 1 {
                let at = rng.below(units.len() as u64) as usize;
                units[at] = 0xD800 + rng.below(0x800) as u16;
            }
        }
        for kernel in kernels() {
            check(kernel, &units);
        }
    }
}

#[test]
fn every_supplementary_character_among_every_kind_of_bmp_one() {
    // Every surrogate pair there is, in long runs (the SIMD kernels' loops
    // for long input, not only their short paths), each pair after a BMP
    // character of each UTF-8 length in turn, so that the pairs fall at
    // every lane of a step and next to every width. Expected: std.
    let bmp = ['a', '\u{e9}', '\u{4e2d}'];
    (0x10000..=0x10_FFFFu32)
        .collect::<Vec<u32>>()
        .par_chunks(0x1000)
        .for_each(|chunk| {
            let text: String = chunk
                .iter()
                .enumerate()
                .flat_map(|(i, &c)| [bmp[i % 3], char::from_u32(c).expect("a scalar")])
                .collect();
            let units: Vec<u16> = text.encode_utf16().collect();
            for kernel in kernels() {
                assert_eq!(
                    kernel.from_utf16(&units).as_deref(),
                    Ok(text.as_str()),
                    "{} from U+{:X}",
                    kernel.name,
                    chunk[0]
                );
                assert_eq!(
                    kernel.from_utf16_lossy(&units),
                    text,
                    "{} lossy from U+{:X}",
                    kernel.name,
                    chunk[0]
                );
            }
        });
}

/// Valid UTF-8 with errors in it, fed to every kernel's streaming decoder
/// at every cut (then in 1-, 3- and 64-byte chunks), to UTF-16: the
/// lossy output is std's, the strict one stops with std's error, having
/// emitted only a prefix of the well-formed text.
#[test]
fn streaming_to_utf16_with_every_kernel_at_every_split() {
    let mut input = Vec::new();
    for filler in ["a", "é", "€", "😀"] {
        input.extend_from_slice(filler.repeat(40).as_bytes());
        input.extend_from_slice(b"\xE2\x82\xF0\x9F\x98A\xED\xA0\x80");
    }
    input.extend_from_slice(b"\xF0\x9F\x98"); // cut at the end
    let strict = reference::decode(&input);
    let lossy = reference::utf16::encode(&reference::decode_lossy(&input));
    let valid_up_to = strict.as_ref().unwrap_err().valid_up_to();
    let prefix: Vec<u16> = core::str::from_utf8(&input[..valid_up_to])
        .unwrap()
        .encode_utf16()
        .collect();
    for kernel in kernels() {
        (0..=input.len()).into_par_iter().for_each(|cut| {
            for chunk in [1, 3, 64] {
                let pieces: Vec<&[u8]> = std::iter::once(&input[..cut])
                    .chain(input[cut..].chunks(chunk))
                    .collect();
                let mut d = kernel.stream_lossy();
                let mut out = Vec::new();
                for p in &pieces {
                    d.feed_utf16(p, &mut out).unwrap();
                }
                d.finish_utf16(&mut out).unwrap();
                assert_eq!(out, lossy, "{} lossy cut {cut} chunk {chunk}", kernel.name);

                let mut d = kernel.stream_strict();
                let mut out = Vec::new();
                let result = pieces
                    .iter()
                    .try_for_each(|p| d.feed_utf16(p, &mut out))
                    .and_then(|()| d.finish_utf16(&mut out));
                assert_eq!(result, strict.as_ref().map(|_| ()).map_err(|e| *e));
                assert!(out.len() <= prefix.len() && out[..] == prefix[..out.len()]);
            }
        });
    }
}
