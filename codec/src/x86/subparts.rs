//! Where the characters and maximal subparts (Unicode §3.9) of a whole
//! block start, from masks of its bytes alone: what the one-pass lossy
//! decoders to UTF-16 use to put a U+FFFD in each subpart's lane instead
//! of stopping at each error. Mask arithmetic only, the same for every
//! block width: each ISA classifies its block's bytes ([`ByteClasses`]),
//! and [`ByteClasses::subparts`] does the rest. Around it, what those
//! decoders share for the errors a block's own bytes cannot settle:
//! [`Head`], [`units_of_leads`] and [`replace_subpart`].

use crate::{Utf8Error, REPLACEMENT};
use core::mem::MaybeUninit;

/// Bit `i` of each mask says what byte `i` of a block is (bits from the
/// block's width on are zero).
#[derive(Clone, Copy)]
pub(super) struct ByteClasses {
    /// A continuation byte, 0x80..=0xBF.
    pub(super) cont: u64,
    /// A lead of a well-formed multi-byte character, 0xC2..=0xF4.
    pub(super) lead: u64,
    /// A byte that never occurs in UTF-8 and continues nothing: C0, C1,
    /// F5..=FF.
    pub(super) never: u64,
    /// At least 0x90, 0xA0, 0xE0 and 0xF0.
    pub(super) ge_90: u64,
    pub(super) ge_a0: u64,
    pub(super) ge_e0: u64,
    pub(super) ge_f0: u64,
    /// Exactly 0xE0, 0xED, 0xF0 and 0xF4: the leads whose second byte has
    /// a narrower range (Unicode Table 3-7).
    pub(super) e0: u64,
    pub(super) ed: u64,
    pub(super) f0: u64,
    pub(super) f4: u64,
}

/// What the first bytes of a block are to the character open before it
/// (if any), once the block's first error is known: [`Head::of`]; by
/// default, nothing (no character open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Head {
    /// How many of the block's first bytes that character read (its
    /// continuations: at most three), which start nothing.
    pub(super) read: usize,
    /// That character broke before its end (at the error): it is a
    /// maximal subpart, from its lead (`lead`, whose code units went out
    /// with the block before) to the error, one U+FFFD in their place.
    pub(super) broke: Option<u8>,
}

impl Head {
    /// The head of the block at `bytes[at..]` whose first error is at
    /// `flag` (≥ `at`), the character open before it starting at most
    /// three bytes back (the check's `incomplete` said one is open; a
    /// byte that never occurs in UTF-8 counts as a lead here, as there,
    /// and breaks at once: the check flags the byte after it).
    #[inline]
    pub(super) fn of(bytes: &[u8], at: usize, flag: usize) -> Self {
        let Some((lead, need)) = super::avx2::open_char(bytes, at) else {
            return Self::default();
        };
        if flag - at >= need {
            Self {
                read: need,
                broke: None,
            }
        } else {
            Self {
                read: flag - at,
                broke: Some(bytes[lead]),
            }
        }
    }
}

/// [`Head::of`] of the block at `bytes[at..]` whose first error is at
/// `flag` if a character is open before it (`open`, the check's
/// `incomplete`), else nothing; if that character broke, its lead's units
/// (the last of `dst[..written]`) give way to one U+FFFD. Returns how
/// many of the block's first bytes it read, and the new count of units.
#[inline]
pub(super) fn settle_head(
    bytes: &[u8],
    at: usize,
    flag: usize,
    open: bool,
    dst: &mut [MaybeUninit<u16>],
    mut written: usize,
) -> (usize, usize) {
    let head = match open {
        false => Head::default(),
        true => Head::of(bytes, at, flag),
    };
    if let Some(lead) = head.broke {
        written -= units_of_leads(&[lead]);
        dst[written].write(REPLACEMENT as u16);
        written += 1;
    }
    (head.read, written)
}

