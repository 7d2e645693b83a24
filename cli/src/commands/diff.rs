//! `utf8conform diff`: a seeded differential campaign on stable Rust.

use super::CliResult;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;
use utf8conform::decoder::Decoder;
use utf8conform::differential::{self, Divergence};
use utf8conform::generate;
use utf8conform_cli::select::{self, ExternalArgs};

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Decoders to compare with the reference, comma-separated or
    /// repeated: built-in names, adapter names (from the adapters file),
    /// `builtin` or `all` (default: every built-in decoder).
    #[arg(long, short = 'd', default_value = "builtin", value_delimiter = ',')]
    decoders: Vec<String>,
    #[command(flatten)]
    external: ExternalArgs,
    /// How many inputs to generate.
    #[arg(long, short = 'n', default_value_t = 100_000)]
    iterations: u64,
    /// Seed for the input generator; the same seed gives the same inputs.
    #[arg(long, short = 's', default_value_t = 0)]
    seed: u64,
    /// Stop collecting after this many divergences (each is minimised).
    #[arg(long, default_value_t = 20)]
    max_divergences: usize,
}

pub fn run(args: DiffArgs) -> CliResult {
    let selection = select::select(&args.decoders, &args.external, false)?;
    for s in &selection.skipped {
        eprintln!("skip {}: {}", s.name, s.reason);
    }
    let decoders: Vec<Box<dyn Decoder>> =
        selection.subjects.into_iter().map(|s| s.decoder).collect();
    let names: Vec<&str> = decoders.iter().map(|d| d.name()).collect();
    eprintln!(
        "diff: {} inputs, seed {}, decoders: {}",
        args.iterations,
        args.seed,
        names.join(", ")
    );
    let started = Instant::now();
    let bar = ProgressBar::new(args.iterations).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} inputs ({per_sec}, eta {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    // One example per (decoder, field): the shortest input seen.
    let best: Mutex<BTreeMap<(String, &'static str), Divergence>> = Mutex::new(BTreeMap::new());
    let total_found = std::sync::atomic::AtomicU64::new(0);
    const BATCH: u64 = 1024;
    let batches = args.iterations.div_ceil(BATCH);
    (0..batches).into_par_iter().for_each(|batch| {
        let from = batch * BATCH;
        let to = (from + BATCH).min(args.iterations);
        let inputs: Vec<Vec<u8>> = (from..to)
            .map(|i| generate::campaign_input(args.seed, i))
            .collect();
        let splits: Vec<Vec<usize>> = inputs
            .iter()
            .zip(from..to)
            .map(|(input, i)| generate::campaign_splits(args.seed, i, input.len()))
            .collect();
        // Each decoder gets the whole batch at once: pipelined for one in
        // another process.
        let here: Vec<Divergence> = decoders
            .iter()
            .flat_map(|d| differential::check_batch(d.as_ref(), &inputs, &splits))
            .collect();
        if !here.is_empty() {
            total_found.fetch_add(here.len() as u64, std::sync::atomic::Ordering::Relaxed);
            let mut best = best.lock().expect("no panics while holding the lock");
            for d in here {
                let key = (d.decoder.clone(), d.mismatch.field.as_str());
                match best.get(&key) {
                    Some(b) if b.input.len() <= d.input.len() => {}
                    _ => {
                        best.insert(key, d);
                    }
                }
            }
        }
        bar.inc(to - from);
    });
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let mut best = best.into_inner().expect("no panics while holding the lock");
    let total = total_found.into_inner();
    for d in best.values_mut().take(args.max_divergences) {
        if let Some(decoder) = decoders.iter().find(|x| x.name() == d.decoder) {
            if d.mismatch.field != differential::Field::Chunking {
                differential::minimize_divergence(decoder.as_ref() as &dyn Decoder, d);
            }
        }
        println!("{d}\n");
    }
    let rate = args.iterations as f64 / elapsed.as_secs_f64().max(1e-9);
    println!(
        "diff: {} inputs in {:.2} s ({:.0} inputs/s), {} divergence(s) in {} (decoder, field) class(es)",
        args.iterations,
        elapsed.as_secs_f64(),
        rate,
        total,
        best.len()
    );
    Ok(if best.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
