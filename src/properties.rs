//! The properties the fuzz targets check, one public function each.
//!
//! Each function takes an input of any length and returns quietly when every
//! decoder it involves agrees with [`crate::reference`]; on a real divergence
//! it panics with a message naming the decoder (and the API of it that was
//! called), the field and its conformance level, and the input in hex. A
//! panic is how libFuzzer learns that an input is a finding, so the fuzz
//! targets in `fuzz/` are one-line wrappers and the same functions serve
//! tests and `utf8conform diff` on stable Rust.
//!
//! | function | levels | what it holds to the reference |
//! |---|---|---|
//! | [`differential`](fn@differential) | V P S | every built-in decoder, on every strict field it claims |
//! | [`structured`] | V P S R C | [`differential`](fn@differential) and [`lossy`] on a [`Structured`] input, plus chunking at its piece edges |
//! | [`roundtrip`] | V E | decode ∘ encode and encode ∘ decode are the identity; encode refuses exactly the non-scalars |
//! | [`chunking`] | C | the stream decoder, strict and lossy, over any split |
//! | [`lossy`] | R | every built-in decoder's lossy output, one U+FFFD per maximal subpart |
//! | [`encode`] | E | every encoder on scalars and non-scalars |
//!
//! ## Why `differential` does not go through `Answer`s
//!
//! [`differential::check`] asks each decoder for a full [`Answer`] (vectors
//! of code points) and renders every field to text before comparing, which
//! is right for a report and far too slow for a fuzzer that wants hundreds
//! of thousands of inputs a second. So [`differential`](fn@differential) and [`lossy`] run a *plan* built
//! once: for each built-in decoder whose capabilities it knows, a native
//! check that calls the library's own API the way its adapter in
//! [`crate::oracles`] does, compares with the reference without allocating
//! (scratch buffers are reused), and renders nothing unless a field
//! differs. A built-in it does not know — or whose capabilities changed —
//! falls back to the `Answer` path, so nothing goes unchecked. Only when a
//! divergence is found is the slow machinery run: the adapters' view, and a
//! minimised input.
//!
//! Each native check comes in two halves: the strict fields (V P S), which
//! [`differential`](fn@differential) runs, and the lossy output (R), which [`lossy`] runs —
//! lossy output is the most expensive answer of every library and needs the
//! whole input decoded, where the strict fields need it only up to the
//! first error.
//!
//! The reference is read through [`reference::first_sequence`], the
//! rule-by-rule matcher that [`reference::decode`] and
//! [`reference::decode_lossy`] loop over; one walk yields both the strict
//! result and the lossy output (unit tests and a proptest pin the walk to
//! both). Runs of ASCII skip the matcher, eight bytes at a time.

use crate::differential::{self, show_scalars, Field};
use crate::generate::Structured;
use crate::hex;
use crate::oracles::{self, Decoder};
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, EncodeError, Utf8Error, REPLACEMENT,
};
use crate::reference::{self, Sequence};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::LazyLock;
use utf8conform_codec as codec;

/// A strict outcome as a decoder reported it: valid, or where the error is
/// and how long its maximal subpart is. Raw numbers rather than a
/// [`Utf8Error`], which refuses an `error_len` outside 1..=3: a broken
/// decoder that says 4 must be reported, not crash the comparison.
type Strict = Result<(), (usize, Option<usize>)>;

fn strict_of(result: Result<(), Utf8Error>) -> Strict {
    result.map_err(|e| (e.valid_up_to(), e.error_len().map(usize::from)))
}

/// The reference's answer for one input, held in scratch memory.
struct Expected<'s> {
    strict: Strict,
    /// The lossy decode after a [`Walk::Lossy`]; the scalars before the
    /// first error after a [`Walk::Strict`]. For a valid input, both are its
    /// scalars.
    lossy: &'s [u32],
    /// The lossy decode as UTF-8 (the input itself when it is valid; empty
    /// for an invalid input after a [`Walk::Strict`]).
    lossy_text: &'s [u8],
}

impl Expected<'_> {
    fn valid(&self) -> bool {
        self.strict.is_ok()
    }
}

