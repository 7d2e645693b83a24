//! The audit report's model: [`Report`], written as `report.json`. The
//! renderers (Markdown, HTML, JUnit XML) live in the CLI crate and read
//! only this model; nothing here knows how an outcome was produced.

use crate::level::Level;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON Schema (draft 2020-12) of `report.json`.
pub const SCHEMA_JSON: &str = include_str!("report.schema.json");

/// A level's status in a report.
pub mod status {
    /// Every input checked on the level was answered as expected.
    pub const PASS: &str = "pass";
    /// At least one input was answered otherwise (the failures say which).
    pub const FAIL: &str = "fail";
    /// No failure was found, but some inputs got no answer (a crash, a
    /// timeout, a protocol error, a request not run): a claimed level with
    /// unanswered inputs is not a pass.
    pub const INCOMPLETE: &str = "incomplete";
    /// The decoder does not claim the level.
    pub const NOT_APPLICABLE: &str = "n/a";
}

/// An audit's whole result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `utf8conform <version>`.
    pub tool: String,
    /// UTC time the audit finished, RFC 3339.
    pub generated_at: String,
    /// CPU and OS the audit ran on.
    pub machine: String,
    /// What was run.
    pub options: ReportOptions,
    /// Wall time of the whole audit.
    pub wall_seconds: f64,
    /// Why the audit stopped before the end (Ctrl-C), when it did: the
    /// report then holds only the decoders that finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// One entry per audited decoder.
    pub decoders: Vec<DecoderReport>,
    /// Decoders that could not be audited, and why.
    pub skipped: Vec<Skipped>,
    /// Vector cases grouped into rows of identical outcomes across decoders
    /// (columns in `decoders` order).
    pub matrix: Vec<MatrixRow>,
}

/// The audit's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportOptions {
    /// Vector cases run.
    pub vector_cases: usize,
    /// Exhaustive sweep length for built-in decoders.
    pub builtin_exhaustive_len: usize,
    /// Exhaustive sweep length for external decoders.
    pub external_exhaustive_len: usize,
    /// Differential campaign seed.
    pub seed: u64,
    /// Differential inputs for built-in decoders.
    pub builtin_diff_inputs: u64,
    /// Differential inputs for external decoders.
    pub external_diff_inputs: u64,
    /// A fingerprint of the vector cases run (their ids and inputs), so
    /// that reports of different vectors are not compared or merged.
    #[serde(default)]
    pub vectors_digest: String,
}

