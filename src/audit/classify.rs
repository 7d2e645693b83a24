//! What none of the levels says on its own: which replacement policy a
//! decoder follows, which RFC 3629 §10 hazards it lets through, and what it
//! does with a BOM.
//!
//! **Policy** is inferred by prediction, not by pattern-matching outputs:
//! each candidate policy is a function that predicts the lossy output of an
//! input (from the reference's segmentation into characters and maximal
//! subparts, or, for `structural`, from the lead byte's announced length).
//! The decoder follows the first policy whose predictions match its answers
//! on every probe; the probes are chosen so that each pair of policies
//! disagrees on at least one of them. The replacement character is learned
//! first (from `41 80 42`), so a decoder that substitutes `?` is still
//! classified by where it substitutes.

use crate::hex;
use crate::oracles::Decoder;
use crate::outcome::{Answer, Capability, EncodeAnswer};
use crate::reference::{self, Sequence};
use crate::report::Evidence;

/// A replacement policy (how ill-formed input turns into output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// One replacement per maximal subpart (Unicode §3.9, WHATWG).
    MaximalSubpart,
    /// One replacement per lead byte plus the continuation bytes it
    /// announces, whether or not they could form a character.
    Structural,
    /// One replacement per ill-formed byte.
    PerByte,
    /// One replacement per run of consecutive ill-formed bytes.
    PerRun,
    /// Ill-formed bytes are silently removed.
    Drop,
    /// Ill-formed bytes come out as the code points of their values.
    PassThrough,
    /// None of the above.
    Other,
    /// The decoder has no lossy mode.
    NotApplicable,
}

impl Policy {
    /// The name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::MaximalSubpart => "maximal-subpart",
            Policy::Structural => "structural",
            Policy::PerByte => "per-byte",
            Policy::PerRun => "per-run",
            Policy::Drop => "drop",
            Policy::PassThrough => "pass-through",
            Policy::Other => "other",
            Policy::NotApplicable => "n/a",
        }
    }

    const CANDIDATES: [Policy; 6] = [
        Policy::MaximalSubpart,
        Policy::Structural,
        Policy::PerByte,
        Policy::PerRun,
        Policy::Drop,
        Policy::PassThrough,
    ];
}

/// Inputs on which the candidate policies disagree with each other.
pub const POLICY_PROBES: &[&[u8]] = &[
    b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", // Unicode Table 3-8
    b"\xC0\xAF",                                             // overlong: maximal vs structural
    b"\xE0\x80\x80\x41",
    b"\xED\xA0\x80\x41",                     // surrogate
    b"\xF4\x90\x80\x80",                     // above U+10FFFF
    b"\xE2\x82\x41",                         // prefix: maximal vs per-byte
    b"\x80\x80\x41",                         // stray continuations: per-run vs structural
    b"\x41\xE2\x82",                         // incomplete at the end
    b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41", // Unicode Table 3-9
    b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42", // Unicode Table 3-11
];

/// The bytes the reference splits `input` into: characters, and runs of
/// bytes that are maximal subparts (or an incomplete end).
enum Token<'a> {
    Char(char),
    Bad(&'a [u8]),
}

fn tokens(input: &[u8]) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < input.len() {
        match reference::first_sequence(&input[at..]) {
            Sequence::Char { scalar, len } => {
                out.push(Token::Char(scalar));
                at += len;
            }
            Sequence::IllFormed { subpart: len } | Sequence::Incomplete { len } => {
                out.push(Token::Bad(&input[at..at + len]));
                at += len;
            }
        }
    }
    out
}

/// How many bytes a lead byte announces by its high-order 1 bits (RFC 2279's
/// layout); 1 for a continuation byte, FE and FF.
fn announced_len(lead: u8) -> usize {
    match lead.leading_ones() {
        2..=6 => lead.leading_ones() as usize,
        _ => 1,
    }
}

/// The lossy output `policy` predicts for `input`, replacing with `r`.
pub fn predict(policy: Policy, input: &[u8], r: u32) -> Vec<u32> {
    let mut out = Vec::new();
    match policy {
        Policy::Structural => {
            let mut at = 0;
            while at < input.len() {
                if let Sequence::Char { scalar, len } = reference::first_sequence(&input[at..]) {
                    out.push(u32::from(scalar));
                    at += len;
                    continue;
                }
                let end = (at + announced_len(input[at])).min(input.len());
                let mut next = at + 1;
                while next < end && (0x80..=0xBF).contains(&input[next]) {
                    next += 1;
                }
                out.push(r);
                at = next;
            }
        }
        _ => {
            let mut in_run = false;
            for token in tokens(input) {
                match token {
                    Token::Char(c) => {
                        out.push(u32::from(c));
                        in_run = false;
                    }
                    Token::Bad(bytes) => {
                        match policy {
                            Policy::MaximalSubpart => out.push(r),
                            Policy::PerByte => out.extend(bytes.iter().map(|_| r)),
                            Policy::PerRun if !in_run => out.push(r),
                            Policy::PassThrough => out.extend(bytes.iter().map(|&b| u32::from(b))),
                            _ => {}
                        }
                        in_run = true;
                    }
                }
            }
        }
    }
    out
}

