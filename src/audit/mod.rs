//! The audit: everything the harness knows how to ask, asked of one
//! decoder, turned into a [`DecoderReport`].
//!
//! Per decoder, in order (each stage only on what the decoder claims):
//!
//! 1. **vectors** — every case one-shot, and every chunking of it in each
//!    streaming mode ([`crate::vectors::run::chunkings`]);
//! 2. **exhaustive** — every input of up to 3 bytes in-process, 2 bytes
//!    over the protocol;
//! 3. **deep** — each error class past every block edge up to 64 KiB
//!    ([`crate::generate::deep`]), one-shot and in chunks;
//! 4. **differential** — a seeded campaign, with random chunkings for
//!    streaming decoders;
//! 5. **reuse** — sequences of inputs on one decoder object (level U),
//!    each run held to the same decoder's answer on a fresh object;
//! 6. **classification** — replacement policy, RFC §10 flags and BOM, each
//!    with its evidence ([`classify`]).
//!
//! Every request goes through one place ([`Asker`]), which counts what got
//! no answer against the levels it would have judged, and records
//! in-process panics as incidents. A level is `pass` only when every input
//! on it was answered as expected; one with unanswered inputs and no
//! failure is `incomplete`.

pub mod classify;

use crate::decoder::{self, Decoder, Kind, Reply, Request};
use crate::differential::{self, Asked, Field, Mismatch};
use crate::exhaustive::{self, SweepOptions};
use crate::generate::{self, deep, reuse};
use crate::hex;
use crate::level::Level;
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, Failure, FailureKind, Incident, StreamAnswer,
    StreamMode, StreamRun,
};
use crate::reference;
use crate::reference::variants::Format;
use crate::report::{
    status, Checked, Closest, DecoderReport, FailureRecord, IncidentRecord, MatrixRow, Probe,
};
use crate::vectors::{run, VectorFile};
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

/// Where an audit reports how far it got: a progress bar in the CLI,
/// nothing at all in a test (`&()`).
pub trait Progress: Sync {
    /// The stage now running (`vectors`, `exhaustive`, …).
    fn stage(&self, name: &str);
    /// `n` more inputs checked.
    fn advance(&self, n: u64);
}

/// No progress shown.
impl Progress for () {
    fn stage(&self, _: &str) {}
    fn advance(&self, _: u64) {}
}

/// A decoder to audit, with what the report says about it.
pub struct Subject {
    /// The decoder.
    pub decoder: Box<dyn Decoder>,
    /// What it is (library and calls).
    pub description: String,
    /// Whether it is documented to conform.
    pub expected_conformant: bool,
    /// The levels the exit status gates on when it is expected to conform.
    pub gate: String,
    /// The format it implements on purpose, whose rules it is scored by
    /// (UTF-8 for all but the neighbours of [`Format`]).
    pub format: Format,
}

/// What a report says about a decoder besides what the audit finds.
#[derive(Clone, Copy, Debug)]
pub struct About<'a> {
    /// What it is (library and calls).
    pub description: &'a str,
    /// Whether it is documented to conform.
    pub expected_conformant: bool,
    /// The levels the exit status gates on when it is expected to conform.
    pub gate: &'a str,
    /// The format whose rules it is scored by.
    pub format: Format,
}

/// How much to run.
#[derive(Clone, Copy, Debug)]
pub struct AuditOptions {
    /// Differential campaign seed.
    pub seed: u64,
    /// Differential inputs for built-in decoders.
    pub builtin_diff_inputs: u64,
    /// Differential inputs for external decoders.
    pub external_diff_inputs: u64,
    /// Exhaustive length for built-in decoders.
    pub builtin_exhaustive_len: usize,
    /// Exhaustive length for external decoders.
    pub external_exhaustive_len: usize,
    /// Failing inputs kept per level in the report (shortest first).
    pub failures_per_level: usize,
    /// Whether to send the deep inputs (errors past block edges, up to
    /// 64 KiB).
    pub deep: bool,
    /// Whether to run the reuse sequences (level U).
    pub reuse: bool,
}

impl Default for AuditOptions {
    fn default() -> AuditOptions {
        AuditOptions {
            seed: 0,
            builtin_diff_inputs: 100_000,
            external_diff_inputs: 20_000,
            builtin_exhaustive_len: 3,
            external_exhaustive_len: 2,
            failures_per_level: 20,
            deep: true,
            reuse: true,
        }
    }
}

/// Collects failures: counts all, keeps the shortest few per level.
struct Failures {
    per_level: usize,
    counts: BTreeMap<String, u64>,
    kept: Vec<FailureRecord>,
}

impl Failures {
    fn add(&mut self, level: Level, source: &str, input: String, m: &Mismatch) {
        let level = level.letter().to_string();
        *self.counts.entry(level.clone()).or_insert(0) += 1;
        self.kept.push(FailureRecord {
            level,
            source: source.to_string(),
            input,
            expected: m.expected.clone(),
            got: m.got.clone(),
        });
        if self.kept.len() > 4096 {
            self.trim();
        }
    }

    /// Keeps the `per_level` shortest inputs of each level, vectors first
    /// among equals (their ids explain themselves).
    fn trim(&mut self) {
        // Levels in report order (V first), then the shortest inputs.
        let order = |letter: &str| {
            Level::ALL
                .iter()
                .position(|l| letter.starts_with(l.letter()))
                .unwrap_or(Level::ALL.len())
        };
        let key = |f: &FailureRecord| {
            (
                order(&f.level),
                f.input.len(),
                !f.source.starts_with("vectors"),
                f.input.clone(),
            )
        };
        self.kept.sort_by_key(key);
        // One record per failure (level, input, expected), the first in
        // that order: the same failure found by two stages (the vectors and
        // the exhaustive sweep, say) sorts apart when another input of the
        // same length falls between their sources, so merging neighbours
        // alone kept it twice.
        let mut seen_failure = std::collections::HashSet::new();
        self.kept.retain(|f| {
            seen_failure.insert((f.level.clone(), f.input.clone(), f.expected.clone()))
        });
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let per_level = self.per_level;
        self.kept.retain(|f| {
            let n = seen.entry(f.level.clone()).or_insert(0);
            *n += 1;
            *n <= per_level
        });
    }
}

/// Every request of the audit goes through here: in batches, with panics
/// caught, and every failure to answer counted against the levels the
/// request would have judged.
pub struct Asker<'a> {
    decoder: &'a dyn Decoder,
    caps: Capabilities,
    /// Inputs per level that got no answer.
    pub unanswered: BTreeMap<String, u64>,
    /// In-process panics, by message: the first input, the shortest.
    panics: BTreeMap<String, (Vec<u8>, Vec<u8>, u64)>,
    /// Requests not sent.
    pub not_run: u64,
    /// The longest input sent.
    pub longest: u64,
    /// Answers with fields the decoder does not claim: the first few.
    pub outside_claims: Vec<Probe>,
    /// Requests not sent because their input is longer than the decoder's
    /// API takes ([`Decoder::max_input`]).
    pub beyond_max_input: u64,
}

/// A decoder whose every request goes through an [`Asker`]: how the
/// vector runner, which takes a decoder, is kept inside the audit's
/// bookkeeping.
struct Through<'s, 'a>(std::sync::Mutex<&'s mut Asker<'a>>);

