//! `utf8conform-ecosystem list` prints the decoders' names;
//! `utf8conform-ecosystem serve NAME` serves one over docs/protocol.md on
//! stdin/stdout (what adapters/adapters.toml runs).

use std::io::{self, BufWriter};
use std::process::ExitCode;

const USAGE: &str = "usage: utf8conform-ecosystem list | serve NAME";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["list"] => {
            for name in utf8conform_ecosystem::NAMES {
                println!("{name}");
            }
            ExitCode::SUCCESS
        }
        ["serve", name] => {
            let Some(decoder) = utf8conform_ecosystem::by_name(name) else {
                eprintln!(
                    "unknown decoder {name:?}; known: {}",
                    utf8conform_ecosystem::NAMES.join(", ")
                );
                return ExitCode::from(2);
            };
            let stdin = io::stdin().lock();
            let stdout = BufWriter::new(io::stdout().lock());
            match utf8conform::protocol::serve::serve(decoder.as_ref(), stdin, stdout) {
                Ok(()) => ExitCode::SUCCESS,
                // The harness closed its end: nothing more to answer.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("utf8conform-ecosystem: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
