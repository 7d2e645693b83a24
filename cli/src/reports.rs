//! Reports on disk: writing them whole or not at all, reading them back,
//! comparing two (regression baselines) and joining several (an audit split
//! across CI jobs).

use crate::render;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use utf8conform::level::Level;
use utf8conform::report::{self, status, DecoderReport, Report};
use utf8conform::vectors::VectorFile;

/// Fails, before any work, when `out` cannot take the reports: it is a
/// file, or a folder that cannot be made or written to.
pub fn check_destination(out: &Path) -> Result<(), String> {
    if out.exists() && !out.is_dir() {
        return Err(format!("--out {}: not a folder", out.display()));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| format!("--out {}: cannot create it: {e}", out.display()))?;
    let probe = out.join(format!(".utf8conform-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|e| format!("--out {}: cannot write there: {e}", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Every file of a report, by name.
pub fn render_all(report: &Report) -> Result<Vec<(&'static str, String)>, String> {
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n";
    Ok(vec![
        ("report.json", json),
        ("report.schema.json", report::SCHEMA_JSON.to_string()),
        ("summary.md", render::markdown::render(report)),
        ("index.html", render::html::render(report)),
        ("junit.xml", render::junit::render(report)),
    ])
}

/// Writes every rendering of `report` into `out`, all or nothing: each file
/// goes to a staging folder beside `out` first, and only when all of them
/// are written (and synced) are they renamed into place. A full disk leaves
/// the earlier reports as they were.
pub fn write_all(report: &Report, out: &Path) -> Result<(), String> {
    let files = render_all(report)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let staging = out.join(format!(".staging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    let staged = (|| {
        for (name, text) in &files {
            let path = staging.join(name);
            write_synced(&path, text.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok::<(), String>(())
    })();
    if let Err(e) = staged {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "{e} (the reports in {} are unchanged)",
            out.display()
        ));
    }
    for (name, _) in &files {
        std::fs::rename(staging.join(name), out.join(name))
            .map_err(|e| format!("cannot move {name} into {}: {e}", out.display()))?;
    }
    let _ = std::fs::remove_dir_all(&staging);
    Ok(())
}

/// Writes a file and syncs it, so that a rename that follows publishes
/// whole contents. Used for every file whose loss would lose work.
pub fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The largest report.json read back.
const MAX_REPORT: u64 = 256 << 20;

/// Reads a report.json back.
pub fn read(path: &Path) -> Result<Report, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(MAX_REPORT + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_REPORT {
        return Err(format!(
            "{}: larger than {} MiB, not a report",
            path.display(),
            MAX_REPORT >> 20
        ));
    }
    serde_json::from_str(&text).map_err(|e| format!("{}: not a report.json ({e})", path.display()))
}

/// What changed from one report to another, decoder by decoder.
#[derive(Debug, Default)]
pub struct ReportDiff {
    /// `(decoder, what)`: every change, worse or better.
    pub changes: Vec<(String, Change)>,
}

/// One change between two reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A level's status moved (`pass` → `fail`).
    Level {
        /// The level's letter.
        level: String,
        /// Before.
        was: String,
        /// After.
        now: String,
    },
    /// More (or fewer) failing inputs on a level that failed in both.
    Count {
        /// The level's letter.
        level: String,
        /// Before.
        was: u64,
        /// After.
        now: u64,
    },
    /// A failing input that was not there before (level, input, got).
    NewFailure(String, String, String),
    /// A failing input that is gone.
    Fixed(String, String),
    /// A flag raised that was not before (flag, input).
    NewFlag(String, String),
    /// A flag no longer raised.
    FlagGone(String),
    /// An incident of a kind not seen before (kind, input).
    NewIncident(String, String),
    /// A decoder only in the new report.
    NewDecoder,
    /// A decoder only in the old report.
    DecoderGone,
}

impl Change {
    /// Whether the change is a new failure (what a regression gate stops on).
    pub fn is_new_failure(&self) -> bool {
        match self {
            Change::Level { now, .. } => now == status::FAIL || now == status::INCOMPLETE,
            Change::Count { was, now, .. } => now > was,
            Change::NewFailure(..) | Change::NewFlag(..) | Change::NewIncident(..) => true,
            _ => false,
        }
    }
}

impl ReportDiff {
    /// Whether any change is a new failure.
    pub fn new_failures(&self) -> bool {
        self.changes.iter().any(|(_, c)| c.is_new_failure())
    }

    /// One line per change, worst first, for a CI log.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if self.changes.is_empty() {
            s.push_str("no change from the baseline\n");
            return s;
        }
        let mut changes = self.changes.clone();
        changes.sort_by_key(|(d, c)| (!c.is_new_failure(), d.clone()));
        for (decoder, change) in changes {
            let mark = if change.is_new_failure() {
                "NEW FAILURE"
            } else {
                "changed"
            };
            let what = match change {
                Change::Level { level, was, now } => format!("level {level}: {was} → {now}"),
                Change::Count { level, was, now } => {
                    format!("level {level}: {was} → {now} failing inputs")
                }
                Change::NewFailure(level, input, got) => {
                    format!("level {level}: now fails on {input} (got {got})")
                }
                Change::Fixed(level, input) => format!("level {level}: no longer fails on {input}"),
                Change::NewFlag(flag, input) => format!("flag {flag} raised (on {input})"),
                Change::FlagGone(flag) => format!("flag {flag} no longer raised"),
                Change::NewIncident(kind, input) => format!("{kind} on {input}"),
                Change::NewDecoder => "not in the baseline".into(),
                Change::DecoderGone => "in the baseline only".into(),
            };
            let _ = writeln!(s, "{mark}: {decoder}: {what}");
        }
        s
    }

    /// The changes as JUnit XML: a test case per decoder, failing on its
    /// new failures.
    pub fn junit(&self) -> String {
        let mut by: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
        for (d, c) in &self.changes {
            by.entry(d.as_str()).or_default().push(c);
        }
        let failures = by
            .values()
            .filter(|cs| cs.iter().any(|c| c.is_new_failure()))
            .count();
        let mut x = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"utf8conform report diff\" tests=\"{}\" failures=\"{failures}\">\n",
            by.len()
        );
        for (decoder, changes) in by {
            let bad: Vec<String> = changes
                .iter()
                .filter(|c| c.is_new_failure())
                .map(|c| render::escape(&format!("{c:?}")))
                .collect();
            if bad.is_empty() {
                let _ = writeln!(
                    x,
                    "  <testcase classname=\"utf8conform\" name=\"{}\"/>",
                    render::escape(decoder)
                );
            } else {
                let _ = writeln!(
                    x,
                    "  <testcase classname=\"utf8conform\" name=\"{}\"><failure message=\"{} new failure(s)\">{}</failure></testcase>",
                    render::escape(decoder),
                    bad.len(),
                    bad.join("\n")
                );
            }
        }
        x.push_str("</testsuite>\n");
        x
    }
}

