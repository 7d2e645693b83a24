//! The reference's answer for one input, computed once per input into
//! reused buffers: the strict result and the lossy output in one walk over
//! [`reference::first_sequence`], the rule-by-rule matcher that
//! [`reference::decode`] and [`reference::decode_lossy`] loop over (the
//! tests pin the walk to both). Runs of ASCII skip the matcher, eight bytes
//! at a time.

use crate::outcome::{Utf8Error, REPLACEMENT};
use crate::reference::{self, Sequence};
use std::cell::RefCell;

/// A strict outcome as a decoder reported it: valid, or where the error is
/// and how long its maximal subpart is. Raw numbers rather than a
/// [`Utf8Error`], which refuses an `error_len` outside 1..=3: a broken
/// decoder that says 4 must be reported, not crash the comparison.
pub(super) type Strict = Result<(), (usize, Option<usize>)>;

pub(super) fn strict_of(result: Result<(), Utf8Error>) -> Strict {
    result.map_err(|e| (e.valid_up_to(), e.error_len().map(usize::from)))
}

/// The reference's answer for one input, held in scratch memory.
pub(super) struct Expected<'s> {
    pub(super) strict: Strict,
    /// The lossy decode after a [`Walk::Lossy`]; the scalars before the
    /// first error after a [`Walk::Strict`]. For a valid input, both are its
    /// scalars.
    pub(super) lossy: &'s [u32],
    /// The lossy decode as UTF-8 (the input itself when it is valid; empty
    /// for an invalid input after a [`Walk::Strict`]).
    pub(super) lossy_text: &'s [u8],
}

impl Expected<'_> {
    pub(super) fn valid(&self) -> bool {
        self.strict.is_ok()
    }
}