/// Buffers reused from one input to the next, so that the common case — an
/// input every decoder agrees on — allocates (almost) nothing.
#[derive(Default)]
struct Scratch {
    reference_lossy: Vec<u32>,
    reference_text: Vec<u8>,
    utf32: Vec<u32>,
    text: String,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How much of an input [`walk_reference`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// Up to the first error: the strict result and the scalars before the
    /// error, which is all that levels V, P and S compare. Most fuzzer
    /// inputs are invalid early, so this is most of the saving of
    /// [`differential`](fn@differential) not checking lossy output (that is [`lossy`]'s job).
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
fn walk_reference(bytes: &[u8], walk: Walk, lossy: &mut Vec<u32>, text: &mut Vec<u8>) -> Strict {
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
fn ascii_run(bytes: &[u8]) -> usize {
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
fn with_expected<R>(
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

/// One field of one decoder that differs from the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Finding {
    decoder: String,
    /// The library call that gave the value.
    api: &'static str,
    field: Field,
    expected: String,
    got: String,
}

fn show_strict(strict: &Strict) -> String {
    match strict {
        Ok(()) => "valid".into(),
        Err((up_to, len)) => format!(
            "invalid, valid_up_to {up_to}, error_len {}",
            match len {
                Some(n) => n.to_string(),
                None => "null (incomplete)".into(),
            }
        ),
    }
}

/// Compares a strict result on the fields `caps` claims (validity,
/// position, subpart), as [`differential::compare`] does.
fn strict_finding(
    decoder: &str,
    api: &'static str,
    caps: Capabilities,
    expected: &Expected,
    got: Strict,
) -> Option<Finding> {
    let field = match (expected.strict, got) {
        (Ok(()), Ok(())) => return None,
        (Ok(()), Err(_)) | (Err(_), Ok(())) => Field::Valid,
        (Err((e_at, e_len)), Err((g_at, g_len))) => {
            if caps.has(Capability::Position) && e_at != g_at {
                Field::ValidUpTo
            } else if caps.has(Capability::Subpart) && e_len != g_len {
                Field::ErrorLen
            } else {
                return None;
            }
        }
    };
    Some(Finding {
        decoder: decoder.into(),
        api,
        field,
        expected: show_strict(&expected.strict),
        got: show_strict(&got),
    })
}

/// Compares code points without collecting them, unless they differ.
fn scalars_finding<I>(
    decoder: &str,
    api: &'static str,
    field: Field,
    expected: &[u32],
    got: I,
) -> Option<Finding>
where
    I: Iterator<Item = u32> + Clone,
{
    if got.clone().eq(expected.iter().copied()) {
        return None;
    }
    let got: Vec<u32> = got.collect();
    let at = expected
        .iter()
        .zip(&got)
        .position(|(e, g)| e != g)
        .unwrap_or(expected.len().min(got.len()));
    Some(Finding {
        decoder: decoder.into(),
        api,
        field,
        expected: format!(
            "{} (first difference at code point {at}: {})",
            show_scalars(expected),
            show_scalars(&expected[at.min(expected.len())..])
        ),
        got: format!(
            "{} (from {at}: {})",
            show_scalars(&got),
            show_scalars(&got[at..])
        ),
    })
}

/// [`scalars_finding`] for code points already in memory: one `memcmp`
/// instead of a compare per code point, each of which is a call into
/// libFuzzer's comparison hooks in a fuzz build.
fn slice_finding(
    decoder: &str,
    api: &'static str,
    field: Field,
    expected: &[u32],
    got: &[u32],
) -> Option<Finding> {
    if got == expected {
        return None;
    }
    scalars_finding(decoder, api, field, expected, got.iter().copied())
}

fn chars_u32(s: &str) -> impl Iterator<Item = u32> + Clone + '_ {
    s.chars().map(u32::from)
}

/// Compares decoded text with the reference's lossy output (for a valid
/// input, the input itself) as UTF-8. Both sides are `str`s, valid UTF-8,
/// and UTF-8 is a bijection, so equal bytes are equal code points: the
/// comparison is a `memcmp` (or a pointer check, when a library hands the
/// input back borrowed) instead of a decode.
fn text_finding(
    decoder: &str,
    api: &'static str,
    field: Field,
    expected: &Expected,
    got: &str,
) -> Option<Finding> {
    let got_bytes = got.as_bytes();
    let want = expected.lossy_text;
    if (got_bytes.as_ptr() == want.as_ptr() && got_bytes.len() == want.len()) || got_bytes == want {
        return None;
    }
    scalars_finding(decoder, api, field, expected.lossy, chars_u32(got)).or_else(|| {
        Some(Finding {
            decoder: decoder.into(),
            api,
            field,
            expected: hex::encode(want),
            got: hex::encode(got_bytes),
        })
    })
}

/// A native check: the first field on which one built-in decoder differs.
type NativeCheck = fn(&[u8], &Expected, &mut Scratch) -> Option<Finding>;

/// The two halves of a decoder's native check: `strict` covers validity,
/// scalars, position and subpart (levels V, P, S; [`differential`](fn@differential) runs
/// it), `lossy` the lossy output (level R; [`lossy`] runs it). Lossy output
/// is a decoder's most expensive answer and needs the reference's whole
/// walk, where the strict levels need it only up to the first error; kept
/// apart, the `differential` target runs several times faster and every
/// field is still checked by some target (`fuzz/README.md` has the table).
#[derive(Clone, Copy)]
struct Native {
    strict: NativeCheck,
    /// `None` for a decoder that does not claim lossy output.
    lossy: Option<NativeCheck>,
}

/// The built-in decoders that have a native check, the capabilities each
/// check covers (it is used only while the decoder still claims exactly
/// those), and the check. Each mirrors the decoder's adapter in
/// `oracles/builtin.rs`.
const NATIVE: &[(&str, Capabilities, Native)] = &[
    (
        "codec",
        Capabilities::ALL,
        Native {
            strict: native_codec,
            lossy: Some(native_codec_lossy),
        },
    ),
    (
        "std",
        STRICT_LOSSY_ENCODE,
        Native {
            strict: native_std,
            lossy: Some(native_std_lossy),
        },
    ),
    (
        "simdutf8-basic",
        VALIDATE,
        Native {
            strict: native_simdutf8_basic,
            lossy: None,
        },
    ),
    (
        "simdutf8-compat",
        VALIDATE_POSITION_SUBPART,
        Native {
            strict: native_simdutf8_compat,
            lossy: None,
        },
    ),
    #[cfg(feature = "simdutf")]
    (
        "simdutf",
        SIMDUTF,
        Native {
            strict: native_simdutf,
            lossy: None,
        },
    ),
    (
        "encoding_rs",
        STRICT_LOSSY,
        Native {
            strict: native_encoding_rs,
            lossy: Some(native_encoding_rs_lossy),
        },
    ),
    (
        "bstr",
        STRICT_LOSSY,
        Native {
            strict: native_bstr,
            lossy: Some(native_bstr_lossy),
        },
    ),
];

const VALIDATE: Capabilities = Capabilities::NONE.with(Capability::Validate);
const VALIDATE_POSITION_SUBPART: Capabilities = VALIDATE
    .with(Capability::Position)
    .with(Capability::Subpart);
const STRICT_LOSSY: Capabilities = Capabilities::STRICT.with(Capability::Lossy);
const STRICT_LOSSY_ENCODE: Capabilities = STRICT_LOSSY.with(Capability::Encode);
#[cfg(feature = "simdutf")]
const SIMDUTF: Capabilities = VALIDATE
    .with(Capability::Position)
    .with(Capability::Decode)
    .with(Capability::Encode);

fn native_codec(bytes: &[u8], expected: &Expected, scratch: &mut Scratch) -> Option<Finding> {
    let caps = Capabilities::ALL;
    // The kernel (validate) and the engine (decode) are separate code paths:
    // both must agree with the reference, as the adapter checks.
    let kernel = strict_of(codec::validate(bytes));
    if let Some(f) = strict_finding("codec", "codec::validate", caps, expected, kernel) {
        return Some(f);
    }
    // `codec::decode_utf32` is this call into a new vector; into the reused
    // one, no input allocates (under ASan an allocation costs more than
    // decoding a short input).
    let scalars = &mut scratch.utf32;
    scalars.clear();
    let engine = strict_of(codec::decode_utf32_into(bytes, scalars));
    if let Some(f) = strict_finding("codec", "codec::decode_utf32", caps, expected, engine) {
        return Some(f);
    }
    if engine.is_err() {
        return None;
    }
    slice_finding(
        "codec",
        "codec::decode_utf32",
        Field::Scalars,
        expected.lossy,
        scalars,
    )
}

fn native_codec_lossy(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    // Two outputs, two code paths (UTF-32 and `String`).
    let lossy = codec::decode_lossy_utf32(bytes);
    let f = slice_finding(
        "codec",
        "codec::decode_lossy_utf32",
        Field::Lossy,
        expected.lossy,
        &lossy,
    );
    f.or_else(|| {
        let text = codec::decode_lossy(bytes);
        text_finding(
            "codec",
            "codec::decode_lossy",
            Field::Lossy,
            expected,
            &text,
        )
    })
}

fn native_std(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    let strict = core::str::from_utf8(bytes);
    let got = strict_of(strict.map(|_| ()).map_err(Utf8Error::from));
    if let Some(f) = strict_finding("std", "core::str::from_utf8", STRICT_LOSSY, expected, got) {
        return Some(f);
    }
    if let Ok(s) = strict {
        let api = "core::str::from_utf8";
        if let Some(f) = text_finding("std", api, Field::Scalars, expected, s) {
            return Some(f);
        }
        // The one decode to code points on the valid path: the scalars of
        // std, bstr and encoding_rs are `str::chars` of text that each check
        // holds byte-equal to the input, so this covers all three. (Compared
        // as they come: collecting them to compare one slice was slower in a
        // fuzz build, a traced capacity check per code point.)
        return scalars_finding(
            "std",
            "str::chars",
            Field::Scalars,
            expected.lossy,
            chars_u32(s),
        );
    }
    None
}

fn native_std_lossy(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    let lossy = String::from_utf8_lossy(bytes);
    text_finding(
        "std",
        "String::from_utf8_lossy",
        Field::Lossy,
        expected,
        &lossy,
    )
}

fn native_simdutf8_basic(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    let got = simdutf8::basic::from_utf8(bytes).is_ok();
    (got != expected.valid()).then(|| Finding {
        decoder: "simdutf8-basic".into(),
        api: "simdutf8::basic::from_utf8",
        field: Field::Valid,
        expected: expected.valid().to_string(),
        got: got.to_string(),
    })
}

fn native_simdutf8_compat(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    let got = match simdutf8::compat::from_utf8(bytes) {
        Ok(_) => Ok(()),
        Err(e) => Err((e.valid_up_to(), e.error_len())),
    };
    strict_finding(
        "simdutf8-compat",
        "simdutf8::compat::from_utf8",
        VALIDATE_POSITION_SUBPART,
        expected,
        got,
    )
}

#[cfg(feature = "simdutf")]
fn native_simdutf(bytes: &[u8], expected: &Expected, scratch: &mut Scratch) -> Option<Finding> {
    let result = simdutf::validate_utf8_with_errors(bytes);
    // simdutf's error codes do not give the subpart's length; `count` is the
    // position. The subpart is not claimed, so any value stands in for it.
    let got = if result.error == simdutf::ErrorCode::Success {
        Ok(())
    } else {
        Err((result.count, expected.strict.err().and_then(|e| e.1)))
    };
    let f = strict_finding(
        "simdutf",
        "simdutf::validate_utf8_with_errors",
        SIMDUTF,
        expected,
        got,
    );
    if f.is_some() || got.is_err() {
        return f;
    }
    let out = &mut scratch.utf32;
    out.clear();
    out.resize(bytes.len(), 0);
    // SAFETY: `bytes` is a live slice of `bytes.len()` bytes and `out` holds
    // `bytes.len()` u32s; UTF-8 never yields more code points than bytes, so
    // the writes stay in `out`; the two buffers are distinct allocations.
    let n =
        unsafe { simdutf::convert_utf8_to_utf32(bytes.as_ptr(), bytes.len(), out.as_mut_ptr()) };
    out.truncate(n);
    slice_finding(
        "simdutf",
        "simdutf::convert_utf8_to_utf32",
        Field::Scalars,
        expected.lossy,
        out,
    )
}

fn native_encoding_rs(bytes: &[u8], expected: &Expected, scratch: &mut Scratch) -> Option<Finding> {
    use encoding_rs::DecoderResult;
    const NAME: &str = "encoding_rs";
    const STREAM: &str = "Decoder::decode_to_string_without_replacement";
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    let out = &mut scratch.text;
    out.clear();
    // The decoder writes into spare capacity only; this much always suffices.
    let need = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len() + 4);
    out.reserve(need);
    let (result, read) = decoder.decode_to_string_without_replacement(bytes, out, false);
    let strict = match result {
        DecoderResult::Malformed(bad, after) => {
            let at = read - usize::from(bad) - usize::from(after);
            Err((at, Some(usize::from(bad))))
        }
        DecoderResult::OutputFull => {
            return Some(Finding {
                decoder: NAME.into(),
                api: STREAM,
                field: Field::Failure,
                expected: format!("room for {need} bytes to be enough"),
                got: "OutputFull".into(),
            })
        }
        // At the end of the stream, bytes it still holds are malformed: the
        // input ended inside a sequence.
        DecoderResult::InputEmpty => match decoder
            .decode_to_string_without_replacement(b"", out, true)
        {
            (DecoderResult::Malformed(held, _), _) => Err((bytes.len() - usize::from(held), None)),
            _ => Ok(()),
        },
    };
    if let Some(f) = strict_finding(NAME, STREAM, STRICT_LOSSY, expected, strict) {
        return Some(f);
    }
    if strict.is_ok() {
        if let Some(f) = text_finding(NAME, STREAM, Field::Scalars, expected, out) {
            return Some(f);
        }
    }
    // The validator is a separate code path; its position must agree too.
    let up_to = encoding_rs::Encoding::utf8_valid_up_to(bytes);
    let expected_up_to = expected.strict.err().map_or(bytes.len(), |e| e.0);
    (up_to != expected_up_to).then(|| Finding {
        decoder: NAME.into(),
        api: "Encoding::utf8_valid_up_to",
        field: Field::ValidUpTo,
        expected: expected_up_to.to_string(),
        got: up_to.to_string(),
    })
}

fn native_encoding_rs_lossy(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    let lossy = encoding_rs::UTF_8.decode_without_bom_handling(bytes).0;
    text_finding(
        "encoding_rs",
        "Encoding::decode_without_bom_handling",
        Field::Lossy,
        expected,
        &lossy,
    )
}

fn native_bstr(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    use bstr::ByteSlice;
    let strict = bytes.to_str();
    let got = match &strict {
        Ok(_) => Ok(()),
        Err(e) => Err((e.valid_up_to(), e.error_len())),
    };
    if let Some(f) = strict_finding("bstr", "ByteSlice::to_str", STRICT_LOSSY, expected, got) {
        return Some(f);
    }
    let s = strict.ok()?;
    text_finding("bstr", "ByteSlice::to_str", Field::Scalars, expected, s)
}

fn native_bstr_lossy(bytes: &[u8], expected: &Expected, _: &mut Scratch) -> Option<Finding> {
    use bstr::ByteSlice;
    let lossy = bytes.to_str_lossy();
    text_finding(
        "bstr",
        "ByteSlice::to_str_lossy",
        Field::Lossy,
        expected,
        &lossy,
    )
}

/// Whether `got` agrees with `expected` on every field `caps` claims: the
/// same rules as [`differential::compare`], without rendering anything.
fn answers_agree(expected: &Answer, got: &Answer, caps: Capabilities) -> bool {
    let truly_valid = expected.valid == Some(true);
    let says_invalid = got.valid != Some(true);
    (!caps.has(Capability::Validate) || expected.valid == got.valid)
        && (!caps.has(Capability::Decode)
            || !truly_valid
            || got.valid == Some(false)
            || expected.scalars == got.scalars)
        && (!caps.has(Capability::Position)
            || truly_valid
            || !says_invalid
            || expected.valid_up_to == got.valid_up_to)
        && (!caps.has(Capability::Subpart)
            || truly_valid
            || !says_invalid
            || expected.error_len == got.error_len)
        && (!caps.has(Capability::Lossy) || expected.lossy == got.lossy)
}

/// Checks one decoder through its [`Answer`] (the general path, for any
/// decoder): the first mismatch [`differential::compare`] finds on `caps`.
fn answer_finding(
    decoder: &dyn Decoder,
    caps: Capabilities,
    expected: &Answer,
    bytes: &[u8],
) -> Option<Finding> {
    let mismatch = match decoder.decode(bytes) {
        Ok(got) if answers_agree(expected, &got, caps) => return None,
        Ok(got) => differential::compare(expected, &got, caps)
            .into_iter()
            .next()?,
        Err(failure) => differential::Mismatch {
            field: Field::Failure,
            expected: "an answer".into(),
            got: failure.to_string(),
        },
    };
    Some(Finding {
        decoder: decoder.name().into(),
        api: "Decoder::decode",
        field: mismatch.field,
        expected: mismatch.expected,
        got: mismatch.got,
    })
}

/// One decoder of the plan [`differential`](fn@differential) and [`lossy`] run.
struct Planned {
    decoder: Box<dyn Decoder>,
    native: Option<Native>,
    /// What it claims, split as [`levels_of`] does: computed once, not per
    /// input (every instruction of the hot path runs millions of times).
    strict: Capabilities,
    lossy: Capabilities,
}

/// Every built-in decoder but the reference, each with its native check
/// when one exists for exactly the capabilities it claims.
static PLAN: LazyLock<Vec<Planned>> = LazyLock::new(|| {
    oracles::all_builtin()
        .into_iter()
        .filter(|d| d.name() != "reference")
        .map(|decoder| {
            let native = NATIVE
                .iter()
                .find(|(name, caps, _)| *name == decoder.name() && *caps == decoder.capabilities())
                .map(|&(_, _, native)| native);
            let caps = decoder.capabilities();
            Planned {
                native,
                strict: levels_of(caps, Walk::Strict),
                lossy: levels_of(caps, Walk::Lossy),
                decoder,
            }
        })
        .collect()
});

/// The decoders [`differential`](fn@differential) checks: each name, and whether it is
/// checked natively (`true`) or through its `Answer` (`false`).
pub fn differential_plan() -> Vec<(String, bool)> {
    PLAN.iter()
        .map(|p| (p.decoder.name().to_string(), p.native.is_some()))
        .collect()
}

/// The part of `caps` a walk's pass checks: everything but lossy output
/// after a [`Walk::Strict`], only lossy output after a [`Walk::Lossy`].
fn levels_of(caps: Capabilities, walk: Walk) -> Capabilities {
    caps.iter()
        .filter(|&c| (c == Capability::Lossy) == (walk == Walk::Lossy))
        .fold(Capabilities::NONE, Capabilities::with)
}

/// The first finding of one planned decoder on the levels of `walk`: its
/// native check, or its `Answer` (computed once per input, in `answer`)
/// restricted to those levels.
fn planned_finding(
    planned: &Planned,
    walk: Walk,
    bytes: &[u8],
    expected: &Expected,
    scratch: &mut Scratch,
    answer: &mut Option<Answer>,
) -> Option<Finding> {
    let caps = match walk {
        Walk::Strict => planned.strict,
        Walk::Lossy => planned.lossy,
    };
    if caps == Capabilities::NONE {
        return None;
    }
    let native = planned.native.and_then(|n| match walk {
        Walk::Strict => Some(n.strict),
        Walk::Lossy => n.lossy,
    });
    match native {
        Some(check) => check(bytes, expected, scratch),
        None => {
            let answer = answer.get_or_insert_with(|| differential::expected(bytes));
            answer_finding(planned.decoder.as_ref(), caps, answer, bytes)
        }
    }
}

/// The first finding of the whole plan on the levels of `walk`.
fn plan_pass(
    bytes: &[u8],
    walk: Walk,
    expected: &Expected,
    scratch: &mut Scratch,
) -> Option<Finding> {
    let mut answer = None;
    PLAN.iter()
        .find_map(|p| planned_finding(p, walk, bytes, expected, scratch, &mut answer))
}

/// Whether every decoder of [`PLAN`] is checked natively, each by its own
/// entry of [`NATIVE`] (names are unique, so equal counts make it one to
/// one): then [`native_strict_pass`] checks the same decoders on the same
/// levels as [`plan_pass`].
static ALL_NATIVE: LazyLock<bool> =
    LazyLock::new(|| PLAN.len() == NATIVE.len() && PLAN.iter().all(|p| p.native.is_some()));

/// [`plan_pass`] over the strict levels for a plan of native checks only
/// (the usual case: `every_builtin_is_checked_natively` fails otherwise).
/// [`NATIVE`] is a constant, so with this loop unrolled every check is a
/// direct call: no indirect call (which a fuzz build traces, and which
/// `planned_finding` made per decoder), no per-decoder plan lookup.
fn native_strict_pass(bytes: &[u8], expected: &Expected, scratch: &mut Scratch) -> Option<Finding> {
    NATIVE.iter().find_map(|(_name, _, native)| {
        #[cfg(test)]
        tests::STRICT_CHECKED.with_borrow_mut(|checked| checked.push(_name));
        (native.strict)(bytes, expected, scratch)
    })
}

/// Property: every built-in decoder agrees with the reference on the
/// strict fields it claims — validity and scalars (V), `valid_up_to` (P),
/// `error_len` (S). Lossy output (R) is [`lossy`]'s, chunking (C)
/// [`chunking`]'s and encoding (E) [`encode`]'s; [`structured`] runs them
/// all.
///
/// ```
/// utf8conform::properties::differential(b"\xF0\x9F\x92\x96 ok \xC0\xAF \xED\xA0\x80 \xF4\x90");
/// ```
///
/// # Panics
/// On a divergence: which decoder and API, which field, the expected and the
/// actual value, the input in hex, a minimised input and every adapter's
/// view of it.
pub fn differential(bytes: &[u8]) {
    let finding = SCRATCH.with_borrow_mut(|scratch| {
        with_expected(bytes, Walk::Strict, scratch, |expected, scratch| {
            if *ALL_NATIVE {
                native_strict_pass(bytes, expected, scratch)
            } else {
                plan_pass(bytes, Walk::Strict, expected, scratch)
            }
        })
    });
    if let Some(finding) = finding {
        fail_plan("differential", bytes, finding, Walk::Strict);
    }
}

/// The first finding of the plan's decoder `only` on `bytes`, on the levels
/// of `walk` (the slow path's re-run, for minimising).
fn plan_finding(bytes: &[u8], only: &str, walk: Walk) -> Option<Finding> {
    let planned = PLAN.iter().find(|p| p.decoder.name() == only)?;
    with_expected(bytes, walk, &mut Scratch::default(), |expected, scratch| {
        planned_finding(planned, walk, bytes, expected, scratch, &mut None)
    })
}

fn fail_plan(property: &str, bytes: &[u8], finding: Finding, walk: Walk) -> ! {
    let field = finding.field;
    let name = finding.decoder.clone();
    let minimized = (bytes.len() <= 4096).then(|| {
        differential::minimize(bytes, |candidate| {
            plan_finding(candidate, &name, walk).is_some_and(|f| f.field == field)
        })
    });
    let views = differential::check(&oracles::all_builtin(), bytes);
    let mut context = String::new();
    if let Some(min) = minimized {
        let _ = writeln!(
            context,
            "  minimized ({} bytes): {}",
            min.len(),
            differential::marked_hex(&min)
        );
    }
    if views.is_empty() {
        context.push_str("  (the adapters in oracles/ agree with the reference here: this native check is stricter than its adapter, or differs from it)\n");
    } else {
        context.push_str("  every adapter's view of this input:\n");
        for v in &views {
            for line in v.to_string().lines() {
                let _ = writeln!(context, "    {line}");
            }
        }
    }
    fail(property, bytes, &finding, &context)
}

/// Property [`differential`](fn@differential) for any list of decoders (external ones
/// included), each through its [`Answer`]: slower, and what the tests use to
/// show the property can fail.
///
/// # Panics
/// On a divergence, as [`differential`](fn@differential).
pub fn differential_with(decoders: &[Box<dyn Decoder>], bytes: &[u8]) {
    let expected = differential::expected(bytes);
    for decoder in decoders {
        let caps = decoder.capabilities();
        if let Some(finding) = answer_finding(decoder.as_ref(), caps, &expected, bytes) {
            let min = (bytes.len() <= 4096).then(|| {
                differential::minimize(bytes, |c| {
                    answer_finding(decoder.as_ref(), caps, &differential::expected(c), c)
                        .is_some_and(|f| f.field == finding.field)
                })
            });
            let context = min.map_or_else(String::new, |m| {
                format!(
                    "  minimized ({} bytes): {}\n",
                    m.len(),
                    differential::marked_hex(&m)
                )
            });
            fail("differential", bytes, &finding, &context);
        }
    }
}

/// The input as a person acts on it: with the reference's first ill-formed
/// sequence marked, and in full as plain hex (for `utf8conform decode
/// --hex`) when it is short enough to read.
fn show_input(bytes: &[u8]) -> String {
    let mut s = format!(
        "input ({} bytes): {}",
        bytes.len(),
        differential::marked_hex(bytes)
    );
    if bytes.len() <= 1024 {
        let _ = write!(s, "\n  hex: {}", hex::encode(bytes));
    }
    s
}

fn fail(property: &str, bytes: &[u8], f: &Finding, context: &str) -> ! {
    panic!(
        "property `{property}`: {decoder} ({api}) disagrees with the reference on {field} (level {level})\n  {input}\n  reference: {expected}\n  {decoder}: {got}\n{context}",
        decoder = f.decoder,
        api = f.api,
        field = f.field.as_str(),
        level = f.field.level(),
        input = show_input(bytes),
        expected = f.expected,
        got = f.got,
    )
}

/// Property: [`differential`](fn@differential) and [`lossy`] on a structured input, and the codec's stream
/// decoder split at every piece edge and one byte into every piece — where
/// the malformations begin and where sequences are cut.
///
/// # Panics
/// On a divergence, as [`differential`](fn@differential) and [`chunking`].
pub fn structured(input: &Structured) {
    let mut bytes = vec![b'.'; usize::from(input.padding % 64)];
    let mut splits = Vec::with_capacity(2 * input.pieces.len());
    for piece in &input.pieces {
        splits.push(bytes.len());
        splits.push(bytes.len() + 1);
        piece.write(&mut bytes);
    }
    debug_assert_eq!(bytes, input.to_bytes());
    differential(&bytes);
    lossy(&bytes);
    chunking(&bytes, &splits);
}

/// Test values for encoders, four input bytes each: the raw little-endian
/// number (anything up to `u32::MAX`), and the same bits aimed at a region
/// that matters — anywhere below 0x200000 (so just past U+10FFFF too),
/// around the surrogates, around U+10FFFF, or next to an edge of RFC 3629
/// §3's table.
pub fn scalars_from(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    const EDGES: [u32; 12] = [
        0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF,
    ];
    bytes.chunks(4).flat_map(|chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let raw = u32::from_le_bytes(word);
        let rest = raw >> 2;
        let aimed = match raw & 3 {
            0 => raw >> 11,
            1 => 0xD700 + rest % 0x1200,
            2 => 0x10_FF00 + rest % 0x200,
            _ => EDGES[(rest % 12) as usize]
                .wrapping_add((rest >> 4) % 5)
                .wrapping_sub(2),
        };
        [raw, aimed]
    })
}

/// What RFC 3629 §3 says encoding `value` gives: its length, or why not.
fn expected_encoding(value: u32) -> Result<usize, EncodeError> {
    match value {
        0xD800..=0xDFFF => Err(EncodeError::Surrogate),
        0..=0x7F => Ok(1),
        0x80..=0x7FF => Ok(2),
        0x800..=0xFFFF => Ok(3),
        0x1_0000..=0x10_FFFF => Ok(4),
        _ => Err(EncodeError::OutOfRange),
    }
}

fn fail_plain(property: &str, who: &str, field: Field, bytes: &[u8], detail: &str) -> ! {
    panic!(
        "property `{property}`: {who} is wrong on {} (level {})\n  {}\n  {detail}",
        field.as_str(),
        field.level(),
        show_input(bytes)
    )
}

/// Encoding `value` with the codec and the reference: each refuses exactly
/// the surrogates and the values above U+10FFFF, with that reason, and
/// otherwise gives the shortest form, which decodes back to `value`.
fn check_encode_one(property: &str, bytes: &[u8], value: u32) {
    let expected = expected_encoding(value);
    let reference = reference::encode(value);
    let codec = codec::encode_scalar(value);
    let show = |r: &Result<&[u8], EncodeError>| match r {
        Ok(b) => hex::encode(b),
        Err(e) => format!("refused ({})", e.as_str()),
    };
    let got_ref = reference.as_deref().map_err(|e| *e);
    let got_codec = codec.as_ref().map(|e| e.as_bytes()).map_err(|e| *e);
    for (who, got) in [
        ("reference::encode", got_ref),
        ("codec::encode_scalar", got_codec),
    ] {
        let ok = match (&expected, &got) {
            (Ok(len), Ok(out)) => {
                out.len() == *len
                    && reference::first_sequence(out)
                        == Sequence::Char {
                            scalar: char::from_u32(value).unwrap_or('\0'),
                            len: *len,
                        }
            }
            (Err(e), Err(g)) => e == g,
            _ => false,
        };
        if !ok {
            let want = match expected {
                Ok(len) => format!("{len} bytes that decode back to U+{value:04X}"),
                Err(e) => format!("refused ({})", e.as_str()),
            };
            fail_plain(
                property,
                who,
                Field::Encode,
                bytes,
                &format!("U+{value:04X}: expected {want}, got {}", show(&got)),
            );
        }
    }
    if got_ref != got_codec {
        fail_plain(
            property,
            "codec::encode_scalar",
            Field::Encode,
            bytes,
            &format!(
                "U+{value:04X}: reference {}, codec {}",
                show(&got_ref),
                show(&got_codec)
            ),
        );
    }
}

/// Property: round trips. For the valid part of the input (all of it, or
/// the prefix before the reference's first error — which must itself be
/// valid), decoding then encoding gives the same bytes through the codec
/// and through the reference, and the two decode to the same scalars. For
/// the values [`scalars_from`] derives from the input, encoding refuses
/// exactly the surrogates and the values above U+10FFFF, and the scalar
/// values among them survive encode then decode.
///
/// ```
/// utf8conform::properties::roundtrip("a€\u{10FFFF}\u{D7FF}".as_bytes());
/// utf8conform::properties::roundtrip(b"ok \xED\xA0\x80 rest");
/// ```
///
/// # Panics
/// When a round trip changes the data or an encoder is wrong.
pub fn roundtrip(bytes: &[u8]) {
    const P: &str = "roundtrip";
    let valid = match reference::validate(bytes) {
        Ok(()) => bytes,
        Err(e) => &bytes[..e.valid_up_to()],
    };
    let chars = match reference::decode(valid) {
        Ok(chars) => chars,
        Err(e) => fail_plain(
            P,
            "reference::decode",
            Field::ValidUpTo,
            bytes,
            &format!(
                "the {} bytes before its first error are not valid to it: {e}",
                valid.len()
            ),
        ),
    };
    let scalars: Vec<u32> = chars.iter().map(|&c| u32::from(c)).collect();
    match codec::decode_utf32(valid) {
        Ok(got) if got == scalars => {}
        got => fail_plain(
            P,
            "codec::decode_utf32",
            Field::Scalars,
            bytes,
            &format!(
                "decoding the {} valid bytes: reference {}, codec {:?}",
                valid.len(),
                show_scalars(&scalars),
                got.map(|s| show_scalars(&s))
            ),
        ),
    }
    match codec::encode_utf32(&scalars) {
        Ok(out) if out == valid => {}
        out => fail_plain(
            P,
            "codec::encode_utf32",
            Field::Encode,
            bytes,
            &format!(
                "re-encoding {}: expected {}, got {:?}",
                show_scalars(&scalars),
                hex::encode(valid),
                out.map(|b| hex::encode(&b))
            ),
        ),
    }
    let mut out = Vec::with_capacity(valid.len());
    for &c in &chars {
        match reference::encode(u32::from(c)) {
            Ok(b) => out.extend_from_slice(&b),
            Err(e) => fail_plain(
                P,
                "reference::encode",
                Field::Encode,
                bytes,
                &format!("U+{:04X} (a decoded scalar) refused: {e}", u32::from(c)),
            ),
        }
    }
    if out != valid {
        fail_plain(
            P,
            "reference::encode",
            Field::Encode,
            bytes,
            &format!("re-encoding gives {}", hex::encode(&out)),
        );
    }
    let derived: Vec<u32> = scalars_from(bytes).collect();
    for &value in &derived {
        check_encode_one(P, bytes, value);
    }
    let good: Vec<u32> = derived
        .into_iter()
        .filter(|&v| expected_encoding(v).is_ok())
        .collect();
    let back = codec::encode_utf32(&good)
        .ok()
        .map(|encoded| (codec::decode_utf32(&encoded), reference::decode(&encoded)));
    let ok = matches!(&back, Some((Ok(c), Ok(r))) if *c == good && r.iter().map(|&ch| u32::from(ch)).eq(good.iter().copied()));
    if !ok {
        fail_plain(
            P,
            "codec::encode_utf32 then decode",
            Field::Encode,
            bytes,
            &format!("encode then decode of {} changed it", show_scalars(&good)),
        );
    }
}

/// Property: every encoder agrees with the reference on the values
/// [`scalars_from`] derives from the input (level E): the codec and the
/// reference against RFC 3629 §3 directly, every built-in decoder that
/// claims `encode` through [`differential::check_encode`], and the codec's
/// batch encoder, which must fail at the first non-scalar with its reason.
///
/// # Panics
/// When an encoder is wrong.
pub fn encode(bytes: &[u8]) {
    const P: &str = "encode";
    let values: Vec<u32> = scalars_from(bytes).collect();
    let encoders: Vec<&dyn Decoder> = PLAN
        .iter()
        .map(|p| p.decoder.as_ref())
        .filter(|d| d.capabilities().has(Capability::Encode))
        .collect();
    for &value in &values {
        check_encode_one(P, bytes, value);
        // The codec now equals the reference on `value`: compare with it
        // without allocating, and let `check_encode` explain a difference.
        let want = codec::encode_scalar(value);
        for decoder in &encoders {
            let agrees = match (decoder.encode(value), &want) {
                (Ok(EncodeAnswer::Bytes(got)), Ok(want)) => got == want.as_bytes(),
                (Ok(EncodeAnswer::Refused(None)), Err(_)) => true,
                (Ok(EncodeAnswer::Refused(Some(got))), Err(want)) => got == *want,
                _ => false,
            };
            if agrees {
                continue;
            }
            let m = differential::check_encode(*decoder, value).unwrap_or(differential::Mismatch {
                field: Field::Encode,
                expected: format!("{want:?}"),
                got: "a different answer (check_encode agreed, so it is nondeterministic)".into(),
            });
            fail_plain(
                P,
                decoder.name(),
                m.field,
                bytes,
                &format!("reference: {}\n  got: {}", m.expected, m.got),
            );
        }
    }
    let first_bad = values
        .iter()
        .enumerate()
        .find_map(|(i, &v)| expected_encoding(v).err().map(|e| (i, e)));
    match (codec::encode_utf32(&values), first_bad) {
        (Ok(out), None) => {
            let mut want = Vec::with_capacity(out.len());
            for &v in &values {
                want.extend(reference::encode(v).unwrap_or_default());
            }
            if out != want {
                fail_plain(
                    P,
                    "codec::encode_utf32",
                    Field::Encode,
                    bytes,
                    &format!("expected {}, got {}", hex::encode(&want), hex::encode(&out)),
                );
            }
        }
        (Err(e), Some((i, why))) if e.index == i && e.error == why => {}
        (got, want) => fail_plain(
            P,
            "codec::encode_utf32",
            Field::Encode,
            bytes,
            &format!(
                "expected {}, got {}",
                want.map_or("success".into(), |(i, e)| format!(
                    "refusal at index {i} ({})",
                    e.as_str()
                )),
                match got {
                    Ok(_) => "success".into(),
                    Err(e) => format!("refusal at index {} ({})", e.index, e.error.as_str()),
                }
            ),
        ),
    }
}

/// Splits a fuzzer's input into split points and the bytes to decode, so a
/// fuzzer steers both. The first byte `h` says how to split:
///
/// * `h ≥ 0x80`: every `(h & 0x7F) + 1` bytes (0x80: one byte at a time);
/// * otherwise `h & 0x0F` split points follow, two bytes each (little
///   endian, taken modulo the payload's length + 1).
///
/// The rest is the payload.
///
/// ```
/// use utf8conform::properties::split_plan;
/// assert_eq!(split_plan(b"\x81abcde"), (&b"abcde"[..], vec![2, 4]));
/// assert_eq!(split_plan(b"\x01\x03\x00xyz"), (&b"xyz"[..], vec![3]));
/// assert_eq!(split_plan(b""), (&b""[..], vec![]));
/// ```
pub fn split_plan(data: &[u8]) -> (&[u8], Vec<usize>) {
    let Some((&h, rest)) = data.split_first() else {
        return (data, Vec::new());
    };
    if h >= 0x80 {
        let stride = usize::from(h & 0x7F) + 1;
        let splits = (stride..rest.len()).step_by(stride).collect();
        return (rest, splits);
    }
    let count = usize::from(h & 0x0F).min(rest.len() / 2);
    let (points, payload) = rest.split_at(2 * count);
    let splits = points
        .chunks_exact(2)
        .map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (payload.len() + 1))
        .collect();
    (payload, splits)
}