/// What changed from `old` to `new`.
pub fn diff(old: &Report, new: &Report) -> ReportDiff {
    let mut out = ReportDiff::default();
    let find = |r: &'_ Report, name: &str| r.decoders.iter().find(|d| d.name == name).cloned();
    for n in &new.decoders {
        let Some(o) = find(old, &n.name) else {
            out.changes.push((n.name.clone(), Change::NewDecoder));
            continue;
        };
        for change in decoder_diff(&o, n) {
            out.changes.push((n.name.clone(), change));
        }
    }
    for o in &old.decoders {
        if find(new, &o.name).is_none() {
            out.changes.push((o.name.clone(), Change::DecoderGone));
        }
    }
    out
}

fn decoder_diff(o: &DecoderReport, n: &DecoderReport) -> Vec<Change> {
    let mut changes = Vec::new();
    for level in Level::ALL {
        let letter = level.letter().to_string();
        let (was, now) = (o.status(level), n.status(level));
        if was != now {
            changes.push(Change::Level {
                level: letter.clone(),
                was: was.into(),
                now: now.into(),
            });
        } else if now == status::FAIL {
            let (a, b) = (
                o.failure_counts.get(&letter).copied().unwrap_or(0),
                n.failure_counts.get(&letter).copied().unwrap_or(0),
            );
            if a != b {
                changes.push(Change::Count {
                    level: letter.clone(),
                    was: a,
                    now: b,
                });
            }
        }
    }
    let key = |f: &report::FailureRecord| (f.level.clone(), f.input.clone());
    let old_failures: BTreeSet<_> = o.failures.iter().map(key).collect();
    let new_failures: BTreeSet<_> = n.failures.iter().map(key).collect();
    for f in &n.failures {
        if !old_failures.contains(&key(f)) {
            changes.push(Change::NewFailure(
                f.level.clone(),
                f.input.clone(),
                f.got.clone(),
            ));
        }
    }
    for f in &o.failures {
        if !new_failures.contains(&key(f)) && !n.failure_counts.contains_key(&f.level) {
            changes.push(Change::Fixed(f.level.clone(), f.input.clone()));
        }
    }
    let old_flags: BTreeSet<&str> = o.security_flags.iter().map(|f| f.flag.as_str()).collect();
    for f in &n.security_flags {
        if !old_flags.contains(f.flag.as_str()) {
            changes.push(Change::NewFlag(f.flag.clone(), f.input.clone()));
        }
    }
    let new_flags: BTreeSet<&str> = n.security_flags.iter().map(|f| f.flag.as_str()).collect();
    for f in old_flags.difference(&new_flags) {
        changes.push(Change::FlagGone(f.to_string()));
    }
    let old_kinds: BTreeSet<(&str, &str)> = o
        .incidents
        .iter()
        .map(|i| (i.kind.as_str(), i.input.as_str()))
        .collect();
    for i in &n.incidents {
        if !old_kinds.contains(&(i.kind.as_str(), i.input.as_str())) {
            changes.push(Change::NewIncident(i.kind.clone(), i.input.clone()));
        }
    }
    changes
}

