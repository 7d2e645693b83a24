//! `utf8conform audit` — the main job.

use super::CliResult;
use clap::Args;
use indicatif::MultiProgress;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use utf8conform::audit::{self, AuditOptions, CaseCell};
use utf8conform::decoder::Kind;
use utf8conform::level::Level;
use utf8conform::report::{DecoderReport, Report, ReportOptions, Skipped};
use utf8conform::vectors::{self, VectorFile};
use utf8conform_cli::adapters as config;
use utf8conform_cli::progress::Task;
use utf8conform_cli::reports;
use utf8conform_cli::select::{self, resolve, ExternalArgs};

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Decoders to audit (repeatable): a built-in name, an adapter from the
    /// adapters file, or — with --cmd — a name for a one-off command.
    /// Default: every built-in decoder and every adapter that can run here.
    #[arg(long, short = 'd', value_name = "NAME")]
    decoder: Vec<String>,
    #[command(flatten)]
    external: ExternalArgs,
    /// Treat the --cmd decoder as documented-conformant (its failures then
    /// make the exit status non-zero).
    #[arg(long, requires = "cmd")]
    expect_conformant: bool,
    /// Only the built-in decoders.
    #[arg(long, conflicts_with_all = ["decoder", "cmd"])]
    builtin_only: bool,
    /// Where the vectors are.
    #[arg(long, default_value = "vectors")]
    vectors: PathBuf,
    /// Where to write report.json, summary.md, index.html and junit.xml.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// A report.json of an earlier audit: print what changed, and exit
    /// non-zero only on a new failure (instead of on any failure).
    #[arg(long, value_name = "REPORT_JSON")]
    baseline: Option<PathBuf>,
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
    /// Leave out the deep inputs (errors past block edges, up to 64 KiB).
    #[arg(long)]
    no_deep: bool,
}

