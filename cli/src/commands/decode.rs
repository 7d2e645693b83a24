//! `utf8conform decode`: one input, one or more decoders, side by side.

use super::CliResult;
use clap::Args;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use utf8conform::differential::{self, show_error_len, show_scalars};
use utf8conform::oracles;
use utf8conform::outcome::Answer;
use utf8conform::{hex, protocol};

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("input").required(true).args(["hex", "file", "stdin"]))]
pub struct DecodeArgs {
    /// Decoders to use, comma-separated or repeated (default: all built-in).
    #[arg(long, short = 'd', value_delimiter = ',')]
    decoder: Vec<String>,
    /// The input as hex ("c0af", "c0 af" and "C0_AF" all work).
    #[arg(long, value_name = "HEX")]
    hex: Option<String>,
    /// Read the input from a file (e.g. a fuzzer artifact).
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Read the input from standard input: pass `-`.
    #[arg(value_name = "-", value_parser = clap::builder::PossibleValuesParser::new(["-"]))]
    stdin: Option<String>,
    /// Print one JSON object per decoder (the protocol's response fields,
    /// plus "decoder") instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DecodeArgs) -> CliResult {
    let bytes = read_input(&args)?;
    let decoders = if args.decoder.is_empty() {
        oracles::all_builtin()
    } else {
        args.decoder
            .iter()
            .map(|n| oracles::builtin(n).ok_or_else(|| super::unknown_decoder(n)))
            .collect::<Result<Vec<_>, _>>()?
    };
    let expected = differential::expected(&bytes);
    if !args.json {
        println!(
            "input ({} bytes): {}",
            bytes.len(),
            differential::marked_hex(&bytes)
        );
    }
    for decoder in &decoders {
        let answer = decoder.decode(&bytes);
        if args.json {
            let mut value = match &answer {
                Ok(a) => serde_json::to_value(protocol::Response::decoded(0.into(), a)),
                Err(f) => serde_json::to_value(protocol::Response {
                    error: Some(f.to_string()),
                    ..protocol::Response::default()
                }),
            }
            .map_err(|e| e.to_string())?;
            let map = value.as_object_mut().expect("a response is an object");
            map.remove("id");
            map.insert("decoder".into(), decoder.name().into());
            println!("{value}");
            continue;
        }
        match answer {
            Ok(answer) => {
                let mismatches = differential::compare(&expected, &answer, decoder.capabilities());
                let verdict = if mismatches.is_empty() {
                    "agrees with the reference".to_string()
                } else {
                    let fields: Vec<&str> = mismatches.iter().map(|m| m.field.as_str()).collect();
                    format!("DIFFERS on {}", fields.join(", "))
                };
                println!("\n{} — {}", decoder.name(), verdict);
                print_answer(&answer);
            }
            Err(failure) => println!("\n{} — FAILED: {failure}", decoder.name()),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_answer(a: &Answer) {
    if let Some(valid) = a.valid {
        println!("  valid:       {valid}");
    }
    if let Some(s) = &a.scalars {
        println!("  scalars:     {}", show_scalars(s));
    }
    if let Some(n) = a.valid_up_to {
        println!("  valid_up_to: {n}");
    }
    if let Some(e) = &a.error_len {
        println!("  error_len:   {}", show_error_len(e));
    }
    if let Some(s) = &a.lossy {
        println!("  lossy:       {}", show_scalars(s));
    }
}

fn read_input(args: &DecodeArgs) -> Result<Vec<u8>, String> {
    if let Some(text) = &args.hex {
        return hex::decode(text).map_err(|e| format!("--hex: {e}"));
    }
    if let Some(path) = &args.file {
        return std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(bytes)
}