impl<'s, 'a> Through<'s, 'a> {
    /// One request through the asker, and its one reply.
    fn one(&self, request: Request) -> Result<Reply, Failure> {
        self.ask(&[request])
            .pop()
            .unwrap_or_else(|| Err(decoder::unsupported("the asker", "a request")))
    }
    fn asker(&self) -> std::sync::MutexGuard<'_, &'s mut Asker<'a>> {
        // A panic is caught inside the asker, so the lock is never poisoned
        // by one; if it were, the asker's counts are still whole.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Decoder for Through<'_, '_> {
    fn name(&self) -> &str {
        "through the asker"
    }
    fn version(&self) -> String {
        self.asker().decoder.version()
    }
    fn capabilities(&self) -> Capabilities {
        self.asker().caps
    }
    // Every request the vector runner can make goes through the asker;
    // a default method here would answer "unsupported" without asking.
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        match self.one(Request::Decode(bytes.to_vec()))? {
            Reply::Decoded(answer) => Ok(answer),
            other => Err(decoder::wrong_reply(&other)),
        }
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        match self.one(Request::Encode(scalar))? {
            Reply::Encoded(answer) => Ok(answer),
            other => Err(decoder::wrong_reply(&other)),
        }
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        match self.one(Request::Stream(mode, run.clone()))? {
            Reply::Streamed(answer) => Ok(answer),
            other => Err(decoder::wrong_reply(&other)),
        }
    }
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        match self.one(Request::Reuse(mode, runs.to_vec()))? {
            Reply::Reused(answers) => Ok(answers),
            other => Err(decoder::wrong_reply(&other)),
        }
    }
    fn ask(&self, requests: &[Request]) -> Vec<Result<Reply, Failure>> {
        self.asker().ask(requests, &())
    }
}

/// Requests per batch: enough to keep a pipelined adapter busy, few
/// enough that progress moves.
const BATCH: usize = 1024;

impl<'a> Asker<'a> {
    /// An asker for `decoder`.
    pub fn new(decoder: &'a dyn Decoder) -> Asker<'a> {
        Asker {
            decoder,
            caps: decoder.capabilities(),
            unanswered: BTreeMap::new(),
            panics: BTreeMap::new(),
            not_run: 0,
            longest: 0,
            outside_claims: Vec::new(),
            beyond_max_input: 0,
        }
    }

    /// Asks every request; one result each, in order.
    pub fn ask(
        &mut self,
        requests: &[Request],
        progress: &dyn Progress,
    ) -> Vec<Result<Reply, Failure>> {
        let mut out = Vec::with_capacity(requests.len());
        let limit = self.decoder.max_input();
        for batch in requests.chunks(BATCH) {
            let over: Vec<bool> = batch
                .iter()
                .map(|r| limit.is_some_and(|max| longest_input(r) > max))
                .collect();
            for (r, _) in batch.iter().zip(&over).filter(|(_, &o)| !o) {
                self.longest = self.longest.max(longest_input(r) as u64);
            }
            let results = if over.contains(&true) {
                let inside: Vec<Request> = batch
                    .iter()
                    .zip(&over)
                    .filter(|(_, &o)| !o)
                    .map(|(r, _)| r.clone())
                    .collect();
                let mut answered = self.ask_caught(&inside).into_iter();
                over.iter()
                    .map(|&o| {
                        if o {
                            Err(Failure {
                                kind: FailureKind::NotRun,
                                detail: format!(
                                    "longer than the {} bytes the decoder's API takes",
                                    limit.unwrap_or(0)
                                ),
                            })
                        } else {
                            answered.next().unwrap_or_else(|| {
                                Err(decoder::unsupported(self.decoder.name(), "ask"))
                            })
                        }
                    })
                    .collect()
            } else {
                self.ask_caught(batch)
            };
            for ((request, result), &o) in batch.iter().zip(&results).zip(&over) {
                if o {
                    // Outside the library's domain: no one's failure.
                    self.beyond_max_input += 1;
                    continue;
                }
                match (request, result) {
                    (_, Err(failure)) => self.count_unanswered(request, failure),
                    (Request::Decode(bytes), Ok(Reply::Decoded(answer)))
                        if self.outside_claims.len() < 20 =>
                    {
                        if let Some(what) = outside_claims(answer, self.caps) {
                            self.outside_claims.push(Probe {
                                input: hex::encode(bytes),
                                answer: what,
                            });
                        }
                    }
                    _ => {}
                }
            }
            progress.advance(batch.len() as u64);
            out.extend(results);
        }
        out
    }

    /// Asks a batch with panics caught: after a panic, one at a time, to
    /// know which request panicked.
    fn ask_caught(&mut self, batch: &[Request]) -> Vec<Result<Reply, Failure>> {
        match panic::catch_unwind(AssertUnwindSafe(|| self.decoder.ask(batch))) {
            Ok(results) => results,
            Err(_) => batch.iter().map(|r| self.ask_one_caught(r)).collect(),
        }
    }

    fn ask_one_caught(&mut self, request: &Request) -> Result<Reply, Failure> {
        let decoder = self.decoder;
        match panic::catch_unwind(AssertUnwindSafe(|| {
            decoder.ask(std::slice::from_ref(request))
        })) {
            Ok(mut r) => r
                .pop()
                .unwrap_or_else(|| Err(decoder::unsupported(decoder.name(), "ask"))),
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into());
                Err(Failure {
                    kind: FailureKind::Panic,
                    detail: message,
                })
            }
        }
    }

    fn count_unanswered(&mut self, request: &Request, failure: &Failure) {
        let asked = asked_of(request);
        for level in asked.levels(self.caps) {
            *self
                .unanswered
                .entry(level.letter().to_string())
                .or_insert(0) += 1;
        }
        if failure.kind == FailureKind::NotRun {
            self.not_run += 1;
        }
        if failure.kind == FailureKind::Panic {
            let bytes = request_bytes(request);
            let entry = self
                .panics
                .entry(failure.detail.clone())
                .or_insert_with(|| (bytes.clone(), bytes.clone(), 0));
            if bytes.len() < entry.1.len() {
                entry.1 = bytes;
            }
            entry.2 += 1;
        }
    }

    /// The panics seen, each with the shortest input found and that input
    /// minimised (a panic costs nothing to retry).
    pub fn panic_incidents(&self) -> Vec<Incident> {
        self.panics
            .iter()
            .map(|(detail, (first, shortest, n))| {
                let decoder = self.decoder;
                let minimized = differential::minimize(shortest, |candidate| {
                    panic::catch_unwind(AssertUnwindSafe(|| decoder.decode(candidate))).is_err()
                });
                Incident {
                    kind: FailureKind::Panic,
                    input: minimized,
                    minimized: true,
                    first_seen: first.clone(),
                    detail: detail.clone(),
                    failures: *n,
                    not_run: 0,
                    note: None,
                }
            })
            .collect()
    }
}

