//! `utf8conform promote`: a crash or divergence input becomes a vector.

use super::CliResult;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use utf8conform::vectors::promote::{self, Promoted};
use utf8conform::{differential, generate};
use utf8conform_cli::adapters::repo_root;
use utf8conform_cli::select::resolve;

#[derive(Args, Debug)]
pub struct PromoteArgs {
    /// The input file: a fuzzer artifact (crash-…, e.g. under
    /// fuzz/artifacts/<target>/) or any file of bytes.
    artifact: PathBuf,
    /// What the input exposed (kept as the case's note).
    #[arg(long)]
    note: Option<String>,
    /// The fuzz target the artifact came from. `structured` artifacts are
    /// entropy for the structured-input generator and are turned into the
    /// bytes they stand for; a `chunking` artifact's first byte is its split
    /// plan; other targets' artifacts are the bytes.
    #[arg(long, default_value = "differential")]
    target: String,
    /// The vectors folder.
    #[arg(long, default_value = "vectors")]
    dir: PathBuf,
}

pub fn run(args: PromoteArgs) -> CliResult {
    let raw = std::fs::read(&args.artifact)
        .map_err(|e| format!("cannot read {}: {e}", args.artifact.display()))?;
    let bytes = match args.target.as_str() {
        "structured" => generate::from_entropy(&raw),
        // The chunking target's first byte plans the splits; the rest is
        // the input.
        "chunking" => utf8conform::properties::split_plan(&raw).0.to_vec(),
        "differential" | "lossy" | "roundtrip" | "encode" => raw,
        other => return Err(format!("unknown --target {other:?}; one of differential, structured, roundtrip, chunking, lossy, encode")),
    };
    let note = args.note.unwrap_or_else(|| {
        format!(
            "promoted from {}",
            args.artifact
                .file_name()
                .map_or_else(|| "an artifact".into(), |n| n.to_string_lossy().to_string())
        )
    });
    let dir = resolve(&repo_root(), &args.dir);
    match promote::promote(&dir, &bytes, &note)? {
        Promoted::Added(id) => println!("added {id} to {}", dir.join(promote::FILE_NAME).display()),
        Promoted::AlreadyThere(id) => println!("already a regression vector: {id}"),
    }
    println!(
        "input ({} bytes): {}",
        bytes.len(),
        differential::marked_hex(&bytes)
    );
    println!(
        "see every decoder's answer: utf8conform decode --file {}",
        args.artifact.display()
    );
    Ok(ExitCode::SUCCESS)
}