pub fn run(args: AuditArgs) -> CliResult {
    let started = Instant::now();
    let root = config::repo_root();
    // Everything that can be wrong with the command line or the files is
    // found before any decoder runs.
    let out = resolve(&root, &args.out);
    reports::check_destination(&out)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|p| reports::read(p))
        .transpose()?;
    let vector_dir = resolve(&root, &args.vectors);
    let files: Vec<VectorFile> = vectors::load_dir(&vector_dir)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    if files.is_empty() {
        return Err(format!("no vector files in {}", vector_dir.display()));
    }
    let selection = select::select(&args.decoder, &args.external, args.builtin_only)?;
    let mut subjects = selection.subjects;
    let skipped = selection.skipped;
    if args.external.cmd.is_some() {
        for s in &mut subjects {
            s.expected_conformant = args.expect_conformant;
        }
    }
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
        deep: !args.no_deep,
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
    let header = Header {
        options: report_options(&files, &options),
        skipped,
        started,
    };
    // What is done so far, for a report marked partial on Ctrl-C.
    let done: Done = Arc::default();
    install_interrupt(&done, &header, &files, &out);
    let multi = MultiProgress::new();
    let tasks: Vec<Task> = subjects
        .iter()
        .map(|s| {
            Task::new(
                Some(&multi),
                s.decoder.name(),
                audit::work(s, &files, &options),
            )
        })
        .collect();
    // Longest first, one decoder per worker at a time: the audit ends
    // when its slowest decoder does, so that one must not start last.
    // External decoders cost far more per request than in-process ones.
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    order.sort_by_key(|&i| {
        let s = &subjects[i];
        let per_request = if s.decoder.kind() == Kind::External {
            16
        } else {
            1
        };
        std::cmp::Reverse(audit::work(s, &files, &options) * per_request)
    });
    let queue = Mutex::new(order.into_iter());
    let workers = rayon::current_num_threads().clamp(1, subjects.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let next = queue.lock().expect("no panic while locked").next();
                let Some(i) = next else { break };
                let (s, task) = (&subjects[i], &tasks[i]);
                let (report, cells) = audit::audit(s, &files, &options, task);
                task.finish(&format!("done in {:.1} s", report.seconds));
                done.lock()
                    .expect("no panic while locked")
                    .push((i, report, cells));
            });
        }
    });
    multi.clear().ok();
    let mut results = std::mem::take(&mut *done.lock().expect("no panic while locked"));
    results.sort_by_key(|r| r.0);
    let report = header.report(results, &files, None);
    reports::write_all(&report, &out)?;
    print_summary(&report);
    eprintln!(
        "audit: wrote {}/{{report.json,summary.md,index.html,junit.xml}} in {:.1} s",
        out.display(),
        report.wall_seconds
    );
    if let Some(old) = baseline {
        let diff = reports::diff(&old, &report);
        print!("{}", diff.text());
        return Ok(if diff.new_failures() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
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

/// Each decoder's report and matrix column as it finishes, with its place
/// in the order the decoders were given.
type Done = Arc<Mutex<Vec<(usize, DecoderReport, Vec<CaseCell>)>>>;

/// What every report of this run shares, partial or whole.
#[derive(Clone)]
struct Header {
    options: ReportOptions,
    skipped: Vec<Skipped>,
    started: Instant,
}

impl Header {
    fn report(
        &self,
        results: Vec<(usize, DecoderReport, Vec<CaseCell>)>,
        files: &[VectorFile],
        partial: Option<String>,
    ) -> Report {
        let (decoders, columns): (Vec<_>, Vec<_>) =
            results.into_iter().map(|(_, d, c)| (d, c)).unzip();
        let mut report = Report::stamped(
            "audit",
            self.options.clone(),
            self.started.elapsed().as_secs_f64(),
            decoders,
            audit::matrix(files, &columns),
        );
        report.partial = partial;
        report.skipped = self.skipped.clone();
        report
    }
}

fn report_options(files: &[VectorFile], options: &AuditOptions) -> ReportOptions {
    ReportOptions {
        vector_cases: files.iter().map(|f| f.cases.len()).sum(),
        builtin_exhaustive_len: options.builtin_exhaustive_len,
        external_exhaustive_len: options.external_exhaustive_len,
        seed: options.seed,
        builtin_diff_inputs: options.builtin_diff_inputs,
        external_diff_inputs: options.external_diff_inputs,
        vectors_digest: vectors::digest(files),
    }
}

/// On Ctrl-C: the decoders done so far are written as a report marked
/// partial, the adapters are killed, and the command exits 130.
fn install_interrupt(done: &Done, header: &Header, files: &[VectorFile], out: &Path) {
    let done = Arc::clone(done);
    let header = header.clone();
    let files = files.to_vec();
    let out = out.to_path_buf();
    let result = ctrlc::set_handler(move || {
        utf8conform::decoders::process::kill_all();
        let mut results = done.lock().map(|d| d.clone()).unwrap_or_default();
        results.sort_by_key(|r| r.0);
        let finished = results.len();
        let report = header.report(
            results,
            &files,
            Some(format!(
                "interrupted (Ctrl-C) with {finished} decoder(s) finished"
            )),
        );
        match reports::write_all(&report, &out) {
            Ok(()) => eprintln!(
                "\naudit: interrupted; wrote a partial report of {finished} decoder(s) to {}",
                out.display()
            ),
            Err(e) => eprintln!("\naudit: interrupted; could not write the partial report: {e}"),
        }
        std::process::exit(130);
    });
    if let Err(e) = result {
        eprintln!("audit: Ctrl-C will not save a partial report: {e}");
    }
}

fn print_summary(report: &Report) {
    let width = report
        .decoders
        .iter()
        .map(|d| d.name.len())
        .max()
        .unwrap_or(8);
    let letters: Vec<String> = Level::ALL.iter().map(|l| l.letter().to_string()).collect();
    println!(
        "{:width$}  {}  policy            BOM             flags",
        "decoder",
        letters.join(" ")
    );
    for d in &report.decoders {
        let cells: Vec<&str> = Level::ALL
            .iter()
            .map(|&l| utf8conform_cli::render::markdown::cell(d, l))
            .collect();
        let flags: Vec<&str> = d.security_flags.iter().map(|f| f.flag.as_str()).collect();
        println!(
            "{:width$}  {}  {:16}  {:14}  {}",
            d.name,
            cells.join(" "),
            d.policy,
            d.bom,
            flags.join(",")
        );
    }
}
