//! One decoder checked against the reference's [`Expected`] answer through
//! its fast paths ([`Decoder::verdict`], [`Decoder::decode_into`],
//! [`Decoder::lossy_into`], [`Decoder::lossy_text_into`]), allocating
//! nothing when it agrees and rendering nothing unless a field differs.
//!
//! [`differential::check`] asks each decoder for a full [`Answer`] and
//! renders every field before comparing: right for a report, far too slow
//! for a fuzzer that wants hundreds of thousands of inputs a second. Each
//! fast path a decoder has is checked on what it answers; a claimed field
//! no fast path gave is checked through [`Decoder::decode`], so a decoder
//! with no fast path at all (a user's, or one in another process) is still
//! checked on everything it claims, only more slowly.
//!
//! The strict levels (V P S) and lossy output (R) are two passes:
//! [`differential`](fn@super::differential) runs the first and
//! [`lossy`](fn@super::lossy) the second, since lossy output is a decoder's
//! most expensive answer and needs the reference's whole walk, where the
//! strict levels need it only up to the first error.

use super::expected::{Expected, Scratch};
use super::finding::{slice_finding, text_finding, verdict_finding, Finding};
use crate::decoder::{Decoder, Path};
use crate::decoders;
use crate::differential::{self, Field};
use crate::outcome::{Answer, Capabilities, Capability};
use std::sync::LazyLock;

/// The built-in decoders the properties check: all but the reference.
pub(super) static BUILTINS: LazyLock<Vec<Box<dyn Decoder>>> = LazyLock::new(|| {
    decoders::all_builtin()
        .into_iter()
        .filter(|d| d.name() != "reference")
        .collect()
});

/// [`BUILTINS`], borrowed.
pub(super) fn builtins() -> Vec<&'static dyn Decoder> {
    BUILTINS.iter().map(|d| d.as_ref()).collect()
}

/// The strict part of a claim: validity, position, subpart, decode.
pub(super) fn strict_part(caps: Capabilities) -> Capabilities {
    [
        Capability::Validate,
        Capability::Position,
        Capability::Subpart,
        Capability::Decode,
    ]
    .into_iter()
    .filter(|&c| caps.has(c))
    .fold(Capabilities::NONE, Capabilities::with)
}

/// The first finding of `decoder` on the strict levels it claims.
pub(super) fn strict_finding_of(
    decoder: &dyn Decoder,
    bytes: &[u8],
    expected: &Expected,
    scratch: &mut Scratch,
) -> Option<Finding> {
    let caps = strict_part(decoder.capabilities());
    if caps == Capabilities::NONE {
        return None;
    }
    let name = decoder.name();
    // What the fast paths answered, so that a claimed field none of them
    // gave is checked through `decode`.
    let (mut validity, mut position, mut subpart, mut scalars) = (false, false, false, false);
    if let Some(v) = decoder.verdict(bytes) {
        validity = true;
        position |= v.valid_up_to.is_some();
        subpart |= v.error_len.is_some();
        if let Some(f) = verdict_finding(name, decoder.api(Path::Verdict), caps, expected, &v) {
            return Some(f);
        }
    }
    scratch.utf32.clear();
    if let Some(v) = decoder.decode_into(bytes, &mut scratch.utf32) {
        validity = true;
        scalars = true;
        position |= v.valid_up_to.is_some();
        subpart |= v.error_len.is_some();
        let api = decoder.api(Path::DecodeInto);
        if let Some(f) = verdict_finding(name, api, caps, expected, &v) {
            return Some(f);
        }
        if v.valid && caps.has(Capability::Decode) {
            if let Some(f) =
                slice_finding(name, api, Field::Scalars, expected.lossy, &scratch.utf32)
            {
                return Some(f);
            }
        }
    }
    let invalid = !expected.valid();
    let covered = validity
        && (!invalid || !caps.has(Capability::Position) || position)
        && (!invalid || !caps.has(Capability::Subpart) || subpart)
        && (invalid || !caps.has(Capability::Decode) || scalars);
    if covered {
        return None;
    }
    answer_finding(decoder, caps, &differential::expected(bytes), bytes)
}

/// The first finding of `decoder` on its lossy output, if it claims one.
pub(super) fn lossy_finding_of(
    decoder: &dyn Decoder,
    bytes: &[u8],
    expected: &Expected,
    scratch: &mut Scratch,
) -> Option<Finding> {
    if !decoder.capabilities().has(Capability::Lossy) {
        return None;
    }
    let name = decoder.name();
    let mut fast = false;
    scratch.text.clear();
    if decoder.lossy_text_into(bytes, &mut scratch.text) {
        fast = true;
        let api = decoder.api(Path::LossyText);
        if let Some(f) = text_finding(name, api, Field::Lossy, expected, &scratch.text) {
            return Some(f);
        }
    }
    scratch.utf32.clear();
    if decoder.lossy_into(bytes, &mut scratch.utf32) {
        fast = true;
        let api = decoder.api(Path::LossyInto);
        if let Some(f) = slice_finding(name, api, Field::Lossy, expected.lossy, &scratch.utf32) {
            return Some(f);
        }
    }
    if fast {
        return None;
    }
    let lossy = Capabilities::NONE.with(Capability::Lossy);
    answer_finding(decoder, lossy, &differential::expected(bytes), bytes)
}

/// Whether `got` agrees with `expected` on every field `caps` claims: the
/// same rules as [`differential::compare`], without rendering anything.
pub(super) fn answers_agree(expected: &Answer, got: &Answer, caps: Capabilities) -> bool {
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
pub(super) fn answer_finding(
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
        Err(failure) => differential::failure_mismatch(differential::Asked::Decode, &failure),
    };
    Some(Finding {
        decoder: decoder.name().into(),
        api: decoder.api(Path::Decode),
        field: mismatch.field,
        expected: mismatch.expected,
        got: mismatch.got,
    })
}