/// The fields of `answer` that `caps` does not claim, if any: a decoder
/// breaking its own claim (the harness scores only what is claimed, so
/// such a field would go unchecked).
fn outside_claims(answer: &Answer, caps: Capabilities) -> Option<String> {
    let fields: [(&str, bool, Capability); 5] = [
        ("valid", answer.valid.is_some(), Capability::Validate),
        ("scalars", answer.scalars.is_some(), Capability::Decode),
        (
            "valid_up_to",
            answer.valid_up_to.is_some(),
            Capability::Position,
        ),
        ("error_len", answer.error_len.is_some(), Capability::Subpart),
        ("lossy", answer.lossy.is_some(), Capability::Lossy),
    ];
    let outside: Vec<&str> = fields
        .iter()
        .filter(|(_, answered, cap)| *answered && !caps.has(*cap))
        .map(|(name, ..)| *name)
        .collect();
    (!outside.is_empty()).then(|| format!("answered {} without claiming it", outside.join(", ")))
}

fn asked_of(request: &Request) -> Asked {
    match request {
        Request::Decode(_) => Asked::Decode,
        Request::Encode(_) => Asked::Encode,
        Request::Stream(..) => Asked::Stream,
        Request::Reuse(..) => Asked::Reuse,
    }
}

/// The longest single input in a request: a stream's whole input, or the
/// longest of a reuse request's inputs (0 for an encode).
fn longest_input(request: &Request) -> usize {
    match request {
        Request::Decode(b) => b.len(),
        Request::Stream(_, run) => run.chunks.iter().map(Vec::len).sum(),
        Request::Reuse(_, runs) => runs
            .iter()
            .map(|r| r.chunks.iter().map(Vec::len).sum())
            .max()
            .unwrap_or(0),
        Request::Encode(_) => 0,
    }
}

fn request_bytes(request: &Request) -> Vec<u8> {
    match request {
        Request::Decode(b) => b.clone(),
        Request::Stream(_, run) => run.bytes(),
        Request::Reuse(_, runs) => runs.iter().flat_map(StreamRun::bytes).collect(),
        Request::Encode(v) => v.to_be_bytes().to_vec(),
    }
}

/// A case's outcome for one decoder, for the matrix.
pub type CaseCell = String;

/// The state of one decoder's audit, stage to stage.
struct Audit<'a> {
    decoder: &'a dyn Decoder,
    caps: Capabilities,
    /// The rules the decoder is scored by.
    format: Format,
    asker: Asker<'a>,
    failures: Failures,
    checked: Checked,
}

