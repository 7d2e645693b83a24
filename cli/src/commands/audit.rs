//! `utf8conform audit` — the main job.

use super::CliResult;
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use utf8conform::audit::{self, AuditOptions, Subject};
use utf8conform::oracles::process::{ProcessDecoder, ProcessSpec};
use utf8conform::oracles::{self};
use utf8conform::report::{self, Report, ReportOptions, Skipped};
use utf8conform::vectors;
use utf8conform_cli::adapters as config;
use utf8conform_cli::progress::Bar;
use utf8conform_cli::render;

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Decoders to audit (repeatable): a built-in name, an adapter from the
    /// adapters file, or — with --cmd — a name for a one-off command.
    /// Default: every built-in decoder and every adapter that can run here.
    #[arg(long, short = 'd', value_name = "NAME")]
    decoder: Vec<String>,
    /// Audit a one-off external decoder: the command (run with `sh -c`
    /// from the repository root) that speaks docs/protocol.md. Needs exactly
    /// one --decoder to name it.
    #[arg(long, value_name = "COMMAND")]
    cmd: Option<String>,
    /// Treat the --cmd decoder as documented-conformant (its failures then
    /// make the exit status non-zero).
    #[arg(long, requires = "cmd")]
    expect_conformant: bool,
    /// The adapters file.
    #[arg(long, default_value = "adapters/adapters.toml")]
    adapters: PathBuf,
    /// Only the built-in decoders.
    #[arg(long, conflicts_with_all = ["decoder", "cmd"])]
    builtin_only: bool,
    /// Where the vectors are.
    #[arg(long, default_value = "vectors")]
    vectors: PathBuf,
    /// Where to write report.json, summary.md, index.html and junit.xml.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Differential campaign seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Differential inputs per built-in decoder.
    #[arg(long, default_value_t = 100_000)]
    diff: u64,
    /// Differential inputs per external decoder.
    #[arg(long, default_value_t = 20_000)]
    external_diff: u64,
    /// Exhaustive sweep length for built-in decoders (≤ 4).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(0..=4))]
    exhaustive: u8,
    /// Exhaustive sweep length for external decoders (≤ 3).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    external_exhaustive: u8,
    /// Seconds to wait for each answer from an external decoder.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
}

pub fn run(args: AuditArgs) -> CliResult {
    let started = Instant::now();
    let root = config::repo_root();
    let vector_dir = resolve(&root, &args.vectors);
    let files: Vec<vectors::VectorFile> = vectors::load_dir(&vector_dir)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    if files.is_empty() {
        return Err(format!("no vector files in {}", vector_dir.display()));
    }
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let (subjects, skipped) = select(&args, &root, timeout)?;
    for s in &skipped {
        eprintln!("skip {}: {}", s.name, s.reason);
    }
    if subjects.is_empty() {
        return Err("nothing to audit".into());
    }
    let options = AuditOptions {
        seed: args.seed,
        builtin_diff_inputs: args.diff,
        external_diff_inputs: args.external_diff,
        builtin_exhaustive_len: usize::from(args.exhaustive),
        external_exhaustive_len: usize::from(args.external_exhaustive),
        ..AuditOptions::default()
    };
    eprintln!(
        "audit: {} decoder(s), {} vector cases each, exhaustive ≤ {}/{} bytes, {}/{} differential inputs (seed {})",
        subjects.len(),
        files.iter().map(|f| f.cases.len()).sum::<usize>(),
        options.builtin_exhaustive_len,
        options.external_exhaustive_len,
        options.builtin_diff_inputs,
        options.external_diff_inputs,
        options.seed
    );
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix:>28} [{bar:30}] {percent:>3}% {msg}")
        .expect("a valid template")
        .progress_chars("=> ");
    let bars: Vec<ProgressBar> = subjects
        .iter()
        .map(|s| {
            let bar = multi.add(ProgressBar::new(audit::work(s, &files, &options)));
            bar.set_style(style.clone());
            bar.set_prefix(s.decoder.name().to_string());
            bar
        })
        .collect();
    let results: Vec<_> = subjects
        .par_iter()
        .zip(bars.par_iter())
        .map(|(s, bar)| {
            let result = audit::audit(s, &files, &options, &Bar(bar.clone()));
            bar.finish_with_message(format!("done in {:.1} s", result.0.seconds));
            result
        })
        .collect();
    multi.clear().ok();
    let (decoders, columns): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    let report = Report {
        tool: format!("utf8conform {}", env!("CARGO_PKG_VERSION")),
        generated_at: report::utc_now(),
        machine: report::machine(),
        options: ReportOptions {
            vector_cases: files.iter().map(|f| f.cases.len()).sum(),
            builtin_exhaustive_len: options.builtin_exhaustive_len,
            external_exhaustive_len: options.external_exhaustive_len,
            seed: options.seed,
            builtin_diff_inputs: options.builtin_diff_inputs,
            external_diff_inputs: options.external_diff_inputs,
        },
        wall_seconds: started.elapsed().as_secs_f64(),
        matrix: audit::matrix(&files, &columns),
        decoders,
        skipped,
    };
    let out = resolve(&root, &args.out);
    write_reports(&report, &out)?;
    print_summary(&report);
    eprintln!(
        "audit: wrote {}/{{report.json,summary.md,index.html,junit.xml}} in {:.1} s",
        out.display(),
        report.wall_seconds
    );
    let gate: Vec<String> = report
        .decoders
        .iter()
        .filter(|d| d.expected_conformant && !d.gated_failures().is_empty())
        .map(|d| format!("{} ({})", d.name, d.gated_failures().join("")))
        .collect();
    if gate.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "audit: decoders expected to conform failed: {}",
            gate.join(", ")
        );
        Ok(ExitCode::from(1))
    }
}

