//! Running decoders over the vectors and scoring them per level.
//!
//! Expectations come from the vector files themselves (which the generator
//! cross-checked against hand-written pins), not from the reference decoder
//! at run time. Each decoder is scored only on the levels it claims.

use super::{Case, VectorFile};
use crate::differential::{self, Field, Mismatch};
use crate::hex;
use crate::oracles::Decoder;
use crate::outcome::{Capability, EncodeError};
use std::collections::{BTreeMap, BTreeSet};

/// A decoder that is known to disagree with the vectors on a level, and why.
/// Such a disagreement is still reported, but does not fail the run: it is a
/// documented property of that library, not a regression.
#[derive(Clone, Copy, Debug)]
pub struct KnownDivergence {
    /// The decoder's name.
    pub decoder: &'static str,
    /// The level letter.
    pub level: char,
    /// Why it diverges (a documented behaviour of the library).
    pub reason: &'static str,
}

/// The one place where expected divergences of built-in decoders are listed.
/// Empty: every built-in decoder agrees with the vectors on every level it
/// claims (checked by `cargo test` and `utf8conform vectors check`).
pub const KNOWN_DIVERGENCES: &[KnownDivergence] = &[];

/// The known divergence for `decoder` on `level`, if any.
pub fn known(decoder: &str, level: char) -> Option<&'static KnownDivergence> {
    KNOWN_DIVERGENCES
        .iter()
        .find(|k| k.decoder == decoder && k.level == level)
}

/// One case a decoder got wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFailure {
    /// The decoder.
    pub decoder: String,
    /// The vector file's category.
    pub category: String,
    /// The case id.
    pub id: String,
    /// The input: bytes in hex, or `U+XXXX` for an encode case.
    pub input: String,
    /// What differed.
    pub mismatch: Mismatch,
}

/// Cases run and cases failed, for one decoder on one category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Cases the decoder was asked (those its capabilities cover).
    pub run: usize,
    /// Cases with at least one mismatch.
    pub failed: usize,
}

/// The outcome of running decoders over vector files.
#[derive(Clone, Debug, Default)]
pub struct VectorRun {
    /// Per (decoder, category).
    pub tallies: BTreeMap<(String, String), Tally>,
    /// Every failed case, in file order.
    pub failures: Vec<CaseFailure>,
    /// Per decoder, the levels it claims and failed.
    pub failed_levels: BTreeMap<String, BTreeSet<char>>,
}

impl VectorRun {
    /// Decoders that failed a claimed level not listed in
    /// [`KNOWN_DIVERGENCES`], with those levels.
    pub fn unexpected(&self) -> Vec<(String, Vec<char>)> {
        self.failed_levels
            .iter()
            .map(|(d, levels)| {
                let bad: Vec<char> = levels
                    .iter()
                    .copied()
                    .filter(|&l| known(d, l).is_none())
                    .collect();
                (d.clone(), bad)
            })
            .filter(|(_, bad)| !bad.is_empty())
            .collect()
    }
}

/// Runs every case of `files` through every decoder.
pub fn run(files: &[VectorFile], decoders: &[Box<dyn Decoder>]) -> VectorRun {
    let mut result = VectorRun::default();
    for decoder in decoders {
        result
            .failed_levels
            .entry(decoder.name().to_string())
            .or_default();
        for file in files {
            run_file(file, decoder.as_ref(), &mut result);
        }
    }
    result
}

fn run_file(file: &VectorFile, decoder: &dyn Decoder, result: &mut VectorRun) {
    let caps = decoder.capabilities();
    let name = decoder.name().to_string();
    let mut tally = Tally::default();
    let mut record =
        |id: &str, input: String, mismatches: Vec<Mismatch>, result: &mut VectorRun| {
            tally.run += 1;
            if !mismatches.is_empty() {
                tally.failed += 1;
            }
            for mismatch in mismatches {
                result
                    .failed_levels
                    .entry(name.clone())
                    .or_default()
                    .insert(mismatch.field.level());
                result.failures.push(CaseFailure {
                    decoder: name.clone(),
                    category: file.category.clone(),
                    id: id.to_string(),
                    input: input.clone(),
                    mismatch,
                });
            }
        };
    let decode_cases: Vec<_> = file
        .cases
        .iter()
        .filter_map(|c| match c {
            Case::Decode(d) => Some(d),
            Case::Encode(_) => None,
        })
        .collect();
    let decodes = caps.has(Capability::Validate)
        || caps.has(Capability::Lossy)
        || caps.has(Capability::Decode);
    if decodes && !decode_cases.is_empty() {
        let inputs: Vec<Vec<u8>> = decode_cases.iter().map(|c| c.input()).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let answers = decoder.decode_batch(&refs);
        for ((case, input), answer) in decode_cases.iter().zip(&inputs).zip(answers) {
            let expected = case.expected();
            let mut mismatches = match answer {
                Ok(got) => differential::compare(&expected, &got, caps),
                Err(failure) => vec![Mismatch {
                    field: Field::Failure,
                    expected: "an answer".into(),
                    got: failure.to_string(),
                }],
            };
            if caps.has(Capability::Stream) {
                // Every single split point, including both ends.
                for cut in 0..=input.len() {
                    let (a, b) = input.split_at(cut);
                    let m = differential::compare_chunked(decoder, &expected, &[a, b]);
                    if !m.is_empty() {
                        mismatches.extend(m);
                        break;
                    }
                }
            }
            record(&case.id, case.bytes.clone(), mismatches, result);
        }
    }
    if caps.has(Capability::Encode) {
        for case in file.cases.iter().filter_map(|c| match c {
            Case::Encode(e) => Some(e),
            Case::Decode(_) => None,
        }) {
            let expected = match (&case.bytes, case.error.as_deref()) {
                (Some(b), _) => Ok(hex::decode(b).expect("hex checked at load time")),
                (None, Some("surrogate")) => Err(EncodeError::Surrogate),
                _ => Err(EncodeError::OutOfRange),
            };
            let mismatches = match decoder.encode(case.scalar) {
                Ok(got) => differential::compare_encode(case.scalar, &expected, &got)
                    .into_iter()
                    .collect(),
                Err(failure) => vec![Mismatch {
                    field: Field::Failure,
                    expected: "an answer".into(),
                    got: failure.to_string(),
                }],
            };
            record(
                &case.id,
                format!("U+{:04X}", case.scalar),
                mismatches,
                result,
            );
        }
    }
    if tally.run > 0 {
        result
            .tallies
            .insert((name.clone(), file.category.clone()), tally);
    }
}