impl Audit<'_> {
    /// Records every mismatch of one input; failures to answer were
    /// already counted by the asker.
    fn record(&mut self, source: &str, input: &[u8], mismatches: &[Mismatch]) {
        for m in mismatches {
            if let Some(level) = m.field.level() {
                self.failures.add(level, source, hex::encode(input), m);
            }
        }
    }

    /// Decodes `inputs` one-shot and compares each with the reference.
    fn check_decodes(&mut self, source: &str, inputs: &[Vec<u8>], progress: &dyn Progress) {
        let requests: Vec<Request> = inputs.iter().map(|b| Request::Decode(b.clone())).collect();
        let replies = self.asker.ask(&requests, progress);
        for (input, reply) in inputs.iter().zip(replies) {
            if let Ok(Reply::Decoded(got)) = reply {
                let m = differential::compare(&self.format.expected(input), &got, self.caps);
                self.record(source, input, &m);
            }
        }
    }

    /// Streams each run in every claimed mode and compares call by call
    /// (the streaming model is UTF-8's: a neighbour's streams are not
    /// judged).
    fn check_streams(&mut self, source: &str, runs: &[StreamRun], progress: &dyn Progress) {
        if self.format != Format::Utf8 {
            return;
        }
        let requests: Vec<Request> = self
            .caps
            .stream_modes()
            .flat_map(|mode| {
                runs.iter()
                    .map(move |run| Request::Stream(mode, run.clone()))
            })
            .collect();
        self.checked.streams += requests.len() as u64;
        let replies = self.asker.ask(&requests, progress);
        for (request, reply) in requests.iter().zip(replies) {
            let (Request::Stream(mode, run), Ok(Reply::Streamed(got))) = (request, reply) else {
                continue;
            };
            let expected = reference::stream::expect(*mode, run);
            if let Some(m) = differential::compare_stream(*mode, run, &expected, &got) {
                self.record(source, &run.bytes(), &[m]);
            }
        }
    }

    fn vectors(&mut self, files: &[VectorFile], progress: &dyn Progress) -> Vec<CaseCell> {
        progress.stage("vectors");
        if self.format != Format::Utf8 {
            // The vectors state UTF-8's expectations (their cells are
            // n/a); a neighbour is held to its own format's reference on
            // the same inputs, the shortest evidence there is.
            let cases: Vec<(String, Vec<u8>)> = files
                .iter()
                .flat_map(|f| {
                    f.cases.iter().filter_map(move |c| match c {
                        crate::vectors::Case::Decode(d) => {
                            Some((format!("vectors:{}/{}", f.category, d.id), d.input()))
                        }
                        _ => None,
                    })
                })
                .collect();
            let requests: Vec<Request> = cases
                .iter()
                .map(|(_, b)| Request::Decode(b.clone()))
                .collect();
            let replies = self.asker.ask(&requests, progress);
            for ((source, input), reply) in cases.iter().zip(replies) {
                if let Ok(Reply::Decoded(got)) = reply {
                    let m = differential::compare(&self.format.expected(input), &got, self.caps);
                    self.record(source, input, &m);
                }
            }
            return files
                .iter()
                .flat_map(|f| f.cases.iter().map(|_| "n/a".to_string()))
                .collect();
        }
        // Through the asker, as every other stage: a panic is caught and
        // narrowed, unanswered requests are counted once, claims checked.
        let through = Through(std::sync::Mutex::new(&mut self.asker));
        let vector_run = run::run_dyn(files, &[&through]);
        let mut by_case: BTreeMap<(&str, &str), String> = BTreeMap::new();
        for f in &vector_run.failures {
            let cell = by_case
                .entry((f.category.as_str(), f.id.as_str()))
                .or_default();
            match f.mismatch.field.level() {
                Some(level) => {
                    self.failures.add(
                        level,
                        &format!("vectors:{}/{}", f.category, f.id),
                        f.input.clone(),
                        &f.mismatch,
                    );
                    if !cell.contains(level.letter()) {
                        cell.push(level.letter());
                    }
                }
                None => {
                    if !cell.contains('!') {
                        cell.push('!');
                    }
                }
            }
        }
        self.checked.streams += vector_run.streams;
        let mut cells = Vec::new();
        for file in files {
            for case in &file.cases {
                let ran = case.runs_on(self.caps);
                let cell = if !ran {
                    "n/a".to_string()
                } else if let Some(found) = by_case.get(&(file.category.as_str(), case.id())) {
                    let letters: String = Level::ALL
                        .iter()
                        .map(|l| l.letter())
                        .filter(|l| found.contains(*l))
                        .collect();
                    if letters.is_empty() {
                        "no-answer".to_string()
                    } else {
                        format!("fail:{letters}")
                    }
                } else {
                    "pass".to_string()
                };
                self.checked.vectors += u64::from(ran);
                cells.push(cell);
            }
        }
        progress.advance(self.checked.vectors);
        cells
    }

    fn exhaustive(&mut self, options: &AuditOptions, progress: &dyn Progress) {
        progress.stage("exhaustive");
        if !decodes(self.caps) {
            return;
        }
        // A neighbour of UTF-8 is held to its own grammar, input by input
        // (the in-process sweep knows only the reference's).
        if self.decoder.kind() == Kind::External || self.format != Format::Utf8 {
            let max = if self.decoder.kind() == Kind::External {
                options.external_exhaustive_len
            } else {
                options.builtin_exhaustive_len.min(2)
            };
            for len in 1..=max {
                let inputs: Vec<Vec<u8>> = (0..1u32 << (8 * len))
                    .map(|n| n.to_be_bytes()[4 - len..].to_vec())
                    .collect();
                self.check_decodes("exhaustive", &inputs, progress);
                self.checked.exhaustive += inputs.len() as u64;
            }
            return;
        }
        let sweep_options = SweepOptions {
            max_len: options.builtin_exhaustive_len,
            full_len: options.builtin_exhaustive_len.min(2),
            examples_per_class: options.failures_per_level,
            threads: 0,
        };
        let decoder = self.decoder;
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            exhaustive::sweep_dyn(&[decoder], sweep_options, &|n| progress.advance(n))
        }));
        let Ok(result) = result else {
            // A panic in the sweep: the per-input path finds it again and
            // records it as an incident.
            let inputs: Vec<Vec<u8>> = (0..1u32 << 16)
                .map(|n| n.to_be_bytes()[2..].to_vec())
                .collect();
            self.check_decodes("exhaustive", &inputs, progress);
            self.checked.exhaustive += inputs.len() as u64;
            return;
        };
        self.checked.exhaustive = result.lengths.iter().map(|l| l.total).sum();
        for d in &result.examples {
            if let Some(level) = d.mismatch.field.level() {
                self.failures
                    .add(level, "exhaustive", hex::encode(&d.input), &d.mismatch);
            }
        }
        // Count every divergence, not only the examples kept.
        for ((_, field), &count) in &result.class_counts {
            let kept = result
                .examples
                .iter()
                .filter(|d| d.mismatch.field == *field)
                .count();
            let extra = count.saturating_sub(kept as u64);
            if let Some(level) = field.level().filter(|_| extra > 0) {
                *self
                    .failures
                    .counts
                    .entry(level.letter().to_string())
                    .or_insert(0) += extra;
            }
        }
    }

    fn deep(&mut self, progress: &dyn Progress) {
        progress.stage("deep");
        if !decodes(self.caps) && self.caps.stream_modes().next().is_none() {
            return;
        }
        let inputs: Vec<Vec<u8>> = deep::deep_inputs().into_iter().map(|d| d.bytes).collect();
        if decodes(self.caps) {
            self.check_decodes("deep", &inputs, progress);
        }
        // In chunks too: short inputs in 7s, long ones in 4093s (odd, so
        // that chunk edges fall at every offset of the blocks).
        let runs: Vec<StreamRun> = inputs
            .iter()
            .map(|b| {
                let size = if b.len() <= 150 { 7 } else { 4093 };
                StreamRun::new(b.chunks(size).map(<[u8]>::to_vec).collect())
            })
            .collect();
        self.check_streams("deep (chunked)", &runs, progress);
        self.checked.deep = inputs.len() as u64;
    }

    fn differential(&mut self, options: &AuditOptions, progress: &dyn Progress) {
        progress.stage("differential");
        let n = if self.decoder.kind() == Kind::External {
            options.external_diff_inputs
        } else {
            options.builtin_diff_inputs
        };
        if !decodes(self.caps) || n == 0 {
            return;
        }
        let mut index = 0;
        while index < n {
            let batch: Vec<Vec<u8>> = (index..(index + 2048).min(n))
                .map(|i| generate::campaign_input(options.seed, i))
                .collect();
            self.check_decodes("differential", &batch, progress);
            // Over the protocol, one input in four is also streamed: the
            // vectors' chunkings already cover every cut of every short
            // sequence, and a pipe round trip per stream is the cost.
            let every = if self.decoder.kind() == Kind::External {
                4
            } else {
                1
            };
            let runs: Vec<StreamRun> = batch
                .iter()
                .enumerate()
                .filter(|(k, _)| k % every == 0)
                .map(|(k, input)| {
                    let splits =
                        generate::campaign_splits(options.seed, index + k as u64, input.len());
                    StreamRun::new(
                        differential::split_at(input, &splits)
                            .into_iter()
                            .map(<[u8]>::to_vec)
                            .collect(),
                    )
                })
                .collect();
            self.check_streams("differential (chunked)", &runs, progress);
            index += batch.len() as u64;
        }
        self.checked.differential = n;
    }

    /// Level U: each run of a reused object against the same decoder's
    /// answer on a fresh one (for a run after one left unflushed, the two
    /// as one stream on a fresh object, as streaming APIs document).
    fn reuse(&mut self, progress: &dyn Progress) -> Vec<String> {
        progress.stage("reuse");
        if !self.caps.has(Capability::Reuse) || self.format != Format::Utf8 {
            return Vec::new();
        }
        let sequences = reuse::reuse_sequences();
        let mut requests = Vec::new();
        // For each reuse request, the fresh requests its runs compare with:
        // (request index, and per run the fresh index and how many calls of
        // the fresh answer belong to the earlier, unflushed run).
        let mut plan: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for mode in self.caps.stream_modes() {
            for runs in &sequences {
                let reuse_at = requests.len();
                requests.push(Request::Reuse(mode, runs.clone()));
                let mut fresh = Vec::new();
                let mut open: Option<StreamRun> = None;
                for run in runs {
                    let (run_for_fresh, skip) = match open.take() {
                        Some(prev) => {
                            let skip = prev.chunks.len();
                            let mut chunks = prev.chunks;
                            chunks.extend(run.chunks.iter().cloned());
                            (
                                StreamRun {
                                    chunks,
                                    flush: run.flush,
                                },
                                skip,
                            )
                        }
                        None => (run.clone(), 0),
                    };
                    if !run.flush {
                        open = Some(run_for_fresh.clone());
                    }
                    fresh.push((requests.len(), skip));
                    requests.push(Request::Stream(mode, run_for_fresh));
                }
                plan.push((reuse_at, fresh));
            }
        }
        self.checked.reuse = plan.len() as u64;
        let replies = self.asker.ask(&requests, progress);
        let mut rules = vec!["fresh".to_string()];
        for (reuse_at, fresh) in plan {
            let (Request::Reuse(mode, runs), Ok(Reply::Reused(answers))) =
                (&requests[reuse_at], &replies[reuse_at])
            else {
                continue;
            };
            for (k, ((run, answer), &(fresh_at, skip))) in
                runs.iter().zip(answers).zip(&fresh).enumerate()
            {
                let Ok(Reply::Streamed(fresh_answer)) = &replies[fresh_at] else {
                    continue;
                };
                // An error in the earlier, unflushed part means that run
                // stopped, and this one starts afresh: nothing to hold it to
                // from the joined stream.
                if skip > 0 && fresh_answer.error.is_some_and(|e| e.call < skip) {
                    continue;
                }
                if skip > 0 && !rules.iter().any(|r| r == "continues-unflushed") {
                    rules.push("continues-unflushed".into());
                }
                let expected = tail_of(fresh_answer, skip);
                if let Some(why) = differential::stream_difference(&expected, answer) {
                    let shown: Vec<String> = runs.iter().map(StreamRun::show).collect();
                    let m = Mismatch {
                        field: Field::Reuse,
                        expected: format!(
                            "{} reuse [{}], input {k} ({}): as on a fresh decoder{}",
                            mode.as_str(),
                            shown.join("] then ["),
                            run.show(),
                            if skip > 0 {
                                ", continuing the unflushed input before it"
                            } else {
                                ""
                            },
                        ),
                        got: why,
                    };
                    let bytes: Vec<u8> = runs.iter().flat_map(StreamRun::bytes).collect();
                    self.record("reuse", &bytes, &[m]);
                }
            }
        }
        rules
    }
}

