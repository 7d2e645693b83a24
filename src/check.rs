//! The kit's one call: hold a decoder — yours — to everything the harness
//! knows, and get every violation back with its evidence.
//!
//! ```
//! use utf8conform::decoder::Decoder;
//! use utf8conform::outcome::{Answer, Capabilities, Capability, Failure};
//!
//! /// std's `from_utf8` and `from_utf8_lossy`, claiming what they tell.
//! struct Mine;
//! impl Decoder for Mine {
//!     fn name(&self) -> &str { "mine" }
//!     fn version(&self) -> String { "1.0".into() }
//!     fn capabilities(&self) -> Capabilities { Capabilities::STRICT.with(Capability::Lossy) }
//!     fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
//!         Ok(Answer::from_results(
//!             self.capabilities(),
//!             std::str::from_utf8(bytes).map(|s| s.chars().collect()).map_err(Into::into),
//!             || String::from_utf8_lossy(bytes).chars().collect(),
//!         ))
//!     }
//! }
//!
//! let checked = utf8conform::check_with(&Mine, &utf8conform::CheckOptions::quick());
//! assert!(checked.conforms(), "{checked}");
//! ```
//!
//! A decoder that panics is reported, input by input, not aborted on; one
//! that answers a field it does not claim is reported as breaking its
//! claim. [`assert_conforms`] is the same call for a test: it panics with
//! every violation.

use crate::audit::{self, About, AuditOptions};
use crate::decoder::Decoder;
use crate::level::Level;
use crate::report::{status, DecoderReport, Report, ReportOptions};
use crate::vectors::{self, VectorFile};
use std::fmt;

/// How much [`check_with`] runs: the audit's options.
pub type CheckOptions = AuditOptions;

impl AuditOptions {
    /// A check that fits a unit test: every vector (one-shot and in every
    /// chunking), every input of up to 2 bytes, the deep inputs, 10,000
    /// differential inputs, the reuse sequences and the classification.
    pub fn quick() -> AuditOptions {
        AuditOptions {
            builtin_diff_inputs: 10_000,
            external_diff_inputs: 10_000,
            builtin_exhaustive_len: 2,
            external_exhaustive_len: 2,
            ..AuditOptions::default()
        }
    }
}

/// One way a decoder breaks a promise: a level it claims, its claims
/// themselves, or answering at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The level broken, if it is one.
    pub level: Option<Level>,
    /// What kind: `level`, `incomplete`, `claim`, or an incident's kind
    /// (`panic`, `crash`, `timeout`, `protocol-error`).
    pub kind: String,
    /// The input that shows it, hex (empty when it is about many inputs).
    pub input: String,
    /// What RFC 3629 and Unicode §3.9 say (or the claim made).
    pub expected: String,
    /// What the decoder answered.
    pub got: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = self
            .level
            .map_or(String::new(), |l| format!(" {}", l.letter()));
        write!(f, "[{}{level}]", self.kind)?;
        if !self.input.is_empty() {
            write!(f, " input {}:", self.input)?;
        }
        write!(f, " expected {}, got {}", self.expected, self.got)
    }
}

/// What [`check`] found: the full report, and the violations drawn from
/// it.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The decoder's report, as `utf8conform audit` writes it (the CLI
    /// crate's renderers take it).
    pub report: DecoderReport,
    /// Every violation, failures first (the shortest inputs of each level),
    /// then unanswered levels, incidents and broken claims.
    pub violations: Vec<Violation>,
    /// What was run.
    pub options: ReportOptions,
}

impl Checked {
    /// Whether the decoder kept every promise it makes.
    pub fn conforms(&self) -> bool {
        self.violations.is_empty()
    }

    /// The check as a whole audit report of one decoder, for the renderers
    /// of `utf8conform-cli` (Markdown, HTML, JUnit).
    pub fn report_of_one(&self) -> Report {
        let files = vectors::bundled();
        let cells = audit::cells_of(&self.report, &files);
        Report::stamped(
            "check",
            self.options.clone(),
            self.report.seconds,
            vec![self.report.clone()],
            audit::matrix(&files, &[cells]),
        )
    }
}

impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.report;
        let levels: String = Level::ALL
            .iter()
            .map(|&l| match d.status(l) {
                status::PASS => l.letter(),
                status::FAIL => '✗',
                status::INCOMPLETE => '?',
                _ => '·',
            })
            .collect();
        writeln!(
            f,
            "{} {}: levels {levels} (VPSRCUE), {} violation(s)",
            d.name,
            d.version,
            self.violations.len()
        )?;
        for v in &self.violations {
            writeln!(f, "  {v}")?;
        }
        Ok(())
    }
}

/// Checks `decoder` with [`CheckOptions::quick`].
pub fn check(decoder: &dyn Decoder) -> Checked {
    check_with(decoder, &CheckOptions::quick())
}

/// Checks `decoder` against the vectors this crate carries and everything
/// else `options` asks for.
pub fn check_with(decoder: &dyn Decoder, options: &CheckOptions) -> Checked {
    let files: Vec<VectorFile> = vectors::bundled();
    let gate: String = Level::ALL.iter().map(|l| l.letter()).collect();
    let about = About {
        description: "checked with utf8conform::check",
        expected_conformant: true,
        gate: &gate,
        format: crate::reference::variants::Format::Utf8,
    };
    let (report, _) = audit::audit_decoder(decoder, &about, &files, options, &());
    let violations = violations_of(&report);
    let options = ReportOptions {
        vector_cases: files.iter().map(|f| f.cases.len()).sum(),
        builtin_exhaustive_len: options.builtin_exhaustive_len,
        external_exhaustive_len: options.external_exhaustive_len,
        seed: options.seed,
        builtin_diff_inputs: options.builtin_diff_inputs,
        external_diff_inputs: options.external_diff_inputs,
        vectors_digest: vectors::digest(&files),
    };
    Checked {
        report,
        violations,
        options,
    }
}

/// Checks `decoder` and panics with every violation, for a test.
///
/// # Panics
/// When the decoder breaks any promise it makes.
pub fn assert_conforms(decoder: &dyn Decoder) {
    let checked = check(decoder);
    assert!(checked.conforms(), "{checked}");
}

/// The violations a report holds.
pub fn violations_of(d: &DecoderReport) -> Vec<Violation> {
    let mut out: Vec<Violation> = d
        .failures
        .iter()
        .map(|f| Violation {
            level: f.level.chars().next().and_then(Level::from_letter),
            kind: "level".into(),
            input: f.input.clone(),
            expected: f.expected.clone(),
            got: f.got.clone(),
        })
        .collect();
    for level in Level::ALL {
        if d.status(level) == status::INCOMPLETE {
            let n = d
                .unanswered
                .get(&level.letter().to_string())
                .copied()
                .unwrap_or(0);
            out.push(Violation {
                level: Some(level),
                kind: "incomplete".into(),
                input: String::new(),
                expected: "an answer to every input".into(),
                got: format!("{n} input(s) with no answer"),
            });
        }
    }
    out.extend(d.incidents.iter().map(|i| Violation {
        level: None,
        kind: i.kind.clone(),
        input: i.input.clone(),
        expected: "an answer".into(),
        got: i.detail.clone(),
    }));
    out.extend(d.claim_violations.iter().map(|p| Violation {
        level: None,
        kind: "claim".into(),
        input: p.input.clone(),
        expected: "only the fields its capabilities claim".into(),
        got: p.answer.clone(),
    }));
    out
}
