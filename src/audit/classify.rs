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

use crate::decoder::{Reply, Request};
use crate::differential::{show_error_len, show_scalars};
use crate::hex;
use crate::outcome::{Answer, Capabilities, Capability, EncodeAnswer, Failure};
use crate::reference::{self, Sequence};
use crate::report::{Evidence, Flag, Probe};

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
    /// The answered probes fit more than one policy (some went unanswered).
    Undetermined,
    /// No probe was answered.
    NoAnswer,
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
            Policy::Undetermined => "undetermined",
            Policy::NoAnswer => "no-answer",
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

/// A decoder's lossy answer to a probe: its output, `Ok(None)` when it has
/// no lossy mode, `Err` (why) when it gave no answer.
pub type LossyAnswer = Result<Option<Vec<u32>>, String>;

/// Infers a decoder's policy from its lossy answers to [`POLICY_PROBES`]
/// (and to `41 80 42`, first, to learn its replacement character). A probe
/// that got no answer is evidence of nothing: the policy is inferred from
/// the answered probes, and is `undetermined` when they do not single one
/// out, `no-answer` when none was answered.
pub fn infer_policy(lossy: impl Fn(&[u8]) -> LossyAnswer) -> PolicyFinding {
    let r = match lossy(b"\x41\x80\x42") {
        Ok(None) => {
            return PolicyFinding {
                policy: Policy::NotApplicable,
                replacement: None,
                evidence: Vec::new(),
            }
        }
        Ok(Some(sample)) => match sample.as_slice() {
            [0x41, r, 0x42] => *r,
            _ => 0xFFFD,
        },
        Err(_) => 0xFFFD,
    };
    let mut evidence = Vec::new();
    let mut answers = Vec::new();
    for probe in POLICY_PROBES {
        let answer = lossy(probe);
        evidence.push(Evidence {
            input: hex::encode(probe),
            got: answer.clone().ok().flatten(),
            no_answer: answer.as_ref().err().cloned(),
            maximal_subpart: predict(Policy::MaximalSubpart, probe, 0xFFFD),
        });
        if let Ok(Some(got)) = answer {
            answers.push((probe, got));
        }
    }
    let matching: Vec<Policy> = Policy::CANDIDATES
        .into_iter()
        .filter(|&p| {
            answers
                .iter()
                .all(|(probe, got)| predict(p, probe, r) == *got)
        })
        .collect();
    let complete = answers.len() == POLICY_PROBES.len();
    let policy = match matching.as_slice() {
        _ if answers.is_empty() => Policy::NoAnswer,
        [] => Policy::Other,
        [one] => *one,
        [first, ..] if complete => *first,
        _ => Policy::Undetermined,
    };
    PolicyFinding {
        policy,
        replacement: (r != 0xFFFD
            && !matches!(
                policy,
                Policy::Drop | Policy::PassThrough | Policy::NoAnswer | Policy::Undetermined
            ))
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
    ("swallows-next-byte", "a truncated sequence takes the byte after it along (E2 82 41 loses the A): it can eat a delimiter such as \" or < (RFC §10)"),
    ("passes-through-lone-continuation", "a lone continuation byte at the start of the input comes out as a character"),
    ("drops-ill-formed", "silently removes ill-formed bytes"),
    ("passes-through-ill-formed", "passes ill-formed bytes through as code points"),
    ("rejects-noncharacters", "treats noncharacters (U+FFFE, U+FDD0, U+10FFFF …) as errors"),
    ("encodes-surrogates", "encodes a surrogate as its 3-byte form (ED A0 80 …) instead of refusing it"),
    ("encodes-above-10ffff", "encodes 0x110000 or more in RFC 2279's long forms instead of refusing it"),
    ("replaces-unencodable", "encodes a surrogate or a value above U+10FFFF as a replacement (EF BF BD, '?') instead of refusing it"),
    ("encodes-wrong-bytes", "encodes a scalar value to bytes other than RFC 3629 §3's"),
];

/// Every input the flags and the BOM are read from.
pub const FLAG_PROBES: &[&[u8]] = &[
    b"\xC0\x80",
    b"\x2F\xC0\xAE\x2E\x2F",
    b"\xE0\x80\xAF",
    b"\xF0\x80\x80\xAF",
    b"\xC1\xBF",
    b"\xED\xA0\x80",
    b"\xED\xBF\xBF",
    b"\xED\xA1\x8C\xED\xBE\xB4",
    b"\xF4\x90\x80\x80",
    b"\xF5\x80\x80\x80",
    b"\xF7\xBF\xBF\xBF",
    b"\xF8\x88\x80\x80\x80",
    b"\xFC\x84\x80\x80\x80\x80",
    b"\xFD\xBF\xBF\xBF\xBF\xBF",
    b"\xE2\x82\x41",
    b"\xE2\x82\x22",
    b"\xE2\x82\x3C",
    b"\xF0\x9F\x41",
    b"\xC3\x41",
    b"\x80\x41",
    b"\xBF\x41",
    b"\x41\x80\x42",
    b"\xEF\xBF\xBE",
    b"\xEF\xB7\x90",
    b"\xEF\xBF\xBF",
    b"\xF4\x8F\xBF\xBF",
    b"\xEF\xBF\xBD",
    b"\xEF\xB7\x8F",
    b"\xF4\x8F\xBF\xBD",
    b"\xEF\xBB\xBF\x41",
    b"\x41\xEF\xBB\xBF\x42",
];

/// Noncharacters, each with a scalar value of the same length next to it:
/// U+FFFE, U+FDD0, U+FFFF, U+10FFFF (neighbours U+FFFD, U+FDCF, U+FFFD,
/// U+10FFFD).
const NONCHARACTERS: &[(&[u8], &[u8])] = &[
    (b"\xEF\xBF\xBE", b"\xEF\xBF\xBD"),
    (b"\xEF\xB7\x90", b"\xEF\xB7\x8F"),
    (b"\xEF\xBF\xBF", b"\xEF\xBF\xBD"),
    (b"\xF4\x8F\xBF\xBF", b"\xF4\x8F\xBF\xBD"),
];

/// The numbers the encoding flags are read from.
pub const ENCODE_PROBES: &[u32] = &[
    0xD800,
    0xDFFF,
    0x11_0000,
    0x7FFF_FFFF,
    0x0,
    0x7F,
    0x80,
    0x7FF,
    0x800,
    0xFFFF,
    0x10000,
    0x10FFFF,
];

/// An answer in a line: what a flag's evidence shows.
pub fn show_answer(a: &Answer) -> String {
    let mut parts = Vec::new();
    if let Some(v) = a.valid {
        parts.push(format!("valid {v}"));
    }
    if let Some(s) = &a.scalars {
        parts.push(format!("scalars {}", show_scalars(s)));
    }
    if let Some(at) = a.valid_up_to {
        parts.push(format!("valid_up_to {at}"));
    }
    if let Some(len) = &a.error_len {
        parts.push(format!("error_len {}", show_error_len(len)));
    }
    if let Some(l) = &a.lossy {
        parts.push(format!("lossy {}", show_scalars(l)));
    }
    if parts.is_empty() {
        "(an answer with no field)".into()
    } else {
        parts.join(", ")
    }
}

/// Every code point an answer holds.
fn text(a: &Answer) -> impl Iterator<Item = u32> + '_ {
    a.scalars
        .iter()
        .flatten()
        .chain(a.lossy.iter().flatten())
        .copied()
}

