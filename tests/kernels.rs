//! Every kernel the CPU supports, called directly (whatever the dispatcher
//! would choose), against std and the reference decoder: validate, strict
//! and lossy decoding (UTF-32 and String), encoding and streaming.
//!
//! The SIMD kernels work in 16-, 32- and 64-byte blocks, so besides every
//! input of up to 3 bytes the cases here put errors and truncations at every
//! offset around the block edges, after 0–63 bytes of ASCII and inside 2-, 3-
//! and 4-byte text. Expected values never come from a kernel.

use rayon::prelude::*;
use utf8conform::generate::SplitMix64;
use utf8conform::outcome::Utf8Error;
use utf8conform::reference;
use utf8conform_codec::{self as codec, Kernel};

fn kernels() -> impl Iterator<Item = &'static Kernel> {
    codec::kernels()
}

/// std's answer: the scalars, or the error.
fn expected_strict(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.chars().map(u32::from).collect())
        .map_err(Utf8Error::from)
}

/// Checks one input through one kernel's strict, lossy and validate paths.
fn check(kernel: &'static Kernel, bytes: &[u8]) {
    let strict = expected_strict(bytes);
    let name = kernel.name;
    assert_eq!(
        kernel.validate(bytes),
        strict.as_ref().map(|_| ()).map_err(|e| *e),
        "{name} validate {bytes:02x?}"
    );
    assert_eq!(
        kernel.decode_utf32(bytes),
        strict,
        "{name} decode_utf32 {bytes:02x?}"
    );
    let lossy = String::from_utf8_lossy(bytes);
    assert_eq!(
        kernel.decode_lossy(bytes),
        lossy,
        "{name} decode_lossy {bytes:02x?}"
    );
    let lossy32: Vec<u32> = lossy.chars().map(u32::from).collect();
    assert_eq!(
        kernel.decode_lossy_utf32(bytes),
        lossy32,
        "{name} decode_lossy_utf32 {bytes:02x?}"
    );
    check_utf16(kernel, bytes, &strict, &lossy);
}

/// The UTF-16 paths: strict (the well-formed prefix appended after what
/// the buffer held, and std's error) and lossy, against std's
/// `str::encode_utf16` of std's answers.
fn check_utf16(
    kernel: &'static Kernel,
    bytes: &[u8],
    strict: &Result<Vec<u32>, Utf8Error>,
    lossy: &str,
) {
    let name = kernel.name;
    let valid = strict
        .as_ref()
        .map_or_else(|e| e.valid_up_to(), |_| bytes.len());
    let prefix = core::str::from_utf8(&bytes[..valid]).expect("std's valid_up_to");
    let mut expected = vec![0x7E];
    expected.extend(prefix.encode_utf16());
    let mut got = vec![0x7E];
    assert_eq!(
        kernel.decode_utf16_into(bytes, &mut got),
        strict.as_ref().map(|_| ()).map_err(|e| *e),
        "{name} decode_utf16_into {bytes:02x?}"
    );
    assert_eq!(got, expected, "{name} decode_utf16_into {bytes:02x?}");
    let lossy16: Vec<u16> = lossy.encode_utf16().collect();
    assert_eq!(
        kernel.decode_lossy_utf16(bytes),
        lossy16,
        "{name} decode_lossy_utf16 {bytes:02x?}"
    );
}

/// Checks one input through one kernel's validate only (`what` says where
/// in a sweep it is).
fn check_validate(kernel: &'static Kernel, bytes: &[u8], what: impl Fn() -> String) {
    let expected = core::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(Utf8Error::from);
    let got = kernel.validate(bytes);
    assert_eq!(got, expected, "{} validate {}", kernel.name, what());
}

#[test]
fn at_least_the_scalar_kernel_runs_and_names_are_unique() {
    assert!(kernels().any(|k| k.name == "scalar"));
    let mut names: Vec<_> = codec::kernel_names().collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), codec::kernel_names().count());
    eprintln!(
        "kernels available: {:?}; active: {}",
        kernels().map(|k| k.name).collect::<Vec<_>>(),
        codec::active_kernel().name
    );
}

#[test]
fn every_input_of_one_and_two_bytes() {
    for kernel in kernels() {
        check(kernel, b"");
        (0..=255u8).into_par_iter().for_each(|a| {
            check(kernel, &[a]);
            for b in 0..=255u8 {
                check(kernel, &[a, b]);
            }
        });
    }
}

#[test]
fn every_input_of_three_bytes() {
    for kernel in kernels() {
        (0..=255u8).into_par_iter().for_each(|a| {
            let mut buf = [a, 0, 0];
            for b in 0..=255u8 {
                buf[1] = b;
                for c in 0..=255u8 {
                    buf[2] = c;
                    // The strict and lossy paths share the engine; validate
                    // is the kernel's own loop: check it on all, the rest on
                    // the non-trivial ones.
                    let expected = core::str::from_utf8(&buf)
                        .map(|_| ())
                        .map_err(Utf8Error::from);
                    assert_eq!(
                        kernel.validate(&buf),
                        expected,
                        "{} {buf:02x?}",
                        kernel.name
                    );
                    if a >= 0x80 || b >= 0x80 || c >= 0x80 {
                        check(kernel, &buf);
                    }
                }
            }
        });
    }
}

