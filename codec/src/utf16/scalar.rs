//! The scalar UTF-16 conversions: the kernel every CPU runs, and the loops
//! the SIMD kernels finish with. Safe code only, so Miri checks it.
//!
//! UTF-16 (Unicode §3.9, D91; RFC 2781 §2.1): a scalar value below
//! U+10000 is one code unit, its own value; one from U+10000 is two,
//! `U' = U − 0x10000` split into a high surrogate `0xD800 + (U' >> 10)` and
//! a low one `0xDC00 + (U' & 0x3FF)`.

use super::Utf16Error;
use crate::ascii;

/// The first code unit of a high surrogate.
pub(crate) const HIGH: u16 = 0xD800;
/// The first code unit of a low surrogate.
pub(crate) const LOW: u16 = 0xDC00;

/// Appends `scalar` (a scalar value) as one or two code units.
#[inline]
pub(crate) fn push_scalar(out: &mut Vec<u16>, scalar: u32) {
    if scalar < 0x1_0000 {
        out.push(scalar as u16);
    } else {
        let u = scalar - 0x1_0000;
        out.extend_from_slice(&[HIGH | (u >> 10) as u16, LOW | (u & 0x3FF) as u16]);
    }
}

/// Appends the UTF-16 form of `text` to `out`.
pub(crate) fn decode_valid(text: &str, out: &mut Vec<u16>) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let end = ascii::skip(bytes, at);
        out.extend(bytes[at..end].iter().map(|&b| u16::from(b)));
        at = end;
        // A run of multi-byte characters, up to the next ASCII byte. The
        // input is a `str`: the lead says the length, and every
        // continuation byte is there.
        while let Some(&lead) = bytes.get(at) {
            if lead < 0x80 {
                break;
            }
            let tail = |k: usize| u32::from(bytes[at + k] & 0x3F);
            match lead {
                0xC0..=0xDF => {
                    out.push((u32::from(lead & 0x1F) << 6 | tail(1)) as u16);
                    at += 2;
                }
                0xE0..=0xEF => {
                    out.push((u32::from(lead & 0x0F) << 12 | tail(1) << 6 | tail(2)) as u16);
                    at += 3;
                }
                _ => {
                    let scalar =
                        u32::from(lead & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3);
                    push_scalar(out, scalar);
                    at += 4;
                }
            }
        }
    }
}

/// Appends the UTF-8 form of `units` to `out`. A lone surrogate stops a
/// strict conversion (`LOSSY` false) with its index, what came before it
/// appended; a lossy one writes U+FFFD for it and goes on.
pub(crate) fn encode<const LOSSY: bool>(
    units: &[u16],
    out: &mut Vec<u8>,
) -> Result<(), Utf16Error> {
    // At most 3 bytes per unit: a BMP character is 1 to 3 bytes, a pair 4,
    // a U+FFFD 3.
    out.reserve(3 * units.len());
    let mut at = 0;
    while let Some(&unit) = units.get(at) {
        at += 1;
        let scalar = match unit {
            0..=0x7F => {
                out.push(unit as u8);
                // A run of ASCII, 8 units at a time: no unit with a bit
                // above the low 7 set.
                while let Some(chunk) = units.get(at..at + 8) {
                    let chunk: &[u16; 8] = chunk.try_into().expect("8 units");
                    if chunk.iter().fold(0, |acc, &u| acc | u) >= 0x80 {
                        break;
                    }
                    out.extend(chunk.iter().map(|&u| u as u8));
                    at += 8;
                }
                continue;
            }
            0x80..=0x7FF => {
                out.extend_from_slice(&[0xC0 | (unit >> 6) as u8, 0x80 | (unit & 0x3F) as u8]);
                continue;
            }
            0xD800..=0xDBFF => match units.get(at) {
                Some(&low @ 0xDC00..=0xDFFF) => {
                    at += 1;
                    0x1_0000 + ((u32::from(unit - HIGH) << 10) | u32::from(low - LOW))
                }
                _ if LOSSY => crate::REPLACEMENT as u32,
                _ => return Err(Utf16Error::new(at - 1)),
            },
            0xDC00..=0xDFFF if LOSSY => crate::REPLACEMENT as u32,
            0xDC00..=0xDFFF => return Err(Utf16Error::new(at - 1)),
            _ => {
                out.extend_from_slice(&[
                    0xE0 | (unit >> 12) as u8,
                    0x80 | ((unit >> 6) & 0x3F) as u8,
                    0x80 | (unit & 0x3F) as u8,
                ]);
                continue;
            }
        };
        let c = char::from_u32(scalar).expect("a pair or a U+FFFD is a scalar");
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    Ok(())
}

/// [`encode`], strict.
pub(crate) fn encode_strict(units: &[u16], out: &mut Vec<u8>) -> Result<(), Utf16Error> {
    encode::<false>(units, out)
}

/// [`encode`], lossy.
pub(crate) fn encode_lossy(units: &[u16], out: &mut Vec<u8>) {
    let result = encode::<true>(units, out);
    debug_assert!(result.is_ok(), "lossy conversion cannot fail");
}

#[cfg(test)]
mod tests {
    //! Expected values from std (`str::encode_utf16`, `String::from_utf16`,
    //! `String::from_utf16_lossy`), never from this module.
    use super::*;

    #[test]
    fn decode_valid_equals_std_on_every_length() {
        let text = "a\u{7f}\u{80}\u{7ff}\u{800}\u{d7ff}\u{e000}\u{ffff}\u{10000}\u{10ffff} plain ascii, past sixteen bytes";
        let mut out = vec![7];
        decode_valid(text, &mut out);
        let expected: Vec<u16> = [7].into_iter().chain(text.encode_utf16()).collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn encode_equals_std_on_pairs_and_lone_surrogates() {
        let cases: &[&[u16]] = &[
            &[],
            &[0x41, 0xE9, 0x20AC, 0xD83D, 0xDE00, 0xFFFF, 0],
            &[0xD800],
            &[0xDC00],
            &[0x41, 0xDBFF, 0x42],
            &[0xDBFF, 0xDBFF, 0xDFFF],
            &[0xDFFF, 0xD800, 0xDC00, 0xDC00],
        ];
        for &units in cases {
            let mut out = Vec::new();
            let result = encode_strict(units, &mut out);
            match String::from_utf16(units) {
                Ok(s) => {
                    assert_eq!(result, Ok(()));
                    assert_eq!(out, s.as_bytes());
                }
                Err(_) => {
                    // std says only that there is a lone surrogate; where,
                    // is the first unit char::decode_utf16 refuses.
                    let at = char::decode_utf16(units.iter().copied())
                        .map(|r| r.map(char::len_utf16))
                        .take_while(Result::is_ok)
                        .map(Result::unwrap)
                        .sum::<usize>();
                    assert_eq!(result, Err(Utf16Error::new(at)), "{units:04x?}");
                    assert_eq!(out, String::from_utf16(&units[..at]).unwrap().as_bytes());
                }
            }
            let mut lossy = Vec::new();
            encode_lossy(units, &mut lossy);
            assert_eq!(lossy, String::from_utf16_lossy(units).as_bytes());
        }
    }
}
