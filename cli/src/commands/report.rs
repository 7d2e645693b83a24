//! `utf8conform report render|diff|merge`.

use super::CliResult;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use utf8conform::vectors::{self, VectorFile};
use utf8conform_cli::adapters::repo_root;
use utf8conform_cli::reports;
use utf8conform_cli::select::resolve;

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(subcommand)]
    command: ReportCommand,
}

#[derive(Subcommand, Debug)]
enum ReportCommand {
    /// Render summary.md, index.html and junit.xml again from a report.json.
    Render {
        /// The report.json to read.
        #[arg(long, default_value = "reports/report.json")]
        from: PathBuf,
        /// Where to write.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// What changed from an OLD report to a NEW one, per decoder, level and
    /// input. Exit status 1 only on a new failure (a level newly failing or
    /// incomplete, more failing inputs, a new failing input, flag or
    /// incident).
    ///
    /// Example: utf8conform report diff main/report.json reports/report.json --junit diff.xml
    #[command(verbatim_doc_comment)]
    Diff {
        /// The baseline report.json.
        old: PathBuf,
        /// The new report.json.
        new: PathBuf,
        /// Also write the changes as JUnit XML.
        #[arg(long, value_name = "PATH")]
        junit: Option<PathBuf>,
    },
    /// Join the report.json files of an audit split across jobs (one per
    /// runtime, say) into one report. Refused when they ran other vectors,
    /// other stage sizes, or audited one decoder twice (or with other
    /// seeds).
    ///
    /// Example: utf8conform report merge job-*/report.json --out reports
    #[command(verbatim_doc_comment)]
    Merge {
        /// The report.json files.
        #[arg(required = true, num_args = 1..)]
        parts: Vec<PathBuf>,
        /// Where to write the merged reports.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// The vectors the audits ran (the matrix is rebuilt from them).
        #[arg(long, default_value = "vectors")]
        vectors: PathBuf,
    },
}

pub fn run(args: ReportArgs) -> CliResult {
    match args.command {
        ReportCommand::Render { from, out } => {
            let (from, out) = (resolve(&repo_root(), &from), resolve(&repo_root(), &out));
            reports::check_destination(&out)?;
            let report = reports::read(&from)?;
            reports::write_all(&report, &out)?;
            Ok(ExitCode::SUCCESS)
        }
        ReportCommand::Diff { old, new, junit } => {
            let diff = reports::diff(&reports::read(&old)?, &reports::read(&new)?);
            print!("{}", diff.text());
            if let Some(path) = junit {
                reports::write_synced(&path, diff.junit().as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            Ok(if diff.new_failures() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        ReportCommand::Merge {
            parts,
            out,
            vectors,
        } => {
            reports::check_destination(&out)?;
            let dir = resolve(&repo_root(), &vectors);
            let files: Vec<VectorFile> = vectors::load_dir(&dir)
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|(_, f)| f)
                .collect();
            let reports = parts
                .iter()
                .map(|p| reports::read(p))
                .collect::<Result<Vec<_>, _>>()?;
            let merged = reports::merge(&reports, &files)?;
            reports::write_all(&merged, &out)?;
            eprintln!(
                "report merge: {} decoder(s) from {} report(s) written to {}",
                merged.decoders.len(),
                parts.len(),
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
