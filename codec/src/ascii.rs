//! Skipping runs of ASCII a word at a time.
//!
//! Most real text is mostly ASCII, and an ASCII byte needs no automaton: a
//! 16-byte stretch is all ASCII exactly when no byte has its high bit set,
//! which two `u64` loads and one OR-and-mask answer at once.

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The index of the first non-ASCII byte at or after `from`, or `bytes.len()`.
#[inline]
pub(crate) fn skip(bytes: &[u8], mut from: usize) -> usize {
    while let Some(block) = bytes.get(from..from + 16) {
        let (lo, hi) = block.split_at(8);
        // Both halves are exactly 8 bytes long: `block` is 16.
        let lo = u64::from_le_bytes(lo.try_into().unwrap());
        let hi = u64::from_le_bytes(hi.try_into().unwrap());
        let high = (lo | hi) & HIGH_BITS;
        if high != 0 {
            // Little-endian load: byte k of the block is bits 8k..8k+8 of
            // its word, so the lowest set high bit names the first non-ASCII
            // byte.
            let in_lo = lo & HIGH_BITS;
            return if in_lo != 0 {
                from + (in_lo.trailing_zeros() / 8) as usize
            } else {
                from + 8 + ((hi & HIGH_BITS).trailing_zeros() / 8) as usize
            };
        }
        from += 16;
    }
    while from < bytes.len() && bytes[from] < 0x80 {
        from += 1;
    }
    from
}

#[cfg(test)]
mod tests {
    use super::skip;

    #[test]
    fn finds_the_first_non_ascii_byte_at_every_position_and_alignment() {
        for len in 0..40 {
            for bad in 0..=len {
                let mut v = vec![b'a'; len];
                if bad < len {
                    v[bad] = 0x80;
                }
                for from in 0..=bad.min(len) {
                    assert_eq!(skip(&v, from), bad, "len {len} bad {bad} from {from}");
                }
            }
        }
    }
}