/// Joins reports of one audit split across jobs into one. Refused when
/// they cannot be joined honestly: different vectors, a decoder audited in
/// two of them (with different seeds, or twice at all), or different
/// stage sizes.
pub fn merge(parts: &[Report], files: &[VectorFile]) -> Result<Report, String> {
    let first = parts.first().ok_or("nothing to merge")?;
    let digest = utf8conform::vectors::digest(files);
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    for (i, p) in parts.iter().enumerate() {
        if p.options.vectors_digest != digest {
            return Err(format!(
                "report {} was made with other vectors (digest {:?}, these are {digest:?})",
                i + 1,
                p.options.vectors_digest
            ));
        }
        let mut a = p.options.clone();
        let mut b = first.options.clone();
        (a.seed, b.seed) = (0, 0);
        if a != b {
            return Err(format!(
                "report {} ran other stage sizes than report 1: {:?} vs {:?}",
                i + 1,
                p.options,
                first.options
            ));
        }
        for d in &p.decoders {
            if let Some(seed) = seen.insert(d.name.clone(), p.options.seed) {
                return Err(if seed == p.options.seed {
                    format!("{} is in more than one report", d.name)
                } else {
                    format!(
                        "{} was audited with seeds {seed} and {}",
                        d.name, p.options.seed
                    )
                });
            }
        }
    }
    let decoders: Vec<DecoderReport> = parts.iter().flat_map(|p| p.decoders.clone()).collect();
    let columns: Vec<Vec<String>> = decoders
        .iter()
        .map(|d| utf8conform::audit::cells_of(d, files))
        .collect();
    let mut skipped: Vec<report::Skipped> = parts.iter().flat_map(|p| p.skipped.clone()).collect();
    skipped.retain(|s| !decoders.iter().any(|d| d.name == s.name));
    skipped.sort_by(|a, b| a.name.cmp(&b.name));
    skipped.dedup_by(|a, b| a.name == b.name);
    Ok(Report {
        tool: first.tool.clone(),
        generated_at: report::utc_now(),
        machine: parts
            .iter()
            .map(|p| p.machine.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(" + "),
        options: first.options.clone(),
        wall_seconds: parts.iter().map(|p| p.wall_seconds).fold(0.0, f64::max),
        partial: parts.iter().find_map(|p| p.partial.clone()),
        matrix: utf8conform::audit::matrix(files, &columns),
        decoders,
        skipped,
    })
}