/// The decoder's answers to the probes, by input; and to the encode
/// probes, by number.
pub struct Answers<'a> {
    /// Decode probes.
    pub decoded: &'a dyn Fn(&[u8]) -> Option<&'a Answer>,
    /// Encode probes (only asked of encoders).
    pub encoded: &'a dyn Fn(u32) -> Option<&'a EncodeAnswer>,
}

/// The flags the answers show, each with its evidence. A flag is raised
/// only on an answer that shows it: an accepting verdict or a decoded
/// value for what it names. An unanswered probe raises nothing.
pub fn security_flags(answers: &Answers, policy: Policy, encodes: bool) -> Vec<Flag> {
    let mut flags = Vec::new();
    // The flag, with the first probe of `inputs` whose answer shows it.
    let evidence = |name: &str, inputs: &[&[u8]], shows: &dyn Fn(&Answer) -> bool| {
        inputs.iter().find_map(|input| {
            (answers.decoded)(input).filter(|a| shows(a)).map(|a| Flag {
                flag: name.into(),
                input: hex::encode(input),
                answer: show_answer(a),
            })
        })
    };
    let check = evidence;
    let accepts_or_holds =
        |bad: fn(u32) -> bool| move |a: &Answer| a.valid == Some(true) || text(a).any(bad);
    flags.extend(check(
        "accepts-overlong-nul",
        &[b"\xC0\x80"],
        &accepts_or_holds(|c| c == 0),
    ));
    flags.extend(check(
        "accepts-overlong-slash",
        &[b"\x2F\xC0\xAE\x2E\x2F"],
        &|a| {
            a.valid == Some(true)
                || a.lossy.as_deref() == Some(&[0x2F, 0x2E, 0x2E, 0x2F])
                || a.scalars.as_deref() == Some(&[0x2F, 0x2E, 0x2E, 0x2F])
        },
    ));
    flags.extend(check(
        "accepts-overlongs",
        &[b"\xE0\x80\xAF", b"\xF0\x80\x80\xAF", b"\xC1\xBF"],
        &accepts_or_holds(|c| c == 0x2F || c == 0x7F),
    ));
    flags.extend(check(
        "accepts-surrogates",
        &[b"\xED\xA0\x80", b"\xED\xBF\xBF"],
        &accepts_or_holds(|c| (0xD800..=0xDFFF).contains(&c)),
    ));
    flags.extend(check(
        "joins-cesu8-pairs",
        &[b"\xED\xA1\x8C\xED\xBE\xB4"],
        &|a| text(a).any(|c| c == 0x233B4),
    ));
    flags.extend(check(
        "accepts-above-10ffff",
        &[
            b"\xF4\x90\x80\x80",
            b"\xF5\x80\x80\x80",
            b"\xF7\xBF\xBF\xBF",
        ],
        &accepts_or_holds(|c| c > 0x10FFFF),
    ));
    flags.extend(check(
        "accepts-5-6-byte-forms",
        &[
            b"\xF8\x88\x80\x80\x80",
            b"\xFC\x84\x80\x80\x80\x80",
            b"\xFD\xBF\xBF\xBF\xBF\xBF",
        ],
        &accepts_or_holds(|c| c >= 0x20_0000),
    ));
    // A truncated sequence then an ASCII byte: the maximal subpart ends
    // before the ASCII byte, which must come out (or, strictly, not be
    // counted in error_len).
    let swallow_probes: [(&[u8], u32, u8); 5] = [
        (b"\xE2\x82\x41", 0x41, 2),
        (b"\xE2\x82\x22", 0x22, 2),
        (b"\xE2\x82\x3C", 0x3C, 2),
        (b"\xF0\x9F\x41", 0x41, 2),
        (b"\xC3\x41", 0x41, 1),
    ];
    for (input, ascii, subpart) in swallow_probes {
        if let Some(a) = (answers.decoded)(input) {
            let lost = a.lossy.as_ref().is_some_and(|l| !l.contains(&ascii));
            let too_long =
                a.valid == Some(false) && matches!(a.error_len, Some(Some(n)) if n > subpart);
            if lost || too_long {
                flags.push(Flag {
                    flag: "swallows-next-byte".into(),
                    input: hex::encode(input),
                    answer: show_answer(a),
                });
                break;
            }
        }
    }
    flags.extend(check(
        "passes-through-lone-continuation",
        &[b"\x80\x41", b"\xBF\x41"],
        &|a| {
            text(a)
                .next()
                .is_some_and(|c| matches!(c, 0x80 | 0xBF | 0xDC80 | 0xDCBF))
        },
    ));
    let sample = (answers.decoded)(b"\x41\x80\x42");
    let lone = sample.and_then(|a| a.lossy.clone());
    if policy == Policy::Drop || lone.as_deref() == Some(&[0x41, 0x42]) {
        if let Some(a) = sample.filter(|_| lone.as_deref() == Some(&[0x41, 0x42])) {
            flags.push(Flag {
                flag: "drops-ill-formed".into(),
                input: "418042".into(),
                answer: show_answer(a),
            });
        }
    }
    if let Some(a) = sample.filter(|_| matches!(lone.as_deref(), Some([0x41, 0x80 | 0xDC80, 0x42])))
    {
        flags.push(Flag {
            flag: "passes-through-ill-formed".into(),
            input: "418042".into(),
            answer: show_answer(a),
        });
    }
    // Rejected: said invalid, or replaced (the probes are one noncharacter
    // each, so a U+FFFD in the output replaced it), while a scalar of the
    // same length next to it is accepted: a decoder that refuses every
    // 4-byte form, say, does not single noncharacters out. A wrong value
    // is an arithmetic bug (level V), not a rejection.
    let rejected = |a: &Answer| {
        a.valid == Some(false) || a.lossy.as_ref().is_some_and(|l| l.contains(&0xFFFD))
    };
    let accepted = |a: &Answer| {
        a.valid == Some(true)
            || (a.valid.is_none() && a.lossy.as_ref().is_some_and(|l| !l.contains(&0xFFFD)))
    };
    flags.extend(NONCHARACTERS.iter().find_map(|&(nonchar, neighbour)| {
        let a = (answers.decoded)(nonchar).filter(|a| rejected(a))?;
        let n = (answers.decoded)(neighbour).filter(|n| accepted(n))?;
        Some(Flag {
            flag: "rejects-noncharacters".into(),
            input: hex::encode(nonchar),
            answer: format!(
                "{}, while {} next to it is accepted: {}",
                show_answer(a),
                hex::encode(neighbour),
                show_answer(n)
            ),
        })
    }));
    if encodes {
        let produced = |v: u32| match (answers.encoded)(v) {
            Some(EncodeAnswer::Bytes(b)) => Some(b.clone()),
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
        let mut encode_flag = |name: &str, values: &[u32], shows: &dyn Fn(u32, &[u8]) -> bool| {
            if let Some((v, b)) = values
                .iter()
                .find_map(|&v| produced(v).filter(|b| shows(v, b)).map(|b| (v, b)))
            {
                flags.push(Flag {
                    flag: name.into(),
                    input: format!("U+{v:04X}"),
                    answer: format!("bytes {}", hex::encode(&b)),
                });
            }
        };
        encode_flag("encodes-surrogates", &[0xD800, 0xDFFF], &|v, b| {
            b == generalized(v)
        });
        encode_flag(
            "encodes-above-10ffff",
            &[0x11_0000, 0x7FFF_FFFF],
            &|v, b| b == generalized(v),
        );
        encode_flag(
            "replaces-unencodable",
            &[0xD800, 0xDFFF, 0x11_0000, 0x7FFF_FFFF],
            &|v, b| b != generalized(v),
        );
        encode_flag(
            "encodes-wrong-bytes",
            &[0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF],
            &|v, b| reference::encode(v).as_deref() != Ok(b),
        );
    }
    flags
}

/// Everything the classification found, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    /// The replacement policy.
    pub policy: PolicyFinding,
    /// The flags raised.
    pub flags: Vec<Flag>,
    /// The BOM behaviour.
    pub bom: &'static str,
    /// The BOM probes and answers.
    pub bom_evidence: Vec<Probe>,
}