#[test]
fn every_two_byte_input_after_0_to_63_bytes_of_ascii() {
    for kernel in kernels() {
        (0..64usize).into_par_iter().for_each(|pad| {
            let mut buf = vec![b'x'; pad + 2];
            for a in 0x80..=0xFFu8 {
                buf[pad] = a;
                for b in 0..=255u8 {
                    buf[pad + 1] = b;
                    check(kernel, &buf);
                }
            }
        });
    }
}

/// One byte of each kind that UTF-8's rules (RFC 3629 §4, Unicode Table
/// 3-7) tell apart: ASCII; the continuation ranges that the second byte of
/// E0, ED, F0 and F4 is limited to, at their edges; leads of each length,
/// at the edges of their special cases; and bytes that never occur.
const KINDS_OF_BYTE: [u8; 27] = [
    0x00, 0x41, 0x7F, // ASCII
    0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, // continuations
    0xC0, 0xC1, 0xC2, 0xDF, // 2-byte leads (C0 and C1 never occur)
    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, // 3-byte leads
    0xF0, 0xF1, 0xF3, 0xF4, // 4-byte leads
    0xF5, 0xF7, 0xF8, 0xFF, // never occur
];

/// Every 4-byte string of [`KINDS_OF_BYTE`], placed where a kernel's block
/// edges cut it (after 0, 61 and 63 bytes of ASCII, and after a stray byte,
/// where a lossy loop starts again), at the end of the input and before
/// one more byte: the kernels work out an error's maximal subpart from
/// where their check flags it, not by rescanning, and 4 bytes hold every
/// subpart and the byte that ends it.
#[test]
fn every_four_bytes_of_every_kind_around_the_block_edges() {
    let contexts: [(&[u8], &[u8]); 5] = [
        (b"", b""),
        (&[b'x'; 61], b""),
        (&[b'x'; 63], b"y"),
        (b"x\xFF", b""),
        (&[b'x'; 61], b"\xE2\x82\xAC"),
    ];
    for kernel in kernels() {
        KINDS_OF_BYTE.into_par_iter().for_each(|a| {
            for (before, after) in contexts {
                let mut buf = [before, &[a, 0, 0, 0], after].concat();
                let at = before.len();
                for b in KINDS_OF_BYTE {
                    for c in KINDS_OF_BYTE {
                        for d in KINDS_OF_BYTE {
                            buf[at + 1..at + 4].copy_from_slice(&[b, c, d]);
                            check(kernel, &buf);
                        }
                    }
                }
            }
        });
    }
}

/// Every 4-byte string of [`KINDS_OF_BYTE`] across an edge between two of
/// `validate`'s groups of blocks, in an input aligned so that the groups'
/// places are known, after ASCII and after multi-byte text: the hot loop
/// checks a group's first bytes against the 3 before it, read again from
/// memory rather than kept from the previous group.
#[test]
fn every_four_bytes_of_every_kind_across_a_group_edge() {
    // In a 64-byte-aligned input the first block is checked alone and the
    // groups of 4 blocks follow it: they start at 16 + 64k (SSE4.1, 16-byte
    // blocks), 32 + 128k (AVX2) and 64 + 256k (AVX-512). One edge of each.
    const EDGES: [usize; 3] = [272, 288, 320];
    // A group at the last edge needs a group's bytes after it to be checked
    // as a group.
    const LEN: usize = 320 + 4 * 64 + 40;
    for kernel in kernels() {
        // The 4 bytes start 1, 2 or 3 bytes before an edge, after ASCII or
        // after 2-byte characters (cut whole, padded with ASCII).
        let cases: Vec<(usize, &str)> = EDGES
            .iter()
            .flat_map(|edge| (1..=3).map(move |offset| edge - offset))
            .flat_map(|at| [(at, "x"), (at, "\u{e9}")])
            .collect();
        cases.par_iter().for_each(|&(at, filler)| {
            // 64-byte aligned: no alignment prologue.
            let mut buffer = vec![b'y'; LEN + 64];
            let start = buffer.as_ptr().align_offset(64);
            let input = &mut buffer[start..start + LEN];
            input[..at].copy_from_slice(&text(filler, at));
            for a in KINDS_OF_BYTE {
                for b in KINDS_OF_BYTE {
                    for c in KINDS_OF_BYTE {
                        for d in KINDS_OF_BYTE {
                            input[at..at + 4].copy_from_slice(&[a, b, c, d]);
                            check_validate(kernel, input, || {
                                format!("{:02x?} at {at}", [a, b, c, d])
                            });
                        }
                    }
                }
            }
        });
    }
}