/// The inferred policy, with its replacement character and evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFinding {
    /// The policy.
    pub policy: Policy,
    /// The replacement character, if one was seen and it is not U+FFFD.
    pub replacement: Option<u32>,
    /// Every probe and answer.
    pub evidence: Vec<Evidence>,
}

/// Infers a decoder's policy from its lossy answers to [`POLICY_PROBES`]
/// (and to `41 80 42`, first, to learn its replacement character). `lossy`
/// is the decoder's lossy answer for an input, or `None` if it gave none.
pub fn infer_policy(lossy: impl Fn(&[u8]) -> Option<Vec<u32>>) -> PolicyFinding {
    let not_applicable = PolicyFinding {
        policy: Policy::NotApplicable,
        replacement: None,
        evidence: Vec::new(),
    };
    let Some(sample) = lossy(b"\x41\x80\x42") else {
        return not_applicable;
    };
    let r = match sample.as_slice() {
        [0x41, r, 0x42] => *r,
        _ => 0xFFFD,
    };
    let mut evidence = Vec::new();
    let mut answers = Vec::new();
    for probe in POLICY_PROBES {
        let got = lossy(probe).unwrap_or_default();
        evidence.push(Evidence {
            input: hex::encode(probe),
            got: got.clone(),
            maximal_subpart: predict(Policy::MaximalSubpart, probe, 0xFFFD),
        });
        answers.push((probe, got));
    }
    let policy = Policy::CANDIDATES
        .into_iter()
        .find(|&p| {
            answers
                .iter()
                .all(|(probe, got)| predict(p, probe, r) == *got)
        })
        .unwrap_or(Policy::Other);
    PolicyFinding {
        policy,
        replacement: (r != 0xFFFD && !matches!(policy, Policy::Drop | Policy::PassThrough))
            .then_some(r),
        evidence,
    }
}

/// An RFC 3629 §10 hazard (or a departure worth flagging) a decoder shows.
pub const FLAG_NAMES: &[(&str, &str)] = &[
    ("accepts-overlong-nul", "decodes C0 80 (an overlong U+0000)"),
    ("accepts-overlong-slash", "decodes 2F C0 AE 2E 2F as '/../' (RFC §10)"),
    ("accepts-overlongs", "decodes some other non-shortest form"),
    ("accepts-surrogates", "decodes ED A0 80 … as a surrogate code point"),
    ("joins-cesu8-pairs", "decodes the CESU-8 pair ED A1 8C ED BE B4 as U+233B4 (RFC §3)"),
    ("accepts-above-10ffff", "decodes F4 90 80 80 (U+110000) or other 4-byte forms above U+10FFFF"),
    ("accepts-5-6-byte-forms", "decodes RFC 2279's 5- or 6-byte sequences"),
    ("drops-ill-formed", "silently removes ill-formed bytes"),
    ("passes-through-ill-formed", "passes ill-formed bytes through as code points"),
    ("rejects-noncharacters", "treats noncharacters (U+FFFE, U+FDD0, U+10FFFF …) as errors"),
    ("encodes-surrogates", "encodes a surrogate as its 3-byte form (ED A0 80 …) instead of refusing it"),
    ("encodes-above-10ffff", "encodes 0x110000 or more in RFC 2279's long forms instead of refusing it"),
    ("replaces-unencodable", "encodes a surrogate or a value above U+10FFFF as a replacement (EF BF BD, '?') instead of refusing it"),
    ("encodes-wrong-bytes", "encodes a scalar value to bytes other than RFC 3629 §3's"),
];

/// Whether the decoder turned `input` into a character: it said the input
/// is valid, or its scalars or lossy output contain a value `bad` accepts.
fn decodes(answer: &Option<Answer>, bad: impl Fn(u32) -> bool) -> bool {
    let Some(a) = answer else { return false };
    a.valid == Some(true)
        || a.scalars.iter().flatten().any(|&c| bad(c))
        || a.lossy.iter().flatten().any(|&c| bad(c))
}

/// The decoder's answer to one probe (`None` on failure or no capability).
fn ask(decoder: &dyn Decoder, input: &[u8]) -> Option<Answer> {
    decoder.decode(input).ok()
}

