//! Where the characters and maximal subparts (Unicode §3.9) of a whole
//! block start, from masks of its bytes alone: what the one-pass lossy
//! decoders to UTF-16 use to put a U+FFFD in each subpart's lane instead
//! of stopping at each error. Mask arithmetic only, the same for every
//! block width: each ISA classifies its block's bytes ([`ByteClasses`]),
//! and [`ByteClasses::subparts`] does the rest.

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
    /// Where the characters and subparts of a whole block of `width`
    /// bytes start, when nothing is open before it (`open_before` false:
    /// it starts at a boundary) or when its first error is past its third
    /// byte (the continuation bytes that begin it, up to three, end the
    /// character open before it).
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
    pub(super) fn subparts(self, width: u32, open_before: bool) -> Subparts {
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
        // The continuations that begin the block (at most three), when a
        // character is open before it: they end it.
        let head = if open_before {
            cont & ((1u64 << (!cont).trailing_zeros().min(3)) - 1)
        } else {
            0
        };
        let read = c1 | c2 | c3 | head;
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
    use super::{ByteClasses, Subparts};

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
                            let got = ByteClasses::of(&block).subparts(16, false);
                            assert_eq!(got, expected(&block), "{block:02x?}");
                        }
                    }
                }
            }
        }
    }

    /// Continuations at the block's start end the character open before
    /// it (up to three; the caller's check saw to that): they start
    /// nothing, and what follows is judged from a boundary.
    #[test]
    fn subparts_skip_the_continuations_that_begin_a_block() {
        for head in 0..=3 {
            for tail in [
                &[0xE2, 0x82, 0xAC][..],
                &[0xFF, 0x80],
                &[0xC3, 0x41],
                &[0xF0, 0x9F, 0x98],
            ] {
                let mut block = vec![0x80; head];
                block.extend_from_slice(tail);
                block.resize(32, b'y');
                let got = ByteClasses::of(&block).subparts(32, true);
                let mut want = expected(&block[head..]);
                want.starts <<= head;
                want.bad <<= head;
                want.open <<= head;
                assert_eq!(got, want, "{block:02x?}");
            }
        }
    }

    /// Random blocks of every width the kernels use, dense with errors,
    /// cut anywhere at the end; from a boundary (std's view of them) with
    /// nothing open before, and after an `a` with something open (the
    /// head rule then has nothing to skip).
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
            for open_before in [false, true] {
                for _ in 0..20_000 {
                    let mut block = if open_before { vec![b'a'] } else { vec![] };
                    while block.len() < width as usize {
                        block.extend_from_slice(pieces[(next() % 9) as usize]);
                    }
                    block.truncate(width as usize);
                    let got = ByteClasses::of(&block).subparts(width, open_before);
                    assert_eq!(got, expected(&block), "{block:02x?}");
                }
            }
        }
    }
}
