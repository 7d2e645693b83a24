//! The `utf8conform` command line. Each subcommand lives in `commands/`.

mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let args = commands::Cli::parse();
    // A pinned kernel the codec cannot run would fall back quietly: a run
    // that believes it tested a kernel it never ran proves nothing.
    if let Err(e) = utf8conform_codec::requested_kernel() {
        eprintln!("utf8conform: error: {}: {e}", utf8conform_codec::KERNEL_VAR);
        return ExitCode::from(2);
    }
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("utf8conform: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `utf8conform decode … | head` closes the pipe early; `println!` then
/// panics ("failed printing to stdout: Broken pipe"). Exit quietly instead,
/// with 141 (128 + SIGPIPE), what the shell reports for a tool killed by the
/// signal. The signal itself stays ignored, as Rust sets it up: writes to a
/// crashed adapter's stdin must fail with an error the audit recovers from,
/// not kill the process.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