/// The security flags for `decoder`, given its inferred policy.
pub fn security_flags(decoder: &dyn Decoder, policy: Policy) -> Vec<String> {
    let mut flags = Vec::new();
    let mut flag = |name: &str, on: bool| {
        if on {
            flags.push(name.to_string());
        }
    };
    flag(
        "accepts-overlong-nul",
        decodes(&ask(decoder, b"\xC0\x80"), |c| c == 0),
    );
    flag(
        "accepts-overlong-slash",
        ask(decoder, b"\x2F\xC0\xAE\x2E\x2F").is_some_and(|a| {
            a.valid == Some(true)
                || a.lossy.as_deref() == Some(&[0x2F, 0x2E, 0x2E, 0x2F])
                || a.scalars.as_deref() == Some(&[0x2F, 0x2E, 0x2E, 0x2F])
        }),
    );
    let overlongs: [&[u8]; 3] = [b"\xE0\x80\xAF", b"\xF0\x80\x80\xAF", b"\xC1\xBF"];
    flag(
        "accepts-overlongs",
        overlongs
            .iter()
            .any(|o| decodes(&ask(decoder, o), |c| c == 0x2F || c == 0x7F)),
    );
    flag(
        "accepts-surrogates",
        [&b"\xED\xA0\x80"[..], b"\xED\xBF\xBF"]
            .iter()
            .any(|s| decodes(&ask(decoder, s), |c| (0xD800..=0xDFFF).contains(&c))),
    );
    flag(
        "joins-cesu8-pairs",
        decodes(&ask(decoder, b"\xED\xA1\x8C\xED\xBE\xB4"), |c| c == 0x233B4),
    );
    flag(
        "accepts-above-10ffff",
        [
            &b"\xF4\x90\x80\x80"[..],
            b"\xF5\x80\x80\x80",
            b"\xF7\xBF\xBF\xBF",
        ]
        .iter()
        .any(|s| decodes(&ask(decoder, s), |c| c > 0x10FFFF)),
    );
    flag(
        "accepts-5-6-byte-forms",
        [
            &b"\xF8\x88\x80\x80\x80"[..],
            b"\xFC\x84\x80\x80\x80\x80",
            b"\xFD\xBF\xBF\xBF\xBF\xBF",
        ]
        .iter()
        .any(|s| decodes(&ask(decoder, s), |c| c >= 0x20_0000)),
    );
    // Judged directly on a lone continuation byte, not through the policy: a
    // decoder can drop bad bytes and still follow no single policy.
    let lone = ask(decoder, b"\x41\x80\x42").and_then(|a| a.lossy);
    flag(
        "drops-ill-formed",
        policy == Policy::Drop || lone.as_deref() == Some(&[0x41, 0x42]),
    );
    flag(
        "passes-through-ill-formed",
        policy == Policy::PassThrough
            || matches!(lone.as_deref(), Some([0x41, 0x80 | 0xDC80, 0x42])),
    );
    let nonchars: [(&[u8], u32); 4] = [
        (b"\xEF\xBF\xBE", 0xFFFE),
        (b"\xEF\xB7\x90", 0xFDD0),
        (b"\xEF\xBF\xBF", 0xFFFF),
        (b"\xF4\x8F\xBF\xBF", 0x10FFFF),
    ];
    flag(
        "rejects-noncharacters",
        nonchars.iter().any(|(bytes, c)| {
            ask(decoder, bytes).is_some_and(|a| {
                a.valid == Some(false) || a.lossy.as_ref().is_some_and(|l| !l.contains(c))
            })
        }),
    );
    if decoder.capabilities().has(Capability::Encode) {
        // What it produced for a value it should refuse: its RFC 2279-style
        // encoding (a hazard: a decoder as lax will read it back), or some
        // other replacement bytes.
        let produced = |v: u32| match decoder.encode(v) {
            Ok(EncodeAnswer::Bytes(b)) => Some(b),
            _ => None,
        };
        let generalized = |v: u32| {
            let len = match v {
                0..=0xFFFF => 3,
                0x1_0000..=0x1F_FFFF => 4,
                0x20_0000..=0x3FF_FFFF => 5,
                _ => 6,
            };
            crate::generate::encode_any(v, len)
        };
        let unencodable = [0xD800u32, 0xDFFF, 0x11_0000, 0x7FFF_FFFF];
        let surrogate_form = |v: u32| produced(v).is_some_and(|b| b == generalized(v));
        flag(
            "encodes-surrogates",
            surrogate_form(0xD800) || surrogate_form(0xDFFF),
        );
        flag(
            "encodes-above-10ffff",
            surrogate_form(0x11_0000) || surrogate_form(0x7FFF_FFFF),
        );
        flag(
            "replaces-unencodable",
            unencodable
                .iter()
                .any(|&v| produced(v).is_some_and(|b| b != generalized(v))),
        );
        flag(
            "encodes-wrong-bytes",
            [0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF].iter().any(|&v| {
                matches!(decoder.encode(v), Ok(EncodeAnswer::Bytes(b)) if reference::encode(v).as_ref() != Ok(&b))
            }),
        );
    }
    flags
}