/// Text of `len` bytes made of `filler` characters (cut to a whole number
/// of characters, then padded with ASCII to exactly `len`).
fn text(filler: &str, len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = filler.repeat(len / filler.len()).into_bytes();
    out.resize(len, b'.');
    out
}

const FILLERS: [&str; 5] = [
    "a",
    "\u{e9}",
    "\u{20ac}",
    "\u{1F600}",
    "a\u{e9}\u{20ac}\u{1F600}",
];
const EDGES: [usize; 12] = [15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129];

/// Ill-formed sequences of every kind, by maximal subpart.
const BAD: [&[u8]; 14] = [
    b"\x80",             // lone continuation
    b"\xBF\xBF",         // two of them
    b"\xC0\xAF",         // overlong 2-byte: two 1-byte subparts
    b"\xC1\xBF",         //   idem
    b"\xE0\x80\xAF",     // overlong 3-byte
    b"\xED\xA0\x80",     // surrogate
    b"\xF0\x80\x80\xAF", // overlong 4-byte
    b"\xF4\x90\x80\x80", // above U+10FFFF
    b"\xF5\x80",         // never a lead
    b"\xFF",             //   idem
    b"\xE2\x82",         // 2-byte subpart, then whatever follows
    b"\xF0\x9F\x98",     // 3-byte subpart
    b"\xC3",             // 1-byte subpart
    b"\xE1\x41",         // lead then ASCII
];

#[test]
fn errors_at_every_offset_around_the_block_edges() {
    for kernel in kernels() {
        FILLERS.par_iter().for_each(|filler| {
            for edge in EDGES {
                for at in edge.saturating_sub(4)..=edge + 4 {
                    for bad in BAD {
                        // The error inserted at `at` (after a text cut to
                        // `at` bytes), then more text: it straddles the edge.
                        let mut input = text(filler, at);
                        input.extend_from_slice(bad);
                        input.extend_from_slice(&text(filler, 70));
                        check(kernel, &input);
                        // And a byte of the text overwritten in place.
                        let mut input = text(filler, at + 70);
                        input[at] = bad[0];
                        check(kernel, &input);
                    }
                }
            }
        });
    }
}

#[test]
fn second_errors_at_every_offset_around_the_block_edges() {
    // Lossy decoding goes on from the first error in a loop of its own
    // (`decode_lossy` of the AVX-512 kernels), whose blocks start right after
    // each maximal subpart: a first error in front puts the second at every
    // offset around that loop's edges, and errors back to back check the
    // restart itself.
    for kernel in kernels() {
        FILLERS.par_iter().for_each(|filler| {
            for first in [b"\x80".as_slice(), b"\xF0\x9F\x98", b"\xE1\x41"] {
                for edge in EDGES {
                    for at in edge.saturating_sub(4)..=edge + 4 {
                        for bad in BAD {
                            let mut input = first.to_vec();
                            input.extend_from_slice(&text(filler, at));
                            input.extend_from_slice(bad);
                            // The input ending there, then a whole ASCII
                            // block after it, then more errors and text.
                            check(kernel, &input);
                            let cut = input.len();
                            input.extend_from_slice(&[b'z'; 70]);
                            check(kernel, &input);
                            input.truncate(cut);
                            input.extend_from_slice(bad);
                            input.extend_from_slice(&text(filler, 70));
                            input.extend_from_slice(bad);
                            check(kernel, &input);
                        }
                    }
                }
            }
        });
    }
}

/// Bytes that are a maximal subpart of their own wherever they stand after
/// a complete character: continuation bytes, and bytes that never occur in
/// UTF-8 (RFC 3629 §1: C0, C1, F5..=FF).
const LONE: [u8; 6] = [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF];

/// 64 bytes of ASCII, and the same with [`LONE`] bytes at every pair of
/// offsets (one, where the two offsets are the same).
fn strays_at_every_pair_of_offsets() -> Vec<Vec<u8>> {
    let mut blocks = vec![vec![b'a'; 64]];
    for i in 0..64 {
        for j in i..64 {
            let mut block = vec![b'a'; 64];
            block[i] = LONE[(i + j) % LONE.len()];
            block[j] = LONE[(i * 7 + j) % LONE.len()];
            blocks.push(block);
        }
    }
    blocks
}

