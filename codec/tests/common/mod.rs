//! What the codec's integration tests hold it to: std, an independent
//! implementation of the same rules (`core::str::from_utf8`'s error
//! details, `String::from_utf8_lossy`'s one U+FFFD per maximal subpart,
//! `char::encode_utf8`), and the inputs they share.
#![allow(dead_code)] // each test file uses a part

use utf8conform_codec::{Kernel, Utf8Error};

/// Every kernel this CPU runs, the scalar one included.
pub fn kernels() -> Vec<&'static Kernel> {
    utf8conform_codec::kernels().collect()
}

/// std's strict answer: the code points, or the error.
pub fn strict(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.chars().map(u32::from).collect())
        .map_err(Utf8Error::from)
}

/// std's code points of the well-formed prefix (all of `bytes`, or up to
/// the first error).
pub fn prefix(bytes: &[u8]) -> Vec<u32> {
    let end = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |s| s.len());
    strict(&bytes[..end]).expect("a well-formed prefix")
}

/// std's lossy decoding.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Code points of a string.
pub fn utf32(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Scalars of every UTF-8 length at their edges (RFC 3629 §3's table).
pub const EDGES: [char; 10] = [
    '\u{0}',
    '\u{7F}',
    '\u{80}',
    '\u{7FF}',
    '\u{800}',
    '\u{D7FF}',
    '\u{E000}',
    '\u{FFFF}',
    '\u{10000}',
    '\u{10FFFF}',
];

/// Byte sequences that are ill-formed or cut short: one of each kind of
/// maximal subpart (Unicode §3.9, table 3-7's ranges).
pub const BAD: [&[u8]; 16] = [
    b"\x80",             // stray continuation
    b"\xBF",             // stray continuation
    b"\xC0\xAF",         // overlong 2-byte form
    b"\xC1",             // never a lead
    b"\xF5",             // never a lead
    b"\xFF",             // never a lead
    b"\xE0\x80",         // overlong 3-byte form: E0 then 80
    b"\xED\xA0\x80",     // surrogate
    b"\xF0\x8F",         // overlong 4-byte form
    b"\xF4\x90\x80\x80", // above U+10FFFF
    b"\xE1\x80",         // 3-byte sequence cut short
    b"\xF1\x80\x80",     // 4-byte sequence cut short
    b"\xC2",             // 2-byte sequence cut short
    b"\xF0\x9F\x98",     // an emoji cut short
    b"\xE2\x82\x41",     // cut by an ASCII byte
    b"\xF4\x8F\xBF\xC0", // cut by a never-lead byte
];

/// Random text: scalars of every length, and with probability `bad_per_mille`
/// (in 1/1000) per character one of [`BAD`].
pub fn text(rng: &mut Rng, chars: usize, bad_per_mille: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..chars {
        if rng.below(1000) < bad_per_mille {
            out.extend_from_slice(BAD[rng.below(BAD.len())]);
            continue;
        }
        let c = match rng.below(5) {
            0 | 1 => char::from(b'a' + rng.below(26) as u8),
            2 => char::from_u32(0x80 + rng.below(0x780) as u32).unwrap(),
            3 => char::from_u32(0x800 + rng.below(0xD000) as u32).unwrap(),
            _ => char::from_u32(0x10000 + rng.below(0x100000) as u32).unwrap(),
        };
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    out
}

/// Inputs where every kind of character or error sits at every offset
/// from 0 to 40 behind ASCII and behind 2-byte text: before, on and after
/// every 8- and 16-byte edge the scalar paths have.
pub fn placed() -> Vec<Vec<u8>> {
    let mut pieces: Vec<Vec<u8>> = BAD.iter().map(|b| b.to_vec()).collect();
    for c in EDGES {
        pieces.push(c.to_string().into_bytes());
    }
    let mut out = Vec::new();
    for piece in &pieces {
        for filler in ["a", "\u{e9}"] {
            for n in 0..40 {
                let mut input = filler.repeat(n).into_bytes();
                input.extend_from_slice(piece);
                out.push(input.clone());
                input.extend_from_slice(b"tail, past the next block of sixteen");
                out.push(input);
            }
        }
    }
    out
}

/// Calls `check` on every input of up to two bytes: the empty input, every
/// byte, every pair of bytes.
pub fn every_input_of_up_to_two_bytes(check: impl Fn(&[u8])) {
    check(b"");
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

/// CJK text with a space (a kernel may take the 3-byte characters on both
/// sides of one ASCII byte at once), each input to `check`: the space
/// after any of the first 30 characters, the run starting 0 to 3 bytes
/// in, whole, cut to 64 to 80 bytes, and with one byte replaced anywhere
/// in its first 130 bytes:
/// by a continuation of either half of 0x80..=0xBF (the edge of E0's and
/// ED's second byte, RFC 3629 §4), ASCII, a 2-, 3- or 4-byte lead, 0xE0
/// or 0xED, or a byte that is never in UTF-8.
pub fn three_byte_runs_around_a_space(check: impl Fn(&[u8])) {
    let chars = [
        '\u{800}', '\u{D7FF}', '\u{E000}', '\u{FFFF}', '一', '語', '\u{1000}',
    ];
    let run: Vec<char> = (0..70).map(|i| chars[i * 5 % chars.len()]).collect();
    for lead in 0..4 {
        for space in 0..30 {
            let mut base = "a".repeat(lead);
            base.extend(&run[..space]);
            base.push(' ');
            base.extend(&run[space..]);
            let base = base.into_bytes();
            check(&base);
            // Cut to the lengths where a kernel may change loops.
            for cut in 64..=80 {
                check(&base[..cut]);
            }
            for at in 0..130 {
                for byte in [0x80, 0x9F, 0xA0, 0xBF, 0x41, 0xC2, 0xE0, 0xED, 0xF0, 0xFF] {
                    let mut input = base.clone();
                    input[lead + at] = byte;
                    check(&input);
                }
            }
        }
    }
}
