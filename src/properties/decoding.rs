//! The decoding properties: every decoder agrees with the reference on the
//! strict levels ([`differential`](fn@differential)) and on lossy output
//! ([`lossy`]); [`structured`] runs them with chunking on a structured
//! input.

use super::chunking::chunking;
use super::expected::{lossy_from_strict, with_expected, Scratch, Walk, SCRATCH};
use super::fast::{builtins, lossy_finding_of, strict_finding_of};
use super::finding::{fail, fail_plain, scalars_finding, Finding};
use crate::decoder::Decoder;
use crate::differential::{self, Field};
use crate::generate::Structured;
use crate::outcome::REPLACEMENT;
use crate::reference;
use utf8conform_codec as codec;

/// The first finding of any of `decoders` on the levels of `walk`.
fn pass(decoders: &[&dyn Decoder], bytes: &[u8], walk: Walk) -> Option<Finding> {
    SCRATCH.with_borrow_mut(|scratch| {
        with_expected(bytes, walk, scratch, |expected, scratch| {
            decoders.iter().find_map(|&d| match walk {
                Walk::Strict => strict_finding_of(d, bytes, expected, scratch),
                Walk::Lossy => lossy_finding_of(d, bytes, expected, scratch),
            })
        })
    })
}

/// The finding of one decoder on `bytes` (for minimising).
fn finding_of(decoder: &dyn Decoder, bytes: &[u8], walk: Walk) -> Option<Finding> {
    with_expected(
        bytes,
        walk,
        &mut Scratch::default(),
        |expected, scratch| match walk {
            Walk::Strict => strict_finding_of(decoder, bytes, expected, scratch),
            Walk::Lossy => lossy_finding_of(decoder, bytes, expected, scratch),
        },
    )
}

/// Panics with `finding`, a minimised input, and every built-in decoder's
/// view of the input.
fn fail_with(
    property: &str,
    decoder: &dyn Decoder,
    bytes: &[u8],
    finding: Finding,
    walk: Walk,
) -> ! {
    use std::fmt::Write as _;
    let field = finding.field;
    let minimized = (bytes.len() <= 4096).then(|| {
        differential::minimize(bytes, |candidate| {
            finding_of(decoder, candidate, walk).is_some_and(|f| f.field == field)
        })
    });
    let mut context = String::new();
    if let Some(min) = minimized {
        let _ = writeln!(
            context,
            "  minimized ({} bytes): {}",
            min.len(),
            differential::marked_hex(&min)
        );
    }
    let views = differential::check(&crate::decoders::all_builtin(), bytes);
    if !views.is_empty() {
        context.push_str("  every built-in decoder's view of this input:\n");
        for v in &views {
            for line in v.to_string().lines() {
                let _ = writeln!(context, "    {line}");
            }
        }
    }
    fail(property, bytes, &finding, &context)
}

/// Property: every built-in decoder agrees with the reference on the
/// strict fields it claims — validity and scalars (V), `valid_up_to` (P),
/// `error_len` (S). Lossy output (R) is [`lossy`]'s, chunking (C)
/// [`chunking`]'s and encoding (E) [`encode`](fn@super::encode)'s;
/// [`structured`] runs them all.
///
/// ```
/// utf8conform::properties::differential(b"\xF0\x9F\x92\x96 ok \xC0\xAF \xED\xA0\x80 \xF4\x90");
/// ```
///
/// # Panics
/// On a divergence: which decoder and API, which field, the expected and the
/// actual value, the input in hex, a minimised input and every built-in
/// decoder's view of it.
pub fn differential(bytes: &[u8]) {
    differential_with(&builtins(), bytes);
}

/// Property [`differential`](fn@differential) for any decoders: yours, the
/// built-in ones, or decoders in other processes. Each is checked through
/// its fast paths where it has them, through [`Decoder::decode`] otherwise.
///
/// ```
/// use utf8conform::decoders::StdDecoder;
/// utf8conform::properties::differential_with(&[&StdDecoder], b"ok \xE2\x82");
/// ```
///
/// # Panics
/// On a divergence, as [`differential`](fn@differential).
pub fn differential_with(decoders: &[&dyn Decoder], bytes: &[u8]) {
    if let Some(f) = pass(decoders, bytes, Walk::Strict) {
        let d = decoders
            .iter()
            .find(|d| d.name() == f.decoder)
            .expect("a checked decoder");
        fail_with("differential", *d, bytes, f, Walk::Strict);
    }
}