impl Audit<'_> {
    /// The formats (UTF-8 and its neighbours) the decoder matches exactly:
    /// the same validity and decoded values on every probe (for a decoder
    /// that only replaces, the same replacing output). Position and subpart
    /// are left out (the neighbours differ there by convention), and so is
    /// the replacement policy of a decoder that also decodes strictly (it
    /// is reported on its own). Asked on every decode vector's input and on
    /// inputs that tell the formats apart; a probe without an answer rules
    /// a match out.
    fn variants(
        &mut self,
        files: &[VectorFile],
        progress: &dyn Progress,
    ) -> (Vec<String>, Option<Closest>) {
        progress.stage("variants");
        // The format is the language accepted and the values decoded: the
        // replacing output is compared only for a decoder that tells
        // nothing else (its replacement policy is reported on its own).
        let strict = Capabilities::NONE
            .with(Capability::Validate)
            .with(Capability::Decode);
        let claims = if self.caps.has(Capability::Validate) || self.caps.has(Capability::Decode) {
            strict
        } else {
            Capabilities::NONE.with(Capability::Lossy)
        };
        let caps = self
            .caps
            .iter()
            .filter(|&c| claims.has(c))
            .fold(Capabilities::NONE, Capabilities::with);
        if caps == Capabilities::NONE {
            return (Vec::new(), None);
        }
        let mut inputs: Vec<Vec<u8>> = VARIANT_PROBES.iter().map(|p| p.to_vec()).collect();
        for file in files {
            for case in &file.cases {
                if let crate::vectors::Case::Decode(d) = case {
                    inputs.push(d.input());
                }
            }
        }
        let requests: Vec<Request> = inputs.iter().map(|b| Request::Decode(b.clone())).collect();
        let replies = self.asker.ask(&requests, progress);
        // Per format: how many probes disagree, and the first that does.
        let mut tally: Vec<(Format, u64, Option<Probe>)> =
            Format::ALL.iter().map(|&f| (f, 0, None)).collect();
        for (input, reply) in inputs.iter().zip(replies) {
            let Ok(Reply::Decoded(got)) = reply else {
                return (Vec::new(), None);
            };
            for (format, wrong, first) in &mut tally {
                if !differential::compare(&format.expected(input), &got, caps).is_empty() {
                    *wrong += 1;
                    first.get_or_insert_with(|| Probe {
                        input: hex::encode(input),
                        answer: format!(
                            "{} (as {}: {})",
                            classify::show_answer(&got),
                            format.name(),
                            classify::show_answer(&format.expected(input))
                        ),
                    });
                }
            }
        }
        let exact: Vec<String> = tally
            .iter()
            .filter(|(_, wrong, _)| *wrong == 0)
            .map(|(f, ..)| f.name().to_string())
            .collect();
        let closest = if exact.is_empty() {
            tally
                .into_iter()
                .min_by_key(|(_, wrong, _)| *wrong)
                .map(|(format, wrong, first)| Closest {
                    format: format.name().to_string(),
                    differs_on: wrong,
                    of: inputs.len() as u64,
                    first: first.expect("a format with a disagreement has its first"),
                })
        } else {
            None
        };
        (exact, closest)
    }
}

/// Inputs on which the formats disagree: a NUL's two-byte form, lone and
/// paired surrogates in three-byte forms, four-byte forms, five- and
/// six-byte forms, overlongs, bytes that start nothing.
const VARIANT_PROBES: &[&[u8]] = &[
    b"\xC0\x80",
    b"\xC0\xAF",
    b"\xE0\x80\xAF",
    b"\xED\xA0\x80",
    b"\xED\xB0\x80",
    b"\xED\xA0\x80\xED\xB0\x80",
    b"\xED\xA0\xBD\xED\xB8\x80",
    b"\xED\xB0\x80\xED\xA0\x80",
    b"a\xED\xA0\x80b",
    b"\xF0\x9F\x98\x80",
    b"\xF4\x90\x80\x80",
    b"\xF7\xBF\xBF\xBF",
    b"\xF8\x88\x80\x80\x80",
    b"\xFC\x84\x80\x80\x80\x80",
    b"\xFD\xBF\xBF\xBF\xBF\xBF",
    b"\xFE",
    b"\xFF",
    b"\x80",
    b"\x00",
    b"\xE2\x82\x41",
    b"\xED\xA0",
];

/// The part of a fresh stream answer after its first `skip` calls: what
/// the continuing run of a reused object returns.
fn tail_of(answer: &StreamAnswer, skip: usize) -> StreamAnswer {
    StreamAnswer {
        calls: answer
            .calls
            .as_ref()
            .map(|c| c[skip.min(c.len())..].to_vec()),
        error: answer.error.map(|e| crate::outcome::StreamError {
            call: e.call - skip,
            ..e
        }),
        valid: answer.valid,
    }
}

fn decodes(caps: Capabilities) -> bool {
    caps.has(Capability::Validate) || caps.has(Capability::Lossy) || caps.has(Capability::Decode)
}

/// Audits one decoder. Returns its report and its outcome on every vector
/// case (in file order), for the matrix.
pub fn audit(
    subject: &Subject,
    files: &[VectorFile],
    options: &AuditOptions,
    progress: &dyn Progress,
) -> (DecoderReport, Vec<CaseCell>) {
    let about = About {
        description: &subject.description,
        expected_conformant: subject.expected_conformant,
        gate: &subject.gate,
        format: subject.format,
    };
    audit_decoder(subject.decoder.as_ref(), &about, files, options, progress)
}

