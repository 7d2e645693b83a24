//! Validation: the hot loop that only answers yes or no, and the slow loop
//! that, only once an error is known to exist, works out exactly where.
//!
//! The fast loop alternates between the ASCII skipper and the DFA run over
//! 16-byte blocks. `ERROR` is absorbing, so the DFA is checked only at block
//! ends. When a block fails (or the input ends mid-sequence), [`locate`]
//! re-runs the DFA byte by byte from the last character boundary the fast
//! loop saw, remembering where each character began. That yields
//! `valid_up_to` (the start of the failing character) and `error_len` (how
//! many bytes of it the DFA accepted before failing — the maximal subpart —
//! or 1 when the lead byte itself failed).

use super::{ascii, dfa};
use crate::Utf8Error;

const BLOCK: usize = 16;

/// The portable scalar kernel: ASCII word-at-a-time plus the shift DFA.
pub(crate) fn validate_scalar(bytes: &[u8]) -> Result<(), Utf8Error> {
    let len = bytes.len();
    let mut at = 0;
    loop {
        // Invariant: `at` is a character boundary and bytes[..at] is valid.
        at = ascii::skip(bytes, at);
        if at == len {
            return Ok(());
        }
        let mut boundary = at;
        let mut state = dfa::ACCEPT;
        loop {
            let end = (at + BLOCK).min(len);
            for &byte in &bytes[at..end] {
                state = dfa::next(state, byte);
            }
            at = end;
            if state == dfa::ERROR || (at == len && state != dfa::ACCEPT) {
                return Err(locate(bytes, boundary));
            }
            if state == dfa::ACCEPT {
                boundary = at;
                if at == len || bytes[at] < 0x80 {
                    break;
                }
            }
        }
    }
}

/// Inputs up to this length skip the kernel (see [`validate_short`]).
pub(crate) const SHORT: usize = 8;

/// The DFA straight through, for inputs of at most [`SHORT`] bytes.
///
/// A SIMD kernel's answer for a handful of bytes costs a fixed ~20 cycles
/// of latency (load, three table look-ups, shifts, a mask test) plus an
/// indirect call; the DFA's dependency chain is a shift and a mask per
/// byte. `ERROR` is absorbing, so the state is tested once, at the end.
#[inline]
pub(crate) fn validate_short(bytes: &[u8]) -> Result<(), Utf8Error> {
    debug_assert!(bytes.len() <= SHORT);
    let mut state = dfa::ACCEPT;
    for &byte in bytes {
        state = dfa::next(state, byte);
    }
    if state == dfa::ACCEPT {
        Ok(())
    } else {
        Err(locate(bytes, 0))
    }
}

/// Whether `byte`, at a character boundary, is a maximal subpart by itself
/// whatever follows: a continuation byte, or one that never occurs in UTF-8
/// (C0, C1: overlong leads; F5..FF: beyond U+10FFFF or no lead at all).
#[inline]
pub(crate) fn is_lone(byte: u8) -> bool {
    byte & 0xC0 == 0x80 || is_never_lead(byte)
}

/// How many [lone](is_lone) bytes follow one another from `from`: after a
/// maximal subpart (a character boundary), each is a subpart of its own, as
/// the continuation bytes a broken character leaves behind are.
#[inline]
pub(crate) fn lone_run(bytes: &[u8], from: usize) -> usize {
    bytes
        .get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| is_lone(b)).count())
}

/// Whether `byte` never occurs in UTF-8 and is not a continuation byte (C0,
/// C1, F5..FF): it cannot continue a character, and at a boundary it is a
/// maximal subpart by itself.
#[inline]
pub(crate) fn is_never_lead(byte: u8) -> bool {
    matches!(byte, 0xC0 | 0xC1 | 0xF5..=0xFF)
}

/// The exact error in `bytes`, which is known to be ill-formed at or after
/// the character boundary `from`.
pub(crate) fn locate(bytes: &[u8], from: usize) -> Utf8Error {
    let mut state = dfa::ACCEPT;
    let mut start = from;
    for (at, &byte) in bytes.iter().enumerate().skip(from) {
        if state == dfa::ACCEPT {
            start = at;
        }
        state = dfa::next(state, byte);
        if state == dfa::ERROR {
            // Bytes start..at were accepted as a prefix of one character;
            // if none were (the lead itself failed), the subpart is 1 byte.
            let matched = (at - start).max(1);
            return Utf8Error::new(start, Some(matched as u8));
        }
    }
    debug_assert_ne!(state, dfa::ACCEPT, "locate called on valid input");
    Utf8Error::new(start, None)
}

/// The last character boundary at or before `at`, given that `bytes[..at]`
/// is well-formed except perhaps for one unfinished character at its end
/// (what a SIMD kernel knows when the block starting at `at` fails): the
/// lead of that character, at most 3 bytes back, or `at` itself.
pub(crate) fn boundary_before(bytes: &[u8], at: usize) -> usize {
    for back in 1..=at.min(3) {
        let byte = bytes[at - back];
        if byte & 0xC0 != 0x80 {
            // Not a continuation: ASCII (closed), or a lead whose sequence
            // (2, 3 or 4 bytes: its count of leading ones) is still open if
            // longer than `back`.
            let length = byte.leading_ones() as usize;
            return if length > back { at - back } else { at };
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_before_finds_the_open_character() {
        let text = "a\u{e9}\u{20ac}\u{1F600}".as_bytes(); // 1 + 2 + 3 + 4 bytes
        let starts = [0, 1, 3, 6, 10];
        for at in 0..=text.len() {
            let expected = *starts.iter().rev().find(|&&s| s <= at).unwrap();
            assert_eq!(boundary_before(text, at), expected, "at {at}");
        }
    }

    #[test]
    fn lone_bytes_are_the_one_byte_subparts_whatever_follows() {
        // std decides: at a character boundary, a byte is lone when it is
        // a maximal subpart of its own (error at 0, length 1) before any
        // next byte: here, both ends of every range a second byte falls in
        // (RFC 3629 section 4's UTF8-2..UTF8-4), and ASCII and never-lead
        // bytes.
        let nexts = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF];
        for byte in 0..=255u8 {
            let lone = nexts.iter().all(|&next| {
                matches!(core::str::from_utf8(&[byte, next]),
                    Err(e) if e.valid_up_to() == 0 && e.error_len() == Some(1))
            });
            assert_eq!(is_lone(byte), lone, "{byte:#04x}");
        }
        // RFC 3629 section 3: 80..BF only continue, C0, C1 and F5..FF
        // never occur; E2 leads and `b` is ASCII.
        assert_eq!(lone_run(b"a\x80\xBF\xC0\xF5b\x80", 1), 4);
        assert_eq!(lone_run(b"\x80\xE2\x82\xAC", 0), 1);
        assert_eq!(lone_run(b"\xC1\xFF", 0), 2);
        assert_eq!(lone_run(b"ab", 0), 0);
        assert_eq!(lone_run(b"ab", 2), 0);
        assert_eq!(lone_run(b"ab", 3), 0);
    }

    #[test]
    #[cfg_attr(miri, ignore = "65,536 cases: minutes under Miri, and no unsafe code")]
    fn the_scalar_kernel_matches_std_on_short_inputs() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let input = [b'x', a, b];
                assert_eq!(
                    validate_scalar(&input),
                    core::str::from_utf8(&input)
                        .map(|_| ())
                        .map_err(crate::Utf8Error::from),
                    "{input:02x?}"
                );
            }
        }
    }
}