/// Property: lossy decoding (level R). Every built-in decoder that claims
/// lossy output (the codec's `decode_lossy` and `decode_lossy_utf32`,
/// `String::from_utf8_lossy`, encoding_rs, bstr, …) gives the reference's;
/// the reference's is what repeating its strict decode gives, with one
/// U+FFFD per maximal subpart (so the count of U+FFFD is the number of
/// subparts plus the U+FFFDs the input spelled out); and that output is
/// valid UTF-8 to the codec and the reference. And every codec kernel
/// this CPU runs (one, picked by the length, on an input over 256
/// bytes), through its own methods ([`codec::Kernel`]), decodes `bytes`
/// (strict, lossy, streaming) as std does, and so do the codec's streams
/// on `bytes` after more than the engine's 16 KiB span of text.
///
/// ```
/// utf8conform::properties::lossy(b"\xF1\x80\x80\xE1\x80\xC2\x41 \xEF\xBF\xBD");
/// ```
///
/// # Panics
/// When an output differs.
pub fn lossy(bytes: &[u8]) {
    reference_lossy_is_repeated_strict(bytes);
    lossy_with(&builtins(), bytes);
    super::kernels::utf8_kernels("lossy", bytes);
}

/// Property [`lossy`] for any decoders.
///
/// # Panics
/// When an output differs.
pub fn lossy_with(decoders: &[&dyn Decoder], bytes: &[u8]) {
    if let Some(f) = pass(decoders, bytes, Walk::Lossy) {
        let d = decoders
            .iter()
            .find(|d| d.name() == f.decoder)
            .expect("a checked decoder");
        fail_with("lossy", *d, bytes, f, Walk::Lossy);
    }
}

/// The reference's lossy output is Unicode §3.9's, computed from the
/// strict reference alone; the walk the decoders are held to is the same;
/// its U+FFFDs are the subparts and those the input spelled out; and it is
/// valid UTF-8.
fn reference_lossy_is_repeated_strict(bytes: &[u8]) {
    const P: &str = "lossy";
    let (expected, subparts) = lossy_from_strict(bytes);
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
    let reference = reference::decode_lossy(bytes);
    if let Some(f) = scalars_finding(
        who,
        "",
        Field::Lossy,
        &expected,
        reference.iter().map(|&c| u32::from(c)),
    ) {
        explain(who, f);
    }
    let (walk_finding, text_ok, replacements) = SCRATCH.with_borrow_mut(|scratch| {
        with_expected(bytes, Walk::Lossy, scratch, |walked, _| {
            let walk = walked.lossy.iter().copied();
            let finding = scalars_finding(
                "properties::walk_reference",
                "",
                Field::Lossy,
                &expected,
                walk,
            );
            let text = walked.lossy_text;
            let text_ok = codec::validate(text).is_ok() && reference::validate(text).is_ok();
            let fffd = walked
                .lossy
                .iter()
                .filter(|&&c| c == u32::from(REPLACEMENT));
            (finding, text_ok, fffd.count())
        })
    });
    if let Some(f) = walk_finding {
        explain("properties::walk_reference", f);
    }
    let spelled = bytes
        .windows(3)
        .filter(|w| *w == [0xEF, 0xBF, 0xBD])
        .count();
    if replacements != subparts + spelled {
        fail_plain(
            P,
            "the reference",
            Field::Lossy,
            bytes,
            &format!("{replacements} U+FFFD for {subparts} maximal subparts and {spelled} U+FFFD in the input"),
        );
    }
    if !text_ok {
        fail_plain(
            P,
            "the reference",
            Field::Lossy,
            bytes,
            &format!(
                "its output is not valid UTF-8: {}",
                differential::marked_hex(&codec::decode_lossy(bytes).into_bytes())
            ),
        );
    }
}

/// Property: [`differential`](fn@differential) and [`lossy`] on a
/// structured input, and every streaming decoder split at every piece edge
/// and one byte into every piece — where the malformations begin and where
/// sequences are cut.
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