/// Property: the codec's [`codec::StreamDecoder`], strict and lossy, fed
/// `bytes` cut at `splits` (offsets in any order; those past the end are
/// ignored), gives what one-shot decoding gives — the reference's and the
/// codec's (level C). Also: a strict stream emits exactly the scalars
/// before its error, keeps returning the same error once failed, and says
/// it is mid-sequence exactly when the input ends inside one.
///
/// ```
/// utf8conform::properties::chunking(b"caf\xC3\xA9 \xE2\x82", &[4, 6]);
/// ```
///
/// # Panics
/// When a chunked decode differs.
pub fn chunking(bytes: &[u8], splits: &[usize]) {
    const P: &str = "chunking";
    let chunks = differential::split_at(bytes, splits);
    let offsets = || {
        chunks
            .iter()
            .scan(0, |at, c| {
                *at += c.len();
                Some(*at)
            })
            .take(chunks.len().saturating_sub(1))
            .collect::<Vec<_>>()
    };
    let mut lossy_expected = Vec::new();
    let strict_expected = walk_reference(bytes, Walk::Lossy, &mut lossy_expected, &mut Vec::new());
    let ends_mid_sequence = !bytes.is_empty()
        && matches!(
            reference::decode(&bytes[last_boundary(bytes)..]),
            Err(e) if e.error_len().is_none()
        );

    // Strict.
    let mut strict = codec::StreamDecoder::strict();
    let mut out = Vec::new();
    let mut result = Ok(());
    for chunk in &chunks {
        result = strict.feed_utf32(chunk, &mut out);
        if result.is_err() {
            // Once failed, it keeps failing the same way.
            let again = strict.feed_utf32(b"a", &mut Vec::new());
            if again != result {
                fail_plain(
                    P,
                    "StreamDecoder::feed (strict)",
                    Field::Chunking,
                    bytes,
                    &format!(
                        "failed with {result:?}, then fed more said {again:?}; split at {:?}",
                        offsets()
                    ),
                );
            }
            break;
        }
    }
    // Checked once the outcome is known to be right: a wrong outcome is the
    // finding to report, not its symptom.
    let mid = result.is_ok().then(|| strict.is_mid_sequence());
    if result.is_ok() {
        result = strict.finish_utf32(&mut out);
    }
    let got = strict_of(result);
    let prefix_len = strict_expected.err().map_or(bytes.len(), |e| e.0);
    let prefix_ok = match strict_expected {
        Ok(()) => out == lossy_expected,
        // The scalars before the error: the lossy output up to the first
        // U+FFFD that replaced the error (its prefix is the same text).
        Err(_) => reference::decode(&bytes[..prefix_len])
            .is_ok_and(|c| c.iter().map(|&ch| u32::from(ch)).eq(out.iter().copied())),
    };
    if got != strict_expected || !prefix_ok {
        fail_plain(
            P,
            "StreamDecoder (strict)",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}\n  reference one-shot: {}, then {} scalars\n  stream: {}, emitted {}",
                offsets(),
                show_strict(&strict_expected),
                prefix_len,
                show_strict(&got),
                show_scalars(&out)
            ),
        );
    }
    let expect_mid = matches!(strict_expected, Err((_, None)));
    if mid.is_some_and(|mid| mid != expect_mid) {
        fail_plain(
            P,
            "StreamDecoder::is_mid_sequence (strict)",
            Field::Chunking,
            bytes,
            &format!(
                "expected {expect_mid} before finish; split at {:?}",
                offsets()
            ),
        );
    }
    let one_shot = strict_of(codec::validate(bytes));
    if got != one_shot {
        fail_plain(
            P,
            "StreamDecoder (strict) vs codec::validate",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}: stream {}, one-shot {}",
                offsets(),
                show_strict(&got),
                show_strict(&one_shot)
            ),
        );
    }

    // Lossy, through the `String` API (the strict run used UTF-32).
    let mut lossy = codec::StreamDecoder::lossy();
    let mut text = String::new();
    for chunk in &chunks {
        if let Err(e) = lossy.feed(chunk, &mut text) {
            fail_plain(
                P,
                "StreamDecoder::feed (lossy)",
                Field::Chunking,
                bytes,
                &format!("a lossy stream failed: {e}; split at {:?}", offsets()),
            );
        }
    }
    if lossy.is_mid_sequence() != ends_mid_sequence {
        fail_plain(
            P,
            "StreamDecoder::is_mid_sequence (lossy)",
            Field::Chunking,
            bytes,
            &format!(
                "expected {ends_mid_sequence}, got {}; split at {:?}",
                lossy.is_mid_sequence(),
                offsets()
            ),
        );
    }
    let finished = lossy.finish(&mut text);
    if finished.is_err() || !chars_u32(&text).eq(lossy_expected.iter().copied()) {
        fail_plain(
            P,
            "StreamDecoder (lossy)",
            Field::Chunking,
            bytes,
            &format!(
                "split at {:?}\n  reference one-shot: {}\n  stream: {} ({finished:?})",
                offsets(),
                show_scalars(&lossy_expected),
                show_scalars(&chars_u32(&text).collect::<Vec<_>>())
            ),
        );
    }
}

