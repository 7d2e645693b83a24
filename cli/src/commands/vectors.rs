//! `utf8conform vectors generate|check`.

use super::CliResult;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use utf8conform::decoder::Decoder;
use utf8conform::vectors::{self, generate, run};
use utf8conform_cli::adapters::repo_root;
use utf8conform_cli::select::{self, resolve, ExternalArgs};

#[derive(Args, Debug)]
pub struct VectorsArgs {
    #[command(subcommand)]
    command: VectorsCommand,
}

#[derive(Subcommand, Debug)]
enum VectorsCommand {
    /// Write every vector file (and schema.json) from the generator:
    /// deterministic, one case per line, trailing newline.
    Generate {
        /// Where to write.
        #[arg(long, default_value = "vectors")]
        dir: PathBuf,
    },
    /// Check the committed vectors: (1) they equal what the generator makes,
    /// (2) they follow schema.json, (3) every selected decoder passes every
    /// case on the levels it claims. Prints a per-decoder, per-category
    /// table; exit status 1 if a decoder fails a claimed level (other than
    /// a documented known divergence) or the files are stale or malformed.
    Check {
        /// Where the vectors are.
        #[arg(long, default_value = "vectors")]
        dir: PathBuf,
        /// Decoders to run, comma-separated or repeated: built-in names,
        /// adapter names, `builtin` or `all` (default: every built-in one).
        #[arg(long, short = 'd', default_value = "builtin", value_delimiter = ',')]
        decoders: Vec<String>,
        #[command(flatten)]
        external: ExternalArgs,
        /// Print every failing case, not just the first 10 per decoder.
        #[arg(long, short = 'v')]
        verbose: bool,
    },
}

pub fn run(args: VectorsArgs) -> CliResult {
    match args.command {
        // Relative to the repository when not found here, as `audit` does.
        VectorsCommand::Generate { dir } => generate_files(&resolve(&repo_root(), &dir)),
        VectorsCommand::Check {
            dir,
            decoders,
            external,
            verbose,
        } => check(&resolve(&repo_root(), &dir), &decoders, &external, verbose),
    }
}

fn generate_files(dir: &Path) -> CliResult {
    let files = generate::all().map_err(|e| format!("generator: {e}"))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        vectors::write_atomically(&path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write("schema.json", vectors::SCHEMA_JSON)?;
    let mut total = 0;
    for f in &files {
        write(&format!("{}.json", f.category), &f.to_json())?;
        println!("{:>16}.json  {:>5} cases", f.category, f.cases.len());
        total += f.cases.len();
    }
    println!(
        "wrote {} files, {total} cases, to {}",
        files.len(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn check(dir: &Path, names: &[String], external: &ExternalArgs, verbose: bool) -> CliResult {
    let started = Instant::now();
    let selection = select::select(names, external, false)?;
    let decoders: Vec<Box<dyn Decoder>> =
        selection.subjects.into_iter().map(|s| s.decoder).collect();
    let mut problems = Vec::new();

    // (1) Fresh: the committed files are exactly what the generator makes.
    let generated = generate::all().map_err(|e| format!("generator: {e}"))?;
    let mut expected_names = vec!["schema.json".to_string()];
    for f in &generated {
        let name = format!("{}.json", f.category);
        match std::fs::read_to_string(dir.join(&name)) {
            Ok(text) if text == f.to_json() => {}
            Ok(_) => problems.push(format!(
                "{}: differs from the generator's output (run `utf8conform vectors generate`)",
                dir.join(&name).display()
            )),
            Err(e) => problems.push(format!("{}: {e}", dir.join(&name).display())),
        }
        expected_names.push(name);
    }
    match std::fs::read_to_string(dir.join("schema.json")) {
        Ok(text) if text == vectors::SCHEMA_JSON => {}
        _ => problems.push(format!(
            "{}: missing or stale",
            dir.join("schema.json").display()
        )),
    }

    // (2) Well-formed and schema-valid; this also reads files the generator
    // does not make (e.g. regressions.json).
    let files = vectors::load_dir(dir).map_err(|e| e.to_string())?;
    for (path, _) in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !expected_names.contains(&name) && name != "regressions.json" {
            problems.push(format!("{}: not made by the generator", path.display()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let violations = utf8conform_cli::schema::violations(&text)?;
        for v in violations.iter().take(5) {
            problems.push(format!("{}: schema: {v}", path.display()));
        }
    }
    let loaded: Vec<_> = files.into_iter().map(|(_, f)| f).collect();

    // (3) Every decoder on every case.
    let result = run::run(&loaded, &decoders);
    print_table(&loaded, &decoders, &result);
    let mut shown = std::collections::HashMap::new();
    for f in &result.failures {
        let n = shown.entry(f.decoder.clone()).or_insert(0);
        *n += 1;
        if verbose || *n <= 10 {
            println!(
                "FAIL {} {}/{} [{}] level {}: expected {}, got {}",
                f.decoder,
                f.category,
                f.id,
                f.input,
                f.mismatch.field.letter(),
                f.mismatch.expected,
                f.mismatch.got
            );
        }
    }
    for (decoder, levels) in &result.failed_levels {
        for &level in levels {
            if let Some(k) = run::known(decoder, level) {
                println!("known divergence: {decoder} level {level}: {}", k.reason);
            }
        }
    }
    // A case without an answer is not a pass: its levels were not checked.
    for (decoder, n) in result.unanswered.iter().filter(|(_, &n)| n > 0) {
        problems.push(format!(
            "{decoder}: {n} case(s) got no answer (crash, timeout, protocol error or not run)"
        ));
    }
    for (decoder, levels) in result.unexpected() {
        let levels: String = levels.into_iter().map(|l| l.letter()).collect();
        problems.push(format!("{decoder} fails claimed level(s) {levels}"));
    }
    let cases: usize = loaded.iter().map(|f| f.cases.len()).sum();
    println!(
        "\nvectors check: {} files, {cases} cases, {} decoders in {:.2} s",
        loaded.len(),
        decoders.len(),
        started.elapsed().as_secs_f64()
    );
    if problems.is_empty() {
        println!("ok");
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            eprintln!("problem: {p}");
        }
        Ok(ExitCode::from(1))
    }
}

fn print_table(
    files: &[vectors::VectorFile],
    decoders: &[Box<dyn Decoder>],
    result: &run::VectorRun,
) {
    let width = files
        .iter()
        .map(|f| f.category.len())
        .max()
        .unwrap_or(8)
        .max(8);
    print!("{:width$}", "category");
    for d in decoders {
        print!("  {:>15}", d.name());
    }
    println!();
    for f in files {
        print!("{:width$}", f.category);
        for d in decoders {
            let cell = match result
                .tallies
                .get(&(d.name().to_string(), f.category.clone()))
            {
                None => "n/a".to_string(),
                Some(t) if t.failed == 0 => format!("pass {}", t.run),
                Some(t) => format!("FAIL {}/{}", t.failed, t.run),
            };
            print!("  {cell:>15}");
        }
        println!();
    }
}