/// One decoder's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecoderReport {
    /// Its name.
    pub name: String,
    /// The library version it reported.
    pub version: String,
    /// `builtin` or `external`.
    pub kind: String,
    /// What it is (library and calls).
    pub description: String,
    /// Whether it is documented to conform (the audit's exit status gates
    /// on these).
    pub expected_conformant: bool,
    /// The levels the audit's exit status gates on (empty when not
    /// expected to conform).
    pub gate: String,
    /// What it claims to answer.
    pub capabilities: Vec<String>,
    /// Per level letter (V P S R C U E), one of [`status`].
    pub levels: BTreeMap<String, String>,
    /// Its replacement policy, inferred from the answered probes only.
    pub policy: String,
    /// Its replacement character, when not U+FFFD (e.g. `U+003F`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// The probes the policy was inferred from, each with its answer.
    pub policy_evidence: Vec<Evidence>,
    /// RFC 3629 §10 hazards and other departures it shows, each with the
    /// input and the answer that show it.
    pub security_flags: Vec<Flag>,
    /// `keeps`, `strips-leading`, `strips`, `other`, `no-answer` or `n/a`.
    pub bom: String,
    /// The probes the BOM behaviour was read from.
    #[serde(default)]
    pub bom_evidence: Vec<Probe>,
    /// Which rule a reused decoder object was held to: `fresh` (as a new
    /// object) and, after a stream left unflushed, `continues-unflushed`
    /// (the next input continues it, as streaming APIs document).
    #[serde(default)]
    pub reuse_rules: Vec<String>,
    /// The rules the decoder was scored by: `utf-8 (RFC 3629)`, or the
    /// neighbouring format it implements on purpose.
    #[serde(default)]
    pub rules: String,
    /// The formats (UTF-8 and its neighbours: RFC 2279, CESU-8, Modified
    /// UTF-8, WTF-8, surrogatepass, surrogateescape) whose answers it
    /// matches exactly on every probe: validity and decoded values (the
    /// replacing output, for a decoder that only replaces).
    #[serde(default)]
    pub variants: Vec<String>,
    /// When it matches none: the format it comes closest to, and where it
    /// first departs from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest_variant: Option<Closest>,
    /// How many inputs each stage checked.
    pub checked: Checked,
    /// The vector cases whose cell in the matrix is neither `pass` nor
    /// `n/a`, by `category/id` (so that reports of split jobs can be
    /// merged into one matrix).
    #[serde(default)]
    pub vector_cells: BTreeMap<String, String>,
    /// Failures per level (all of them, not only those listed).
    pub failure_counts: BTreeMap<String, u64>,
    /// The shortest failing inputs, a bounded number per level.
    pub failures: Vec<FailureRecord>,
    /// Inputs per level that got no answer (so the level could not be
    /// judged on them).
    #[serde(default)]
    pub unanswered: BTreeMap<String, u64>,
    /// Answers with fields the decoder does not claim (the first few), each
    /// with its input: the decoder breaks its own claim.
    #[serde(default)]
    pub claim_violations: Vec<Probe>,
    /// Crashes, hangs, protocol errors and panics, each narrowed to the
    /// input that shows it.
    #[serde(default)]
    pub incidents: Vec<IncidentRecord>,
    /// Requests not sent (a confirmed crashing input class, a spent time
    /// budget, too many failures in a row).
    #[serde(default)]
    pub not_run: u64,
    /// The longest input the library's API takes, when the adapter
    /// declared one (`max_input` in its hello).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input: Option<u64>,
    /// Requests left out because their input is longer than `max_input`
    /// (outside the library's domain, so no one's failure).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub beyond_max_input: u64,
    /// Why the decoder was stopped before the end, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The last lines an external adapter wrote to stderr.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// Times an external adapter had to be restarted.
    pub restarts: u32,
    /// Wall time spent on this decoder.
    pub seconds: f64,
    /// Wall time per stage (`vectors`, `exhaustive`, `deep`, …), to see
    /// where a slow decoder's time went.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stage_seconds: BTreeMap<String, f64>,
}

/// A probe and the decoder's answer to it, rendered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// The input, hex.
    pub input: String,
    /// What the decoder answered (`valid, scalars [U+0041]`), or
    /// `no answer: …`.
    pub answer: String,
}

/// The format a decoder comes closest to without matching any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closest {
    /// The format's name.
    pub format: String,
    /// How many probes it answers otherwise than that format.
    pub differs_on: u64,
    /// Of how many.
    pub of: u64,
    /// The first such probe, with its answer and the format's.
    pub first: Probe,
}

/// A flag and its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    /// The flag's name (`accepts-surrogates`).
    pub flag: String,
    /// The input that shows it, hex (a number `U+XXXX` for encoding flags).
    pub input: String,
    /// The answer that shows it.
    pub answer: String,
}

/// A failure to answer, narrowed to its input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncidentRecord {
    /// `crash`, `timeout`, `protocol-error` or `panic`.
    pub kind: String,
    /// The input that shows it, hex: minimised when `minimized` (every
    /// input holding these bytes is expected to fail the same way).
    pub input: String,
    /// Whether `input` was minimised.
    pub minimized: bool,
    /// The input it was first seen on, hex.
    pub first_seen: String,
    /// What the failure said.
    pub detail: String,
    /// Requests that failed this way.
    pub failures: u64,
    /// Requests of the same class that were not sent.
    pub not_run: u64,
    /// Anything else worth saying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Report {
    /// A report of `decoders`, stamped with the tool (`how` names the
    /// entry point, such as `audit` or `check`), the time and the machine.
    /// `partial` and `skipped` start empty.
    pub fn stamped(
        how: &str,
        options: ReportOptions,
        wall_seconds: f64,
        decoders: Vec<DecoderReport>,
        matrix: Vec<MatrixRow>,
    ) -> Report {
        Report {
            tool: format!("utf8conform {} ({how})", env!("CARGO_PKG_VERSION")),
            generated_at: utc_now(),
            machine: machine(),
            options,
            wall_seconds,
            partial: None,
            decoders,
            skipped: Vec::new(),
            matrix,
        }
    }

    /// One line saying what was run: tool, time, machine, wall time and the
    /// size of each stage.
    pub fn run_line(&self) -> String {
        let o = &self.options;
        format!(
            "{} · {} · {} · {:.1} s · {} vector cases · exhaustive ≤ {} bytes (built-in) / ≤ {} (external) · differential {} / {} inputs, seed {}",
            self.tool,
            self.generated_at,
            self.machine,
            self.wall_seconds,
            o.vector_cases,
            o.builtin_exhaustive_len,
            o.external_exhaustive_len,
            o.builtin_diff_inputs,
            o.external_diff_inputs,
            o.seed
        )
    }
}