/// Classifies a decoder claiming `caps` from its answers to every probe,
/// asked in one batch through `ask` (which answers each request in order,
/// as [`Decoder::ask`](crate::decoder::Decoder::ask) does).
pub fn classify(
    caps: Capabilities,
    ask: impl FnOnce(&[Request]) -> Vec<Result<Reply, Failure>>,
) -> Classification {
    let mut probes: Vec<Request> = POLICY_PROBES
        .iter()
        .chain(FLAG_PROBES)
        .map(|p| Request::Decode(p.to_vec()))
        .collect();
    if caps.has(Capability::Encode) {
        probes.extend(ENCODE_PROBES.iter().map(|&v| Request::Encode(v)));
    }
    let replies = ask(&probes);
    let mut decoded: Vec<(Vec<u8>, Result<Answer, String>)> = Vec::new();
    let mut encoded: Vec<(u32, EncodeAnswer)> = Vec::new();
    for (request, reply) in probes.iter().zip(replies) {
        match (request, reply) {
            (Request::Decode(b), Ok(Reply::Decoded(a))) => decoded.push((b.clone(), Ok(a))),
            (Request::Decode(b), Err(f)) => decoded.push((b.clone(), Err(f.to_string()))),
            (Request::Encode(v), Ok(Reply::Encoded(a))) => encoded.push((*v, a)),
            _ => {}
        }
    }
    let answer_of = |input: &[u8]| decoded.iter().find(|(b, _)| b == input).map(|(_, a)| a);
    let policy = infer_policy(|input| match answer_of(input) {
        _ if !caps.has(Capability::Lossy) => Ok(None),
        Some(Ok(a)) => Ok(a.lossy.clone()),
        Some(Err(why)) => Err(why.clone()),
        None => Err("not asked".into()),
    });
    let decoded_ok = |input: &[u8]| answer_of(input).and_then(|a| a.as_ref().ok());
    let encoded_of = |v: u32| encoded.iter().find(|(e, _)| *e == v).map(|(_, a)| a);
    let answers = Answers {
        decoded: &decoded_ok,
        encoded: &encoded_of,
    };
    let flags = security_flags(&answers, policy.policy, caps.has(Capability::Encode));
    let (bom, bom_evidence) = bom_behaviour(&answers);
    Classification {
        policy,
        flags,
        bom,
        bom_evidence,
    }
}

