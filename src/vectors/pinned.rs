//! Hand-written expectations, typed from RFC 3629 and Unicode §3.9 — not
//! computed by any code in this crate. The generator refuses to write
//! vectors that disagree with any of them, so a bug in the reference decoder
//! cannot silently rewrite the expected answers.
//!
//! They cover every example in the RFC, every row of Unicode's replacement
//! tables, and a sample from every category.

use crate::outcome::Answer;

/// U+FFFD, spelled short so the lossy expectations below stay readable.
const F: u32 = 0xFFFD;

/// An expected decode outcome.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// Well-formed: these scalars (and lossy output is the same).
    Valid(&'static [u32]),
    /// Ill-formed.
    Invalid {
        /// Bytes before the first ill-formed sequence.
        valid_up_to: usize,
        /// Maximal subpart length, or `None` for an incomplete end.
        error_len: Option<u8>,
        /// One U+FFFD per maximal subpart.
        lossy: &'static [u32],
    },
}

impl Expect {
    /// The expectation as a complete [`Answer`], as a vector file holds it.
    pub fn answer(&self) -> Answer {
        match *self {
            Expect::Valid(s) => Answer {
                valid: Some(true),
                scalars: Some(s.to_vec()),
                lossy: Some(s.to_vec()),
                ..Answer::default()
            },
            Expect::Invalid {
                valid_up_to,
                error_len,
                lossy,
            } => Answer {
                valid: Some(false),
                valid_up_to: Some(valid_up_to),
                error_len: Some(error_len),
                lossy: Some(lossy.to_vec()),
                ..Answer::default()
            },
        }
    }
}

/// What a pinned case must be.
#[derive(Clone, Copy, Debug)]
pub enum Pin {
    /// A decode case: its input and outcome.
    Decode {
        /// The input bytes.
        bytes: &'static [u8],
        /// The outcome.
        expect: Expect,
    },
    /// A stream case: its chunks, each call's output, and where a strict
    /// stream stops (call, whole-stream position, `error_len`).
    Stream {
        /// The chunks.
        chunks: &'static [&'static [u8]],
        /// Each call's output.
        calls: &'static [&'static [u32]],
        /// Where a strict stream stops.
        error: Option<(usize, usize, Option<u8>)>,
    },
    /// An encode case.
    Encode {
        /// The number.
        scalar: u32,
        /// Its UTF-8, if it is a scalar value.
        bytes: Option<&'static [u8]>,
        /// The refusal, otherwise.
        error: Option<&'static str>,
    },
    /// A UTF-16 case: its units, their UTF-8 when every surrogate is
    /// paired, else the first unpaired one's index, and the lossy UTF-8.
    Utf16 {
        /// The code units.
        units: &'static [u16],
        /// The UTF-8, when valid.
        bytes: Option<&'static [u8]>,
        /// The first unpaired surrogate, when not.
        error_index: Option<usize>,
        /// Each unpaired surrogate one U+FFFD (EF BF BD).
        lossy: &'static [u8],
    },
}

/// One hand-written expectation for one generated case.
#[derive(Clone, Copy, Debug)]
pub struct Pinned {
    /// The vector file.
    pub category: &'static str,
    /// The case id.
    pub id: &'static str,
    /// Where the expectation comes from.
    pub source: &'static str,
    /// The expectation.
    pub pin: Pin,
}

const fn utf16(
    id: &'static str,
    source: &'static str,
    units: &'static [u16],
    result: Result<&'static [u8], usize>,
    lossy: &'static [u8],
) -> Pinned {
    let (bytes, error_index) = match result {
        Ok(b) => (Some(b), None),
        Err(i) => (None, Some(i)),
    };
    Pinned {
        category: "utf16",
        id,
        source,
        pin: Pin::Utf16 {
            units,
            bytes,
            error_index,
            lossy,
        },
    }
}

const fn valid(
    category: &'static str,
    id: &'static str,
    source: &'static str,
    bytes: &'static [u8],
    scalars: &'static [u32],
) -> Pinned {
    Pinned {
        category,
        id,
        source,
        pin: Pin::Decode {
            bytes,
            expect: Expect::Valid(scalars),
        },
    }
}

