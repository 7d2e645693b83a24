//! What a property reports: the first field on which a decoder differs
//! from the reference ([`Finding`]), compared without allocating where the
//! answers agree, and the panic message that names decoder, library call,
//! field, level and input.

use super::expected::{Expected, Strict};
use crate::differential::{self, show_scalars, Field};
use crate::hex;
use crate::outcome::{Capabilities, Capability, Verdict};
use std::fmt::Write as _;

/// One field of one decoder that differs from the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Finding {
    pub(super) decoder: String,
    /// The library call that gave the value.
    pub(super) api: &'static str,
    pub(super) field: Field,
    pub(super) expected: String,
    pub(super) got: String,
}

pub(super) fn show_strict(strict: &Strict) -> String {
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

/// Compares a fast path's verdict on the fields `caps` claims and the path
/// answered (a field it leaves out is another path's to give).
pub(super) fn verdict_finding(
    decoder: &str,
    api: &'static str,
    caps: Capabilities,
    expected: &Expected,
    got: &Verdict,
) -> Option<Finding> {
    let validity = caps.has(Capability::Validate) || caps.has(Capability::Decode);
    let field = match (expected.strict, got.valid) {
        (Ok(()), true) => return None,
        (Ok(()), false) | (Err(_), true) if validity => Field::Valid,
        (Ok(()), false) | (Err(_), true) => return None,
        (Err((e_at, e_len)), false) => {
            if caps.has(Capability::Position) && got.valid_up_to.is_some_and(|at| at != e_at) {
                Field::ValidUpTo
            } else if caps.has(Capability::Subpart)
                && got
                    .error_len
                    .is_some_and(|len| len.map(usize::from) != e_len)
            {
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
        got: show_verdict(got),
    })
}

fn show_verdict(v: &Verdict) -> String {
    if v.valid {
        return "valid".into();
    }
    let mut s = "invalid".to_string();
    if let Some(at) = v.valid_up_to {
        s.push_str(&format!(", valid_up_to {at}"));
    }
    if let Some(len) = v.error_len {
        s.push_str(&format!(
            ", error_len {}",
            differential::show_error_len(&len)
        ));
    }
    s
}

/// Compares code points without collecting them, unless they differ.
pub(super) fn scalars_finding<I>(
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
pub(super) fn slice_finding(
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

pub(super) fn chars_u32(s: &str) -> impl Iterator<Item = u32> + Clone + '_ {
    s.chars().map(u32::from)
}

/// Compares decoded text with the reference's lossy output (for a valid
/// input, the input itself) as UTF-8. Both sides are `str`s, valid UTF-8,
/// and UTF-8 is a bijection, so equal bytes are equal code points: the
/// comparison is a `memcmp` (or a pointer check, when a library hands the
/// input back borrowed) instead of a decode.
pub(super) fn text_finding(
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

/// The input as a person acts on it: with the reference's first ill-formed
/// sequence marked, and in full as plain hex (for `utf8conform decode
/// --hex`) when it is short enough to read.
pub(super) fn show_input(bytes: &[u8]) -> String {
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

pub(super) fn fail(property: &str, bytes: &[u8], f: &Finding, context: &str) -> ! {
    panic!(
        "property `{property}`: {decoder} ({api}) disagrees with the reference on {field} (level {level})\n  {input}\n  reference: {expected}\n  {decoder}: {got}\n{context}",
        decoder = f.decoder,
        api = f.api,
        field = f.field.as_str(),
        level = f.field.letter(),
        input = show_input(bytes),
        expected = f.expected,
        got = f.got,
    )
}

pub(super) fn fail_plain(property: &str, who: &str, field: Field, bytes: &[u8], detail: &str) -> ! {
    panic!(
        "property `{property}`: {who} is wrong on {} (level {})\n  {}\n  {detail}",
        field.as_str(),
        field.letter(),
        show_input(bytes)
    )
}