/// The code units the leads among `bytes` went out as, to be taken back:
/// one a lead, two from 0xF0 on (a surrogate pair, or F5..FF, which the
/// decoders treat alike); continuation bytes, none.
#[inline]
pub(super) fn units_of_leads(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .map(|&b| 1 + usize::from(b >= 0xF0))
        .sum()
}

/// Lossy decoding's answer to the error `e`, once the failing
/// character's output is taken back ([`units_of_leads`]): one U+FFFD for
/// its maximal subpart at `dst[written]`, and one for each lone byte after
/// it (C0, C1, F5..FF and stray continuation bytes: subparts of their
/// own). Returns where decoding goes on (nothing open before it) and the
/// new count of units. An incomplete sequence runs to the end.
#[inline]
pub(super) fn replace_subpart(
    bytes: &[u8],
    e: Utf8Error,
    dst: &mut [MaybeUninit<u16>],
    written: usize,
) -> (usize, usize) {
    let at = e
        .error_len()
        .map_or(bytes.len(), |n| e.valid_up_to() + usize::from(n));
    let lone = crate::validate::lone_run(bytes, at);
    for unit in &mut dst[written..written + 1 + lone] {
        unit.write(REPLACEMENT as u16);
    }
    (at + lone, written + 1 + lone)
}

/// [`ByteClasses::subparts`]'s answer for a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Subparts {
    /// Every byte that begins a code unit's worth of output: an ASCII
    /// byte, a lead, or the first byte of a subpart.
    pub(super) starts: u64,
    /// The first bytes of the subparts (one U+FFFD each), a subset of
    /// `starts`.
    pub(super) bad: u64,
    /// The lead (at most one) of the character that the block's end cuts
    /// while it is still well-formed: decoded with the next block's bytes,
    /// and checked by the next block's check.
    pub(super) open: u64,
}

impl ByteClasses {
    /// The classes of a block from an ISA's compares: `at_least(x)`, its
    /// bytes ≥ `x` (unsigned); `is(x)`, its bytes equal to `x`; and its
    /// `lead` and `never` masks (as the stray-byte paths tell them apart).
    #[inline(always)]
    pub(super) fn from_compares(
        at_least: impl Fn(u8) -> u64,
        is: impl Fn(u8) -> u64,
        lead: u64,
        never: u64,
    ) -> Self {
        Self {
            cont: at_least(0x80) & !at_least(0xC0),
            lead,
            never,
            ge_90: at_least(0x90),
            ge_a0: at_least(0xA0),
            ge_e0: at_least(0xE0),
            ge_f0: at_least(0xF0),
            e0: is(0xE0),
            ed: is(0xED),
            f0: is(0xF0),
            f4: is(0xF4),
        }
    }

    /// Where the characters and subparts of a whole block of `width`
    /// bytes start, its first `head` bytes (at most three continuation
    /// bytes: [`Head`]) belonging to the character open before it.
    ///
    /// A lead at `i` of a character of `n` bytes reads its continuations
    /// in turn while they are allowed: the second byte within the range
    /// its lead allows (Unicode Table 3-7: A0..BF after E0, 80..9F after
    /// ED, 90..BF after F0, 80..8F after F4), the others within 80..BF.
    /// `c1`, `c2`, `c3` mark the first, second and third so read. A lead
    /// that reads all `n − 1` is a character; one that stops short is a
    /// subpart with what it read, unless the block's end cut it (`open`);
    /// C0, C1, F5..FF, and a continuation byte that no lead read, are a
    /// subpart each.
    #[inline(always)]
    pub(super) fn subparts(self, width: u32, head: usize) -> Subparts {
        let Self {
            cont,
            lead,
            never,
            ge_90,
            ge_a0,
            ge_e0,
            ge_f0,
            e0,
            ed,
            f0,
            f4,
        } = self;
        let all = u64::MAX >> (64 - width);
        let (l2, l3, l4) = (lead & !ge_e0, lead & ge_e0 & !ge_f0, lead & ge_f0);
        // A byte after E0 (and so on): the lead's bit moved on by one.
        let second = cont
            & !(e0 << 1 & !ge_a0)
            & !(ed << 1 & ge_a0)
            & !(f0 << 1 & !ge_90)
            & !(f4 << 1 & ge_90);
        let c1 = second & lead << 1;
        let c2 = cont & c1 << 1 & (l3 | l4) << 2;
        let c3 = cont & c2 << 1 & l4 << 3;
        let read = c1 | c2 | c3 | ((1u64 << head) - 1);
        let whole = l2 & c1 >> 1 | l3 & c2 >> 2 | l4 & c3 >> 3;
        let last = 1u64 << (width - 1);
        let open = lead & last | (l3 | l4) & c1 >> 1 & last >> 1 | l4 & c2 >> 2 & last >> 2;
        let bad = never | lead & !whole & !open | cont & !read;
        Subparts {
            starts: (!cont | bad) & all,
            bad,
            open,
        }
    }

