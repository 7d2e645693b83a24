//! Lowercase hex, the way vectors and the protocol spell bytes.

use std::fmt;

/// `bytes` as lowercase hex without separators: `[0xC0, 0xAF]` → `"c0af"`.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// `bytes` as lowercase hex, a space between bytes: `"c0 af"` (how
/// findings show a chunk, so that a person counts bytes at a glance).
pub fn spaced(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&encode(std::slice::from_ref(b)));
    }
    s
}

/// What was wrong with a hex string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexError {
    /// An odd number of digits.
    OddLength(usize),
    /// A character that is not a hex digit, at this character index.
    BadDigit {
        /// Index of the offending character.
        index: usize,
        /// The character itself.
        found: char,
    },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::OddLength(n) => write!(f, "odd number of hex digits ({n})"),
            HexError::BadDigit { index, found } => {
                write!(f, "{found:?} at position {index} is not a hex digit")
            }
        }
    }
}

impl std::error::Error for HexError {}

/// Parses hex, either case. Spaces and `_` between byte pairs are allowed
/// (`"c0 af"`, `"F4_90_80_80"`) so people can paste dumps; nothing else is.
pub fn decode(text: &str) -> Result<Vec<u8>, HexError> {
    let digits: Vec<(usize, char)> = text
        .chars()
        .enumerate()
        .filter(|&(_, c)| c != ' ' && c != '_')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddLength(digits.len()));
    }
    let value = |(index, found): (usize, char)| {
        found
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or(HexError::BadDigit { index, found })
    };
    digits
        .chunks(2)
        .map(|pair| Ok(value(pair[0])? << 4 | value(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let text = encode(&all);
        assert!(text.starts_with("000102") && text.ends_with("fdfeff"));
        assert_eq!(decode(&text).unwrap(), all);
        assert_eq!(decode(&text.to_uppercase()).unwrap(), all);
    }

    #[test]
    fn rejects_what_is_not_hex() {
        assert_eq!(decode("abc"), Err(HexError::OddLength(3)));
        assert_eq!(
            decode("zz"),
            Err(HexError::BadDigit {
                index: 0,
                found: 'z'
            })
        );
        assert_eq!(decode("c0 af").unwrap(), [0xC0, 0xAF]);
    }
}
