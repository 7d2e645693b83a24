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

    use crate::decoders::StdDecoder;
    use crate::outcome::{Answer, Capabilities, EncodeAnswer, Failure, FailureKind};
    use crate::outcome::{StreamAnswer, StreamMode};
    use std::sync::atomic::{AtomicU64, Ordering};

    fn committed() -> Vec<VectorFile> {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors"));
        super::super::load_dir(dir)
            .expect("the committed vectors load")
            .into_iter()
            .map(|(_, f)| f)
            .collect()
    }

    /// std's decoder and encoder with two planted bugs, each of a real
    /// UTF-8 variant: `C0 80` is read as U+0000 (Modified UTF-8's NUL),
    /// and a surrogate is encoded as its three bytes instead of refused
    /// (CESU-8's way). It streams as the reference does, and counts the
    /// streams it is asked.
    struct Planted {
        streams: AtomicU64,
    }

    impl Decoder for Planted {
        fn name(&self) -> &str {
            "planted"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::NONE
                .with(Capability::Validate)
                .with(Capability::Decode)
                .with(Capability::StreamStrict)
                .with(Capability::Encode)
        }
        fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
            let mut read = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(&[0xC0, 0x80]) {
                    read.push(0);
                    i += 2;
                } else {
                    read.push(bytes[i]);
                    i += 1;
                }
            }
            Ok(Answer::from_results(
                self.capabilities(),
                std::str::from_utf8(&read)
                    .map(|s| s.chars().collect())
                    .map_err(Into::into),
                Vec::new,
            ))
        }
        fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
            if !(0xD800..=0xDFFF).contains(&scalar) {
                return StdDecoder.encode(scalar);
            }
            Ok(EncodeAnswer::Bytes(vec![
                0xE0 | (scalar >> 12) as u8,
                0x80 | (scalar >> 6 & 0x3F) as u8,
                0x80 | (scalar & 0x3F) as u8,
            ]))
        }
        fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
            self.streams.fetch_add(1, Ordering::Relaxed);
            Ok(reference::stream::expect(mode, run))
        }
    }

    /// Every case a planted bug shows up in is a failure of the level
    /// the bug breaks, counted in its file's tally, and the decoder is
    /// unexpected on exactly the levels broken (none is a known
    /// divergence).
    #[test]
    fn planted_bugs_fail_their_levels_and_only_those() {
        let files = committed();
        let planted = Planted {
            streams: AtomicU64::new(0),
        };
        let result = run_dyn(&files, &[&planted]);

        let unexpected = result.unexpected();
        assert_eq!(unexpected.len(), 1, "{unexpected:?}");
        let (name, levels) = &unexpected[0];
        assert_eq!(name, "planted");
        // Validity (C0 80 accepted) and encoding (surrogates encoded);
        // streams answer as the reference, and nothing else is claimed.
        assert_eq!(levels, &[Level::Validity, Level::Encoding]);
        assert_eq!(
            result.failed_levels["planted"],
            BTreeSet::from([Level::Validity, Level::Encoding])
        );

        // The evidence: the overlong NUL and a surrogate, by input.
        let inputs: BTreeSet<&str> = result.failures.iter().map(|f| f.input.as_str()).collect();
        assert!(inputs.contains("c080"), "{inputs:?}");
        assert!(inputs.contains("U+D800"), "{inputs:?}");
        assert!(result.failures.iter().all(|f| f.decoder == "planted"));
        // No failure for a case without either bug in it.
        for f in &result.failures {
            let shows = f.input.contains("c080") || f.input.starts_with("U+D");
            assert!(
                shows,
                "{} {}/{}: {:?}",
                f.input, f.category, f.id, f.mismatch
            );
        }

        // Tallies: a category counts the cases asked and those failed
        // (each failed case once, however many fields differ).
        for ((decoder, category), tally) in &result.tallies {
            assert_eq!(decoder, "planted");
            assert!(tally.run > 0, "{category}: {tally:?}");
            let failed: BTreeSet<&str> = result
                .failures
                .iter()
                .filter(|f| &f.category == category)
                .map(|f| f.id.as_str())
                .collect();
            assert_eq!(tally.failed, failed.len(), "{category}: {tally:?}");
            assert!(tally.failed < tally.run, "{category}: {tally:?}");
        }
        let asked: usize = result.tallies.values().map(|t| t.run).sum();
        let cases: usize = files
            .iter()
            .flat_map(|f| &f.cases)
            .filter(|c| c.runs_on(planted.capabilities()))
            .count();
        assert_eq!(asked, cases, "every case it can run was asked once");
        // The streams counted are the streams asked.
        assert_eq!(result.streams, planted.streams.load(Ordering::Relaxed));
        assert!(result.streams > cases as u64);
        assert!(result.unanswered.get("planted").copied().unwrap_or(0) == 0);
    }

    /// Answers only inputs without an F4 byte (a crash, as a process
    /// adapter would report it), and validates them as std does.
    struct Mute;

    impl Decoder for Mute {
        fn name(&self) -> &str {
            "mute"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::NONE.with(Capability::Validate)
        }
        fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
            if bytes.contains(&0xF4) {
                return Err(Failure {
                    kind: FailureKind::Crash,
                    detail: "exited".into(),
                });
            }
            Ok(Answer {
                valid: Some(std::str::from_utf8(bytes).is_ok()),
                ..Answer::default()
            })
        }
    }

    /// Encodes as std does; decodes nothing (it claims only encode).
    struct EncodeOnly;

    impl Decoder for EncodeOnly {
        fn name(&self) -> &str {
            "encode-only"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::NONE.with(Capability::Encode)
        }
        fn decode(&self, _: &[u8]) -> Result<Answer, Failure> {
            panic!("decode asked of an encoder")
        }
        fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
            StdDecoder.encode(scalar)
        }
    }

    /// A case with no answer is counted unanswered, fails no level, and is
    /// listed; a decoder is asked only the cases its claims cover, and a
    /// category it ran nothing of has no tally.
    #[test]
    fn unanswered_cases_are_counted_and_unclaimed_ones_not_asked() {
        let files = committed();
        let result = run_dyn(&files, &[&Mute, &EncodeOnly]);
        let with_f4 = files
            .iter()
            .flat_map(|f| &f.cases)
            .filter(|c| matches!(c, Case::Decode(d) if d.input().contains(&0xF4)))
            .count();
        assert!(with_f4 > 0);
        assert_eq!(result.unanswered.get("mute"), Some(&(with_f4 as u64)));
        assert!(result.unexpected().is_empty(), "{:?}", result.unexpected());
        assert_eq!(result.failures.len(), with_f4);
        assert!(result.failures.iter().all(|f| f.decoder == "mute"));
        // The encoder ran the encode cases alone, and passed them.
        let encoder: Vec<&String> = result
            .tallies
            .keys()
            .filter(|(d, _)| d == "encode-only")
            .map(|(_, c)| c)
            .collect();
        let encode_files: Vec<&String> = files
            .iter()
            .filter(|f| f.cases.iter().any(|c| matches!(c, Case::Encode(_))))
            .map(|f| &f.category)
            .collect();
        assert_eq!(encoder, encode_files);
        assert!(result.failed_levels["encode-only"].is_empty());
        assert_eq!(result.streams, 0, "neither decoder streams");
    }

    /// Past [`EVERY_CHUNKING_UP_TO`] bytes, single cuts and uniform chunks
    /// only; past [`EVERY_CUT_UP_TO`], the cuts near both ends and 63
    /// spread between, uniform chunks of 2 to 5 bytes, and no run of one
    /// byte a chunk (empty chunks between bytes included).
    #[test]
    fn longer_inputs_get_single_cuts_then_a_sample_of_them() {
        let lens = |runs: &[StreamRun]| -> Vec<Vec<usize>> {
            runs.iter()
                .map(|r| r.chunks.iter().map(Vec::len).collect())
                .collect()
        };
        let ten = lens(&chunkings(b"0123456789"));
        for cut in 0..=10 {
            let want: Vec<usize> = [cut, 10 - cut].into_iter().filter(|&l| l > 0).collect();
            assert!(
                ten.iter().any(|l| l
                    .iter()
                    .copied()
                    .filter(|&l| l > 0)
                    .eq(want.iter().copied())),
                "cut {cut} missing from {ten:?}"
            );
        }
        // Not every chunking: no three uneven chunks.
        assert!(!ten.contains(&vec![1, 2, 7]), "{ten:?}");
        assert!(ten.contains(&vec![3, 3, 3, 1]));
        assert!(ten.contains(&vec![0, 10]), "one empty chunk first");

        let input: Vec<u8> = (0..300u32).map(|i| b'a' + (i % 26) as u8).collect();
        let runs = chunkings(&input);
        assert!(runs.iter().all(|r| r.bytes() == input && r.flush));
        let long = lens(&runs);
        let cut_at = |cut: usize| long.contains(&vec![cut, 300 - cut]);
        for cut in [1, 30, 64, 236, 270, 299] {
            assert!(cut_at(cut), "cut {cut} near an end missing");
        }
        // k * 300 / 64 for k = 22 and 32: 103 and 150; 100 is none.
        assert!(cut_at(103) && cut_at(150));
        assert!(
            !cut_at(100) && !cut_at(120),
            "only 63 cuts between the ends"
        );
        for size in 2..=5 {
            let want: Vec<usize> = (0..300 / size).map(|_| size).collect();
            assert!(long.contains(&want), "uniform {size} missing");
        }
        assert!(long.iter().all(|l| l.len() <= 150), "one byte a chunk");
        assert!(long.contains(&vec![0, 300]), "one empty chunk first");
    }

    /// [`run`] takes the decoders as the registry gives them (boxed) and
    /// runs them as [`run_dyn`] does.
    #[test]
    fn run_takes_boxed_decoders() {
        let files = committed();
        let boxed: Vec<Box<dyn Decoder>> = vec![Box::new(Mute)];
        let owned = run(&files, &boxed);
        let borrowed = run_dyn(&files, &[&Mute]);
        assert!(owned.unanswered.get("mute").is_some_and(|&n| n > 0));
        assert_eq!(owned.unanswered, borrowed.unanswered);
        assert_eq!(owned.tallies, borrowed.tallies);
    }

    /// Up to [`EVERY_CHUNKING_UP_TO`] bytes, all 2^(n-1) ways to cut the
    /// input into non-empty chunks, each once (the compositions of n).
    #[test]
    fn six_bytes_are_cut_every_way_once() {
        for n in 1..=EVERY_CHUNKING_UP_TO {
            let input = &b"abcdef"[..n];
            let runs = chunkings(input);
            let cut: Vec<Vec<usize>> = runs
                .iter()
                .map(|r| r.chunks.iter().map(Vec::len).collect::<Vec<_>>())
                .filter(|lens| lens.iter().all(|&l| l > 0))
                .collect();
            let distinct: BTreeSet<&Vec<usize>> = cut.iter().collect();
            assert_eq!(distinct.len(), cut.len(), "a chunking twice: {cut:?}");
            assert_eq!(cut.len(), 1 << (n - 1), "{n} bytes: {cut:?}");
        }
    }
}
