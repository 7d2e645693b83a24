//! The audit report's model: [`Report`], written as `report.json`. The
//! renderers (Markdown, HTML, JUnit XML) live in the CLI crate and read
//! only this model; nothing here knows how an outcome was produced.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON Schema (draft 2020-12) of `report.json`.
pub const SCHEMA_JSON: &str = include_str!("report.schema.json");

/// The conformance levels, in report order, with their questions.
pub const LEVELS: [(&str, &str); 6] = [
    ("V", "validity: accepts exactly the RFC 3629 language"),
    ("P", "position: valid_up_to right on every invalid input"),
    (
        "S",
        "subpart: error_len = maximal subpart, null only for a completable tail",
    ),
    ("R", "replacement: one U+FFFD per maximal subpart"),
    ("C", "chunking: same result however the input is split"),
    (
        "E",
        "encoding: shortest form; surrogates and > U+10FFFF refused",
    ),
];

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
    /// `pass`, `fail` or `n/a` for each of V P S R C E.
    pub levels: BTreeMap<String, String>,
    /// Its replacement policy.
    pub policy: String,
    /// Its replacement character, when not U+FFFD (e.g. `U+003F`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// The probes the policy was inferred from.
    pub policy_evidence: Vec<Evidence>,
    /// RFC 3629 §10 hazards and other departures it shows.
    pub security_flags: Vec<String>,
    /// `keeps`, `strips-leading`, `strips`, `other` or `n/a`.
    pub bom: String,
    /// How many inputs each stage checked.
    pub checked: Checked,
    /// Failures per level (all of them, not only those listed).
    pub failure_counts: BTreeMap<String, u64>,
    /// The shortest failing inputs, a bounded number per level.
    pub failures: Vec<FailureRecord>,
    /// Times an external adapter had to be restarted.
    pub restarts: u32,
    /// Wall time spent on this decoder.
    pub seconds: f64,
}

impl Report {
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
    /// Failed levels the audit's exit status gates on.
    pub fn gated_failures(&self) -> Vec<&str> {
        self.failed_levels()
            .into_iter()
            .filter(|l| self.gate.contains(l))
            .collect()
    }

    /// The levels it claims and fails.
    pub fn failed_levels(&self) -> Vec<&str> {
        self.levels
            .iter()
            .filter(|(_, s)| s.as_str() == "fail")
            .map(|(l, _)| l.as_str())
            .collect()
    }
}

/// Inputs checked per stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    /// Vector cases.
    pub vectors: u64,
    /// Exhaustive inputs.
    pub exhaustive: u64,
    /// Differential campaign inputs.
    pub differential: u64,
}

/// One failing input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The level letter (`V` also for a failure to answer at all).
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
    /// Per decoder: `pass`, `fail:<levels>` or `n/a`.
    pub cells: Vec<String>,
}

/// One probe's evidence: what the decoder said, and what the winning policy
/// (and maximal subpart, for contrast) predict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The probe, hex.
    pub input: String,
    /// The decoder's lossy output.
    pub got: Vec<u32>,
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
