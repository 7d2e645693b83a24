//! Decoding text already known to be well-formed (a `&str`) to UTF-32: the
//! scalar loop every kernel falls back to for its last few bytes.
//!
//! Because the input is a `&str`, no byte needs checking: the lead byte's
//! count of leading ones is the length, and the payload bits are gathered
//! without branches on the continuation bytes.

use super::ascii;

/// Appends the code points of `text` to `out`.
#[inline]
pub(crate) fn decode_valid_scalar(text: &str, out: &mut Vec<u32>) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let end = ascii::skip(bytes, at);
        out.extend(bytes[at..end].iter().map(|&b| u32::from(b)));
        at = end;
        // A run of multi-byte characters, up to the next ASCII byte.
        while let Some(&lead) = bytes.get(at) {
            if lead < 0x80 {
                break;
            }
            let tail = |k: usize| u32::from(bytes[at + k] & 0x3F);
            let (scalar, length) = match lead {
                0xC0..=0xDF => (u32::from(lead & 0x1F) << 6 | tail(1), 2),
                0xE0..=0xEF => (u32::from(lead & 0x0F) << 12 | tail(1) << 6 | tail(2), 3),
                _ => (
                    u32::from(lead & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3),
                    4,
                ),
            };
            out.push(scalar);
            at += length;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decodes_every_length() {
        let text =
            "a\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff} plain ascii, more than sixteen";
        let mut out = vec![7];
        super::decode_valid_scalar(text, &mut out);
        let expected: Vec<u32> = [7].into_iter().chain(text.chars().map(u32::from)).collect();
        assert_eq!(out, expected);
    }
}