fn resolve(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() || path.exists() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

/// The decoders to audit, and those skipped with their reasons.
fn select(
    args: &AuditArgs,
    root: &Path,
    timeout: Duration,
) -> Result<(Vec<Subject>, Vec<Skipped>), String> {
    let mut subjects = Vec::new();
    let mut skipped = Vec::new();
    let builtin = |name: &str| {
        oracles::builtin(name).map(|decoder| Subject {
            decoder,
            description: audit::builtin_description(name).to_string(),
            expected_conformant: true,
            gate: "VPSRCE".to_string(),
        })
    };
    if let Some(cmd) = &args.cmd {
        let [name] = args.decoder.as_slice() else {
            return Err("--cmd needs exactly one --decoder NAME to name it".into());
        };
        let mut spec = ProcessSpec::new(
            name.clone(),
            vec!["sh".into(), "-c".into(), cmd.clone()],
            root,
        );
        spec.timeout = timeout;
        let decoder = ProcessDecoder::start(spec).map_err(|e| format!("{name}: {e}"))?;
        subjects.push(Subject {
            decoder: Box::new(decoder),
            description: format!("external command: {cmd}"),
            expected_conformant: args.expect_conformant,
            gate: "VPSRCE".to_string(),
        });
        return Ok((subjects, skipped));
    }
    let adapters_file = resolve(root, &args.adapters);
    let adapters = if args.builtin_only {
        Vec::new()
    } else if args.decoder.is_empty() && !adapters_file.exists() {
        skipped.push(Skipped {
            name: "adapters".into(),
            reason: format!("{} not found", adapters_file.display()),
        });
        Vec::new()
    } else {
        config::load(&adapters_file)?
    };
    let wanted: Vec<String> = if args.decoder.is_empty() {
        oracles::BUILTIN_NAMES
            .iter()
            .map(|s| s.to_string())
            .chain(adapters.iter().map(|a| a.name.clone()))
            .collect()
    } else {
        args.decoder.clone()
    };
    // Prepare (build) adapters in parallel: C and Java builds take a while.
    let prepared: Vec<(String, Result<Subject, String>)> = wanted
        .par_iter()
        .map(|name| {
            if let Some(s) = builtin(name) {
                return (name.clone(), Ok(s));
            }
            let Some(a) = adapters.iter().find(|a| &a.name == name) else {
                return (
                    name.clone(),
                    Err(format!(
                        "unknown decoder {name:?}: not built in ({}) and not in {}",
                        oracles::BUILTIN_NAMES.join(", "),
                        adapters_file.display()
                    )),
                );
            };
            let result = config::prepare(a, root).and_then(|()| {
                let mut spec = ProcessSpec::new(a.name.clone(), a.cmd.clone(), root);
                spec.timeout = timeout;
                ProcessDecoder::start(spec).map(|decoder| Subject {
                    decoder: Box::new(decoder),
                    description: a.description.clone(),
                    expected_conformant: a.expected_conformant,
                    gate: a.gate.clone().unwrap_or_else(|| "VPSRCE".to_string()),
                })
            });
            (name.clone(), result.map_err(|e| format!("skipped: {e}")))
        })
        .collect();
    for (name, result) in prepared {
        match result {
            Ok(s) => subjects.push(s),
            // A name the user typed that is unknown is a usage error.
            Err(e) if e.starts_with("unknown decoder") => return Err(e),
            Err(e) if !args.decoder.is_empty() => return Err(format!("{name}: {e}")),
            Err(e) => skipped.push(Skipped {
                name,
                reason: e.trim_start_matches("skipped: ").to_string(),
            }),
        }
    }
    Ok((subjects, skipped))
}

/// Writes every rendering of `report` into `out`.
pub fn write_reports(report: &Report, out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n";
    for (name, text) in [
        ("report.json", json),
        ("report.schema.json", report::SCHEMA_JSON.to_string()),
        ("summary.md", render::markdown::render(report)),
        ("index.html", render::html::render(report)),
        ("junit.xml", render::junit::render(report)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn print_summary(report: &Report) {
    let width = report
        .decoders
        .iter()
        .map(|d| d.name.len())
        .max()
        .unwrap_or(8);
    println!(
        "{:width$}  V P S R C E  policy            BOM             flags",
        "decoder"
    );
    for d in &report.decoders {
        let cells: Vec<&str> = report::LEVELS
            .iter()
            .map(|(l, _)| match d.levels.get(*l).map(String::as_str) {
                Some("pass") => "✓",
                Some("fail") => "✗",
                _ => "·",
            })
            .collect();
        println!(
            "{:width$}  {}  {:16}  {:14}  {}",
            d.name,
            cells.join(" "),
            d.policy,
            d.bom,
            d.security_flags.join(",")
        );
    }
}

/// `utf8conform report`: re-render the reports from a report.json.
pub fn rerender(from: &Path, out: &Path) -> CliResult {
    let text = std::fs::read_to_string(from)
        .map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    let report: Report =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", from.display()))?;
    write_reports(&report, out)?;
    Ok(ExitCode::SUCCESS)
}