#[test]
fn stray_bytes_in_ascii_at_every_pair_of_offsets_of_a_block() {
    // ASCII text with stray bytes (each its own maximal subpart) is lossy
    // decoded a block at a time without a branch per stray, for blocks with
    // at most two of them and no lead byte (`stray_run` in the AVX-512
    // kernels): put none, one, two at every pair of offsets, or three strays
    // in one block, or a stray beside a lead, with a first error in front
    // (to enter the lossy loop) and tails around the run's look-ahead of
    // 129 bytes, where it hands over to the general loop.
    let mut blocks = strays_at_every_pair_of_offsets();
    for (i, j, k) in [(0, 1, 2), (5, 40, 63), (61, 62, 63)] {
        let mut block = vec![b'a'; 64];
        (block[i], block[j], block[k]) = (0xFF, 0x80, 0xC0);
        blocks.push(block);
    }
    for lead in [
        b"\xC2\xA9".as_slice(),
        b"\xE2\x82\xAC",
        b"\xF4\x8F\xBF\xBF",
        b"\xE2\x82",
    ] {
        for at in [0, 30, 64 - lead.len()] {
            let mut block = vec![b'a'; 64];
            block[(at + 40) % 64] = 0x80;
            block[at..at + lead.len()].copy_from_slice(lead);
            blocks.push(block);
        }
    }
    for kernel in kernels() {
        blocks.par_iter().for_each(|block| {
            for tail in [0, 1, 63, 64, 65, 127, 128, 129, 130, 200] {
                let mut input = b"\x80".to_vec();
                input.extend_from_slice(&[b'z'; 64]);
                input.extend_from_slice(block);
                input.extend(std::iter::repeat_n(b'y', tail));
                check(kernel, &input);
                // The same block again right after, and a stray at the end.
                input.extend_from_slice(block);
                input.push(0xBF);
                check(kernel, &input);
            }
        });
    }
}

#[test]
fn stray_steps_see_strays_and_characters_at_every_offset_of_every_width() {
    // The stray loop's step is the kernel's own: a 64-byte block (AVX-512)
    // or 60 bytes after a first 32-byte block (AVX2), and no other test
    // here knows where those steps fall. So shift everything by 0 to 64
    // ASCII bytes in front, which puts the region below at every offset of
    // any step up to 64 bytes wide, and in the region put two strays at
    // every pair of offsets (so every pair lands in one step), one, none,
    // or a character, complete or cut short, at every offset of two steps
    // alone, with a stray 17 bytes before or after it, or with a stray and
    // a character before it (a step with a lead, or a third stray, must not
    // pass; a lead is no stray, even where its character goes on past the
    // block). The region is followed by enough ASCII for further steps.
    let mut regions = strays_at_every_pair_of_offsets();
    for character in [
        b"\xC2\xA9".as_slice(),
        b"\xE2\x82\xAC",
        b"\xF0\x9F\x98\x80",
        // The highest lead, F4, is next to the strays F5..=FF.
        b"\xF4\x8F\xBF\xBD",
        b"\xE2\x82",
        b"\xFF\xFE\xC0",
    ] {
        for at in 0..128 {
            for before in [None, Some(17), Some(128 - 17), Some(128 - 12)] {
                let mut region = vec![b'a'; 128 + 4];
                if let Some(stray) = before {
                    region[(at + stray) % 128] = 0xC1;
                }
                if before == Some(128 - 12) {
                    // A character before the stray, so that the stray is
                    // not the block's first non-ASCII byte.
                    let e = (at + 128 - 25) % 128;
                    region[e..e + 2].copy_from_slice(b"\xC3\xA9");
                }
                region[at..at + character.len()].copy_from_slice(character);
                regions.push(region);
            }
        }
    }
    for kernel in kernels() {
        regions.par_iter().for_each(|region| {
            for shift in 0..=64 {
                // A first error in front enters the lossy loop.
                let mut input = b"\xBF".to_vec();
                input.extend(std::iter::repeat_n(b'z', 64 + shift));
                input.extend_from_slice(region);
                input.extend(std::iter::repeat_n(b'y', 130));
                check(kernel, &input);
            }
        });
    }
}

#[test]
fn never_occurring_bytes_in_multibyte_text_at_every_pair_of_offsets() {
    // A block of Latin, CJK or emoji text holding one or two bytes that
    // never occur in UTF-8 and continue nothing (C0, C1, F5..FF) is lossy
    // decoded in one step when it passes the check with them read as spaces
    // (the AVX-512 kernel to String). So put them at every pair of offsets
    // of a block: on ASCII bytes (that step, with strays in a block's last
    // three bytes as the next block's context), on a lead (its
    // continuations are then strays too) or on a continuation (its
    // character is cut short): those must fall back to the general path.
    // Three strays on ASCII bytes in one block also fall back. The text
    // starts at a few character boundaries, so that different bytes end
    // the block, and its last character may cross into the next block; the
    // input goes on for 0 to 200 bytes after the block, around the step's
    // 129-byte look-ahead, once with an error right after the block.
    let texts = [
        "Ça été très élégant, naïve déjà vu à côté. ",
        "漢字 かな 交じり文、中文 字符和 한국어。 ",
        "😀 🎉 ok 🚀 👍🏽 done ✅ 🇫🇷 ",
    ]
    .map(|t| t.repeat(40));
    let mut blocks = Vec::new();
    for text in &texts {
        for (shift, _) in text.char_indices().take(6) {
            blocks.push(&text.as_bytes()[shift..]);
        }
    }
    const STRAYS: [u8; 4] = [0xC0, 0xC1, 0xF5, 0xFF];
    for kernel in kernels() {
        blocks.par_iter().for_each(|text| {
            let ascii: Vec<usize> = (0..64).filter(|&i| text[i] < 0x80).collect();
            let mut placements: Vec<Vec<usize>> = Vec::new();
            for i in 0..64 {
                for j in i..64 {
                    placements.push(vec![i, j]);
                }
            }
            if let [first, .., last] = ascii[..] {
                placements.push(vec![first, ascii[ascii.len() / 2], last]);
            }
            for at in placements {
                for (tail, next_bad) in [(0, false), (128, false), (129, true), (200, false)] {
                    let mut block = text[..64 + tail].to_vec();
                    for (k, &i) in at.iter().enumerate() {
                        block[i] = STRAYS[(i + k) % 4];
                    }
                    if next_bad {
                        // The next block starts with an error, found with
                        // a look back that must stop after the strays.
                        block[64] = 0x80;
                    }
                    // A first error in front enters the lossy loop; the
                    // block starts a block of it.
                    let mut input = b"\x80".to_vec();
                    input.extend_from_slice(&[b'z'; 64]);
                    input.extend_from_slice(&block);
                    check(kernel, &input);
                }
            }
        });
    }
}