/// The offset of the last place the reference's lossy walk starts a new
/// sequence (a character, a maximal subpart or an incomplete tail).
fn last_boundary(bytes: &[u8]) -> usize {
    let mut at = 0;
    let mut last = 0;
    while at < bytes.len() {
        last = at;
        at += match reference::first_sequence(&bytes[at..]) {
            Sequence::Char { len, .. } => len,
            Sequence::IllFormed { subpart } => subpart,
            Sequence::Incomplete { len } => len,
        };
    }
    last
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
fn lossy_from_strict(bytes: &[u8]) -> (Vec<u32>, usize) {
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

/// Property: lossy decoding (level R). Every built-in decoder that claims
/// lossy output (the codec's `decode_lossy` and `decode_lossy_utf32`,
/// `String::from_utf8_lossy`, encoding_rs, bstr, …) gives the reference's;
/// the reference's is what repeating its strict decode gives, with one
/// U+FFFD per maximal subpart (so the count of U+FFFD is the number of
/// subparts plus the U+FFFDs the input spelled out); and that output is
/// valid UTF-8 to the codec and the reference.
///
/// ```
/// utf8conform::properties::lossy(b"\xF1\x80\x80\xE1\x80\xC2\x41 \xEF\xBF\xBD");
/// ```
///
/// # Panics
/// When an output differs.
pub fn lossy(bytes: &[u8]) {
    const P: &str = "lossy";
    let (expected, subparts) = lossy_from_strict(bytes);
    let reference: Vec<u32> = reference::decode_lossy(bytes)
        .iter()
        .map(|&c| u32::from(c))
        .collect();
    let explain = |who: &str, f: Finding| -> ! {
        fail_plain(
            P,
            who,
            Field::Lossy,
            bytes,
            &format!(
                "strict decode repeated ({subparts} maximal subparts): {}\n  {who}: {}",
                f.expected, f.got
            ),
        )
    };
    let who = "reference::decode_lossy";
    if let Some(f) = scalars_finding(who, "", Field::Lossy, &expected, reference.iter().copied()) {
        explain(who, f);
    }
    let (finding, text_ok, replacements) = SCRATCH.with_borrow_mut(|scratch| {
        with_expected(bytes, Walk::Lossy, scratch, |walked, scratch| {
            // The walk is what the decoders are held to; unit tests pin it to
            // the reference, this makes sure of it here too.
            let who = "properties::walk_reference";
            let walk = walked.lossy.iter().copied();
            if let Some(f) = scalars_finding(who, "", Field::Lossy, &expected, walk) {
                explain(who, f);
            }
            let finding = plan_pass(bytes, Walk::Lossy, walked, scratch);
            // Every decoder's output now equals this text (byte for byte for
            // those that give UTF-8): check it once, for all of them.
            let text = walked.lossy_text;
            let text_ok = codec::validate(text).is_ok() && reference::validate(text).is_ok();
            let fffd = walked
                .lossy
                .iter()
                .filter(|&&c| c == u32::from(REPLACEMENT));
            (finding, text_ok, fffd.count())
        })
    });
    if let Some(f) = finding {
        fail_plan(P, bytes, f, Walk::Lossy);
    }
    let spelled = bytes
        .windows(3)
        .filter(|w| *w == [0xEF, 0xBF, 0xBD])
        .count();
    // Every lossy decoder's output equals the reference's by now, so these
    // two checks name them all.
    let everyone = "the reference and every lossy decoder";
    if replacements != subparts + spelled {
        fail_plain(
            P,
            everyone,
            Field::Lossy,
            bytes,
            &format!("{replacements} U+FFFD for {subparts} maximal subparts and {spelled} U+FFFD in the input"),
        );
    }
    if !text_ok {
        fail_plain(
            P,
            everyone,
            Field::Lossy,
            bytes,
            &format!(
                "its output is not valid UTF-8: {}",
                differential::marked_hex(&codec::decode_lossy(bytes).into_bytes())
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Failure;

    /// Short inputs at the edges the RFC names, valid and not.
    const CASES: &[&[u8]] = &[
        b"",
        b"plain ASCII",
        b"\x41\xE2\x89\xA2\xCE\x91\x2E",         // RFC 3629 §7
        b"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4", // §7
        b"\xEF\xBB\xBF\xF0\xA3\x8E\xB4",         // BOM, U+233B4
        b"\x2F\xC0\xAE\x2E\x2F",                 // §10 overlong
        b"\xC0\x80",
        b"\xE0\x80\x80",
        b"\xE0\x9F\xBF",
        b"\xF0\x80\x80\x80",
        b"\xF0\x8F\xBF\xBF",
        b"\xED\xA0\x80",
        b"\xED\xBF\xBF",
        b"\xED\xA1\x8C\xED\xBE\xB4", // §3 CESU-8 pair
        b"\xF4\x90\x80\x80",
        b"\xF4\x8F\xBF\xBF",
        b"\xF5\x80\x80\x80",
        b"\xF8\x88\x80\x80\x80",
        b"\xFC\x84\x80\x80\x80\x80",
        b"\xFE\xFF",
        b"\x80\xBF\x80",
        b"a\xE2\x82",
        b"a\xE2\x82b",
        b"\xF1\x80\x80\xE1\x80\xC2\x41",
        b"\xF0\x9F\x98",
        b"\xEF\xBF\xBD\xEF\xBF\xBE\xEF\xBF\xBF",
        b"0123456789abcdef0123456789abcdef\xF4\x8F\xBF\xBF\xE0\xA0",
    ];

    fn ref_walk(bytes: &[u8]) -> (Strict, Vec<u32>, Vec<u8>) {
        let mut lossy = Vec::new();
        let mut text = Vec::new();
        let strict = walk_reference(bytes, Walk::Lossy, &mut lossy, &mut text);
        if strict.is_ok() {
            text = bytes.to_vec();
        }
        (strict, lossy, text)
    }

    /// Both walks against the reference's own loops: the whole walk gives
    /// `validate`'s result, `decode_lossy`'s output and (as UTF-8)
    /// `from_utf8_lossy`'s; the strict walk the same result and `decode`'s
    /// scalars up to the first error.
    fn check_walk(bytes: &[u8]) {
        let (strict, lossy, text) = ref_walk(bytes);
        let want_strict = strict_of(reference::validate(bytes));
        assert_eq!(strict, want_strict, "{bytes:02x?}");
        let want: Vec<u32> = reference::decode_lossy(bytes)
            .iter()
            .map(|&c| u32::from(c))
            .collect();
        assert_eq!(lossy, want, "{bytes:02x?}");
        let std = String::from_utf8_lossy(bytes);
        assert_eq!(text, std.as_bytes(), "{bytes:02x?}");
        let mut prefix = vec![0xDEAD];
        let mut untouched = Vec::new();
        let strict = walk_reference(bytes, Walk::Strict, &mut prefix, &mut untouched);
        assert_eq!(strict, want_strict, "{bytes:02x?}");
        let up_to = want_strict.err().map_or(bytes.len(), |e| e.0);
        let want: Vec<u32> = reference::decode(&bytes[..up_to])
            .expect("valid before its first error")
            .iter()
            .map(|&c| u32::from(c))
            .collect();
        assert_eq!(prefix, want, "{bytes:02x?}");
        assert!(untouched.is_empty(), "{bytes:02x?}");
    }

    #[test]
    fn the_walk_is_the_reference_on_every_short_input() {
        let check = check_walk;
        for case in CASES {
            check(case);
        }
        for a in 0..=255u8 {
            check(&[a]);
            for b in 0..=255u8 {
                check(&[a, b]);
            }
        }
    }

    /// ASCII runs are skipped 32 bytes, then a word, at a time: a non-ASCII
    /// byte at every offset of runs up to two blocks and a word long (every
    /// such byte in the first three words), and at either end of a word or
    /// a block, must stop the run exactly there.
    #[test]
    fn the_walk_is_the_reference_across_ascii_runs() {
        let check = |bytes: &[u8]| {
            let naive = bytes.iter().take_while(|b| b.is_ascii()).count();
            assert_eq!(ascii_run(bytes), naive, "{bytes:02x?}");
            check_walk(bytes);
        };
        for len in 0..=72 {
            let mut bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            check(&bytes);
            for at in 0..len {
                let highs = if len <= 24 {
                    0x80..=0xFFu8
                } else {
                    0xBF..=0xC3
                };
                for high in highs {
                    bytes[at] = high;
                    check(&bytes);
                    // A second one later: the walk resumes after the first.
                    if at + 9 < len {
                        bytes[at + 9] = 0xC3;
                        check(&bytes);
                        bytes[at + 9] = b'z';
                    }
                }
                bytes[at] = 0x7F;
                check(&bytes);
            }
        }
    }

    proptest::proptest! {
        /// Mostly ASCII with anything in between: long runs, as in text.
        #[test]
        fn the_walk_is_the_reference_on_mostly_ascii(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![4 => 0u8..0x80, 1 => proptest::num::u8::ANY],
                0..200,
            )
        ) {
            check_walk(&bytes);
        }
    }

    #[test]
    fn every_property_holds_on_the_edge_cases() {
        for case in CASES {
            differential(case);
            lossy(case);
            roundtrip(case);
            encode(case);
            let every: Vec<usize> = (0..=case.len()).collect();
            chunking(case, &every);
            chunking(case, &[]);
            chunking(case, &[case.len() / 2, 1, 9999]);
        }
        let (payload, splits) = split_plan(b"\x80\xE2\x82\xAC\xF0\x9F");
        chunking(payload, &splits);
    }

    #[test]
    fn properties_hold_on_a_mebibyte() {
        // Valid text from the RFC's examples, then the same with an error
        // every 4 KiB: long inputs must neither panic nor crawl.
        let unit = "A≢Α. 한국어 日本語 \u{233B4} ok ".as_bytes();
        let valid: Vec<u8> = unit.iter().copied().cycle().take(1 << 20).collect();
        let valid = &valid[..reference::validate(&valid)
            .err()
            .map_or(valid.len(), |e| e.valid_up_to())];
        let mut broken = valid.to_vec();
        for i in (0..broken.len()).step_by(4096) {
            broken[i] = [0xC0, 0xED, 0xF4, 0x80, 0xFF][i / 4096 % 5];
        }
        for bytes in [valid, &broken[..]] {
            differential(bytes);
            lossy(bytes);
            roundtrip(bytes);
            chunking(bytes, &[1, 4095, 4096, 4097, 65537, 700_001]);
        }
        encode(&broken[..1 << 16]);
        let every: Vec<usize> = (0..broken.len()).step_by(3).collect();
        chunking(&broken[..1 << 16], &every);
    }

    #[test]
    fn structured_inputs_hold() {
        use arbitrary::{Arbitrary, Unstructured};
        for seed in 0..200u64 {
            let entropy = crate::generate::SplitMix64::new(seed).bytes(200);
            if let Ok(input) = Structured::arbitrary(&mut Unstructured::new(&entropy)) {
                structured(&input);
            }
        }
    }

    #[test]
    fn every_builtin_is_checked_natively() {
        // A decoder whose capabilities changed falls back to the (slow)
        // Answer path: still checked, but this says the native check needs
        // updating.
        let plan = differential_plan();
        assert_eq!(plan.len(), oracles::BUILTIN_NAMES.len() - 1);
        for (name, native) in plan {
            assert!(native, "{name} is no longer checked natively");
        }
    }

    #[test]
    fn native_checks_agree_with_the_adapters() {
        let decoders = oracles::all_builtin();
        for case in CASES {
            let (strict, lossy, text) = ref_walk(case);
            let expected = Expected {
                strict,
                lossy: &lossy,
                lossy_text: &text,
            };
            // What `differential` holds the strict checks to: the walk up
            // to the first error.
            let mut prefix = Vec::new();
            let strict_walk = walk_reference(case, Walk::Strict, &mut prefix, &mut Vec::new());
            assert_eq!(strict_walk, strict, "{case:02x?}");
            let up_to = strict.err().map_or(case.len(), |e| e.0);
            assert_eq!(prefix, ref_walk(&case[..up_to]).1, "{case:02x?}");
            let short = Expected {
                strict,
                lossy: &prefix,
                lossy_text: if strict.is_ok() { case } else { &[] },
            };
            let answer = differential::expected(case);
            for (name, caps, native) in NATIVE {
                let decoder = decoders.iter().find(|d| d.name() == *name).unwrap();
                let mut scratch = Scratch::default();
                assert_eq!(
                    (native.strict)(case, &short, &mut scratch),
                    None,
                    "{case:02x?}"
                );
                assert_eq!(
                    (native.strict)(case, &expected, &mut scratch),
                    None,
                    "{case:02x?}"
                );
                if let Some(lossy) = native.lossy {
                    assert_eq!(lossy(case, &expected, &mut scratch), None, "{case:02x?}");
                }
                // Only decoders that claim lossy output have a lossy check.
                assert_eq!(
                    native.lossy.is_some(),
                    caps.has(Capability::Lossy),
                    "{name}"
                );
                let adapter = answer_finding(decoder.as_ref(), *caps, &answer, case);
                assert_eq!(adapter, None, "{case:02x?}");
            }
        }
    }

    /// Every native check can fail: held to a deliberately wrong
    /// expectation, each reports the field that differs.
    #[test]
    fn native_checks_catch_a_wrong_expectation() {
        let mut scratch = Scratch::default();
        // The strict check, then (when it finds nothing) the lossy one.
        let run = |name: &str, bytes: &[u8], expected: &Expected, scratch: &mut Scratch| {
            let native = NATIVE.iter().find(|n| n.0 == name).unwrap().2;
            (native.strict)(bytes, expected, scratch)
                .or_else(|| {
                    native
                        .lossy
                        .and_then(|lossy| lossy(bytes, expected, scratch))
                })
                .map(|f| f.field)
        };
        // A valid input expected to be invalid: everyone claims validity.
        let wrong = Expected {
            strict: Err((1, Some(1))),
            lossy: &[0x61, 0xFFFD],
            lossy_text: "a\u{FFFD}".as_bytes(),
        };
        for (name, _, _) in NATIVE {
            assert_eq!(
                run(name, b"ab", &wrong, &mut scratch),
                Some(Field::Valid),
                "{name}"
            );
        }
        // The right validity, wrong scalars: those that decode say so.
        let wrong = Expected {
            strict: Ok(()),
            lossy: &[0x61, 0x63],
            lossy_text: b"ac",
        };
        for name in ["codec", "std", "simdutf", "encoding_rs", "bstr"] {
            assert_eq!(
                run(name, b"ab", &wrong, &mut scratch),
                Some(Field::Scalars),
                "{name}"
            );
        }
        // Wrong position, then wrong subpart, then wrong lossy output.
        let bytes = b"a\xE1\x80b";
        let right_text = "a\u{FFFD}b".as_bytes();
        let wrong = Expected {
            strict: Err((0, Some(2))),
            lossy: &[0x61, 0xFFFD, 0x62],
            lossy_text: right_text,
        };
        for name in [
            "codec",
            "std",
            "simdutf8-compat",
            "simdutf",
            "encoding_rs",
            "bstr",
        ] {
            assert_eq!(
                run(name, bytes, &wrong, &mut scratch),
                Some(Field::ValidUpTo),
                "{name}"
            );
        }
        let wrong = Expected {
            strict: Err((1, Some(1))),
            lossy: &[0x61, 0xFFFD, 0x62],
            lossy_text: right_text,
        };
        for name in ["codec", "std", "simdutf8-compat", "encoding_rs", "bstr"] {
            assert_eq!(
                run(name, bytes, &wrong, &mut scratch),
                Some(Field::ErrorLen),
                "{name}"
            );
        }
        let wrong = Expected {
            strict: Err((1, Some(2))),
            lossy: &[0x61, 0xFFFD, 0xFFFD, 0x62],
            lossy_text: "a\u{FFFD}\u{FFFD}b".as_bytes(),
        };
        for name in ["codec", "std", "encoding_rs", "bstr"] {
            assert_eq!(
                run(name, bytes, &wrong, &mut scratch),
                Some(Field::Lossy),
                "{name}"
            );
        }
    }

    /// std's scalars come from `str::chars`, a decode apart from its text:
    /// with the text right and the scalars wrong, that is the call named.
    #[test]
    fn std_scalars_are_checked_through_chars() {
        let wrong = Expected {
            strict: Ok(()),
            lossy: &[0x61, 0x63],
            lossy_text: b"ab",
        };
        let f = native_std(b"ab", &wrong, &mut Scratch::default()).expect("a finding");
        assert_eq!((f.api, f.field), ("str::chars", Field::Scalars));
    }

    thread_local! {
        /// The decoders [`native_strict_pass`] checked, in order.
        pub(super) static STRICT_CHECKED: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }

    /// `differential`'s direct pass checks every decoder of the plan, and
    /// finds what the plan finds: nothing on the right expectation, the
    /// same first finding on wrong ones.
    #[test]
    fn the_direct_strict_pass_is_the_plan() {
        assert!(*ALL_NATIVE, "some built-in is not checked natively");
        STRICT_CHECKED.with_borrow_mut(Vec::clear);
        differential(b"plain \xC3\xA9 text");
        let checked = STRICT_CHECKED.with_borrow_mut(std::mem::take);
        let planned: Vec<String> = PLAN.iter().map(|p| p.decoder.name().to_string()).collect();
        assert_eq!(checked, planned);
        for case in CASES {
            let mut prefix = Vec::new();
            let strict = walk_reference(case, Walk::Strict, &mut prefix, &mut Vec::new());
            let text: &[u8] = if strict.is_ok() { case } else { &[] };
            let moved = match strict {
                Ok(()) => Err((case.len(), None)),
                Err((at, len)) => Err((at + 1, len)),
            };
            let shorter = match strict {
                Ok(()) => Err((0, Some(1))),
                Err((at, len)) => Err((at, len.map_or(Some(1), |n| Some(n % 3 + 1)))),
            };
            let mut more = prefix.clone();
            more.push(0x41);
            let variants = [
                (strict, &prefix[..]),
                (moved, &prefix[..]),
                (shorter, &prefix[..]),
                (strict, &more[..]),
            ];
            for (i, (wrong, scalars)) in variants.into_iter().enumerate() {
                let expected = Expected {
                    strict: wrong,
                    lossy: scalars,
                    lossy_text: text,
                };
                let direct = native_strict_pass(case, &expected, &mut Scratch::default());
                let plan = plan_pass(case, Walk::Strict, &expected, &mut Scratch::default());
                assert_eq!(direct, plan, "{case:02x?} variant {i}");
                // Scalars are compared on valid inputs only.
                let right = i == 0 || (i == 3 && strict.is_err());
                assert_eq!(direct.is_none(), right, "{case:02x?} variant {i}");
            }
        }
    }

    #[test]
    fn answers_agree_is_compare_without_the_text() {
        let caps_list = [
            Capabilities::ALL,
            Capabilities::STRICT,
            VALIDATE,
            VALIDATE_POSITION_SUBPART,
            SIMDUTF,
            Capabilities::NONE.with(Capability::Lossy),
        ];
        for case in CASES {
            let expected = differential::expected(case);
            let mut variants = vec![expected.clone(), Answer::default()];
            let mut flipped = expected.clone();
            flipped.valid = expected.valid.map(|v| !v);
            variants.push(flipped);
            let mut moved = expected.clone();
            moved.valid_up_to = expected.valid_up_to.map(|n| n + 1);
            variants.push(moved);
            let mut shorter = expected.clone();
            shorter.error_len = Some(Some(3));
            variants.push(shorter);
            let mut lossy = expected.clone();
            lossy.lossy = Some(vec![]);
            variants.push(lossy);
            let mut scalars = expected.clone();
            scalars.scalars = Some(vec![0xD800]);
            variants.push(scalars);
            for got in &variants {
                for caps in caps_list {
                    assert_eq!(
                        answers_agree(&expected, got, caps),
                        differential::compare(&expected, got, caps).is_empty(),
                        "{case:02x?} {got:?} {caps:?}"
                    );
                }
            }
        }
    }

    /// A decoder that accepts the overlong NUL C0 80, as Java's "modified
    /// UTF-8" does.
    struct AcceptsOverlongNul;

    impl Decoder for AcceptsOverlongNul {
        fn name(&self) -> &str {
            "accepts-c0-80"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            VALIDATE
        }
        fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
            let cleaned: Vec<u8> = bytes
                .iter()
                .copied()
                .filter(|&b| b != 0xC0)
                .map(|b| if b == 0x80 { 0 } else { b })
                .collect();
            Ok(Answer {
                valid: Some(core::str::from_utf8(&cleaned).is_ok()),
                ..Answer::default()
            })
        }
    }

    #[test]
    fn differential_with_a_good_list_is_quiet() {
        let decoders = oracles::all_builtin();
        for case in CASES {
            differential_with(&decoders, case);
        }
    }

    #[test]
    #[should_panic(
        expected = "accepts-c0-80 (Decoder::decode) disagrees with the reference on valid (level V)"
    )]
    fn differential_fails_on_a_broken_decoder() {
        let decoders: Vec<Box<dyn Decoder>> = vec![
            oracles::builtin("std").unwrap(),
            Box::new(AcceptsOverlongNul),
        ];
        differential_with(&decoders, b"text \xC0\x80 more");
    }

    #[test]
    fn the_failure_message_names_decoder_field_and_input() {
        let decoders: Vec<Box<dyn Decoder>> = vec![Box::new(AcceptsOverlongNul)];
        let run = std::panic::AssertUnwindSafe(|| differential_with(&decoders, b"ab\xC0\x80"));
        let panic = std::panic::catch_unwind(run).expect_err("must fail");
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(message.contains("hex: 6162c080"), "{message}");
        assert!(message.contains("minimized (1 bytes): [80]"), "{message}");
        assert!(message.contains("reference: false"), "{message}");
    }

    #[test]
    fn lossy_from_strict_counts_subparts() {
        // Unicode §3.9 table 3-8's shape: F1 80 80 | E1 80 | C2 | 41.
        let (out, n) = lossy_from_strict(b"\xF1\x80\x80\xE1\x80\xC2\x41");
        assert_eq!((out, n), (vec![0xFFFD, 0xFFFD, 0xFFFD, 0x41], 3));
        // An incomplete tail is one subpart.
        assert_eq!(lossy_from_strict(b"a\xF0\x9F\x98"), (vec![0x61, 0xFFFD], 1));
    }

    #[test]
    fn scalars_from_reaches_every_region() {
        let values: Vec<u32> = scalars_from(&[0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF]).collect();
        // Raw 1 and its aimed value (surrogate region), then a 3-byte tail
        // padded with zero.
        assert_eq!(values[0], 1);
        assert!((0xD700..0xE900).contains(&values[1]));
        assert_eq!(values[2], 0x00FF_FFFF);
        assert_eq!(values.len(), 4);
    }
}
