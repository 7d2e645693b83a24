//! Running decoders over the vectors and scoring them per level.
//!
//! Expectations come from the vector files themselves (which the generator
//! cross-checked against hand-written pins), not from the reference decoder
//! at run time. Each decoder is scored only on the levels it claims.

use super::{Case, VectorFile};
use crate::decoder::{self as dec, Decoder, Reply, Request};
use crate::differential::{self, Asked, Mismatch};
use crate::hex;
use crate::level::Level;
use crate::outcome::{Capability, EncodeError, StreamRun};
use crate::reference;
use std::collections::{BTreeMap, BTreeSet};

/// A decoder that is known to disagree with the vectors on a level, and why.
/// Such a disagreement is still reported, but does not fail the run: it is a
/// documented property of that library, not a regression.
#[derive(Clone, Copy, Debug)]
pub struct KnownDivergence {
    /// The decoder's name.
    pub decoder: &'static str,
    /// The level.
    pub level: Level,
    /// Why it diverges (a documented behaviour of the library).
    pub reason: &'static str,
}

/// The one place where expected divergences of built-in decoders are listed.
/// Empty: every built-in decoder agrees with the vectors on every level it
/// claims (checked by `cargo test` and `utf8conform vectors check`).
pub const KNOWN_DIVERGENCES: &[KnownDivergence] = &[];

/// The known divergence for `decoder` on `level`, if any.
pub fn known(decoder: &str, level: Level) -> Option<&'static KnownDivergence> {
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
    pub failed_levels: BTreeMap<String, BTreeSet<Level>>,
    /// Per decoder, the cases it gave no answer for (crash, timeout…).
    pub unanswered: BTreeMap<String, u64>,
    /// Streaming requests made.
    pub streams: u64,
}

