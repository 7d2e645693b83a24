//! UTF-16 of the reference's scalars, and scalars of UTF-16: RFC 2781 §2.
//!
//! The codec's UTF-8 → UTF-16 output is defined as [`encode`] of the
//! reference's scalars ([`super::decode`], or [`super::decode_lossy`] when
//! replacing), and its UTF-16 → UTF-8 input as [`decode`] (strict: the
//! first unpaired surrogate is the error) or [`decode_lossy`] (each
//! unpaired surrogate becomes U+FFFD, as `String::from_utf16_lossy` and
//! the WHATWG Encoding Standard's UTF-16 decoder do).
//!
//! Written, like the UTF-8 reference, to be checked against the RFC's
//! steps by eye: one branch per step, no tables.

use utf8conform_codec::Utf16Error;

/// RFC 2781 §2.1, for each scalar:
///
/// 1. "If U < 0x10000, encode U as a 16-bit unsigned integer and
///    terminate." (No scalar value lies in 0xD800-0xDFFF: `char` has none.)
/// 2. "Let U' = U - 0x10000." (U' ≤ 0xFFFFF: 20 bits.)
/// 3. "Initialize two 16-bit unsigned integers, W1 and W2, to 0xD800 and
///    0xDC00, respectively."
/// 4. "Assign the 10 high-order bits of the 20-bit U' to the 10 low-order
///    bits of W1 and the 10 low-order bits of U' to the 10 low-order bits
///    of W2."
pub fn encode(scalars: &[char]) -> Vec<u16> {
    let mut units = Vec::with_capacity(scalars.len());
    for &c in scalars {
        let u = u32::from(c);
        if u < 0x10000 {
            units.push(u as u16);
            continue;
        }
        let u_prime = u - 0x10000;
        let w1 = 0xD800 | (u_prime >> 10) as u16;
        let w2 = 0xDC00 | (u_prime & 0x3FF) as u16;
        units.push(w1);
        units.push(w2);
    }
    units
}

/// One step of RFC 2781 §2.2 at the start of `units`: the character and
/// how many units it took, or `None` where the step says "the sequence is
/// in error" (a W1 in 0xDC00-0xDFFF, or a W1 in 0xD800-0xDBFF with no W2
/// in 0xDC00-0xDFFF after it).
fn first(units: &[u16]) -> Option<(char, usize)> {
    let w1 = *units.first()?;
    // 1. "If W1 < 0xD800 or W1 > 0xDFFF, the character value U is the
    //    value of W1. Terminate."
    if !(0xD800..=0xDFFF).contains(&w1) {
        return Some((char::from_u32(u32::from(w1))?, 1));
    }
    // 2. "Determine if W1 is between 0xD800 and 0xDBFF. If not, the
    //    sequence is in error and no valid character can be obtained
    //    using W1."
    if w1 > 0xDBFF {
        return None;
    }
    // 3. "If there is no W2 (that is, the sequence ends with W1), or if W2
    //    is not between 0xDC00 and 0xDFFF, the sequence is in error."
    let w2 = *units.get(1)?;
    if !(0xDC00..=0xDFFF).contains(&w2) {
        return None;
    }
    // 4. "Construct a 20-bit unsigned integer U', taking the 10 low-order
    //    bits of W1 as its 10 high-order bits and the 10 low-order bits of
    //    W2 as its 10 low-order bits."
    let u_prime = (u32::from(w1 & 0x3FF) << 10) | u32::from(w2 & 0x3FF);
    // 5. "Add 0x10000 to U' to obtain the character value U."
    Some((char::from_u32(u_prime + 0x10000)?, 2))
}

/// RFC 2781 §2.2 over the whole sequence: the scalars, or the index of the
/// first unit at which a step is in error (an unpaired surrogate).
pub fn decode(units: &[u16]) -> Result<Vec<char>, usize> {
    let mut scalars = Vec::with_capacity(units.len());
    let mut at = 0;
    while at < units.len() {
        let (c, len) = first(&units[at..]).ok_or(at)?;
        scalars.push(c);
        at += len;
    }
    Ok(scalars)
}