/// [`audit`] for a borrowed decoder.
pub fn audit_decoder(
    decoder: &dyn Decoder,
    about: &About,
    files: &[VectorFile],
    options: &AuditOptions,
    progress: &dyn Progress,
) -> (DecoderReport, Vec<CaseCell>) {
    let started = Instant::now();
    let caps = decoder.capabilities();
    let mut audit = Audit {
        decoder,
        caps,
        format: about.format,
        asker: Asker::new(decoder),
        failures: Failures {
            per_level: options.failures_per_level,
            counts: BTreeMap::new(),
            kept: Vec::new(),
        },
        checked: Checked::default(),
    };
    let mut stage_seconds = BTreeMap::new();
    let mut clock = Instant::now();
    let mut lap = |stage: &str| {
        stage_seconds.insert(stage.to_string(), clock.elapsed().as_secs_f64());
        clock = Instant::now();
    };
    let cells = audit.vectors(files, progress);
    lap("vectors");
    audit.exhaustive(options, progress);
    lap("exhaustive");
    if options.deep {
        audit.deep(progress);
        lap("deep");
    }
    audit.differential(options, progress);
    lap("differential");
    let reuse_rules = if options.reuse {
        let rules = audit.reuse(progress);
        lap("reuse");
        rules
    } else {
        Vec::new()
    };

    let (variants, closest_variant) = audit.variants(files, progress);
    lap("variants");
    progress.stage("classifying");
    let asker = &mut audit.asker;
    let found = classify::classify(caps, |requests| asker.ask(requests, progress));
    lap("classifying");
    let bom = if decodes(caps) { found.bom } else { "n/a" };

    audit.failures.trim();
    let mut incidents: Vec<IncidentRecord> = decoder
        .incidents()
        .into_iter()
        .chain(audit.asker.panic_incidents())
        .map(|i| IncidentRecord {
            kind: i.kind.as_str().to_string(),
            input: hex::encode(&i.input),
            minimized: i.minimized,
            first_seen: hex::encode(&i.first_seen),
            detail: i.detail,
            failures: i.failures,
            not_run: i.not_run,
            note: i.note,
        })
        .collect();
    incidents.sort_by(|a, b| (a.input.len(), &a.input).cmp(&(b.input.len(), &b.input)));
    let levels = Level::ALL
        .iter()
        .map(|&level| {
            let letter = level.letter().to_string();
            let status = if !level.claimed_by(caps) {
                status::NOT_APPLICABLE
            } else if audit.failures.counts.contains_key(&letter) {
                status::FAIL
            } else if audit.asker.unanswered.get(&letter).is_some_and(|&n| n > 0) {
                status::INCOMPLETE
            } else {
                status::PASS
            };
            (letter, status.to_string())
        })
        .collect();
    audit.checked.longest_input = audit.asker.longest;
    let mut vector_cells = BTreeMap::new();
    let ids = files.iter().flat_map(|f| {
        f.cases
            .iter()
            .map(move |c| format!("{}/{}", f.category, c.id()))
    });
    for (id, cell) in ids.zip(&cells) {
        if cell != "pass" && cell != "n/a" {
            vector_cells.insert(id, cell.clone());
        }
    }
    let report = DecoderReport {
        name: decoder.name().to_string(),
        version: decoder.version(),
        kind: decoder.kind().as_str().to_string(),
        description: about.description.to_string(),
        expected_conformant: about.expected_conformant,
        gate: if about.expected_conformant {
            about.gate.to_string()
        } else {
            String::new()
        },
        capabilities: caps.names().into_iter().map(String::from).collect(),
        levels,
        policy: found.policy.policy.as_str().to_string(),
        replacement: found.policy.replacement.map(|r| format!("U+{r:04X}")),
        policy_evidence: found.policy.evidence,
        security_flags: found.flags,
        bom: bom.to_string(),
        bom_evidence: found.bom_evidence,
        reuse_rules,
        rules: format!("{} ({})", about.format.name(), about.format.specification()),
        variants,
        closest_variant,
        checked: audit.checked,
        vector_cells,
        failure_counts: audit.failures.counts,
        failures: audit.failures.kept,
        unanswered: audit.asker.unanswered,
        claim_violations: audit.asker.outside_claims,
        incidents,
        not_run: audit.asker.not_run,
        max_input: decoder.max_input().map(|n| n as u64),
        beyond_max_input: audit.asker.beyond_max_input,
        stopped: decoder.stopped(),
        stderr_tail: decoder.stderr_tail(),
        restarts: decoder.restarts(),
        seconds: started.elapsed().as_secs_f64(),
        stage_seconds,
    };
    (report, cells)
}

/// How many inputs [`audit`] will check for a decoder (for progress bars):
/// an estimate, since streaming and reuse requests depend on the claims.
pub fn work(subject: &Subject, files: &[VectorFile], options: &AuditOptions) -> u64 {
    let caps = subject.decoder.capabilities();
    let external = subject.decoder.kind() == Kind::External;
    let cases: u64 = files.iter().map(|f| f.cases.len() as u64).sum();
    let len = if external {
        options.external_exhaustive_len
    } else {
        options.builtin_exhaustive_len
    };
    let exhaustive: u64 = (1..=len).map(|l| 1u64 << (8 * l)).sum();
    let diff = if external {
        options.external_diff_inputs
    } else {
        options.builtin_diff_inputs
    };
    let modes = caps.stream_modes().count() as u64;
    let deep = if options.deep {
        1700 * (1 + 2 * modes)
    } else {
        0
    };
    let reuse = if options.reuse && caps.has(Capability::Reuse) {
        400 * modes
    } else {
        0
    };
    cases + exhaustive + deep + diff * (1 + modes) + reuse + 60
}

/// A decoder's cell for every vector case, rebuilt from its report (its
/// claims say which cases ran; `vector_cells` holds every cell but `pass`).
pub fn cells_of(report: &DecoderReport, files: &[VectorFile]) -> Vec<CaseCell> {
    let caps = report
        .capabilities
        .iter()
        .filter_map(|c| Capabilities::parse_one(c))
        .fold(Capabilities::NONE, Capabilities::union);
    let mut cells = Vec::new();
    for file in files {
        for case in &file.cases {
            let ran = case.runs_on(caps);
            let id = format!("{}/{}", file.category, case.id());
            cells.push(match report.vector_cells.get(&id) {
                Some(cell) => cell.clone(),
                None if ran => "pass".to_string(),
                None => "n/a".to_string(),
            });
        }
    }
    cells
}