const fn invalid(
    category: &'static str,
    id: &'static str,
    source: &'static str,
    bytes: &'static [u8],
    valid_up_to: usize,
    error_len: Option<u8>,
    lossy: &'static [u32],
) -> Pinned {
    Pinned {
        category,
        id,
        source,
        pin: Pin::Decode {
            bytes,
            expect: Expect::Invalid {
                valid_up_to,
                error_len,
                lossy,
            },
        },
    }
}

const fn encoded(
    id: &'static str,
    source: &'static str,
    scalar: u32,
    bytes: &'static [u8],
) -> Pinned {
    Pinned {
        category: "encode",
        id,
        source,
        pin: Pin::Encode {
            scalar,
            bytes: Some(bytes),
            error: None,
        },
    }
}

const fn refused(
    id: &'static str,
    source: &'static str,
    scalar: u32,
    error: &'static str,
) -> Pinned {
    Pinned {
        category: "encode",
        id,
        source,
        pin: Pin::Encode {
            scalar,
            bytes: None,
            error: Some(error),
        },
    }
}

const fn stream(
    id: &'static str,
    source: &'static str,
    chunks: &'static [&'static [u8]],
    calls: &'static [&'static [u32]],
    error: Option<(usize, usize, Option<u8>)>,
) -> Pinned {
    Pinned {
        category: "streaming",
        id,
        source,
        pin: Pin::Stream {
            chunks,
            calls,
            error,
        },
    }
}