/// What the decoder does with U+FEFF (RFC 3629 §6: a character, to be
/// kept): `keeps`, `strips-leading` (only at the start), `strips`, or
/// `n/a` (it returns no text).
pub fn bom_behaviour(decoder: &dyn Decoder) -> &'static str {
    let text = |input: &[u8]| ask(decoder, input).and_then(|a| a.scalars.or(a.lossy));
    let (Some(start), Some(middle)) = (text(b"\xEF\xBB\xBF\x41"), text(b"\x41\xEF\xBB\xBF\x42"))
    else {
        return "n/a";
    };
    match (start.first() == Some(&0xFEFF), middle.contains(&0xFEFF)) {
        (true, true) => "keeps",
        (false, true) => "strips-leading",
        (false, false) => "strips",
        (true, false) => "other",
    }
}

#[cfg(test)]
mod tests {
    //! Each prediction is checked against outputs written by hand from the
    //! policy's definition; then every policy is recovered from a decoder
    //! that implements it.
    use super::*;

    const F: u32 = 0xFFFD;

    #[test]
    fn predictions_on_an_overlong_and_a_prefix() {
        // C0 AF: maximal → 2 (C0 starts nothing, AF is a stray tail);
        // structural → 1 (C0 announces 2 bytes, AF is a tail).
        assert_eq!(predict(Policy::MaximalSubpart, b"\xC0\xAF", F), [F, F]);
        assert_eq!(predict(Policy::Structural, b"\xC0\xAF", F), [F]);
        // E2 82 41: maximal → 1 + A; per-byte → 2 + A.
        assert_eq!(
            predict(Policy::MaximalSubpart, b"\xE2\x82\x41", F),
            [F, 0x41]
        );
        assert_eq!(predict(Policy::PerByte, b"\xE2\x82\x41", F), [F, F, 0x41]);
        // 80 80 41: per-run → 1 + A; structural → 2 + A.
        assert_eq!(predict(Policy::PerRun, b"\x80\x80\x41", F), [F, 0x41]);
        assert_eq!(
            predict(Policy::Structural, b"\x80\x80\x41", F),
            [F, F, 0x41]
        );
        assert_eq!(predict(Policy::Drop, b"\x80\x80\x41", F), [0x41]);
        assert_eq!(predict(Policy::PassThrough, b"\x80\x41", F), [0x80, 0x41]);
    }

    #[test]
    fn every_pair_of_policies_is_told_apart_by_some_probe() {
        for a in Policy::CANDIDATES {
            for b in Policy::CANDIDATES {
                if a != b {
                    assert!(
                        POLICY_PROBES
                            .iter()
                            .any(|p| predict(a, p, F) != predict(b, p, F)),
                        "{a:?} vs {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_decoder_following_a_policy_is_classified_as_that_policy() {
        for policy in Policy::CANDIDATES {
            let found = infer_policy(|input| Some(predict(policy, input, F)));
            assert_eq!(found.policy, policy);
            assert_eq!(found.replacement, None);
        }
        // Maximal subparts replaced by '?' are still maximal subparts.
        let found = infer_policy(|input| Some(predict(Policy::MaximalSubpart, input, 0x3F)));
        assert_eq!(
            (found.policy, found.replacement),
            (Policy::MaximalSubpart, Some(0x3F))
        );
        // Something else entirely.
        let found = infer_policy(|input| Some(vec![input.len() as u32]));
        assert_eq!(found.policy, Policy::Other);
        assert_eq!(infer_policy(|_| None).policy, Policy::NotApplicable);
    }

    #[test]
    fn the_builtin_decoders_follow_maximal_subparts_and_raise_no_flag() {
        for d in crate::oracles::all_builtin() {
            if !d.capabilities().has(Capability::Lossy) {
                continue;
            }
            let found = infer_policy(|i| d.decode(i).ok().and_then(|a| a.lossy));
            assert_eq!(found.policy, Policy::MaximalSubpart, "{}", d.name());
            assert!(
                security_flags(d.as_ref(), found.policy).is_empty(),
                "{}",
                d.name()
            );
            assert_eq!(bom_behaviour(d.as_ref()), "keeps", "{}", d.name());
        }
    }
}
