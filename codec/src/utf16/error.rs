//! The error of a strict UTF-16 → UTF-8 conversion: where the first lone
//! surrogate is.

use std::fmt;

/// Why UTF-16 could not be converted: a surrogate that is not half of a
/// pair (a high surrogate, U+D800..U+DBFF, not followed by a low one,
/// U+DC00..U+DFFF, or a low one not preceded by a high one). UTF-16 has
/// no other way to be ill-formed (Unicode §3.9, D91), and each such code
/// unit is a maximal subpart of one unit: `String::from_utf16` refuses the
/// same inputs.
///
/// ```
/// use utf8conform_codec as codec;
/// let err = codec::from_utf16(&[0x61, 0xD83D, 0x62]).unwrap_err();
/// assert_eq!(err.valid_up_to(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf16Error {
    valid_up_to: usize,
}

impl Utf16Error {
    /// The error at code unit `valid_up_to`.
    #[inline]
    pub fn new(valid_up_to: usize) -> Utf16Error {
        Utf16Error { valid_up_to }
    }

    /// Number of code units before the first lone surrogate: they are
    /// well-formed UTF-16, and the unit at this index is the lone surrogate.
    #[inline]
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// The same error seen from `offset` units earlier in a larger input.
    #[inline]
    pub fn shifted(self, offset: usize) -> Utf16Error {
        Utf16Error::new(self.valid_up_to + offset)
    }
}

impl fmt::Display for Utf16Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid UTF-16: lone surrogate after {} valid code units",
            self.valid_up_to
        )
    }
}

impl std::error::Error for Utf16Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_lone_surrogate_and_its_index() {
        // std says only that there is a lone surrogate; ours says where.
        let units = [0x61, 0x62, 0xD83D, 0x63];
        let std = String::from_utf16(&units).unwrap_err().to_string();
        assert!(std.contains("surrogate"), "{std}");
        let e = Utf16Error::new(2);
        let message = e.to_string();
        assert!(message.contains("surrogate"), "{message}");
        assert!(message.contains('2'), "{message}");
        let far = Utf16Error::new(12345).to_string();
        assert!(far.contains("12345"), "{far}");
        assert_ne!(message, far);
        assert_eq!(e.shifted(12343).to_string(), far);
    }
}