#[test]
fn runs_dense_with_stray_bytes_at_every_output_skew() {
    // Lossy decoding to UTF-32 widens whole blocks of ASCII and stray bytes
    // (any number of them: each is one code point) and aligns its stores to
    // the output once a run is longer than a block (`widen_run` in the
    // AVX-512 kernels). 0 to 16 two-byte characters in front shift the
    // output against the input, so the run starts at every skew of a
    // 64-byte line; the runs hold strays at several densities, then a lead
    // byte that ends them (complete, or cut short by a stray).
    let mut rng = SplitMix64::new(0x5EED_57A7);
    let mut runs: Vec<Vec<u8>> = Vec::new();
    for per_mille in [0, 10, 100, 500, 1000] {
        for len in [64, 80, 127, 128, 200, 330] {
            let run = (0..len)
                .map(|i| {
                    if rng.next_u64() % 1000 < per_mille {
                        LONE[i % LONE.len()]
                    } else {
                        b'a' + (i % 26) as u8
                    }
                })
                .collect();
            runs.push(run);
        }
    }
    for kernel in kernels() {
        runs.par_iter().for_each(|run| {
            for shift in 0..=16 {
                for end in [b"\xC3\xA9".as_slice(), b"\xE2\x80", b"\xF0\x9F\x98\x80"] {
                    let mut input = "\u{e9}".repeat(shift).into_bytes();
                    input.extend_from_slice(run);
                    input.extend_from_slice(end);
                    input.extend_from_slice(run);
                    check(kernel, &input);
                }
            }
        });
        // A run that ends in a stray that looks like a lead (C0, C1,
        // F5..=FF), right before a continuation byte in a block the run
        // does not take (it holds a lead): that continuation is a subpart
        // of its own, not a continuation of the stray. At every offset, so
        // that one of them puts the two on either side of a block edge.
        (0..64).into_par_iter().for_each(|offset| {
            for shift in [0, 1, 7, 16] {
                for stray in [0xC0, 0xC1, 0xF5, 0xFF] {
                    let mut input = "\u{e9}".repeat(shift).into_bytes();
                    input.extend(std::iter::repeat_n(b'a', 128 + offset));
                    input.extend_from_slice(b"bb\xFFbbbbbbbb\x80bbbbbbbbbbbbbbb");
                    input.push(stray);
                    input.extend_from_slice(b"\x80\xC3\xA9");
                    input.extend(std::iter::repeat_n(b'c', 100));
                    check(kernel, &input);
                }
            }
        });
    }
}

#[test]
fn long_ascii_runs_ending_at_every_byte_of_a_block() {
    // Decoding to UTF-32 widens runs of ASCII a block at a time (the SIMD
    // kernels), realigning its stores once a run is longer than a block.
    // So end runs of every length up to past six blocks — the end at every
    // byte of a block, or in a last block shorter than 64 — with a
    // character, a stray byte or a cut-short character, and follow it with
    // more ASCII; at several output skews (2-byte characters in front).
    for kernel in kernels() {
        (0..=400usize).into_par_iter().for_each(|len| {
            for shift in [0, 1, 5, 16] {
                for end in [b"\xC3\xA9".as_slice(), b"\xFF", b"\xE2\x80"] {
                    let mut input = "\u{e9}".repeat(shift).into_bytes();
                    input.extend(std::iter::repeat_n(b'a', len));
                    input.extend_from_slice(end);
                    input.extend(std::iter::repeat_n(b'b', 400 - len));
                    check(kernel, &input);
                }
            }
        });
    }
}