    /// The classes of `block`'s bytes, one at a time: what the SIMD
    /// classifications must equal (the tests below hold [`subparts`] to
    /// Unicode's rules through it).
    ///
    /// [`subparts`]: ByteClasses::subparts
    #[cfg(test)]
    fn of(block: &[u8]) -> Self {
        let mask = |f: &dyn Fn(u8) -> bool| {
            block
                .iter()
                .enumerate()
                .filter(|&(_, &b)| f(b))
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        Self {
            cont: mask(&|b| (0x80..0xC0).contains(&b)),
            lead: mask(&|b| (0xC2..=0xF4).contains(&b)),
            never: mask(&|b| matches!(b, 0xC0 | 0xC1 | 0xF5..=0xFF)),
            ge_90: mask(&|b| b >= 0x90),
            ge_a0: mask(&|b| b >= 0xA0),
            ge_e0: mask(&|b| b >= 0xE0),
            ge_f0: mask(&|b| b >= 0xF0),
            e0: mask(&|b| b == 0xE0),
            ed: mask(&|b| b == 0xED),
            f0: mask(&|b| b == 0xF0),
            f4: mask(&|b| b == 0xF4),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ByteClasses, Head, Subparts};

    /// What a decoder reading from the block's start finds, by
    /// `core::str::from_utf8`'s errors (std, not this crate): each
    /// `error_len` is a maximal subpart (Unicode §3.9), and a character
    /// that the block's end cuts (`error_len` `None`) is `open`.
    fn expected(block: &[u8]) -> Subparts {
        let (mut starts, mut bad, mut open) = (0u64, 0u64, 0u64);
        let mut at = 0;
        while at < block.len() {
            match core::str::from_utf8(&block[at..]) {
                Ok(text) => {
                    for (i, _) in text.char_indices() {
                        starts |= 1 << (at + i);
                    }
                    break;
                }
                Err(e) => {
                    let good = &block[at..at + e.valid_up_to()];
                    for (i, _) in core::str::from_utf8(good).unwrap().char_indices() {
                        starts |= 1 << (at + i);
                    }
                    let s = at + e.valid_up_to();
                    match e.error_len() {
                        Some(n) => {
                            starts |= 1 << s;
                            bad |= 1 << s;
                            at = s + n;
                        }
                        None => {
                            starts |= 1 << s;
                            open |= 1 << s;
                            break;
                        }
                    }
                }
            }
        }
        Subparts { starts, bad, open }
    }

    /// Blocks of 16 bytes from a set of byte kinds that covers every
    /// class boundary and every lead with a narrowed second byte; each
    /// block starts at a boundary (the head case is below).
    #[test]
    fn subparts_equal_std_on_every_short_sequence_at_the_block_end() {
        let kinds: [u8; 20] = [
            0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF,
            0xF0, 0xF1, 0xF4, 0xF5, 0xFF, 0x00,
        ];
        // Every sequence of 4 kinds, placed at the block's end (where
        // `open` is decided) and in the middle.
        for a in kinds {
            for b in kinds {
                for c in kinds {
                    for d in kinds {
                        for place in [12, 6] {
                            let mut block = [b'x'; 16];
                            block[place..place + 4].copy_from_slice(&[a, b, c, d]);
                            let got = ByteClasses::of(&block).subparts(16, 0);
                            assert_eq!(got, expected(&block), "{block:02x?}");
                        }
                    }
                }
            }
        }
    }

    /// A character open before a block (its lead and the continuations it
    /// read before the block, of every kind of lead), then each pair of
    /// bytes at the block's start: `Head::of` against std's view of the
    /// bytes from the lead. The check flags where a decoder reading from
    /// the lead fails, `lead + error_len` (for a lead that never occurs,
    /// the byte after it; for a character that ends well, some byte after
    /// its end: the earliest is taken).
    #[test]
    fn head_equals_std_for_every_open_character_and_next_bytes() {
        let leads = [
            0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xF0, 0xF1, 0xF4, 0xC0, 0xF5, 0xFF,
        ];
        let kinds = [
            0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF,
        ];
        for lead in leads {
            let length = match lead {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
            // The continuations read before the block: the lead's first
            // allowed second byte, then 0x80s.
            let second = match lead {
                0xE0 => 0xA0,
                0xF0 => 0x90,
                _ => 0x80,
            };
            // A lead that never occurs is flagged on the byte after it:
            // open before a block, it is the block before's last byte.
            let most = if matches!(lead, 0xC0 | 0xF5..) {
                1
            } else {
                length - 1
            };
            for before in 0..most {
                let mut bytes = vec![b'x', lead];
                bytes.extend((0..before).map(|k| if k == 0 { second } else { 0x80 }));
                let at = bytes.len();
                for a in kinds {
                    for b in kinds {
                        let mut bytes = bytes.clone();
                        bytes.extend_from_slice(&[a, b, 0x80, 0x80, 0x80, 0x80, b'y']);
                        let e = core::str::from_utf8(&bytes[1..]).unwrap_err();
                        let want = if e.valid_up_to() > 0 {
                            let read = length - 1 - before;
                            let got = Head::of(&bytes, at, at + read);
                            assert_eq!(got, Head { read, broke: None }, "{bytes:02x?}");
                            continue;
                        } else {
                            let n = e.error_len().unwrap();
                            (
                                1 + n,
                                Head {
                                    read: 1 + n - at,
                                    broke: Some(lead),
                                },
                            )
                        };
                        assert_eq!(Head::of(&bytes, at, want.0), want.1, "{bytes:02x?}");
                    }
                }
            }
        }
    }

    /// Random blocks of every width the kernels use, dense with errors,
    /// cut anywhere at the end, after 0 to 3 bytes that the character
    /// before read.
    #[test]
    fn subparts_equal_std_on_random_blocks_of_every_width() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let pieces: [&[u8]; 9] = [
            b"a",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            &[0xFF],
            &[0x80],
            &[0xE2, 0x82],
            &[0xF0, 0x9F],
            &[0xED, 0xA0, 0x80],
        ];
        for width in [16u32, 32, 64] {
            for head in 0..=3 {
                for _ in 0..10_000 {
                    // `head` continuations the character before read, then
                    // bytes judged from a boundary, as std judges them.
                    let mut block = vec![0x80; head];
                    while block.len() < width as usize {
                        block.extend_from_slice(pieces[(next() % 9) as usize]);
                    }
                    block.truncate(width as usize);
                    let got = ByteClasses::of(&block).subparts(width, head);
                    let mut want = expected(&block[head..]);
                    want.starts <<= head;
                    want.bad <<= head;
                    want.open <<= head;
                    assert_eq!(got, want, "head {head}: {block:02x?}");
                }
            }
        }
    }
}