/// Every hand-written expectation.
pub const PINNED: &[Pinned] = &[
    // The empty input, and inputs cut short by a byte that cannot follow.
    valid(
        "interrupted",
        "empty",
        "RFC 3629 §4 (UTF8-octets = *( UTF8-char ))",
        b"",
        &[],
    ),
    invalid(
        "interrupted",
        "cut-u+00e9-1-by-c0",
        "Unicode §3.9 D93b",
        b"\xC3\xC0",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "interrupted",
        "cut-u+10000-3-by-ff",
        "Unicode §3.9 D93b",
        b"\xF0\x90\x80\xFF",
        0,
        Some(3),
        &[F, F],
    ),
    invalid(
        "interrupted",
        "cut-u+0800-2-by-nul",
        "Unicode §3.9 D93b",
        b"\xE0\xA0\x00",
        0,
        Some(2),
        &[F, 0],
    ),
    invalid(
        "interrupted",
        "text-then-cut-u+20ac-2-then-lead",
        "Unicode §3.9 D93b",
        b"a\xC3\xA9\xE2\x82\xAC\xE2\x82\xC3\xA9",
        6,
        Some(2),
        &[0x61, 0xE9, 0x20AC, F, 0xE9],
    ),
    invalid(
        "interrupted",
        "text-then-bad-lead-f8",
        "RFC 3629 §4 (F8 starts no UTF8-char)",
        b"a\xC3\xA9\xE2\x82\xAC\xF8z",
        6,
        Some(1),
        &[0x61, 0xE9, 0x20AC, F, 0x7A],
    ),
    valid(
        "interrupted",
        "bom-repeated-then-text",
        "RFC 3629 §6",
        b"\xEF\xBB\xBF\xEF\xBB\xBFA",
        &[0xFEFF, 0xFEFF, 0x41],
    ),
    // Streaming: the web-platform-tests' expectations, and the rest
    // written from the WHATWG streaming rule by hand.
    stream(
        "wpt-e0-80-then-80-lossy",
        "WHATWG Encoding, web-platform-tests",
        &[b"\xE0\x80", b"\x80"],
        &[&[F, F], &[F], &[]],
        None,
    ),
    stream(
        "wpt-f0-9f-92-then-a9-lossy",
        "WHATWG Encoding, web-platform-tests",
        &[b"\xF0\x9F\x92", b"\xA9"],
        &[&[], &[0x1F4A9], &[]],
        None,
    ),
    stream(
        "wpt-e0-80-then-80-strict",
        "WHATWG Encoding (fatal)",
        &[b"\xE0\x80", b"\x80"],
        &[&[]],
        Some((0, 0, Some(1))),
    ),
    stream(
        "truncated-at-the-end-strict",
        "WHATWG Encoding (fatal)",
        &[b"A\xE2\x82"],
        &[&[0x41], &[]],
        Some((1, 1, None)),
    ),
    stream(
        "truncated-at-the-end-lossy",
        "WHATWG Encoding",
        &[b"A\xE2\x82"],
        &[&[0x41], &[F]],
        None,
    ),
    stream(
        "bom-split-lossy",
        "RFC 3629 §6, WHATWG Encoding",
        &[b"\xEF", b"\xBB\xBF", b"A"],
        &[&[], &[0xFEFF], &[0x41], &[]],
        None,
    ),
    stream(
        "empty-chunks-lossy",
        "WHATWG Encoding",
        &[b"", b"\xC3", b"", b"\xA9", b""],
        &[&[], &[], &[], &[0xE9], &[], &[]],
        None,
    ),
    stream(
        "above-max-byte-by-byte-lossy",
        "Unicode §3.9 D93b, WHATWG",
        &[b"\xF4", b"\x90", b"\x80", b"\x80"],
        &[&[], &[F, F], &[F], &[F], &[]],
        None,
    ),
    // RFC 3629 §7, "Examples": the bytes and characters exactly as given.
    valid(
        "rfc-examples",
        "rfc7-a-not-identical-to-alpha",
        "RFC 3629 §7",
        b"\x41\xE2\x89\xA2\xCE\x91\x2E",
        &[0x0041, 0x2262, 0x0391, 0x002E],
    ),
    valid(
        "rfc-examples",
        "rfc7-korean",
        "RFC 3629 §7",
        b"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4",
        &[0xD55C, 0xAD6D, 0xC5B4],
    ),
    valid(
        "rfc-examples",
        "rfc7-japanese",
        "RFC 3629 §7",
        b"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
        &[0x65E5, 0x672C, 0x8A9E],
    ),
    valid(
        "rfc-examples",
        "rfc7-bom-u+233b4",
        "RFC 3629 §7 and §6",
        b"\xEF\xBB\xBF\xF0\xA3\x8E\xB4",
        &[0xFEFF, 0x233B4],
    ),
    valid(
        "rfc-examples",
        "rfc7-u+233b4",
        "RFC 3629 §7",
        b"\xF0\xA3\x8E\xB4",
        &[0x233B4],
    ),
    // RFC 3629 §3 and §10: must not decode. C0 and the ED-then-A1 pair start
    // nothing, so every byte is its own maximal subpart.
    invalid(
        "rfc-examples",
        "rfc3-overlong-nul",
        "RFC 3629 §3; Unicode §3.9",
        b"\xC0\x80",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "rfc-examples",
        "rfc3-cesu8-pair",
        "RFC 3629 §3; Unicode Table 3-10",
        b"\xED\xA1\x8C\xED\xBE\xB4",
        0,
        Some(1),
        &[F, F, F, F, F, F],
    ),
    invalid(
        "rfc-examples",
        "rfc10-overlong-slash",
        "RFC 3629 §10; Unicode Table 3-9",
        b"\x2F\xC0\xAE\x2E\x2F",
        1,
        Some(1),
        &[0x2F, F, F, 0x2E, 0x2F],
    ),
    // Unicode §3.9, Tables 3-8 to 3-12, row by row.
    invalid(
        "replacement",
        "unicode-table-3-8",
        "Unicode Table 3-8",
        b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
        1,
        Some(3),
        &[0x61, F, F, F, 0x62, F, 0x63, F, F, 0x64],
    ),
    invalid(
        "replacement",
        "unicode-table-3-9",
        "Unicode Table 3-9",
        b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41",
        0,
        Some(1),
        &[F, F, F, F, F, F, F, F, 0x41],
    ),
    invalid(
        "replacement",
        "unicode-table-3-10",
        "Unicode Table 3-10",
        b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41",
        0,
        Some(1),
        &[F, F, F, F, F, F, F, F, 0x41],
    ),
    invalid(
        "replacement",
        "unicode-table-3-11",
        "Unicode Table 3-11",
        b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42",
        0,
        Some(1),
        &[F, F, F, F, F, 0x41, F, F, 0x42],
    ),
    invalid(
        "replacement",
        "unicode-table-3-12",
        "Unicode Table 3-12",
        b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41",
        0,
        Some(2),
        &[F, F, F, F, 0x41],
    ),
    invalid(
        "replacement",
        "subpart-f0-80",
        "Unicode §3.9 D93b",
        b"\xF0\x80\x80\x80",
        0,
        Some(1),
        &[F, F, F, F],
    ),
    invalid(
        "replacement",
        "subpart-c2-c2-80",
        "Unicode §3.9 D93b",
        b"\xC2\xC2\x80",
        0,
        Some(1),
        &[F, 0x80],
    ),
    invalid(
        "replacement",
        "subpart-incomplete-4",
        "Unicode §3.9; core::str::Utf8Error",
        b"A\xF3\xBF\xBF",
        1,
        None,
        &[0x41, F],
    ),
    // boundaries: RFC 3629 §3's table, first and last of each row.
    valid(
        "boundaries",
        "scalar-u+0000",
        "RFC 3629 §3 table",
        b"\x00",
        &[0x0000],
    ),
    valid(
        "boundaries",
        "scalar-u+007f",
        "RFC 3629 §3 table",
        b"\x7F",
        &[0x007F],
    ),
    valid(
        "boundaries",
        "scalar-u+0080",
        "RFC 3629 §3 table",
        b"\xC2\x80",
        &[0x0080],
    ),
    valid(
        "boundaries",
        "scalar-u+07ff",
        "RFC 3629 §3 table",
        b"\xDF\xBF",
        &[0x07FF],
    ),
    valid(
        "boundaries",
        "scalar-u+0800",
        "RFC 3629 §3 table",
        b"\xE0\xA0\x80",
        &[0x0800],
    ),
    valid(
        "boundaries",
        "scalar-u+ffff",
        "RFC 3629 §3 table",
        b"\xEF\xBF\xBF",
        &[0xFFFF],
    ),
    valid(
        "boundaries",
        "scalar-u+10000",
        "RFC 3629 §3 table",
        b"\xF0\x90\x80\x80",
        &[0x10000],
    ),
    valid(
        "boundaries",
        "scalar-u+10ffff",
        "RFC 3629 §3 table",
        b"\xF4\x8F\xBF\xBF",
        &[0x10FFFF],
    ),
    valid(
        "boundaries",
        "scalar-u+d7ff",
        "RFC 3629 §4 (%xED %x80-9F)",
        b"\xED\x9F\xBF",
        &[0xD7FF],
    ),
    valid(
        "boundaries",
        "scalar-u+e000",
        "RFC 3629 §4 (%xEE-EF)",
        b"\xEE\x80\x80",
        &[0xE000],
    ),
    valid(
        "boundaries",
        "bom-start",
        "RFC 3629 §6",
        b"\xEF\xBB\xBF\x41",
        &[0xFEFF, 0x41],
    ),
    valid(
        "boundaries",
        "bom-middle",
        "RFC 3629 §6",
        b"\x41\xEF\xBB\xBF\x42",
        &[0x41, 0xFEFF, 0x42],
    ),
    valid(
        "boundaries",
        "nonchar-u+fdd0",
        "Unicode §23.7",
        b"\xEF\xB7\x90",
        &[0xFDD0],
    ),
    valid(
        "boundaries",
        "nonchar-u+10ffff",
        "Unicode §23.7",
        b"\xF4\x8F\xBF\xBF",
        &[0x10FFFF],
    ),
    // lead-bytes
    valid(
        "lead-bytes",
        "alone-41",
        "RFC 3629 §4 UTF8-1",
        b"\x41",
        &[0x41],
    ),
    invalid(
        "lead-bytes",
        "alone-80",
        "RFC 3629 §4: no alternative starts with a tail",
        b"\x80",
        0,
        Some(1),
        &[F],
    ),
    invalid(
        "lead-bytes",
        "alone-c0",
        "RFC 3629 §4: C0 starts nothing",
        b"\xC0",
        0,
        Some(1),
        &[F],
    ),
    invalid(
        "lead-bytes",
        "alone-c2",
        "RFC 3629 §4 UTF8-2, cut short",
        b"\xC2",
        0,
        None,
        &[F],
    ),
    invalid(
        "lead-bytes",
        "alone-f4",
        "RFC 3629 §4 UTF8-4, cut short",
        b"\xF4",
        0,
        None,
        &[F],
    ),
    invalid(
        "lead-bytes",
        "alone-f5",
        "RFC 3629 §4: F5 starts nothing",
        b"\xF5",
        0,
        Some(1),
        &[F],
    ),
    invalid(
        "lead-bytes",
        "alone-ff",
        "RFC 3629 §4: FF starts nothing",
        b"\xFF",
        0,
        Some(1),
        &[F],
    ),
    invalid(
        "lead-bytes",
        "lead-e0-then-9f",
        "RFC 3629 §4 %xE0 %xA0-BF",
        b"\xE0\x9F",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "lead-bytes",
        "lead-e0-then-a0",
        "RFC 3629 §4 %xE0 %xA0-BF, cut short",
        b"\xE0\xA0",
        0,
        None,
        &[F],
    ),
    invalid(
        "lead-bytes",
        "lead-ed-then-a0",
        "RFC 3629 §4 %xED %x80-9F",
        b"\xED\xA0",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "lead-bytes",
        "lead-f0-then-8f",
        "RFC 3629 §4 %xF0 %x90-BF",
        b"\xF0\x8F",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "lead-bytes",
        "lead-f4-then-8f",
        "RFC 3629 §4 %xF4 %x80-8F, cut short",
        b"\xF4\x8F",
        0,
        None,
        &[F],
    ),
    invalid(
        "lead-bytes",
        "lead-f4-then-90",
        "RFC 3629 §4 %xF4 %x80-8F",
        b"\xF4\x90",
        0,
        Some(1),
        &[F, F],
    ),
    valid(
        "lead-bytes",
        "lead-f4-then-8f-80-80",
        "RFC 3629 §3 (U+10F000)",
        b"\xF4\x8F\x80\x80",
        &[0x10F000],
    ),
    invalid(
        "lead-bytes",
        "lead-c2-then-80-80-80",
        "RFC 3629 §4; Unicode §3.9",
        b"\xC2\x80\x80\x80",
        2,
        Some(1),
        &[0x80, F, F],
    ),
    // continuations
    invalid(
        "continuations",
        "run-3",
        "Unicode §3.9",
        b"\x80\x81\x82",
        0,
        Some(1),
        &[F, F, F],
    ),
    invalid(
        "continuations",
        "after-4-byte-80",
        "Unicode §3.9",
        b"\xF0\x90\x80\x80\x80",
        4,
        Some(1),
        &[0x10000, F],
    ),
    invalid(
        "continuations",
        "between-ascii",
        "Unicode §3.9",
        b"a\x80b",
        1,
        Some(1),
        &[0x61, F, 0x62],
    ),
    // overlong
    invalid(
        "overlong",
        "overlong-2-c0af",
        "RFC 3629 §10; Unicode Table 3-9",
        b"\xC0\xAF",
        0,
        Some(1),
        &[F, F],
    ),
    invalid(
        "overlong",
        "overlong-nul-3",
        "RFC 3629 §10",
        b"\xE0\x80\x80",
        0,
        Some(1),
        &[F, F, F],
    ),
    invalid(
        "overlong",
        "overlong-nul-6",
        "RFC 3629 §10 (RFC 2279 6-byte form)",
        b"\xFC\x80\x80\x80\x80\x80",
        0,
        Some(1),
        &[F, F, F, F, F, F],
    ),
    invalid(
        "overlong",
        "overlong-max-3",
        "RFC 3629 §4 %xE0 %xA0-BF",
        b"\xE0\x9F\xBF",
        0,
        Some(1),
        &[F, F, F],
    ),
    invalid(
        "overlong",
        "overlong-max-4",
        "RFC 3629 §4 %xF0 %x90-BF",
        b"\xF0\x8F\xBF\xBF",
        0,
        Some(1),
        &[F, F, F, F],
    ),
    invalid(
        "overlong",
        "overlong-max-5",
        "RFC 3629 §10",
        b"\xF8\x87\xBF\xBF\xBF",
        0,
        Some(1),
        &[F, F, F, F, F],
    ),
    invalid(
        "overlong",
        "rfc10-attack",
        "RFC 3629 §10",
        b"\x2F\xC0\xAE\x2E\x2F",
        1,
        Some(1),
        &[0x2F, F, F, 0x2E, 0x2F],
    ),
    // surrogates
    invalid(
        "surrogates",
        "surrogate-u+d800",
        "RFC 3629 §3; Unicode Table 3-10",
        b"\xED\xA0\x80",
        0,
        Some(1),
        &[F, F, F],
    ),
    invalid(
        "surrogates",
        "surrogate-u+dfff",
        "RFC 3629 §3; Unicode Table 3-10",
        b"\xED\xBF\xBF",
        0,
        Some(1),
        &[F, F, F],
    ),
    invalid(
        "surrogates",
        "cesu8-rfc3-example",
        "RFC 3629 §3",
        b"\xED\xA1\x8C\xED\xBE\xB4",
        0,
        Some(1),
        &[F, F, F, F, F, F],
    ),
    invalid(
        "surrogates",
        "surrogate-then-ascii",
        "Unicode §3.9",
        b"\xED\xA0\x80A",
        0,
        Some(1),
        &[F, F, F, 0x41],
    ),
    invalid(
        "surrogates",
        "surrogate-prefix-eda0",
        "RFC 3629 §4 %xED %x80-9F",
        b"\xED\xA0",
        0,
        Some(1),
        &[F, F],
    ),
    // beyond-max
    invalid(
        "beyond-max",
        "above-0x110000-4-byte",
        "RFC 3629 §4 %xF4 %x80-8F",
        b"\xF4\x90\x80\x80",
        0,
        Some(1),
        &[F, F, F, F],
    ),
    invalid(
        "beyond-max",
        "above-0x7fffffff-6-byte",
        "RFC 3629 §10 (RFC 2279 6-byte form)",
        b"\xFD\xBF\xBF\xBF\xBF\xBF",
        0,
        Some(1),
        &[F, F, F, F, F, F],
    ),
    invalid(
        "beyond-max",
        "f4-bf-bf-bf",
        "RFC 3629 §4",
        b"\xF4\xBF\xBF\xBF",
        0,
        Some(1),
        &[F, F, F, F],
    ),
    invalid(
        "beyond-max",
        "fe-alone",
        "RFC 3629 §4",
        b"\xFE",
        0,
        Some(1),
        &[F],
    ),
    // truncated
    invalid(
        "truncated",
        "trunc-u+0800-2-end",
        "RFC 3629 §4; core::str::Utf8Error",
        b"\xE0\xA0",
        0,
        None,
        &[F],
    ),
    invalid(
        "truncated",
        "trunc-u+10000-3-end",
        "RFC 3629 §4; core::str::Utf8Error",
        b"\xF0\x90\x80",
        0,
        None,
        &[F],
    ),
    invalid(
        "truncated",
        "trunc-u+10ffff-3-end",
        "RFC 3629 §4; core::str::Utf8Error",
        b"\xF4\x8F\xBF",
        0,
        None,
        &[F],
    ),
    invalid(
        "truncated",
        "trunc-u+d7ff-2-end",
        "RFC 3629 §4; core::str::Utf8Error",
        b"\xED\x9F",
        0,
        None,
        &[F],
    ),
    invalid(
        "truncated",
        "trunc-u+10ffff-3-then-ascii",
        "Unicode §3.9",
        b"\xF4\x8F\xBFA",
        0,
        Some(3),
        &[F, 0x41],
    ),
    invalid(
        "truncated",
        "trunc-u+20ac-2-then-char",
        "Unicode §3.9",
        b"\xE2\x82\xE2\x82\xAC",
        0,
        Some(2),
        &[F, 0x20AC],
    ),
    invalid(
        "truncated",
        "trunc-u+0080-1-then-lead",
        "Unicode §3.9",
        b"\xC2\xC3",
        0,
        Some(1),
        &[F, F],
    ),
    // encode: RFC 3629 §3's table, and its prohibitions.
    encoded("encode-u+0000", "RFC 3629 §3 table", 0x0000, b"\x00"),
    encoded("encode-u+007f", "RFC 3629 §3 table", 0x007F, b"\x7F"),
    encoded("encode-u+0080", "RFC 3629 §3 table", 0x0080, b"\xC2\x80"),
    encoded("encode-u+07ff", "RFC 3629 §3 table", 0x07FF, b"\xDF\xBF"),
    encoded(
        "encode-u+0800",
        "RFC 3629 §3 table",
        0x0800,
        b"\xE0\xA0\x80",
    ),
    encoded(
        "encode-u+ffff",
        "RFC 3629 §3 table",
        0xFFFF,
        b"\xEF\xBF\xBF",
    ),
    encoded(
        "encode-u+10000",
        "RFC 3629 §3 table",
        0x10000,
        b"\xF0\x90\x80\x80",
    ),
    encoded(
        "encode-u+10ffff",
        "RFC 3629 §3 table",
        0x10FFFF,
        b"\xF4\x8F\xBF\xBF",
    ),
    encoded(
        "encode-u+233b4",
        "RFC 3629 §7",
        0x233B4,
        b"\xF0\xA3\x8E\xB4",
    ),
    encoded("encode-u+d55c", "RFC 3629 §7", 0xD55C, b"\xED\x95\x9C"),
    refused("encode-u+d800", "RFC 3629 §3", 0xD800, "surrogate"),
    refused("encode-u+dfff", "RFC 3629 §3", 0xDFFF, "surrogate"),
    refused("encode-0x110000", "RFC 3629 §3", 0x11_0000, "out-of-range"),
    refused(
        "encode-0x7fffffff",
        "RFC 3629 §3, §12",
        0x7FFF_FFFF,
        "out-of-range",
    ),
    refused(
        "encode-0xffffffff",
        "RFC 3629 §3",
        0xFFFF_FFFF,
        "out-of-range",
    ),
    // UTF-16 → UTF-8: RFC 2781 §2.1's arithmetic done by hand (U' = U -
    // 0x10000; W1 = 0xD800 + U' >> 10; W2 = 0xDC00 + U' & 0x3FF), then
    // RFC 3629 §3's table.
    utf16("utf16-empty", "no input", &[], Ok(b""), b""),
    utf16(
        "utf16-u+ffff",
        "RFC 2781 §2.1 step 1",
        &[0xFFFF],
        Ok(b"\xEF\xBF\xBF"),
        b"\xEF\xBF\xBF",
    ),
    utf16(
        "utf16-u+10000",
        "RFC 2781 §2.1: U' = 0",
        &[0xD800, 0xDC00],
        Ok(b"\xF0\x90\x80\x80"),
        b"\xF0\x90\x80\x80",
    ),
    utf16(
        "utf16-u+10ffff",
        "RFC 2781 §2.1: U' = 0xFFFFF",
        &[0xDBFF, 0xDFFF],
        Ok(b"\xF4\x8F\xBF\xBF"),
        b"\xF4\x8F\xBF\xBF",
    ),
    utf16(
        "utf16-u+1f600",
        "RFC 2781 §2.1: U' = 0xF600",
        &[0xD83D, 0xDE00],
        Ok(b"\xF0\x9F\x98\x80"),
        b"\xF0\x9F\x98\x80",
    ),
    utf16(
        "lone-d800",
        "RFC 2781 §2.2 step 3",
        &[0xD800],
        Err(0),
        b"\xEF\xBF\xBD",
    ),
    utf16(
        "lone-dc00-middle",
        "RFC 2781 §2.2 step 2",
        &[0x41, 0xDC00, 0x42],
        Err(1),
        b"A\xEF\xBF\xBDB",
    ),
    utf16(
        "reversed-pair",
        "RFC 2781 §2.2 steps 2 and 3",
        &[0xDC00, 0xD800],
        Err(0),
        b"\xEF\xBF\xBD\xEF\xBF\xBD",
    ),
    utf16(
        "high-high-low",
        "RFC 2781 §2.2 step 3, then a pair",
        &[0xD800, 0xD800, 0xDC00],
        Err(0),
        b"\xEF\xBF\xBD\xF0\x90\x80\x80",
    ),
    utf16(
        "high-pair-low",
        "RFC 2781 §2.2: a pair, then step 2",
        &[0xD800, 0xDC00, 0xDC00],
        Err(2),
        b"\xF0\x90\x80\x80\xEF\xBF\xBD",
    ),
];
