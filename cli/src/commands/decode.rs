//! `utf8conform decode`: one input, one or more decoders, side by side.

use super::CliResult;
use clap::Args;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use utf8conform::decoder::Decoder;
use utf8conform::differential::{self, show_error_len, show_scalars};
use utf8conform::hex;
use utf8conform::outcome::Answer;
use utf8conform_cli::select::{self, ExternalArgs};

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("input").required(true).args(["hex", "file", "stdin"]))]
pub struct DecodeArgs {
    /// Decoders to use, comma-separated or repeated: built-in names,
    /// adapter names, `builtin` or `all` (default: every built-in one).
    #[arg(long, short = 'd', value_delimiter = ',', default_value = "builtin")]
    decoder: Vec<String>,
    #[command(flatten)]
    external: ExternalArgs,
    /// The largest input read from a file or standard input, in MiB.
    /// Answers hold 4 bytes per scalar, strict and lossy, for each
    /// decoder and the reference, so memory is many times the input:
    /// raise the limit for a larger input, ideally with one decoder.
    #[arg(long, default_value_t = 16, value_name = "MIB")]
    max_size: u64,
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
    let selection = select::select(&args.decoder, &args.external, false)?;
    let decoders: Vec<Box<dyn Decoder>> =
        selection.subjects.into_iter().map(|s| s.decoder).collect();
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
            // Written as it is serialised: a decode of a large file is not
            // first built as a JSON tree in memory.
            let mut out = std::io::stdout().lock();
            let written = (|| {
                write!(
                    out,
                    "{{\"decoder\":{}",
                    serde_json::to_string(decoder.name())?
                )?;
                match &answer {
                    Ok(a) => {
                        let fields = serde_json::to_string(a)?;
                        if fields.len() > 2 {
                            write!(out, ",{}", &fields[1..fields.len() - 1])?;
                        }
                    }
                    Err(f) => write!(out, ",\"error\":{}", serde_json::to_string(&f.to_string())?)?,
                }
                writeln!(out, "}}")?;
                Ok::<(), Box<dyn std::error::Error>>(())
            })();
            written.map_err(|e| format!("cannot write the answer: {e}"))?;
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
    let limit = args.max_size.saturating_mul(1 << 20);
    let too_large = |what: &str| format!("{what} is larger than --max-size {} MiB", args.max_size);
    let (reader, what): (Box<dyn Read>, String) = match &args.file {
        Some(path) => {
            let what = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|e| format!("cannot read {what}: {e}"))?;
            // A regular file says its size: refuse it before reading.
            if file
                .metadata()
                .is_ok_and(|m| m.is_file() && m.len() > limit)
            {
                return Err(too_large(&what));
            }
            (Box::new(file), what)
        }
        None => (Box::new(std::io::stdin()), "standard input".into()),
    };
    // Read at most one byte past the limit: /dev/zero or a 2 GiB file is
    // refused, not loaded.
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(&what));
    }
    Ok(bytes)
}