#[test]
fn one_character_among_ascii_at_every_offset_of_a_block() {
    // Decoding to UTF-32 takes a block that holds one character among
    // ASCII inside a run of ASCII (after a whole ASCII block) without the
    // block loop: widened whole, the character put in its lane, and the run
    // realigning its stores after it. So put one character (of every
    // length, at its edges) or one ill-formed sequence at every offset of
    // the block after two ASCII blocks; a few bytes behind it, in some, a
    // second character; then, a block or so later (the realigned run's
    // first block ending before it, on it or after it), a well-formed,
    // ill-formed or cut-short sequence; at several output skews (2-byte
    // characters in front); and end the input at several distances.
    let firsts: [&[u8]; 17] = [
        b"\xC2\x80",
        b"\xDF\xBF",
        b"\xE0\xA0\x80",
        b"\xE2\x80\x99",
        b"\xED\x9F\xBF",
        b"\xEE\x80\x80",
        b"\xEF\xBF\xBF",
        b"\xF0\x90\x80\x80",
        b"\xF4\x8F\xBF\xBF",
        // Overlong, surrogate, above U+10FFFF, a lone continuation, a
        // byte that never occurs, and characters cut short.
        b"\xC0\xAF",
        b"\xE0\x9F\xBF",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\x80",
        b"\xFF",
        b"\xE2\x80",
        b"\xF0\x9F\x98",
    ];
    let lasts: [&[u8]; 4] = [
        b"\xE2\x80\x99",
        b"\xED\xA0\x80",
        b"\xC0\xAF",
        b"\xF0\x9F\x98",
    ];
    for kernel in kernels() {
        firsts.par_iter().for_each(|first| {
            for shift in [0, 1, 3, 5] {
                for offset in 0..64 {
                    for between in 64..69 {
                        for last in lasts {
                            for (second, tail) in
                                [(None, 150), (None, 0), (Some(1), 63), (Some(5), 1)]
                            {
                                let mut input = "\u{e9}".repeat(shift).into_bytes();
                                input.extend(std::iter::repeat_n(b'a', 128 + offset));
                                input.extend_from_slice(first);
                                if let Some(gap) = second {
                                    input.extend(std::iter::repeat_n(b'b', gap));
                                    input.extend_from_slice("\u{2019}".as_bytes());
                                }
                                input.extend(std::iter::repeat_n(b'c', between));
                                input.extend_from_slice(last);
                                input.extend(std::iter::repeat_n(b'd', tail));
                                check(kernel, &input);
                            }
                        }
                    }
                }
            }
        });
    }
}

#[test]
fn errors_around_the_alignment_prologue_at_every_address_skew() {
    // The kernels check their first blocks one by one until their loads are
    // 64-byte aligned (for inputs of 384 bytes or more): slice one buffer at
    // every skew, and put errors at every offset of the first 200 bytes.
    for kernel in kernels() {
        FILLERS.par_iter().for_each(|filler| {
            let base = text(filler, 700);
            for skew in 0..64 {
                for at in 0..200 {
                    for bad in [
                        b"\x80".as_slice(),
                        b"\xE2\x82",
                        b"\xF0\x9F\x98",
                        b"\xED\xA0\x80",
                    ] {
                        let mut buf = vec![b'#'; skew];
                        buf.extend_from_slice(&base[..at]);
                        buf.extend_from_slice(bad);
                        buf.extend_from_slice(&base[at..]);
                        check_validate(kernel, &buf[skew..], || format!("skew {skew} at {at}"));
                    }
                }
                check(kernel, &base[..]);
            }
        });
    }
}

#[test]
fn incomplete_tails_at_every_block_offset() {
    let cuts: [&[u8]; 6] = [
        b"\xC3",
        b"\xE2",
        b"\xE2\x82",
        b"\xF0",
        b"\xF0\x9F",
        b"\xF0\x9F\x98",
    ];
    for kernel in kernels() {
        FILLERS.par_iter().for_each(|filler| {
            for len in 0..=200 {
                for cut in cuts {
                    let mut input = text(filler, len);
                    input.extend_from_slice(cut);
                    check(kernel, &input);
                }
                // And the text cut at an arbitrary byte.
                let input = text(filler, len);
                check(kernel, &input);
            }
        });
    }
}

/// A random scalar value, of each UTF-8 length about equally often, from
/// the crate's seedable generator (so failures replay).
fn random_scalar(rng: &mut SplitMix64) -> char {
    random_scalar_of(rng, &[1, 2, 3, 4])
}

/// The UTF-8 lengths in `set`, a non-empty subset of 1..=4 (bit `l - 1`
/// for length `l`).
fn lengths_in(set: usize) -> Vec<usize> {
    (1..=4).filter(|l| set >> (l - 1) & 1 == 1).collect()
}

/// A random scalar value whose UTF-8 length is one of `lengths`, each about
/// equally often.
fn random_scalar_of(rng: &mut SplitMix64, lengths: &[usize]) -> char {
    // RFC 3629 §3: the scalar values of each length.
    let ranges = [
        (0, 0x7F),
        (0x80, 0x7FF),
        (0x800, 0xFFFF),
        (0x10000, 0x10FFFF),
    ];
    loop {
        let length = lengths[rng.below(lengths.len() as u64) as usize];
        let (lo, hi) = ranges[length - 1];
        if let Some(c) = char::from_u32(lo + rng.below(u64::from(hi - lo + 1)) as u32) {
            return c;
        }
    }
}