/// [`decode`], with each unit at which a step is in error replaced by
/// U+FFFD and decoding resumed at the next unit (an unpaired high
/// surrogate followed by another high surrogate: the second may still
/// begin a pair).
pub fn decode_lossy(units: &[u16]) -> Vec<char> {
    let mut scalars = Vec::with_capacity(units.len());
    let mut at = 0;
    while at < units.len() {
        match first(&units[at..]) {
            Some((c, len)) => {
                scalars.push(c);
                at += len;
            }
            None => {
                scalars.push(char::REPLACEMENT_CHARACTER);
                at += 1;
            }
        }
    }
    scalars
}

/// [`decode`] as a string, its error as the codec's [`Utf16Error`] (the
/// index of the first unpaired surrogate): what `from_utf16` must answer.
pub fn to_string(units: &[u16]) -> Result<String, Utf16Error> {
    decode(units)
        .map(String::from_iter)
        .map_err(Utf16Error::new)
}

#[cfg(test)]
mod tests {
    //! Hand-written cases from RFC 2781's steps, then std (an independent
    //! implementation) on every scalar and every unit pair that matters.
    use super::*;

    #[test]
    fn the_rfc_boundaries() {
        // The first and last supplementary scalars, and the last BMP ones
        // either side of the surrogates (RFC 2781 §2.1 steps 1-4).
        let cases: [(char, &[u16]); 5] = [
            ('\u{D7FF}', &[0xD7FF]),
            ('\u{E000}', &[0xE000]),
            ('\u{FFFF}', &[0xFFFF]),
            ('\u{10000}', &[0xD800, 0xDC00]),
            ('\u{10FFFF}', &[0xDBFF, 0xDFFF]),
        ];
        for (c, units) in cases {
            assert_eq!(encode(&[c]), units, "{c:?}");
            assert_eq!(decode(units), Ok(vec![c]), "{units:04x?}");
        }
    }

    #[test]
    fn unpaired_surrogates_are_errors_where_they_stand() {
        // §2.2 step 2: a low surrogate first; step 3: a high one at the end
        // or before a unit that is not a low surrogate.
        assert_eq!(decode(&[0xDC00]), Err(0));
        assert_eq!(decode(&[0x61, 0xD800]), Err(1));
        assert_eq!(decode(&[0x61, 0xD800, 0x62]), Err(1));
        assert_eq!(decode(&[0xD800, 0xD800, 0xDC00]), Err(0));
        assert_eq!(
            decode_lossy(&[0xD800, 0xD800, 0xDC00, 0xDFFF, 0x61]),
            vec!['\u{FFFD}', '\u{10000}', '\u{FFFD}', 'a']
        );
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "1,112,064 scalars: hours under Miri, and no unsafe code"
    )]
    fn every_scalar_encodes_as_std_encodes_it() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0; 2];
            assert_eq!(encode(&[c]), c.encode_utf16(&mut buf), "{c:?}");
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "4.2 M unit pairs: hours under Miri, and no unsafe code"
    )]
    fn every_unit_and_every_surrogate_pair_decode_as_std_decodes_them() {
        // Every unit alone; and after each surrogate (the only units whose
        // next unit matters), every surrogate and the non-surrogates at the
        // edges of their ranges.
        let std_strict = |units: &[u16]| -> Result<Vec<char>, usize> {
            let mut out = Vec::new();
            let mut at = 0;
            for r in char::decode_utf16(units.iter().copied()) {
                let c = r.map_err(|_| at)?;
                at += c.len_utf16();
                out.push(c);
            }
            Ok(out)
        };
        let std_lossy =
            |units: &[u16]| -> Vec<char> { String::from_utf16_lossy(units).chars().collect() };
        for w1 in 0..=u16::MAX {
            assert_eq!(decode(&[w1]), std_strict(&[w1]), "{w1:04x}");
        }
        for w1 in 0xD800..=0xDFFF {
            let others = [0x0000, 0x0061, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF];
            for w2 in (0xD800..=0xDFFF).chain(others) {
                let units = [w1, w2];
                assert_eq!(decode(&units), std_strict(&units), "{units:04x?}");
                assert_eq!(decode_lossy(&units), std_lossy(&units), "{units:04x?}");
            }
        }
    }
}