/// What the decoder does with U+FEFF (RFC 3629 §6: a character, to be
/// kept): `keeps`, `strips-leading` (only at the start), `strips`,
/// `other`, `no-answer` (a probe got none) or `n/a` (it returns no text);
/// and the probes it was read from.
pub fn bom_behaviour(answers: &Answers) -> (&'static str, Vec<Probe>) {
    let probes: [&[u8]; 2] = [b"\xEF\xBB\xBF\x41", b"\x41\xEF\xBB\xBF\x42"];
    let evidence = probes
        .iter()
        .map(|p| Probe {
            input: hex::encode(p),
            answer: (answers.decoded)(p).map_or("no answer".into(), show_answer),
        })
        .collect();
    let text_of = |input: &[u8]| {
        (answers.decoded)(input).map(|a| a.scalars.clone().or_else(|| a.lossy.clone()))
    };
    let behaviour = match (text_of(probes[0]), text_of(probes[1])) {
        (None, _) | (_, None) => "no-answer",
        (Some(Some(start)), Some(Some(middle))) => {
            match (start.first() == Some(&0xFEFF), middle.contains(&0xFEFF)) {
                (true, true) => "keeps",
                (false, true) => "strips-leading",
                (false, false) => "strips",
                (true, false) => "other",
            }
        }
        _ => "n/a",
    };
    (behaviour, evidence)
}