#[test]
fn random_text_of_every_mix_of_lengths_with_sparse_errors_matches_std() {
    // The SIMD decoders pick a path per block and per 16 bytes by which
    // lengths occur there (ASCII, 1–2, 1–3, only 3, any): text drawn from
    // each set of lengths keeps each path busy, whole blocks of it, and the
    // corrupted copies put errors inside such blocks.
    let mixes: Vec<Vec<usize>> = (1..16).map(lengths_in).collect();
    for kernel in kernels() {
        mixes.par_iter().enumerate().for_each(|(m, lengths)| {
            let mut rng = SplitMix64::new(0x5EED_1E57 ^ m as u64);
            for _ in 0..60 {
                let chars = rng.below(1200) as usize;
                let text: String = (0..chars)
                    .map(|_| random_scalar_of(&mut rng, lengths))
                    .collect();
                let mut bytes = text.into_bytes();
                check(kernel, &bytes);
                for _ in 0..rng.below(4) + 1 {
                    if !bytes.is_empty() {
                        let at = rng.below(bytes.len() as u64) as usize;
                        bytes[at] = rng.next_u64() as u8;
                    }
                }
                check(kernel, &bytes);
            }
        });
    }
}

#[test]
fn long_random_text_with_sparse_errors_matches_std() {
    for kernel in kernels() {
        (0..64u64).into_par_iter().for_each(|seed| {
            let mut rng = SplitMix64::new(0x9E37_79B9_7F4A_7C15 ^ (seed + 1));
            for _ in 0..40 {
                let len = rng.below(3000) as usize;
                let text: String = (0..len).map(|_| random_scalar(&mut rng)).collect();
                let mut bytes = text.into_bytes();
                check(kernel, &bytes);
                // Now corrupt a few bytes.
                for _ in 0..rng.below(6) {
                    if !bytes.is_empty() {
                        let at = rng.below(bytes.len() as u64) as usize;
                        bytes[at] = rng.next_u64() as u8;
                    }
                }
                check(kernel, &bytes);
            }
        });
    }
}

#[test]
fn the_reference_agrees_on_the_edge_inputs() {
    // The expectations above are std's; pin std to the reference on the
    // same shapes, so both independent implementations stand behind them.
    for filler in FILLERS {
        for at in [15, 16, 63, 64, 65] {
            for bad in BAD {
                let mut input = text(filler, at);
                input.extend_from_slice(bad);
                input.extend_from_slice(&text(filler, 10));
                let std = expected_strict(&input);
                let reference =
                    reference::decode(&input).map(|v| v.into_iter().map(u32::from).collect());
                assert_eq!(reference, std, "{input:02x?}");
            }
        }
    }
}

#[test]
fn encode_every_scalar_at_every_block_offset() {
    let all: Vec<u32> = (0..=0x10FFFFu32)
        .filter(|&u| char::from_u32(u).is_some())
        .collect();
    let expected: String = all.iter().map(|&u| char::from_u32(u).unwrap()).collect();
    for kernel in kernels() {
        for skip in 0..16 {
            let expected = &expected.as_bytes()[expected.char_indices().nth(skip).unwrap().0..];
            assert_eq!(
                kernel.encode_utf32(&all[skip..]).unwrap(),
                expected,
                "{} skip {skip}",
                kernel.name
            );
        }
    }
}

#[test]
fn encode_keeps_u0000_at_every_position_among_every_length() {
    // The packing encoders keep a lane's first byte whatever it is and its
    // other bytes when they are not zero; U+0000 is the one value whose
    // first byte is zero. Put it at every position of blocks of 2-byte,
    // 3-byte and 4-byte characters (and ASCII around them), so that each
    // packing path meets it.
    for kernel in kernels() {
        for fill in [0x41, 0xE9, 0x4E2D, 0x1F600] {
            for len in [8, 16, 17, 32, 33, 64, 80] {
                for at in 0..len {
                    let mut input: Vec<u32> = (0..len)
                        .map(|i| if i % 3 == 0 { 0x41 } else { fill })
                        .collect();
                    input[at] = 0;
                    let expected: String =
                        input.iter().map(|&u| char::from_u32(u).unwrap()).collect();
                    assert_eq!(
                        kernel.encode_utf32(&input).unwrap(),
                        expected.as_bytes(),
                        "{} fill {fill:#x} len {len} U+0000 at {at}",
                        kernel.name
                    );
                }
            }
        }
    }
}

