//! `utf8conform audit`: everything the harness knows how to ask, asked of
//! one decoder, turned into a [`DecoderReport`].
//!
//! Per decoder: every vector case; the exhaustive sweep (every input up to
//! 3 bytes in-process, 2 bytes over the protocol); a seeded differential
//! campaign (with random chunkings for streaming decoders); then the
//! classification of [`classify`]: replacement policy, RFC §10 flags, BOM.
//! Levels are scored only where the decoder claims them.

pub mod classify;

use crate::differential::{self, Field, Mismatch};
use crate::exhaustive::{self, SweepOptions};
use crate::generate;
use crate::hex;
use crate::oracles::{Decoder, Kind};
use crate::outcome::{Capabilities, Capability};
use crate::report::{Checked, DecoderReport, FailureRecord, MatrixRow, LEVELS};
use crate::vectors::{run, Case, VectorFile};
use std::collections::BTreeMap;
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
        }
    }
}

/// The one-line description of a built-in decoder.
pub fn builtin_description(name: &str) -> &'static str {
    match name {
        "reference" => "utf8conform's reference decoder: RFC 3629 §4 ABNF transliterated",
        "codec" => "utf8conform's optimized codec (validate, decode, lossy, encode, stream)",
        "std" => "Rust core::str::from_utf8, String::from_utf8_lossy, char::encode_utf8",
        "simdutf8-basic" => "simdutf8::basic::from_utf8 (valid/invalid only)",
        "simdutf8-compat" => "simdutf8::compat::from_utf8 (std-compatible Utf8Error)",
        "simdutf" => "C++ simdutf via the simdutf crate: validate_utf8_with_errors, convert_utf8_to_utf32, convert_utf32_to_utf8",
        "encoding_rs" => "encoding_rs UTF_8 (WHATWG): utf8_valid_up_to, streaming Decoder, decode_without_bom_handling",
        "bstr" => "bstr ByteSlice::to_str and to_str_lossy",
        _ => "",
    }
}

/// Which capabilities a level needs.
fn level_claimed(level: &str, caps: Capabilities) -> bool {
    match level {
        "V" => caps.has(Capability::Validate) || caps.has(Capability::Decode),
        "P" => caps.has(Capability::Position),
        "S" => caps.has(Capability::Subpart),
        "R" => caps.has(Capability::Lossy),
        "C" => caps.has(Capability::Stream),
        "E" => caps.has(Capability::Encode),
        _ => false,
    }
}

/// A failure's level: a failure to answer counts against validity, the
/// first thing that cannot be judged without an answer.
fn level_of(m: &Mismatch) -> char {
    level_of_field(m.field)
}

fn level_of_field(field: Field) -> char {
    match field {
        Field::Failure => 'V',
        f => f.level(),
    }
}

/// Collects failures: counts all, keeps the shortest few per level.
struct Failures {
    per_level: usize,
    counts: BTreeMap<String, u64>,
    kept: Vec<FailureRecord>,
}