impl DecoderReport {
    /// Gated levels that did not pass: failed, or left incomplete.
    pub fn gated_failures(&self) -> Vec<&str> {
        self.levels
            .iter()
            .filter(|(l, s)| {
                self.gate.contains(l.as_str())
                    && (s.as_str() == status::FAIL || s.as_str() == status::INCOMPLETE)
            })
            .map(|(l, _)| l.as_str())
            .collect()
    }

    /// The levels it claims and fails.
    pub fn failed_levels(&self) -> Vec<&str> {
        self.levels
            .iter()
            .filter(|(_, s)| s.as_str() == status::FAIL)
            .map(|(l, _)| l.as_str())
            .collect()
    }

    /// A level's status (`n/a` when the report has none for it).
    pub fn status(&self, level: Level) -> &str {
        self.levels
            .get(&level.letter().to_string())
            .map_or(status::NOT_APPLICABLE, String::as_str)
    }
}

/// Inputs checked per stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    /// Vector cases.
    pub vectors: u64,
    /// Exhaustive inputs.
    pub exhaustive: u64,
    /// Inputs with errors deep inside (past block edges, up to 64 KiB).
    #[serde(default)]
    pub deep: u64,
    /// Differential campaign inputs.
    pub differential: u64,
    /// Streaming requests (every chunking of the vectors, the deep inputs
    /// in chunks, the campaign's splits).
    #[serde(default)]
    pub streams: u64,
    /// Sequences of inputs on one decoder object.
    #[serde(default)]
    pub reuse: u64,
    /// The longest input sent, in bytes.
    #[serde(default)]
    pub longest_input: u64,
}

/// One failing input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The level letter.
    pub level: String,
    /// Where it was found: `vectors:<category>/<id>`, `exhaustive`,
    /// `differential`.
    pub source: String,
    /// The input in hex (`U+XXXX` for encoding).
    pub input: String,
    /// The expected value.
    pub expected: String,
    /// The decoder's value.
    pub got: String,
}

/// A decoder that was not audited.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Its name.
    pub name: String,
    /// Why, in one line.
    pub reason: String,
}

/// The vector cases of one category that have the same outcome for every
/// decoder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixRow {
    /// The vector category.
    pub category: String,
    /// The first such case's id.
    pub first_id: String,
    /// The last such case's id.
    pub last_id: String,
    /// How many cases the row stands for.
    pub count: usize,
    /// The first case's input (hex, or `U+XXXX`).
    pub input: String,
    /// The first case's note.
    pub note: String,
    /// Per decoder: `pass`, `fail:<levels>`, `no-answer` or `n/a`.
    pub cells: Vec<String>,
}

/// One policy probe's evidence: what the decoder said, and Unicode §3.9's
/// answer for contrast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The probe, hex.
    pub input: String,
    /// The decoder's lossy output; absent when it gave no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub got: Option<Vec<u32>>,
    /// Why there is no answer (a crash, a timeout…), when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_answer: Option<String>,
    /// Unicode §3.9's answer.
    pub maximal_subpart: Vec<u32>,
}

/// The current UTC time as RFC 3339 (`2026-11-21T05:44:07Z`), without a
/// date library: days since the epoch to a civil date (Howard Hinnant's
/// algorithm, from its published description).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A one-line description of this machine: CPU model, cores, OS.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{cpu}, {cores} cores, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// For `skip_serializing_if`: a count that is zero is left out.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_now_is_rfc3339_shaped_and_recent() {
        let now = utc_now();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
        let year: i32 = now[..4].parse().unwrap();
        assert!((2024..2100).contains(&year), "{now}");
    }
}