/// Groups the vector cases into matrix rows: within a category, all cases
/// whose cells are identical for every decoder share one row (in order of
/// first appearance), which keeps the matrix readable — the rows that remain
/// are exactly the distinct behaviours.
pub fn matrix(files: &[VectorFile], columns: &[Vec<CaseCell>]) -> Vec<MatrixRow> {
    let mut rows: Vec<MatrixRow> = Vec::new();
    let mut index = 0;
    for file in files {
        let first_row = rows.len();
        for case in &file.cases {
            let cells: Vec<String> = columns.iter().map(|c| c[index].clone()).collect();
            index += 1;
            if let Some(row) = rows[first_row..].iter_mut().find(|r| r.cells == cells) {
                row.count += 1;
                row.last_id = case.id().to_string();
                continue;
            }
            let (input, note) = (case.shown_input(), case.note().to_string());
            rows.push(MatrixRow {
                category: file.category.clone(),
                first_id: case.id().to_string(),
                last_id: case.id().to_string(),
                count: 1,
                input,
                note,
                cells,
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Answer;

    /// A decoder that answers as a format's reference does.
    struct AsFormat(Format);

    impl Decoder for AsFormat {
        fn name(&self) -> &str {
            self.0.name()
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::NONE
                .with(Capability::Validate)
                .with(Capability::Decode)
        }
        fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
            let full = self.0.expected(bytes);
            Ok(Answer {
                valid: full.valid,
                scalars: full.scalars,
                ..Answer::default()
            })
        }
    }

    fn small() -> AuditOptions {
        AuditOptions {
            builtin_diff_inputs: 200,
            builtin_exhaustive_len: 1,
            deep: false,
            reuse: false,
            ..AuditOptions::default()
        }
    }

    #[test]
    fn each_neighbour_is_named_and_scored_by_its_own_rules() {
        let files = crate::vectors::bundled();
        for format in Format::ALL {
            if format == Format::SurrogateEscape {
                continue; // it never fails: not a strict decoder
            }
            let about = About {
                description: "",
                expected_conformant: false,
                gate: "",
                format,
            };
            let (report, _) = audit_decoder(&AsFormat(format), &about, &files, &small(), &());
            assert!(
                report.variants.contains(&format.name().to_string()),
                "{format:?}: {:?}",
                report.variants
            );
            // Held to its own rules, it fails nothing.
            assert_eq!(
                report.status(Level::Validity),
                status::PASS,
                "{format:?}: {:?}",
                report.failures.first()
            );
            assert!(report.rules.starts_with(format.name()));
        }
        // A UTF-8 decoder held to CESU-8's rules fails: 4-byte forms.
        let about = About {
            description: "",
            expected_conformant: false,
            gate: "",
            format: Format::Cesu8,
        };
        let (report, _) = audit_decoder(&AsFormat(Format::Utf8), &about, &files, &small(), &());
        assert_eq!(report.status(Level::Validity), status::FAIL);
        assert_eq!(report.variants, ["utf-8"]);
    }
}

/// The level and flag logic, each rule as the docs state it: failures
/// counted and kept per level (`failure_counts`, `failures`,
/// `failures_per_level`), what counts against a level as unanswered, claims
/// outside the capabilities, and each level's status (`report::status`).
#[cfg(test)]
mod level_logic_tests {
    use super::*;
    use crate::decoders::ReferenceDecoder;

    fn failures(per_level: usize) -> Failures {
        Failures {
            per_level,
            counts: BTreeMap::new(),
            kept: Vec::new(),
        }
    }

    fn add(f: &mut Failures, level: Level, source: &str, input: &str, expected: &str) {
        let m = Mismatch {
            field: Field::Valid,
            expected: expected.into(),
            got: "something else".into(),
        };
        f.add(level, source, input.into(), &m);
    }

    /// The records kept, as (level, input).
    fn kept(f: &Failures) -> Vec<(&str, &str)> {
        f.kept
            .iter()
            .map(|r| (r.level.as_str(), r.input.as_str()))
            .collect()
    }

    #[test]
    fn every_failure_is_counted_and_the_shortest_of_each_level_kept() {
        // report.rs: failure_counts has all of them, failures the shortest
        // few per level (failures_per_level), levels in report order.
        let mut f = failures(2);
        add(&mut f, Level::Position, "differential", "e0a080", "1");
        add(&mut f, Level::Validity, "differential", "f5f5f5", "false");
        add(&mut f, Level::Validity, "exhaustive", "c0", "false");
        add(&mut f, Level::Validity, "deep", "ff80", "false");
        add(&mut f, Level::Position, "exhaustive", "80", "0");
        f.trim();
        let counts: Vec<(&str, u64)> = f.counts.iter().map(|(l, &n)| (l.as_str(), n)).collect();
        assert_eq!(counts, [("P", 2), ("V", 3)]);
        assert_eq!(
            kept(&f),
            [("V", "c0"), ("V", "ff80"), ("P", "80"), ("P", "e0a080")]
        );
    }

    #[test]
    fn vectors_come_first_among_inputs_as_short() {
        // Failures::trim: vectors first among equals (their ids explain
        // themselves), even before an input that sorts lower.
        let mut f = failures(1);
        add(&mut f, Level::Validity, "exhaustive", "c0", "false");
        add(
            &mut f,
            Level::Validity,
            "vectors:lead-bytes/alone-ff",
            "ff",
            "false",
        );
        f.trim();
        assert_eq!(f.kept.len(), 1);
        assert_eq!(f.kept[0].source, "vectors:lead-bytes/alone-ff");
    }

    #[test]
    fn the_same_failure_found_twice_takes_one_place() {
        // The shortest *inputs* of a level: one input failing the same way
        // in two stages is one input, and the next shortest keeps its place.
        let mut f = failures(2);
        add(&mut f, Level::Validity, "deep", "c0", "false");
        add(&mut f, Level::Validity, "differential", "c0", "false");
        add(&mut f, Level::Validity, "exhaustive", "c1", "false");
        f.trim();
        assert_eq!(kept(&f), [("V", "c0"), ("V", "c1")]);
        assert_eq!(f.counts["V"], 3);
    }

    #[test]
    fn different_inputs_failing_alike_are_each_kept() {
        // Most failures of a level expect the same value (`false`): each
        // input is a failure of its own, on each level it fails.
        let mut f = failures(3);
        for input in ["c2", "c0", "c1"] {
            add(&mut f, Level::Validity, "exhaustive", input, "false");
        }
        add(&mut f, Level::Position, "exhaustive", "c0", "false");
        f.trim();
        assert_eq!(
            kept(&f),
            [("V", "c0"), ("V", "c1"), ("V", "c2"), ("P", "c0")]
        );
    }

    /// Answers as the reference does, only what `caps` claims; an input
    /// starting with FE gets no answer when `refusal` says how, one
    /// starting with FF panics when `panics`.
    struct Script {
        caps: Capabilities,
        refusal: Option<FailureKind>,
        panics: bool,
    }

    impl Decoder for Script {
        fn name(&self) -> &str {
            "script"
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn capabilities(&self) -> Capabilities {
            self.caps
        }
        fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
            match (bytes.first(), self.refusal) {
                (Some(0xFE), Some(kind)) => Err(Failure {
                    kind,
                    detail: "refused".into(),
                }),
                (Some(0xFF), _) if self.panics => panic!("boom"),
                _ => Ok(Answer::from_results(
                    self.caps,
                    reference::decode(bytes),
                    || reference::decode_lossy(bytes),
                )),
            }
        }
    }

    fn decodes_of(inputs: &[&[u8]]) -> Vec<Request> {
        inputs.iter().map(|b| Request::Decode(b.to_vec())).collect()
    }

    #[test]
    fn an_unanswered_input_counts_once_against_each_level_it_would_judge() {
        // A decode informs V P S R, of which STRICT claims V P S.
        let d = Script {
            caps: Capabilities::STRICT,
            refusal: Some(FailureKind::Timeout),
            panics: false,
        };
        let mut asker = Asker::new(&d);
        asker.ask(&decodes_of(&[b"\xFE", b"A", b"\xFE\x80"]), &());
        let counts: Vec<(&str, u64)> = asker
            .unanswered
            .iter()
            .map(|(l, &n)| (l.as_str(), n))
            .collect();
        assert_eq!(counts, [("P", 2), ("S", 2), ("V", 2)]);
        // A timeout is neither a request not run nor a panic.
        assert_eq!(asker.not_run, 0);
        assert!(asker.panic_incidents().is_empty());

        // A request never made is "not run", and unanswered too.
        let d = Script {
            caps: Capabilities::NONE.with(Capability::Lossy),
            refusal: Some(FailureKind::NotRun),
            panics: false,
        };
        let mut asker = Asker::new(&d);
        asker.ask(&decodes_of(&[b"\xFE", b"\xFE\xFE"]), &());
        assert_eq!(asker.not_run, 2);
        assert_eq!(asker.unanswered.get("R"), Some(&2));
        assert_eq!(asker.unanswered.len(), 1);
    }

    #[test]
    fn a_panic_keeps_its_first_input_the_shortest_and_how_often() {
        // Asker::panics: by message, the first input, the shortest (the
        // first found of that length: a later one as short is no shorter),
        // and the count, which the incident reports as its failures.
        let d = Script {
            caps: Capabilities::STRICT,
            refusal: Some(FailureKind::Timeout),
            panics: true,
        };
        let mut asker = Asker::new(&d);
        asker.ask(
            &decodes_of(&[b"\xFF\x41\x41", b"\xFF\x42", b"A", b"\xFF\x43"]),
            &(),
        );
        let (first, shortest, n) = &asker.panics["boom"];
        assert_eq!(first, b"\xFF\x41\x41");
        assert_eq!(shortest, b"\xFF\x42");
        assert_eq!(*n, 3);
        let incidents = asker.panic_incidents();
        assert_eq!(incidents.len(), 1);
        assert_eq!(incidents[0].kind, FailureKind::Panic);
        assert_eq!(incidents[0].failures, 3);
        assert_eq!(incidents[0].first_seen, b"\xFF\x41\x41");
        assert_eq!(asker.unanswered.get("V"), Some(&3));
    }

    #[test]
    fn fields_answered_without_a_claim_are_named() {
        let strict = Answer {
            valid: Some(false),
            valid_up_to: Some(0),
            error_len: Some(Some(1)),
            ..Answer::default()
        };
        let validate = Capabilities::NONE.with(Capability::Validate);
        let what = outside_claims(&strict, validate).expect("two fields outside");
        let named: Vec<&str> = what
            .strip_prefix("answered ")
            .and_then(|s| s.strip_suffix(" without claiming it"))
            .expect(&what)
            .split(", ")
            .collect();
        assert_eq!(named, ["valid_up_to", "error_len"]);
        // Within its claims, or answering less than it claims: nothing.
        assert_eq!(outside_claims(&strict, Capabilities::STRICT), None);
        assert_eq!(outside_claims(&Answer::default(), Capabilities::ALL), None);
        let lossy = Answer {
            lossy: Some(vec![0xFFFD]),
            ..Answer::default()
        };
        assert_eq!(
            outside_claims(&lossy, Capabilities::STRICT).as_deref(),
            Some("answered lossy without claiming it")
        );
    }

    #[test]
    fn one_shot_stages_are_for_a_decoder_that_answers_a_decode() {
        // docs/protocol.md: validate, decode and lossy are answers to a
        // decode request; encode and the streams are not.
        for cap in [Capability::Validate, Capability::Decode, Capability::Lossy] {
            assert!(decodes(Capabilities::NONE.with(cap)), "{cap:?}");
        }
        for cap in [
            Capability::Position,
            Capability::Subpart,
            Capability::Encode,
            Capability::StreamStrict,
            Capability::StreamLossy,
            Capability::Reuse,
        ] {
            assert!(!decodes(Capabilities::NONE.with(cap)), "{cap:?}");
        }
        assert!(decodes(Capabilities::ALL));
        assert!(!decodes(Capabilities::NONE));
    }

    fn options() -> AuditOptions {
        AuditOptions {
            builtin_diff_inputs: 200,
            builtin_exhaustive_len: 1,
            deep: false,
            ..AuditOptions::default()
        }
    }

    const ABOUT: About = About {
        description: "",
        expected_conformant: true,
        gate: "",
        format: Format::Utf8,
    };

    #[test]
    fn the_reference_passes_every_level_it_claims() {
        // Reuse included: a run after one left unflushed is held to the
        // tail of the two as one fresh stream.
        let files = crate::vectors::bundled();
        let (report, cells) = audit_decoder(&ReferenceDecoder, &ABOUT, &files, &options(), &());
        for level in Level::ALL {
            assert_eq!(
                report.status(level),
                status::PASS,
                "{level}: {:?}",
                report.failures
            );
        }
        assert!(report.failures.is_empty() && report.failure_counts.is_empty());
        assert_eq!(report.reuse_rules, ["fresh", "continues-unflushed"]);
        // Every case it runs passes (no decoder claims UTF-16, whose cases
        // are n/a), so no cell is listed.
        assert!(cells.iter().all(|c| c == "pass" || c == "n/a"));
        assert!(report.vector_cells.is_empty(), "{:?}", report.vector_cells);
    }

    #[test]
    fn a_level_with_no_answer_on_some_input_and_no_failure_is_incomplete() {
        let files = crate::vectors::bundled();
        let validate = Capabilities::NONE.with(Capability::Validate);
        // Every answer right: V passes, the rest is not claimed, and only
        // the cells neither pass nor n/a are listed (none).
        let right = Script {
            caps: validate,
            refusal: None,
            panics: false,
        };
        let (report, cells) = audit_decoder(&right, &ABOUT, &files, &options(), &());
        assert_eq!(report.status(Level::Validity), status::PASS);
        for level in &Level::ALL[1..] {
            assert_eq!(report.status(*level), status::NOT_APPLICABLE, "{level}");
        }
        assert!(cells.iter().any(|c| c == "n/a") && cells.iter().any(|c| c == "pass"));
        assert!(report.vector_cells.is_empty(), "{:?}", report.vector_cells);

        // Inputs starting with FE unanswered: V incomplete, not failed.
        let silent = Script {
            refusal: Some(FailureKind::Timeout),
            ..right
        };
        let (report, _) = audit_decoder(&silent, &ABOUT, &files, &options(), &());
        assert_eq!(report.status(Level::Validity), status::INCOMPLETE);
        assert!(report.failure_counts.is_empty());
        assert!(report.unanswered["V"] > 0);
        assert_eq!(
            report
                .vector_cells
                .get("lead-bytes/alone-fe")
                .map(String::as_str),
            Some("no-answer")
        );
    }

    #[test]
    fn a_failure_found_by_the_vectors_and_another_stage_is_kept_once() {
        // S c0 and S c1 from the vectors, then S c0 again from the
        // exhaustive sweep: sorted, the vectors' c1 falls between the two
        // records of c0. The report keeps each failure once (the vectors'
        // record, whose id explains it).
        let mut f = failures(20);
        add(
            &mut f,
            Level::Subpart,
            "vectors:lead-bytes/alone-c0",
            "c0",
            "1",
        );
        add(
            &mut f,
            Level::Subpart,
            "vectors:lead-bytes/alone-c1",
            "c1",
            "1",
        );
        add(&mut f, Level::Subpart, "exhaustive", "c0", "1");
        f.trim();
        assert_eq!(kept(&f), [("S", "c0"), ("S", "c1")]);
        assert_eq!(f.kept[0].source, "vectors:lead-bytes/alone-c0");
        assert_eq!(f.counts["S"], 3, "every failure is still counted");
    }
}
