//! `utf8conform exhaustive`: every byte string up to a length.

use super::CliResult;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::Instant;
use utf8conform::decoder::Decoder;
use utf8conform::exhaustive::{self, SweepOptions};
use utf8conform_cli::select::{self, ExternalArgs};

#[derive(Args, Debug)]
pub struct ExhaustiveArgs {
    /// Longest input: every string of length 1..=N is checked (N ≤ 4;
    /// N = 4 is 4,311,810,304 inputs in all).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=4))]
    max_len: u8,
    /// Decoders to compare with the reference, comma-separated or
    /// repeated: built-in names, adapter names, `builtin` or `all`. An
    /// external decoder is asked input by input over the protocol (keep
    /// --max-len at 2 or 3 for those).
    #[arg(long, short = 'd', default_value = "codec,std", value_delimiter = ',')]
    decoders: Vec<String>,
    #[command(flatten)]
    external: ExternalArgs,
    /// Worker threads (default: one per core).
    #[arg(long, short = 't')]
    threads: Option<usize>,
    /// Also compare complete answers (scalars, lossy) for lengths up to this.
    #[arg(long, default_value_t = 2)]
    full_len: u8,
}

pub fn run(args: ExhaustiveArgs) -> CliResult {
    let selection = select::select(&args.decoders, &args.external, false)?;
    let decoders: Vec<Box<dyn Decoder>> =
        selection.subjects.into_iter().map(|s| s.decoder).collect();
    let max_len = usize::from(args.max_len);
    let total: u64 = (1..=max_len).map(|l| 1u64 << (8 * l)).sum();
    let names: Vec<&str> = decoders.iter().map(|d| d.name()).collect();
    eprintln!(
        "exhaustive: every input of 1..={max_len} bytes ({total} inputs), reference vs {}",
        names.join(", ")
    );
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {percent}% {human_pos}/{human_len} ({per_sec}, eta {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let started = Instant::now();
    let options = SweepOptions {
        max_len,
        full_len: usize::from(args.full_len),
        examples_per_class: 5,
        threads: args.threads.unwrap_or(0),
    };
    let result = exhaustive::sweep(&decoders, options, &|n| bar.inc(n));
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{:>6}  {:>14}  {:>14}  {:>14}",
        "length", "inputs", "valid", "invalid"
    );
    for l in &result.lengths {
        println!(
            "{:>6}  {:>14}  {:>14}  {:>14}",
            l.len,
            l.total,
            l.valid,
            l.total - l.valid
        );
    }
    for d in &result.examples {
        println!("\n{d}");
    }
    println!(
        "\nexhaustive: {total} inputs × {} decoder(s) in {elapsed:.1} s ({:.0} M inputs/s), {} divergence(s)",
        decoders.len(),
        total as f64 / elapsed / 1e6,
        result.divergence_count
    );
    Ok(if result.divergence_count == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