impl VectorRun {
    /// Decoders that failed a claimed level not listed in
    /// [`KNOWN_DIVERGENCES`], with those levels.
    pub fn unexpected(&self) -> Vec<(String, Vec<Level>)> {
        self.failed_levels
            .iter()
            .map(|(d, levels)| {
                let bad: Vec<Level> = levels
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
    let decoders: Vec<&dyn Decoder> = decoders.iter().map(|d| d.as_ref()).collect();
    run_dyn(files, &decoders)
}

/// [`run`] for borrowed decoders.
pub fn run_dyn(files: &[VectorFile], decoders: &[&dyn Decoder]) -> VectorRun {
    let mut result = VectorRun::default();
    for &decoder in decoders {
        result
            .failed_levels
            .entry(decoder.name().to_string())
            .or_default();
        for file in files {
            run_file(file, decoder, &mut result);
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
                match mismatch.field.level() {
                    Some(level) => {
                        result
                            .failed_levels
                            .entry(name.clone())
                            .or_default()
                            .insert(level);
                    }
                    None => *result.unanswered.entry(name.clone()).or_default() += 1,
                }
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
            _ => None,
        })
        .collect();
    let decodes = decode_cases
        .first()
        .is_some_and(|c| Case::Decode((*c).clone()).runs_on(caps));
    if decodes && !decode_cases.is_empty() {
        let inputs: Vec<Vec<u8>> = decode_cases.iter().map(|c| c.input()).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let answers = dec::decode_batch(decoder, &refs);
        let mut per_case: Vec<Vec<Mismatch>> = decode_cases
            .iter()
            .zip(answers)
            .map(|(case, answer)| match answer {
                Ok(got) => differential::compare(&case.expected(), &got, caps),
                Err(failure) => vec![differential::failure_mismatch(Asked::Decode, &failure)],
            })
            .collect();
        // Level C: every chunking of each case (see [`chunkings`]), in
        // every mode the decoder streams in, one pipelined batch; a case
        // keeps its first streaming mismatch.
        let mut requests = Vec::new();
        let mut owner = Vec::new();
        for (k, input) in inputs.iter().enumerate() {
            for mode in caps.stream_modes() {
                for run in chunkings(input) {
                    requests.push(Request::Stream(mode, run));
                    owner.push(k);
                }
            }
        }
        result.streams += requests.len() as u64;
        let mut streamed = vec![false; inputs.len()];
        for ((request, reply), &k) in requests.iter().zip(decoder.ask(&requests)).zip(&owner) {
            if streamed[k] {
                continue;
            }
            let Request::Stream(mode, run) = request else {
                unreachable!("only streams were asked")
            };
            let mismatch = match reply {
                Ok(Reply::Streamed(got)) => differential::compare_stream(
                    *mode,
                    run,
                    &reference::stream::expect(*mode, run),
                    &got,
                ),
                Ok(other) => Some(differential::failure_mismatch(
                    Asked::Stream,
                    &dec::wrong_reply(&other),
                )),
                Err(failure) => Some(differential::failure_mismatch(Asked::Stream, &failure)),
            };
            if let Some(m) = mismatch {
                per_case[k].push(m);
                streamed[k] = true;
            }
        }
        for (case, mismatches) in decode_cases.iter().zip(per_case) {
            record(&case.id, case.bytes.clone(), mismatches, result);
        }
    }
    // Stream cases, in the modes the decoder streams in, against the calls
    // the file expects.
    let stream_cases: Vec<_> = file
        .cases
        .iter()
        .filter(|c| c.runs_on(caps))
        .filter_map(|c| match c {
            Case::Stream(t) => Some(t),
            _ => None,
        })
        .collect();
    if !stream_cases.is_empty() {
        let requests: Vec<Request> = stream_cases
            .iter()
            .map(|t| Request::Stream(t.mode, t.run()))
            .collect();
        result.streams += requests.len() as u64;
        for ((case, request), reply) in stream_cases
            .iter()
            .zip(&requests)
            .zip(decoder.ask(&requests))
        {
            let Request::Stream(mode, run) = request else {
                unreachable!("only streams were asked")
            };
            let mismatches = match reply {
                Ok(Reply::Streamed(got)) => {
                    differential::compare_stream(*mode, run, &case.expected, &got)
                        .into_iter()
                        .collect()
                }
                Ok(other) => vec![differential::failure_mismatch(
                    Asked::Stream,
                    &dec::wrong_reply(&other),
                )],
                Err(failure) => vec![differential::failure_mismatch(Asked::Stream, &failure)],
            };
            record(
                &case.id,
                Case::Stream((*case).clone()).shown_input(),
                mismatches,
                result,
            );
        }
    }
    if caps.has(Capability::Encode) {
        for case in file.cases.iter().filter_map(|c| match c {
            Case::Encode(e) => Some(e),
            _ => None,
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
                Err(failure) => vec![differential::failure_mismatch(Asked::Encode, &failure)],
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

/// The longest input every chunking of which is tried: every character and
/// every maximal subpart is at most 4 bytes, so 6 bytes hold one with a
/// neighbour on each side, and all 2^5 ways of cutting them put a chunk
/// boundary at every place inside and around it (and every pair of
/// places).
pub const EVERY_CHUNKING_UP_TO: usize = 6;

/// The longest input every single cut of which is tried; past it, the
/// cuts in the first and last 64 bytes and 64 spread between. Every cut of
/// an n-byte input is n runs of n bytes, n² in all: a 30 KB promoted
/// regression would cost a quarter of an hour in `vectors check`.
pub const EVERY_CUT_UP_TO: usize = 256;

/// The chunkings a vector case is fed in (level C): every way to cut it
/// when it is at most [`EVERY_CHUNKING_UP_TO`] bytes, else every single
/// cut (a sample of them past [`EVERY_CUT_UP_TO`]); uniform chunks of 1 to
/// 5 bytes, as the web-platform-tests do; and empty chunks: one before the
/// input, and one between every two bytes.
pub fn chunkings(input: &[u8]) -> Vec<StreamRun> {
    let n = input.len();
    let mut cuts_list: Vec<Vec<usize>> = Vec::new();
    if n <= EVERY_CHUNKING_UP_TO {
        for mask in 0u32..1 << n.saturating_sub(1) {
            cuts_list.push((1..n).filter(|&i| mask >> (i - 1) & 1 == 1).collect());
        }
    } else if n <= EVERY_CUT_UP_TO {
        cuts_list.extend((0..=n).map(|cut| vec![cut]));
    } else {
        let ends = (0..=64).chain(n - 64..=n);
        let spread = (1..64).map(|k| k * n / 64);
        cuts_list.extend(ends.chain(spread).map(|cut| vec![cut]));
    }
    for size in 1..=5.min(n.max(1)) {
        if n <= EVERY_CUT_UP_TO || size > 1 {
            cuts_list.push((size..n).step_by(size).collect());
        }
    }
    cuts_list.sort();
    cuts_list.dedup();
    let mut runs: Vec<StreamRun> = cuts_list
        .iter()
        .map(|cuts| {
            StreamRun::new(
                differential::split_at(input, cuts)
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect(),
            )
        })
        .collect();
    let mut leading = vec![Vec::new()];
    leading.push(input.to_vec());
    runs.push(StreamRun::new(leading));
    if n <= EVERY_CUT_UP_TO {
        let mut between: Vec<Vec<u8>> = Vec::new();
        for &b in input {
            between.push(vec![b]);
            between.push(Vec::new());
        }
        runs.push(StreamRun::new(between));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_inputs_get_every_chunking_and_empty_chunks() {
        let runs = chunkings(b"abc");
        let shown: Vec<Vec<&[u8]>> = runs
            .iter()
            .map(|r| r.chunks.iter().map(Vec::as_slice).collect())
            .collect();
        for want in [
            vec![&b"abc"[..]],
            vec![b"a", b"bc"],
            vec![b"ab", b"c"],
            vec![b"a", b"b", b"c"],
            vec![b"", b"abc"],
            vec![b"a", b"", b"b", b"", b"c", b""],
        ] {
            assert!(shown.contains(&want), "{want:?} missing from {shown:?}");
        }
        assert!(runs.iter().all(|r| r.bytes() == b"abc" && r.flush));
        // Longer: every single cut, and uniform chunks of 1 to 5.
        let long = chunkings(b"0123456789");
        assert!(long.iter().any(|r| r.chunks.len() == 10));
        assert!(long
            .iter()
            .any(|r| r.chunks.iter().map(Vec::len).eq([5, 5])));
        assert!(long
            .iter()
            .any(|r| r.chunks.iter().map(Vec::len).eq([7, 3])));
    }
}
