//! Subcommands. Every user error (unknown decoder, unreadable file, bad hex)
//! becomes one line on stderr and exit status 2; a finding (a divergence)
//! is exit status 1.

mod audit;
mod decode;
mod diff;
mod exhaustive;
mod promote;
mod report;
mod vectors;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use utf8conform::decoder::Kind;
use utf8conform::decoders;

/// A user-facing error: one line, no backtrace.
pub type CliResult = Result<ExitCode, String>;

/// UTF-8 fuzzing and conformance harness built on RFC 3629.
///
/// Decoders answer in the terms of core::str::Utf8Error (valid_up_to,
/// error_len) and Unicode §3.9 (one U+FFFD per maximal subpart); the
/// reference decoder, a transliteration of RFC 3629 §4, is the judge.
#[derive(Parser, Debug)]
#[command(name = "utf8conform", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Audit decoders — every built-in one and every adapter that can run
    /// here, by default — against the vectors (one-shot and in every
    /// chunking), an exhaustive sweep, errors deep in long inputs, a
    /// differential campaign and decoder reuse; classify each (levels
    /// V P S R C U E, replacement policy, RFC 3629 §10 flags, BOM, each with
    /// its evidence) and write reports/ (report.json, summary.md,
    /// index.html, junit.xml).
    ///
    /// A decoder that crashes or hangs on a class of inputs has the class
    /// narrowed down and not sent again; the report lists each such
    /// incident with its minimised input, and what was not run.
    ///
    /// Exit status 1 when a decoder documented as conformant fails (or
    /// leaves unanswered) a level it is gated on; with --baseline, only on
    /// a new failure. Ctrl-C writes what is done as a partial report.
    ///
    /// Examples:
    ///   utf8conform audit
    ///   utf8conform audit -d std -d python-bytes-decode --out /tmp/r
    ///   utf8conform audit -d mine --cmd "python3 my_adapter.py" --expect-conformant
    ///   utf8conform audit --baseline old/report.json
    #[command(verbatim_doc_comment)]
    Audit(Box<audit::AuditArgs>),
    /// Turn a fuzzer crash or divergence input into a case in
    /// vectors/regressions.json (expectations from the reference), so
    /// `vectors check` and `cargo test` guard it from then on.
    Promote(promote::PromoteArgs),
    /// Work with report.json files: render them again, compare one with a
    /// baseline, or merge the reports of an audit split across CI jobs.
    Report(report::ReportArgs),
    /// List the built-in decoders with their versions and capabilities.
    Decoders,
    /// Decode one input with one or more decoders and show each outcome.
    ///
    /// With several decoders (the default is all built-in ones) the answers
    /// are printed side by side and those that differ from the reference
    /// are flagged.
    ///
    /// Examples:
    ///   utf8conform decode --hex "2f c0 ae 2e 2f"
    ///   utf8conform decode --decoder std --json --file crash-1234
    ///   printf 'caf\xc3\xa9' | utf8conform decode -
    #[command(verbatim_doc_comment)]
    Decode(decode::DecodeArgs),
    /// Serve a built-in decoder over the JSON-lines protocol on stdin/stdout.
    ///
    /// Prints a hello line, then answers one line per request
    /// (docs/protocol.md). Example:
    ///   echo '{"id":1,"op":"decode","bytes":"c0af"}' | utf8conform serve --decoder std
    #[command(verbatim_doc_comment)]
    Serve {
        /// The decoder to serve (see `utf8conform decoders`).
        #[arg(long, short = 'd')]
        decoder: String,
    },
    /// Run a seeded differential campaign: structured random inputs through
    /// the chosen decoders, each compared with the reference.
    ///
    /// Inputs mix valid text with overlongs, surrogates, values above
    /// U+10FFFF, impossible bytes, stray continuations and truncations.
    /// Exit status 1 if any decoder disagrees with the reference on a level
    /// it claims; each divergence is printed minimised, with its input.
    Diff(diff::DiffArgs),
    /// Generate or check the JSON test vectors in vectors/.
    Vectors(vectors::VectorsArgs),
    /// Check every byte string up to --max-len bytes against the reference
    /// (in parallel; N = 4 covers all 4.3 billion 4-byte strings).
    Exhaustive(exhaustive::ExhaustiveArgs),
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Decoders => list_decoders().or_else(write_failed),
        Command::Audit(args) => audit::run(*args),
        Command::Promote(args) => promote::run(args),
        Command::Report(args) => report::run(args),
        Command::Decode(args) => decode::run(args),
        Command::Serve { decoder } => {
            let decoder = decoders::builtin(&decoder).ok_or_else(|| unknown_decoder(&decoder))?;
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            utf8conform::protocol::serve(decoder.as_ref(), stdin, stdout)
                .map_err(|e| format!("serve: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff(args) => diff::run(args),
        Command::Vectors(args) => vectors::run(args),
        Command::Exhaustive(args) => exhaustive::run(args),
    }
}

/// A failed write to stdout: a closed pipe (`… | head`) ends the run
/// quietly with 141, as a tool killed by SIGPIPE; anything else (a full
/// disk) is a one-line error.
fn write_failed(e: std::io::Error) -> CliResult {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return Ok(ExitCode::from(141));
    }
    Err(format!("cannot write the output: {e}"))
}

/// The message for a decoder name that is not built in.
pub fn unknown_decoder(name: &str) -> String {
    format!(
        "unknown decoder {name:?}; known: {}",
        decoders::BUILTIN_NAMES.join(", ")
    )
}

fn list_decoders() -> std::io::Result<ExitCode> {
    use std::io::Write;
    let decoders = decoders::all_builtin();
    let width = decoders.iter().map(|d| d.name().len()).max().unwrap_or(4);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:width$}  {:8}  {:40}  capabilities",
        "name", "kind", "version"
    )?;
    for d in &decoders {
        let kind = match d.kind() {
            Kind::Builtin => "builtin",
            Kind::External => "external",
        };
        writeln!(
            out,
            "{:width$}  {:8}  {:40}  {}",
            d.name(),
            kind,
            d.version(),
            d.capabilities().names().join(",")
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
