//! The three nibble tables of Keiser & Lemire's "lookup" UTF-8 validation
//! ("Validating UTF-8 in less than one instruction per byte", Software:
//! Practice and Experience, 2021), derived here from RFC 3629 §4.
//!
//! The idea: almost every way UTF-8 can go wrong is visible in two adjacent
//! bytes. Name each such way a *class* (one bit), and make every class a
//! product of three independent conditions — on the high nibble of the
//! previous byte, the low nibble of the previous byte and the high nibble of
//! the current byte. Then three 16-entry table look-ups (one `pshufb` each)
//! and two ANDs give, for 16–64 byte pairs at once, the set of classes the
//! pair falls in. The one thing two bytes cannot tell — whether a
//! continuation byte is the 3rd or 4th of a sequence or one too many — is
//! settled by comparing `TWO_CONTS` (two continuations in a row) with "the
//! byte 2 back is a 3/4-byte lead or the byte 3 back is a 4-byte lead".
//!
//! Each table below lists, per nibble, the classes that nibble *allows*; a
//! class is flagged when all three allow it. The unit tests check every one
//! of the 65,536 byte pairs against the DFA (which is itself derived from the
//! RFC's grammar), and the exhaustive kernel tests check the whole method.

/// A lead byte (%xC0-FF) followed by a byte that is not %x80-BF.
const TOO_SHORT: u8 = 1 << 0;
/// An ASCII byte followed by a continuation byte.
const TOO_LONG: u8 = 1 << 1;
/// %xE0 followed by %x80-9F: an overlong 3-byte form.
const OVERLONG_3: u8 = 1 << 2;
/// %xF4 followed by %x90-BF, or %xF5-FF followed by %x90-BF: above U+10FFFF.
const TOO_LARGE: u8 = 1 << 3;
/// %xED followed by %xA0-BF: a surrogate.
const SURROGATE: u8 = 1 << 4;
/// %xC0-C1 followed by a continuation: an overlong 2-byte form.
const OVERLONG_2: u8 = 1 << 5;
/// %xF0 followed by %x80-8F (overlong 4-byte form) — or %xF5-FF followed by
/// %x80-8F (above U+10FFFF). The two share a bit because their union is
/// still a product: prev-high `F`, prev-low `0` or `5-F`, cur-high `8`.
const OVERLONG_4_OR_TOO_LARGE_1000: u8 = 1 << 6;
/// A continuation byte followed by a continuation byte: not an error by
/// itself, but must coincide exactly with "this is a 3rd or 4th byte".
pub(crate) const TWO_CONTS: u8 = 1 << 7;

/// Classes the previous byte's high nibble allows.
const fn prev_high(nibble: usize) -> u8 {
    match nibble {
        0x0..=0x7 => TOO_LONG,
        0x8..=0xB => TWO_CONTS,
        0xC => TOO_SHORT | OVERLONG_2,
        0xD => TOO_SHORT,
        0xE => TOO_SHORT | OVERLONG_3 | SURROGATE,
        _ => TOO_SHORT | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,
    }
}

/// Classes the previous byte's low nibble allows. The first three classes do
/// not depend on it, so every nibble allows them.
const fn prev_low(nibble: usize) -> u8 {
    let any = TOO_SHORT | TOO_LONG | TWO_CONTS;
    any | match nibble {
        0x0 => OVERLONG_2 | OVERLONG_3 | OVERLONG_4_OR_TOO_LARGE_1000, // C0, E0, F0
        0x1 => OVERLONG_2,                                             // C1
        0x4 => TOO_LARGE,                                              // F4
        0xD => SURROGATE | TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,   // ED, FD
        0x5..=0xF => TOO_LARGE | OVERLONG_4_OR_TOO_LARGE_1000,         // F5-FF
        _ => 0,
    }
}

/// Classes the current byte's high nibble allows.
const fn cur_high(nibble: usize) -> u8 {
    let continuation = TOO_LONG | TWO_CONTS | OVERLONG_2;
    match nibble {
        0x8 => continuation | OVERLONG_3 | OVERLONG_4_OR_TOO_LARGE_1000,
        0x9 => continuation | OVERLONG_3 | TOO_LARGE,
        0xA..=0xB => continuation | SURROGATE | TOO_LARGE,
        _ => TOO_SHORT, // 0-7 (ASCII) and C-F (a lead): not a continuation
    }
}

/// Tabulates one of the three functions above (`which` 0, 1, 2: a `const
/// fn` cannot call through a function pointer).
const fn table(which: u8) -> [u8; 16] {
    let mut t = [0; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = match which {
            0 => prev_high(i),
            1 => prev_low(i),
            _ => cur_high(i),
        };
        i += 1;
    }
    t
}

/// Look-up on the previous byte's high nibble.
pub(crate) const PREV_HIGH: [u8; 16] = table(0);
/// Look-up on the previous byte's low nibble.
pub(crate) const PREV_LOW: [u8; 16] = table(1);
/// Look-up on the current byte's high nibble.
pub(crate) const CUR_HIGH: [u8; 16] = table(2);

/// The classes of one byte pair, as the SIMD kernels compute them.
#[cfg(test)]
pub(crate) fn classes(prev: u8, cur: u8) -> u8 {
    PREV_HIGH[usize::from(prev >> 4)]
        & PREV_LOW[usize::from(prev & 15)]
        & CUR_HIGH[usize::from(cur >> 4)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfa;

    /// Whether `prev cur` can appear next to each other in some well-formed
    /// text: from some live DFA state, both bytes are accepted.
    fn pair_occurs(prev: u8, cur: u8) -> bool {
        // Every live state is reachable from ACCEPT and can reach ACCEPT,
        // so "from some live state" is "somewhere inside some text".
        dfa::live_states().any(|s| dfa::next(dfa::next(s, prev), cur) != dfa::ERROR)
    }

    #[test]
    #[cfg_attr(miri, ignore = "65,536 cases: minutes under Miri, and no unsafe code")]
    fn the_error_classes_flag_exactly_the_pairs_no_text_contains() {
        for prev in 0..=255u8 {
            for cur in 0..=255u8 {
                let c = classes(prev, cur);
                let flagged = c & !TWO_CONTS != 0;
                // A byte that can never occur (C0, C1, F5-FF) is flagged by
                // the pair it *leads*, like any lead: TOO_SHORT, OVERLONG_2
                // or TOO_LARGE, whatever follows (end of input included, as
                // the kernels pad with 0x00).
                let cur_never_occurs = matches!(cur, 0xC0 | 0xC1 | 0xF5..=0xFF);
                if !cur_never_occurs {
                    assert_eq!(
                        flagged,
                        !pair_occurs(prev, cur),
                        "{prev:02x} {cur:02x}: {c:08b}"
                    );
                } else {
                    assert!(!flagged || !pair_occurs(prev, cur));
                    for next in 0..=255u8 {
                        assert_ne!(classes(cur, next) & !TWO_CONTS, 0, "{cur:02x} {next:02x}");
                    }
                }
                let both_tails = prev & 0xC0 == 0x80 && cur & 0xC0 == 0x80;
                assert_eq!(c & TWO_CONTS != 0, both_tails, "{prev:02x} {cur:02x}");
            }
        }
    }
}
