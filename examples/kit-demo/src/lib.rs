//! A small UTF-8 decoder, written from Unicode's Table 3-7 (well-formed
//! byte sequences): the kind of code the utf8conform kit is for.

/// Where strict decoding stopped: bytes before the first ill-formed
/// sequence, and the length of its maximal subpart (`None`: the input ends
/// inside a sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// Bytes before the error.
    pub valid_up_to: usize,
    /// The maximal subpart's length, or `None` for an incomplete end.
    pub error_len: Option<u8>,
}

/// What one step found at the start of `bytes`.
enum Step {
    Char(char, usize),
    Bad(usize),
    Incomplete,
}

/// The byte range allowed after `lead` (Table 3-7), and the length.
fn shape(lead: u8) -> Option<(usize, u8, u8)> {
    Some(match lead {
        #[cfg(not(feature = "broken"))]
        0xC2..=0xDF => (2, 0x80, 0xBF),
        // The planted bug: C0 and C1 start 2-byte forms (overlongs).
        #[cfg(feature = "broken")]
        0xC0..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return None,
    })
}

fn step(bytes: &[u8]) -> Step {
    let lead = bytes[0];
    if lead < 0x80 {
        return Step::Char(char::from(lead), 1);
    }
    let Some((len, low, high)) = shape(lead) else {
        return Step::Bad(1);
    };
    let mut value = u32::from(lead) & (0x7F >> len);
    for i in 1..len {
        let Some(&b) = bytes.get(i) else {
            return Step::Incomplete;
        };
        let (lo, hi) = if i == 1 { (low, high) } else { (0x80, 0xBF) };
        if !(lo..=hi).contains(&b) {
            return Step::Bad(i);
        }
        value = value << 6 | u32::from(b & 0x3F);
    }
    Step::Char(char::from_u32(value).unwrap_or('\u{FFFD}'), len)
}

/// Decodes strictly.
pub fn decode(bytes: &[u8]) -> Result<Vec<char>, Error> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match step(&bytes[at..]) {
            Step::Char(c, len) => {
                out.push(c);
                at += len;
            }
            Step::Bad(n) => return Err(Error { valid_up_to: at, error_len: Some(n as u8) }),
            Step::Incomplete => return Err(Error { valid_up_to: at, error_len: None }),
        }
    }
    Ok(out)
}

/// Decodes, one U+FFFD per maximal subpart.
pub fn decode_lossy(bytes: &[u8]) -> Vec<char> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match step(&bytes[at..]) {
            Step::Char(c, len) => {
                out.push(c);
                at += len;
            }
            Step::Bad(n) => {
                out.push('\u{FFFD}');
                at += n;
            }
            Step::Incomplete => {
                out.push('\u{FFFD}');
                at = bytes.len();
            }
        }
    }
    out
}
