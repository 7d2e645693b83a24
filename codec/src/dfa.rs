//! A shift-based DFA for UTF-8 (the "shift DFA" layout: every state is a bit
//! offset, and the row for a byte packs all nine next-states into one `u64`).
//!
//! The automaton recognises exactly RFC 3629 §4's `UTF8-char`: its states are
//! the positions inside the grammar's alternatives, and its transitions are
//! the ranges the grammar writes (see [`transition`]). It is built at compile
//! time from that description, so the table is data derived from the
//! grammar, not hand-typed numbers. The exhaustive tests compare it with the
//! reference decoder on every input of up to three bytes.
//!
//! Why a shift DFA: one table load, one shift and one mask per byte, with no
//! data-dependent branch, which keeps the non-ASCII path near one byte per
//! cycle. `ERROR` is state 0, so `row >> 0 & 63` of every row must be 0:
//! once in `ERROR`, always in `ERROR`, and a block of bytes can be run without
//! checking for failure until its end.

/// No alternative can match any more: the input is ill-formed here.
pub(crate) const ERROR: u32 = 0;
/// Between characters: the next byte starts a new `UTF8-char`.
pub(crate) const ACCEPT: u32 = 6;
/// One `UTF8-tail` left to read.
const TAIL1: u32 = 12;
/// Two `UTF8-tail`s left to read.
const TAIL2: u32 = 18;
/// Three `UTF8-tail`s left to read (after %xF1-F3).
const TAIL3: u32 = 24;
/// After %xE0: `%xA0-BF UTF8-tail` left.
const AFTER_E0: u32 = 30;
/// After %xED: `%x80-9F UTF8-tail` left.
const AFTER_ED: u32 = 36;
/// After %xF0: `%x90-BF 2( UTF8-tail )` left.
const AFTER_F0: u32 = 42;
/// After %xF4: `%x80-8F 2( UTF8-tail )` left.
const AFTER_F4: u32 = 48;

const STATES: [u32; 9] = [
    ERROR, ACCEPT, TAIL1, TAIL2, TAIL3, AFTER_E0, AFTER_ED, AFTER_F0, AFTER_F4,
];

/// The next state after reading `byte` in `state`, written from §4.
const fn transition(state: u32, byte: u8) -> u32 {
    let is_tail = matches!(byte, 0x80..=0xBF); // UTF8-tail = %x80-BF
    match state {
        ACCEPT => match byte {
            0x00..=0x7F => ACCEPT,              // UTF8-1
            0xC2..=0xDF => TAIL1,               // UTF8-2
            0xE0 => AFTER_E0,                   // UTF8-3, first alternative
            0xE1..=0xEC | 0xEE..=0xEF => TAIL2, // UTF8-3, second and fourth
            0xED => AFTER_ED,                   // UTF8-3, third
            0xF0 => AFTER_F0,                   // UTF8-4, first
            0xF1..=0xF3 => TAIL3,               // UTF8-4, second
            0xF4 => AFTER_F4,                   // UTF8-4, third
            _ => ERROR,                         // 80-BF, C0, C1, F5-FF
        },
        TAIL1 if is_tail => ACCEPT,
        TAIL2 if is_tail => TAIL1,
        TAIL3 if is_tail => TAIL2,
        AFTER_E0 if matches!(byte, 0xA0..=0xBF) => TAIL1,
        AFTER_ED if matches!(byte, 0x80..=0x9F) => TAIL1,
        AFTER_F0 if matches!(byte, 0x90..=0xBF) => TAIL2,
        AFTER_F4 if matches!(byte, 0x80..=0x8F) => TAIL2,
        _ => ERROR,
    }
}

const fn build() -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut row = 0u64;
        let mut s = 0;
        while s < STATES.len() {
            row |= (transition(STATES[s], byte as u8) as u64) << STATES[s];
            s += 1;
        }
        table[byte] = row;
        byte += 1;
    }
    table
}

/// `TRANSITIONS[byte] >> state & 63` is the next state.
static TRANSITIONS: [u64; 256] = build();

/// One step of the automaton.
#[inline(always)]
pub(crate) fn next(state: u32, byte: u8) -> u32 {
    // The largest state is 48 and each field is 6 bits wide, so the shift is
    // at most 48 and the masked field is one of STATES.
    ((TRANSITIONS[byte as usize] >> state) & 63) as u32
}

/// Every state but `ERROR`.
#[cfg(test)]
pub(crate) fn live_states() -> impl Iterator<Item = u32> {
    STATES.into_iter().filter(|&s| s != ERROR)
}

/// The payload bits of a lead byte (RFC 3629 §3's x bits): 0xxxxxxx,
/// 110xxxxx, 1110xxxx or 11110xxx. For a byte that cannot lead, the value is
/// meaningless and never used (the DFA goes to `ERROR`).
#[inline(always)]
pub(crate) fn lead_bits(byte: u8) -> u32 {
    u32::from(byte & (0x7F >> byte.leading_ones()))
}

/// The character `bytes` starts with, if it is whole and well-formed there:
/// its code point and its length. The automaton checks each byte as the
/// grammar does; the code point gathers the lead's payload bits and six
/// from each continuation. (For the SIMD kernels' runs of ASCII.)
#[cfg(any(test, all(target_arch = "x86_64", not(miri))))]
#[inline(always)]
pub(crate) fn char_at(bytes: &[u8]) -> Option<(u32, usize)> {
    let mut state = ACCEPT;
    let mut scalar = 0;
    for (k, &byte) in bytes.iter().take(4).enumerate() {
        state = next(state, byte);
        if state == ERROR {
            return None;
        }
        scalar = if k == 0 {
            lead_bits(byte)
        } else {
            scalar << 6 | u32::from(byte & 0x3F)
        };
        if state == ACCEPT {
            return Some((scalar, k + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_absorbing() {
        for byte in 0..=255u8 {
            assert_eq!(next(ERROR, byte), ERROR, "byte {byte:#04x}");
        }
    }

    #[test]
    fn every_state_fits_its_six_bit_field() {
        // The packing needs every state < 64 and a distinct offset.
        for (i, &s) in STATES.iter().enumerate() {
            assert_eq!(s, 6 * i as u32);
            assert!(s + 6 <= 64);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "6.5 M cases: minutes under Miri, and no unsafe code")]
    fn char_at_takes_the_first_character_as_std_does() {
        // Every first and second byte, with third and fourth bytes on each
        // side of the continuation ranges' edges (RFC 3629 §4), whole and
        // cut short: the answer is std's first character of the input's
        // well-formed prefix, if it has one.
        let edges = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF];
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for b2 in edges {
                    for b3 in edges {
                        let input = [b0, b1, b2, b3];
                        for len in 1..=4 {
                            let bytes = &input[..len];
                            let valid = match core::str::from_utf8(bytes) {
                                Ok(text) => text,
                                Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()])
                                    .expect("the valid prefix"),
                            };
                            let expected =
                                valid.chars().next().map(|c| (u32::from(c), c.len_utf8()));
                            assert_eq!(char_at(bytes), expected, "{bytes:02x?}");
                        }
                    }
                }
            }
        }
        assert_eq!(char_at(&[]), None);
    }

    #[test]
    fn lead_bits_are_the_x_bits_of_section_3() {
        assert_eq!(lead_bits(0x41), 0x41);
        assert_eq!(lead_bits(0xDF), 0x1F);
        assert_eq!(lead_bits(0xEF), 0x0F);
        assert_eq!(lead_bits(0xF4), 0x04);
    }
}
