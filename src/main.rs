//! The `utf8conform` command line. Each subcommand lives in `cli/`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("utf8conform: error: {e}");
            ExitCode::from(2)
        }
    }
}