#[test]
fn encode_refuses_bad_values_at_every_position() {
    let mut rng = SplitMix64::new(7);
    let base: Vec<u32> = (0..80)
        .map(|_| u32::from(random_scalar(&mut rng)))
        .collect();
    let ascii: Vec<u32> = (0..80).map(|i| 0x30 + i % 40).collect();
    for kernel in kernels() {
        for (text, len) in [&base, &ascii]
            .into_iter()
            .flat_map(|t| [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 80].map(|n| (t, n)))
        {
            let text = &text[..len];
            assert_eq!(
                kernel.encode_utf32(text).unwrap(),
                text.iter()
                    .map(|&u| char::from_u32(u).unwrap())
                    .collect::<String>()
                    .as_bytes(),
            );
            for at in 0..text.len() {
                for bad in [0xD800, 0xDFFF, 0x110000, u32::MAX] {
                    let mut input = text.to_vec();
                    input[at] = bad;
                    let e = kernel.encode_utf32(&input).unwrap_err();
                    assert_eq!(e.index, at, "{} {bad:#x} at {at}", kernel.name);
                    assert_eq!(Err(e.error), reference::encode(bad));
                }
            }
        }
    }
}

#[test]
fn encode_random_blocks_of_every_mix_of_lengths_like_std() {
    // The SIMD encoders pick a path per block from which UTF-8 lengths it
    // holds (ASCII only, below 0x800, 3-byte only, any): give every block
    // of 8 values a random set of lengths, so each path meets each of its
    // neighbours at every total length around the 16- and 32-value blocks.
    let mut rng = SplitMix64::new(11);
    for kernel in kernels() {
        for round in 0..400 {
            let len = if round < 100 {
                round
            } else {
                rng.below(300) as usize
            };
            let mut input = Vec::with_capacity(len);
            let mut lengths = Vec::new();
            while input.len() < len {
                if input.len() % 8 == 0 {
                    lengths = lengths_in(1 + rng.below(15) as usize);
                }
                input.push(u32::from(random_scalar_of(&mut rng, &lengths)));
            }
            let expected: String = input.iter().map(|&u| char::from_u32(u).unwrap()).collect();
            assert_eq!(
                kernel.encode_utf32(&input).unwrap(),
                expected.as_bytes(),
                "{} {input:x?}",
                kernel.name
            );
        }
    }
}

#[test]
fn streaming_with_every_kernel_equals_one_shot_at_every_split() {
    let mut input = Vec::new();
    for filler in FILLERS {
        input.extend_from_slice(&text(filler, 40));
        input.extend_from_slice(b"\xE2\x82\xF0\x9F\x98A\xED\xA0\x80");
    }
    input.extend_from_slice(b"\xF0\x9F\x98"); // cut at the end
    let strict = reference::decode(&input);
    let lossy: String = reference::decode_lossy(&input).into_iter().collect();
    let valid_prefix = &input[..strict.as_ref().unwrap_err().valid_up_to()];
    for kernel in kernels() {
        for cut in 0..=input.len() {
            for chunk in [1, 3, 64] {
                let pieces: Vec<&[u8]> = std::iter::once(&input[..cut])
                    .chain(input[cut..].chunks(chunk))
                    .collect();
                let mut d = kernel.stream_lossy();
                let mut out = String::new();
                for p in &pieces {
                    d.feed(p, &mut out).unwrap();
                }
                d.finish(&mut out).unwrap();
                assert_eq!(out, lossy, "{} lossy cut {cut} chunk {chunk}", kernel.name);

                let mut d = kernel.stream_strict();
                let mut out = Vec::new();
                let result = pieces
                    .iter()
                    .try_for_each(|p| d.feed_utf32(p, &mut out))
                    .and_then(|()| d.finish_utf32(&mut out));
                assert_eq!(result, strict.as_ref().map(|_| ()).map_err(|e| *e));
                // What was emitted before the error is a prefix of the text.
                let prefix: Vec<u32> = core::str::from_utf8(valid_prefix)
                    .unwrap()
                    .chars()
                    .map(u32::from)
                    .collect();
                assert!(out.len() <= prefix.len() && out[..] == prefix[..out.len()]);
            }
        }
        // A long valid input in 4 KiB chunks, as the benchmark feeds it.
        let mut rng = SplitMix64::new(3);
        let long: String = (0..20_000).map(|_| random_scalar(&mut rng)).collect();
        let mut d = kernel.stream_strict();
        let mut out = Vec::new();
        for p in long.as_bytes().chunks(4096) {
            d.feed_utf32(p, &mut out).unwrap();
        }
        d.finish_utf32(&mut out).unwrap();
        assert!(out.iter().copied().eq(long.chars().map(u32::from)));
    }
}

#[test]
fn decode_chars_equals_std_on_every_kernel() {
    let mut rng = SplitMix64::new(11);
    let text: String = (0..5000).map(|_| random_scalar(&mut rng)).collect();
    for kernel in kernels() {
        assert_eq!(
            kernel.decode_chars(text.as_bytes()).unwrap(),
            text.chars().collect::<Vec<_>>()
        );
    }
}