/// Buffers reused from one input to the next, so that the common case — an
/// input every decoder agrees on — allocates (almost) nothing.
#[derive(Default)]
pub(super) struct Scratch {
    reference_lossy: Vec<u32>,
    reference_text: Vec<u8>,
    pub(super) utf32: Vec<u32>,
    pub(super) text: String,
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How much of an input [`walk_reference`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Walk {
    /// Up to the first error: the strict result and the scalars before the
    /// error, which is all that levels V, P and S compare. Most fuzzer
    /// inputs are invalid early, so this is most of the saving of
    /// [`differential`](fn@super::differential) not checking lossy output (that is [`lossy`](super::lossy)'s job).
    Strict,
    /// All of it: the lossy output too (level R).
    Lossy,
}

/// The reference's strict result and lossy output in one walk over
/// [`reference::first_sequence`]: the strict error is the first ill-formed
/// or incomplete sequence, and the lossy output replaces each of them (Unicode
/// §3.9), exactly as [`reference::decode`] and [`reference::decode_lossy`]
/// do. `text` gets the lossy output as UTF-8 — but only for an invalid
/// input: a valid input is its own lossy output. A [`Walk::Strict`] stops at
/// the first error, with `lossy` holding the scalars before it.
pub(super) fn walk_reference(
    bytes: &[u8],
    walk: Walk,
    lossy: &mut Vec<u32>,
    text: &mut Vec<u8>,
) -> Strict {
    const FFFD: &[u8] = "\u{FFFD}".as_bytes();
    lossy.clear();
    text.clear();
    let mut strict = Ok(());
    let mut at = 0;
    while at < bytes.len() {
        // `UTF8-1 = %x00-7F`: the one rule that needs no matcher. Deciding
        // it here, a run at a time, saves a call per ASCII byte (most of
        // real text, and half of the fuzzers' inputs); the matcher's own
        // UTF8-1 arm is covered by the exhaustive tests.
        if bytes[at].is_ascii() {
            let ascii = ascii_run(&bytes[at..]);
            let run = &bytes[at..at + ascii];
            lossy.extend(run.iter().map(|&b| u32::from(b)));
            if strict.is_err() {
                text.extend_from_slice(run);
            }
            at += ascii;
            continue;
        }
        let (len, subpart) = match reference::first_sequence(&bytes[at..]) {
            Sequence::Char { scalar, len } => {
                lossy.push(u32::from(scalar));
                if strict.is_err() {
                    text.extend_from_slice(&bytes[at..at + len]);
                }
                at += len;
                continue;
            }
            Sequence::IllFormed { subpart } => (subpart, Some(subpart)),
            Sequence::Incomplete { len } => (len, None),
        };
        if strict.is_ok() {
            strict = Err((at, subpart));
            if walk == Walk::Strict {
                return strict;
            }
            text.extend_from_slice(&bytes[..at]);
        }
        lossy.push(u32::from(REPLACEMENT));
        text.extend_from_slice(FFFD);
        at += len;
    }
    strict
}

/// How many bytes at the start of `bytes` are ASCII. Eight at a time: a
/// byte is ASCII when its high bit is clear, so a word is all ASCII when
/// `word & 0x80…80 == 0`, and otherwise its first non-ASCII byte is the
/// lowest set high bit (the word is read little-endian). Under the fuzzers'
/// instrumentation every compare is a call, so one per word instead of one
/// per byte is most of the reference walk's cost on text; and first 32
/// bytes at a time (four words OR-ed, one compare), which on long text was
/// still the walk's busiest compare.
pub(super) fn ascii_run(bytes: &[u8]) -> usize {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let word = |chunk: &[u8]| u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
    let mut run = 0;
    for block in bytes.chunks_exact(32) {
        let any = block.chunks_exact(8).fold(0, |acc, w| acc | word(w));
        if any & HIGH_BITS != 0 {
            break;
        }
        run += 32;
    }
    // The rest, or the block with the first non-ASCII byte: a word at a time.
    let mut words = bytes[run..].chunks_exact(8);
    for word in words.by_ref().map(word) {
        let high = word & HIGH_BITS;
        if high != 0 {
            return run + high.trailing_zeros() as usize / 8;
        }
        run += 8;
    }
    run + words
        .remainder()
        .iter()
        .take_while(|b| b.is_ascii())
        .count()
}

/// Runs `f` with the reference's answer for `bytes`, in `scratch`'s
/// buffers.
pub(super) fn with_expected<R>(
    bytes: &[u8],
    walk: Walk,
    scratch: &mut Scratch,
    f: impl FnOnce(&Expected, &mut Scratch) -> R,
) -> R {
    let mut lossy = std::mem::take(&mut scratch.reference_lossy);
    let mut text = std::mem::take(&mut scratch.reference_text);
    let strict = walk_reference(bytes, walk, &mut lossy, &mut text);
    let expected = Expected {
        strict,
        lossy: &lossy,
        lossy_text: if strict.is_ok() { bytes } else { &text },
    };
    let result = f(&expected, scratch);
    scratch.reference_lossy = lossy;
    scratch.reference_text = text;
    result
}

/// What lossy decoding must give, built from the *strict* reference alone
/// (Unicode §3.9's definition, rather than the reference's own lossy loop):
/// decode strictly; keep the valid prefix; replace the maximal subpart (or
/// the incomplete tail) with one U+FFFD; go on after it. Returns the output
/// and how many maximal subparts were replaced.
///
/// The strict decode is [`walk_reference`]'s (a [`Walk::Strict`] is
/// `reference::decode` up to the first error, with runs of ASCII taken a
/// word at a time; the tests pin the two together): one pass over the
/// input, where calling `reference::decode` on each remainder and again on
/// each valid prefix reads most bytes twice.
pub(super) fn lossy_from_strict(bytes: &[u8]) -> (Vec<u32>, usize) {
    let mut out = Vec::with_capacity(bytes.len());
    let mut prefix = Vec::new();
    let mut subparts = 0;
    let mut rest = bytes;
    loop {
        let strict = walk_reference(rest, Walk::Strict, &mut prefix, &mut Vec::new());
        out.extend_from_slice(&prefix);
        let Err((at, subpart)) = strict else {
            return (out, subparts);
        };
        out.push(u32::from(REPLACEMENT));
        subparts += 1;
        match subpart {
            Some(len) => rest = &rest[at + len..],
            None => return (out, subparts),
        }
    }
}