impl Failures {
    fn add(&mut self, source: String, input: String, m: &Mismatch) {
        let level = level_of(m).to_string();
        *self.counts.entry(level.clone()).or_insert(0) += 1;
        self.kept.push(FailureRecord {
            level,
            source,
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
        self.kept.sort_by(|a, b| {
            (
                &a.level,
                a.input.len(),
                !a.source.starts_with("vectors"),
                &a.input,
            )
                .cmp(&(
                    &b.level,
                    b.input.len(),
                    !b.source.starts_with("vectors"),
                    &b.input,
                ))
        });
        self.kept
            .dedup_by(|a, b| a.level == b.level && a.input == b.input && a.expected == b.expected);
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let per_level = self.per_level;
        self.kept.retain(|f| {
            let n = seen.entry(f.level.clone()).or_insert(0);
            *n += 1;
            *n <= per_level
        });
    }
}

/// A case's outcome for one decoder, for the matrix.
pub type CaseCell = String;

/// Audits one decoder. Returns its report and its outcome on every vector
/// case (in file order), for the matrix.
pub fn audit(
    subject: &Subject,
    files: &[VectorFile],
    options: &AuditOptions,
    progress: &dyn Progress,
) -> (DecoderReport, Vec<CaseCell>) {
    let started = Instant::now();
    let decoder = subject.decoder.as_ref();
    let caps = decoder.capabilities();
    let external = decoder.kind() == Kind::External;
    let mut failures = Failures {
        per_level: options.failures_per_level,
        counts: BTreeMap::new(),
        kept: Vec::new(),
    };
    let mut checked = Checked::default();

    // 1. Vectors.
    progress.stage("vectors");
    let only = std::slice::from_ref(&subject.decoder);
    let vector_run = run::run(files, only);
    let mut by_case: BTreeMap<(&str, &str), String> = BTreeMap::new();
    for f in &vector_run.failures {
        failures.add(
            format!("vectors:{}/{}", f.category, f.id),
            f.input.clone(),
            &f.mismatch,
        );
        let levels = by_case
            .entry((f.category.as_str(), f.id.as_str()))
            .or_default();
        let l = level_of(&f.mismatch);
        if !levels.contains(l) {
            levels.push(l);
        }
    }
    let decodes = caps.has(Capability::Validate)
        || caps.has(Capability::Lossy)
        || caps.has(Capability::Decode);
    let mut cells = Vec::new();
    for file in files {
        for case in &file.cases {
            let ran = match case {
                Case::Decode(_) => decodes,
                Case::Encode(_) => caps.has(Capability::Encode),
            };
            let cell = if !ran {
                "n/a".to_string()
            } else if let Some(levels) = by_case.get(&(file.category.as_str(), case.id())) {
                let mut sorted: Vec<char> = LEVELS
                    .iter()
                    .filter_map(|(l, _)| l.chars().next())
                    .filter(|l| levels.contains(*l))
                    .collect();
                sorted.dedup();
                format!("fail:{}", sorted.into_iter().collect::<String>())
            } else {
                "pass".to_string()
            };
            checked.vectors += u64::from(ran);
            cells.push(cell);
        }
    }
    progress.advance(checked.vectors);

    // 2. Exhaustive.
    progress.stage("exhaustive");
    if decodes {
        if external {
            for len in 1..=options.external_exhaustive_len {
                let inputs: Vec<Vec<u8>> = (0..1u32 << (8 * len))
                    .map(|n| n.to_be_bytes()[4 - len..].to_vec())
                    .collect();
                check_inputs(decoder, &inputs, "exhaustive", &mut failures, progress);
                checked.exhaustive += inputs.len() as u64;
            }
        } else {
            let sweep_options = SweepOptions {
                max_len: options.builtin_exhaustive_len,
                full_len: options.builtin_exhaustive_len.min(2),
                examples_per_class: options.failures_per_level,
                threads: 0,
            };
            let result = exhaustive::sweep(only, sweep_options, &|n| progress.advance(n));
            checked.exhaustive = result.lengths.iter().map(|l| l.total).sum();
            for d in &result.examples {
                failures.add("exhaustive".into(), hex::encode(&d.input), &d.mismatch);
            }
            // Count every divergence, not only the examples kept, each
            // against its own field's level.
            for ((_, field), &count) in &result.class_counts {
                let kept = result
                    .examples
                    .iter()
                    .filter(|d| d.mismatch.field == *field)
                    .count();
                let extra = count.saturating_sub(kept as u64);
                if extra > 0 {
                    *failures
                        .counts
                        .entry(level_of_field(*field).to_string())
                        .or_insert(0) += extra;
                }
            }
        }
    }

    // 3. Differential campaign.
    progress.stage("differential");
    let n = if external {
        options.external_diff_inputs
    } else {
        options.builtin_diff_inputs
    };
    if decodes && n > 0 {
        let mut index = 0;
        while index < n {
            let batch: Vec<Vec<u8>> = (index..(index + 2048).min(n))
                .map(|i| generate::campaign_input(options.seed, i))
                .collect();
            check_inputs(decoder, &batch, "differential", &mut failures, progress);
            if caps.has(Capability::Stream) {
                for (k, input) in batch.iter().enumerate() {
                    let splits =
                        generate::campaign_splits(options.seed, index + k as u64, input.len());
                    for m in differential::check_chunked(decoder, input, &splits) {
                        failures.add("differential (chunked)".into(), hex::encode(input), &m);
                    }
                }
            }
            index += batch.len() as u64;
        }
        checked.differential = n;
    }

    // 4. Classification.
    progress.stage("classifying");
    let finding = if caps.has(Capability::Lossy) {
        classify::infer_policy(|input| decoder.decode(input).ok().and_then(|a| a.lossy))
    } else {
        classify::infer_policy(|_| None)
    };
    let security_flags = classify::security_flags(decoder, finding.policy);
    let bom = classify::bom_behaviour(decoder).to_string();

    failures.trim();
    let levels = LEVELS
        .iter()
        .map(|(l, _)| {
            let status = if !level_claimed(l, caps) {
                "n/a"
            } else if failures.counts.contains_key(*l) {
                "fail"
            } else {
                "pass"
            };
            (l.to_string(), status.to_string())
        })
        .collect();
    let restarts = decoder.restarts();
    let report = DecoderReport {
        name: decoder.name().to_string(),
        version: decoder.version(),
        kind: decoder.kind().as_str().to_string(),
        description: subject.description.clone(),
        expected_conformant: subject.expected_conformant,
        gate: if subject.expected_conformant {
            subject.gate.clone()
        } else {
            String::new()
        },
        capabilities: caps.names().into_iter().map(String::from).collect(),
        levels,
        policy: finding.policy.as_str().to_string(),
        replacement: finding.replacement.map(|r| format!("U+{r:04X}")),
        policy_evidence: finding.evidence,
        security_flags,
        bom,
        checked,
        failure_counts: failures.counts,
        failures: failures.kept,
        restarts,
        seconds: started.elapsed().as_secs_f64(),
    };
    (report, cells)
}

/// Decodes `inputs` in pipelined batches and records every mismatch with
/// the reference.
fn check_inputs(
    decoder: &dyn Decoder,
    inputs: &[Vec<u8>],
    source: &str,
    failures: &mut Failures,
    progress: &dyn Progress,
) {
    for chunk in inputs.chunks(2048) {
        let refs: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
        let answers = decoder.decode_batch(&refs);
        for (input, answer) in chunk.iter().zip(answers) {
            let expected = differential::expected(input);
            let mismatches = match answer {
                Ok(got) => differential::compare(&expected, &got, decoder.capabilities()),
                Err(f) => vec![Mismatch {
                    field: Field::Failure,
                    expected: "an answer".into(),
                    got: f.to_string(),
                }],
            };
            for m in &mismatches {
                failures.add(source.to_string(), hex::encode(input), m);
            }
        }
        progress.advance(chunk.len() as u64);
    }
}

/// How many inputs [`audit`] will check for a decoder (for progress bars).
pub fn work(subject: &Subject, files: &[VectorFile], options: &AuditOptions) -> u64 {
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
    cases + exhaustive + diff
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
            let (input, note) = match case {
                Case::Decode(d) => (d.bytes.clone(), d.note.clone()),
                Case::Encode(e) => (format!("U+{:04X}", e.scalar), e.note.clone()),
            };
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