#[cfg(test)]
mod tests {
    //! Each prediction is checked against outputs written by hand from the
    //! policy's definition; then every policy is recovered from a decoder
    //! that implements it, and each flag from a decoder with that one bug.
    use super::*;
    use crate::decoder::Decoder;

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
            let found = infer_policy(|input| Ok(Some(predict(policy, input, F))));
            assert_eq!(found.policy, policy);
            assert_eq!(found.replacement, None);
        }
        // Maximal subparts replaced by '?' are still maximal subparts.
        let found = infer_policy(|input| Ok(Some(predict(Policy::MaximalSubpart, input, 0x3F))));
        assert_eq!(
            (found.policy, found.replacement),
            (Policy::MaximalSubpart, Some(0x3F))
        );
        // Something else entirely.
        let found = infer_policy(|input| Ok(Some(vec![input.len() as u32])));
        assert_eq!(found.policy, Policy::Other);
        assert_eq!(infer_policy(|_| Ok(None)).policy, Policy::NotApplicable);
    }

    #[test]
    fn a_probe_without_an_answer_is_no_evidence() {
        // A maximal-subpart decoder that times out on one probe: still
        // classified from the others, never as "other", and the evidence
        // says which probe went unanswered.
        let timeout = POLICY_PROBES[3];
        let found = infer_policy(|input| {
            if input == timeout {
                Err("timeout: no answer within 5 s".into())
            } else {
                Ok(Some(predict(Policy::MaximalSubpart, input, F)))
            }
        });
        assert_ne!(found.policy, Policy::Other);
        let e = found
            .evidence
            .iter()
            .find(|e| e.input == hex::encode(timeout))
            .unwrap();
        assert_eq!((e.got.as_ref(), e.no_answer.is_some()), (None, true));
        assert_eq!(
            infer_policy(|_| Err("crash".into())).policy,
            Policy::NoAnswer
        );
    }

    /// The flags of a decoder given as a function from input to answer.
    fn flags_of(decode: impl Fn(&[u8]) -> Option<Answer>) -> Vec<String> {
        let answers: Vec<(&[u8], Answer)> = FLAG_PROBES
            .iter()
            .filter_map(|p| decode(p).map(|a| (*p, a)))
            .collect();
        let decoded = |input: &[u8]| answers.iter().find(|(p, _)| *p == input).map(|(_, a)| a);
        let encoded = |_: u32| None;
        let flags = security_flags(
            &Answers {
                decoded: &decoded,
                encoded: &encoded,
            },
            Policy::MaximalSubpart,
            false,
        );
        assert!(flags
            .iter()
            .all(|f| !f.input.is_empty() && !f.answer.is_empty()));
        flags.into_iter().map(|f| f.flag).collect()
    }

    fn std_answer(input: &[u8]) -> Answer {
        crate::decoders::StdDecoder.decode(input).unwrap()
    }

    #[test]
    fn a_flag_needs_an_answer_that_shows_it() {
        // Accepting lone surrogates (as two code points) is not joining
        // a CESU-8 pair.
        let lone = |input: &[u8]| {
            let mut a = std_answer(input);
            if input.starts_with(b"\xED") {
                a = Answer {
                    valid: Some(true),
                    scalars: Some(vec![0xD800, 0xDC00]),
                    ..Answer::default()
                };
            }
            Some(a)
        };
        let flags = flags_of(lone);
        assert!(flags.contains(&"accepts-surrogates".into()), "{flags:?}");
        assert!(!flags.contains(&"joins-cesu8-pairs".into()), "{flags:?}");
        // Decoding U+FFFF to a wrong value is not rejecting it.
        let arithmetic = |input: &[u8]| {
            let mut a = std_answer(input);
            if input == b"\xEF\xBF\xBF" {
                a.scalars = Some(vec![0xFFFE]);
                a.lossy = Some(vec![0xFFFE]);
            }
            Some(a)
        };
        assert!(!flags_of(arithmetic).contains(&"rejects-noncharacters".into()));
        // Refusing every 4-byte form refuses U+10FFFF too, but does not
        // single noncharacters out; refusing U+FFFF while taking U+FFFD
        // does.
        let no_four = |input: &[u8]| {
            let mut a = std_answer(input);
            if input.first().is_some_and(|&b| b >= 0xF0) {
                a = Answer {
                    valid: Some(false),
                    ..Answer::default()
                };
            }
            Some(a)
        };
        assert!(!flags_of(no_four).contains(&"rejects-noncharacters".into()));
        let picky = |input: &[u8]| {
            let mut a = std_answer(input);
            if input == b"\xEF\xBF\xBF" {
                a = Answer {
                    valid: Some(false),
                    ..Answer::default()
                };
            }
            Some(a)
        };
        assert!(flags_of(picky).contains(&"rejects-noncharacters".into()));
        // A probe that crashed raises nothing.
        assert!(
            flags_of(|input: &[u8]| (input != b"\xC0\x80").then(|| std_answer(input))).is_empty()
        );
        assert!(flags_of(|input: &[u8]| Some(std_answer(input))).is_empty());
    }

    #[test]
    fn swallowing_the_next_byte_and_passing_a_lone_continuation_are_named() {
        let swallow = |input: &[u8]| {
            let mut a = std_answer(input);
            if input == b"\xE2\x82\x41" {
                a.lossy = Some(vec![F]);
            }
            Some(a)
        };
        assert_eq!(flags_of(swallow), ["swallows-next-byte"]);
        let latin1 = |input: &[u8]| {
            let mut a = std_answer(input);
            if input[0] == 0x80 {
                a.lossy = Some(input.iter().map(|&b| u32::from(b)).collect());
            }
            Some(a)
        };
        assert_eq!(flags_of(latin1), ["passes-through-lone-continuation"]);
    }

    #[test]
    fn the_builtin_decoders_follow_maximal_subparts_and_raise_no_flag() {
        for d in crate::decoders::all_builtin() {
            if !d.capabilities().has(Capability::Lossy) {
                continue;
            }
            let found = infer_policy(|i| Ok(d.decode(i).ok().and_then(|a| a.lossy)));
            assert_eq!(found.policy, Policy::MaximalSubpart, "{}", d.name());
            let answers: Vec<(&[u8], Answer)> = FLAG_PROBES
                .iter()
                .map(|p| (*p, d.decode(p).unwrap()))
                .collect();
            let decoded = |input: &[u8]| answers.iter().find(|(p, _)| *p == input).map(|(_, a)| a);
            let encoded = |_: u32| None;
            let answers = Answers {
                decoded: &decoded,
                encoded: &encoded,
            };
            assert!(
                security_flags(&answers, found.policy, false).is_empty(),
                "{}",
                d.name()
            );
            assert_eq!(bom_behaviour(&answers).0, "keeps", "{}", d.name());
        }
    }

    #[test]
    fn policy_names_are_the_report_schemas() {
        // The report's JSON Schema (src/report.schema.json) lists the
        // policy names a report may hold; each policy has one of them, and
        // no two share one.
        let schema: serde_json::Value =
            serde_json::from_str(crate::report::SCHEMA_JSON).expect("the schema is JSON");
        // The first "policy" property with an "enum", wherever it is.
        fn find(v: &serde_json::Value) -> Option<&serde_json::Value> {
            match v {
                serde_json::Value::Object(m) => m
                    .get("policy")
                    .and_then(|p| p.get("enum"))
                    .or_else(|| m.values().find_map(find)),
                serde_json::Value::Array(a) => a.iter().find_map(find),
                _ => None,
            }
        }
        let names: Vec<&str> = find(&schema)
            .and_then(serde_json::Value::as_array)
            .expect("the schema names the policies")
            .iter()
            .map(|n| n.as_str().expect("a name"))
            .collect();
        let all = Policy::CANDIDATES.into_iter().chain([
            Policy::Other,
            Policy::Undetermined,
            Policy::NoAnswer,
            Policy::NotApplicable,
        ]);
        let mut seen = std::collections::HashSet::new();
        for p in all {
            assert!(names.contains(&p.as_str()), "{p:?} is {:?}", p.as_str());
            assert!(seen.insert(p.as_str()), "{p:?} shares its name");
        }
        assert_eq!(seen.len(), names.len(), "a schema name no policy has");
    }

    /// std's lossy decoding (one U+FFFD per maximal subpart), as code
    /// points: an implementation of the maximal-subpart policy that is not
    /// this module's.
    fn std_lossy(input: &[u8]) -> LossyAnswer {
        Ok(Some(
            String::from_utf8_lossy(input)
                .chars()
                .map(u32::from)
                .collect(),
        ))
    }

    #[test]
    fn a_per_run_decoder_written_from_std_is_per_run() {
        // One U+FFFD per run of consecutive ill-formed bytes, written from
        // std's chunks (each a valid part and the ill-formed bytes after
        // it), not from `predict`.
        let per_run = |input: &[u8]| -> LossyAnswer {
            let mut out = Vec::new();
            let mut in_run = false;
            for chunk in input.utf8_chunks() {
                if !chunk.valid().is_empty() {
                    out.extend(chunk.valid().chars().map(u32::from));
                    in_run = false;
                }
                if !chunk.invalid().is_empty() && !in_run {
                    out.push(F);
                    in_run = true;
                }
            }
            Ok(Some(out))
        };
        assert_eq!(infer_policy(per_run).policy, Policy::PerRun);
        assert_eq!(infer_policy(std_lossy).policy, Policy::MaximalSubpart);
    }

    #[test]
    fn unanswered_probes_leave_a_policy_undetermined_only_if_several_fit() {
        // Only F4 90 80 80 answered (and the replacement probe): a maximal-
        // subpart decoder and a per-byte one both give four U+FFFD there,
        // and the probes that would tell them apart went unanswered.
        let only = |kept: &'static [&'static [u8]]| {
            move |input: &[u8]| -> LossyAnswer {
                if kept.contains(&input) || input == b"\x41\x80\x42" {
                    std_lossy(input)
                } else {
                    Err("timeout: no answer within 5 s".into())
                }
            }
        };
        assert_eq!(
            infer_policy(only(&[b"\xF4\x90\x80\x80"])).policy,
            Policy::Undetermined
        );
        // E2 82 41 (one U+FFFD for the prefix, not two: not per byte) and
        // C0 AF (two, not one: neither structural nor per run) fit maximal
        // subparts only: one policy fits what was answered, so it is that
        // policy.
        assert_eq!(
            infer_policy(only(&[b"\xE2\x82\x41", b"\xC0\xAF"])).policy,
            Policy::MaximalSubpart
        );
    }

    /// A flag's evidence shows the decoder's answer field by field, in the
    /// protocol's own words (`valid`, `valid_up_to`, `error_len`, `lossy`)
    /// and code points as U+ notation, so a reader can check the claim.
    #[test]
    fn an_answer_is_shown_field_by_field() {
        let rejected = Answer {
            valid: Some(false),
            valid_up_to: Some(1),
            error_len: Some(Some(2)),
            lossy: Some(vec![0x41, F]),
            ..Answer::default()
        };
        let shown = show_answer(&rejected);
        for part in [
            "valid false",
            "valid_up_to 1",
            "error_len 2",
            "lossy [U+0041 U+FFFD]",
        ] {
            assert!(shown.contains(part), "{part:?} missing from {shown:?}");
        }
        let accepted = Answer {
            valid: Some(true),
            scalars: Some(vec![0xD800]),
            ..Answer::default()
        };
        let shown = show_answer(&accepted);
        for part in ["valid true", "scalars [U+D800]"] {
            assert!(shown.contains(part), "{part:?} missing from {shown:?}");
        }
        let incomplete = Answer {
            error_len: Some(None),
            ..Answer::default()
        };
        assert!(show_answer(&incomplete).contains("error_len null"));
    }

    /// std's answers but one: `probe` answered `answer`.
    fn std_but(probe: &'static [u8], answer: Answer) -> impl Fn(&[u8]) -> Option<Answer> {
        move |input| {
            Some(if input == probe {
                answer.clone()
            } else {
                std_answer(input)
            })
        }
    }

    /// Each flag is raised by each kind of answer that shows it: a
    /// validator's accepting verdict alone, a lossy text alone, decoded
    /// scalars alone; and by nothing that does not (a value at the limit
    /// is not above it). Expected flags are those the flag's name states,
    /// one bug at a time.
    #[test]
    fn each_kind_of_answer_can_show_a_flag() {
        let valid = |v| Answer {
            valid: Some(v),
            ..Answer::default()
        };
        let lossy = |l: &[u32]| Answer {
            valid: Some(false),
            lossy: Some(l.to_vec()),
            ..Answer::default()
        };
        let cases: [(&[u8], Answer, &[&str]); 10] = [
            // A validator that accepts C0 80 shows no text.
            (b"\xC0\x80", valid(true), &["accepts-overlong-nul"]),
            (b"\xC0\x80", lossy(&[0]), &["accepts-overlong-nul"]),
            // "/../" read from an overlong dot, as lossy text alone or
            // as scalars alone (a decoder that claims no validity).
            (
                b"\x2F\xC0\xAE\x2E\x2F",
                Answer {
                    lossy: Some(vec![0x2F, 0x2E, 0x2E, 0x2F]),
                    ..Answer::default()
                },
                &["accepts-overlong-slash"],
            ),
            (
                b"\x2F\xC0\xAE\x2E\x2F",
                Answer {
                    scalars: Some(vec![0x2F, 0x2E, 0x2E, 0x2F]),
                    ..Answer::default()
                },
                &["accepts-overlong-slash"],
            ),
            (b"\xE0\x80\xAF", lossy(&[0x2F]), &["accepts-overlongs"]),
            (b"\xC1\xBF", lossy(&[0x7F]), &["accepts-overlongs"]),
            (
                b"\xF4\x90\x80\x80",
                lossy(&[0x11_0000]),
                &["accepts-above-10ffff"],
            ),
            // U+10FFFF is the last scalar value, not above it.
            (b"\xF4\x90\x80\x80", lossy(&[0x10_FFFF]), &[]),
            // A strict decoder whose error_len runs over the ASCII byte.
            (
                b"\xE2\x82\x41",
                Answer {
                    valid: Some(false),
                    valid_up_to: Some(0),
                    error_len: Some(Some(3)),
                    ..Answer::default()
                },
                &["swallows-next-byte"],
            ),
            // Dropping the lone continuation, whatever policy the other
            // probes showed.
            (b"\x41\x80\x42", lossy(&[0x41, 0x42]), &["drops-ill-formed"]),
        ];
        for (probe, answer, want) in cases {
            let shown = format!("{probe:02X?} answered {answer:?}");
            assert_eq!(flags_of(std_but(probe, answer)), want, "{shown}");
        }
    }

    /// The flags of an encoder (std's answers to the decode probes).
    fn encode_flags_of(encode: impl Fn(u32) -> EncodeAnswer) -> Vec<String> {
        let answers: Vec<(u32, EncodeAnswer)> =
            ENCODE_PROBES.iter().map(|&v| (v, encode(v))).collect();
        let decoded: Vec<(&[u8], Answer)> =
            FLAG_PROBES.iter().map(|p| (*p, std_answer(p))).collect();
        let decoded = |input: &[u8]| decoded.iter().find(|(p, _)| *p == input).map(|(_, a)| a);
        let encoded = |v: u32| answers.iter().find(|(n, _)| *n == v).map(|(_, a)| a);
        let answers = Answers {
            decoded: &decoded,
            encoded: &encoded,
        };
        let flags = security_flags(&answers, Policy::MaximalSubpart, true);
        flags.into_iter().map(|f| f.flag).collect()
    }

    /// std's encoder, with `odd` deciding the answer where it returns one.
    fn std_encoder_but(odd: impl Fn(u32) -> Option<Vec<u8>>) -> impl Fn(u32) -> EncodeAnswer {
        move |v| match odd(v) {
            Some(bytes) => EncodeAnswer::Bytes(bytes),
            None => crate::decoders::StdDecoder
                .encode(v)
                .expect("std answers every number"),
        }
    }

    /// Each encoding flag from an encoder with that one bug, the bytes
    /// written by hand from RFC 2279's generalized patterns (3 bytes for a
    /// surrogate, 4 up to U+1FFFFF, 6 for U+7FFFFFFF) and RFC 3629's
    /// table.
    #[test]
    fn each_encoding_flag_from_an_encoder_with_that_bug() {
        let generalized = |v: u32| match v {
            0xD800 => Some(vec![0xED, 0xA0, 0x80]),
            0xDFFF => Some(vec![0xED, 0xBF, 0xBF]),
            0x11_0000 => Some(vec![0xF4, 0x90, 0x80, 0x80]),
            0x7FFF_FFFF => Some(vec![0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]),
            _ => None,
        };
        let surrogates = |v| generalized(v).filter(|_| v < 0x11_0000);
        let above = |v| generalized(v).filter(|_| v >= 0x11_0000);
        let beyond_four = |v| generalized(v).filter(|_| v > 0x1F_FFFF);
        let replaced = |v| generalized(v).map(|_| vec![0xEF, 0xBF, 0xBD]);
        let wrong = |v| (v == 0x80).then(|| vec![0xC2, 0x81]);
        let none = |_| None;
        let cases: [(&str, Vec<String>, &[&str]); 6] = [
            ("std", encode_flags_of(std_encoder_but(none)), &[]),
            (
                "surrogates",
                encode_flags_of(std_encoder_but(surrogates)),
                &["encodes-surrogates"],
            ),
            (
                "above",
                encode_flags_of(std_encoder_but(above)),
                &["encodes-above-10ffff"],
            ),
            (
                "6 bytes",
                encode_flags_of(std_encoder_but(beyond_four)),
                &["encodes-above-10ffff"],
            ),
            (
                "U+FFFD",
                encode_flags_of(std_encoder_but(replaced)),
                &["replaces-unencodable"],
            ),
            (
                "C2 81",
                encode_flags_of(std_encoder_but(wrong)),
                &["encodes-wrong-bytes"],
            ),
        ];
        for (bug, flags, want) in cases {
            assert_eq!(flags, want, "{bug}");
        }
    }

    /// A decoder that gives lossy text alone (no verdict) rejects a
    /// noncharacter by replacing it, and accepts its neighbour by
    /// returning it; replacing both singles nothing out.
    #[test]
    fn noncharacters_judged_from_lossy_text_alone() {
        let lossy_only = |replace: Vec<&'static [u8]>| {
            move |input: &[u8]| {
                let lossy = if replace.contains(&input) {
                    vec![F]
                } else {
                    std_answer(input).lossy.expect("std replaces")
                };
                Some(Answer {
                    lossy: Some(lossy),
                    ..Answer::default()
                })
            }
        };
        let fdd0: &'static [u8] = b"\xEF\xB7\x90";
        let fdcf: &'static [u8] = b"\xEF\xB7\x8F";
        let flags = flags_of(lossy_only(vec![fdd0]));
        assert!(flags.contains(&"rejects-noncharacters".into()), "{flags:?}");
        let flags = flags_of(lossy_only(vec![fdd0, fdcf]));
        assert!(
            !flags.contains(&"rejects-noncharacters".into()),
            "{flags:?}"
        );
    }

    /// `classify` asks every probe in one batch and reads each reply back
    /// by its request: std (through its own `ask`) follows maximal
    /// subparts, raises no flag and keeps a BOM; a probe that failed shows
    /// the failure as its evidence; an encode reply is read as one.
    #[test]
    fn classify_reads_each_reply_by_its_request() {
        let std = crate::decoders::StdDecoder;
        let caps = std.capabilities();
        assert!(caps.has(Capability::Lossy) && caps.has(Capability::Encode));
        let found = classify(caps, |requests| std.ask(requests));
        assert_eq!(found.policy.policy, Policy::MaximalSubpart);
        assert!(found.flags.is_empty(), "{:?}", found.flags);
        assert_eq!(found.bom, "keeps");

        let failing = POLICY_PROBES[3];
        let found = classify(caps, |requests| {
            std.ask(requests)
                .into_iter()
                .zip(requests)
                .map(|(reply, request)| match request {
                    Request::Decode(b) if b == failing => Err(Failure {
                        kind: crate::outcome::FailureKind::Crash,
                        detail: "exited".into(),
                    }),
                    Request::Encode(0x80) => {
                        Ok(Reply::Encoded(EncodeAnswer::Bytes(vec![0xC2, 0x81])))
                    }
                    _ => reply,
                })
                .collect()
        });
        let e = found
            .policy
            .evidence
            .iter()
            .find(|e| e.input == hex::encode(failing))
            .expect("the failed probe is evidence");
        assert!(
            e.no_answer
                .as_deref()
                .is_some_and(|why| why.contains("crash")),
            "{e:?}"
        );
        let flags: Vec<&str> = found.flags.iter().map(|f| f.flag.as_str()).collect();
        assert_eq!(flags, ["encodes-wrong-bytes"]);
        assert_eq!(found.bom, "keeps");

        // A BOM probe without an answer: its behaviour is unknown.
        let bom_probe: &[u8] = b"\x41\xEF\xBB\xBF\x42";
        let found = classify(caps, |requests| {
            std.ask(requests)
                .into_iter()
                .zip(requests)
                .map(|(reply, request)| match request {
                    Request::Decode(b) if b == bom_probe => Err(Failure {
                        kind: crate::outcome::FailureKind::Timeout,
                        detail: "5 s".into(),
                    }),
                    _ => reply,
                })
                .collect()
        });
        assert_eq!(found.bom, "no-answer");
        assert_eq!(found.policy.policy, Policy::MaximalSubpart);

        // A validator's answers carry std's lossy text here, but it claims
        // no lossy mode: no policy is read from text it does not claim.
        let validate = Capabilities::NONE.with(Capability::Validate);
        let found = classify(validate, |requests| std.ask(requests));
        assert_eq!(found.policy.policy, Policy::NotApplicable);
    }
}
