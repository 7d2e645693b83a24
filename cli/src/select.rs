//! Which decoders a command runs: every command that takes decoders takes
//! the same names, resolved the same way — a built-in decoder, an adapter
//! listed in the adapters file (built and started as `audit` does), or,
//! with `--cmd`, a one-off command that speaks docs/protocol.md.

use crate::adapters::{self, AdapterConfig};
use clap::Args;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Duration;
use utf8conform::audit::Subject;
use utf8conform::decoders::process::{ProcessDecoder, ProcessSpec};
use utf8conform::decoders::{self, builtin_description};
use utf8conform::level::Level;
use utf8conform::reference::variants::Format;
use utf8conform::report::Skipped;

/// The options every command that runs external decoders takes.
#[derive(Args, Debug, Clone)]
pub struct ExternalArgs {
    /// Run a one-off external decoder: the command (run with `sh -c` from
    /// the repository root) that speaks docs/protocol.md. Needs exactly one
    /// decoder name to call it by.
    #[arg(long, value_name = "COMMAND")]
    pub cmd: Option<String>,
    /// The adapters file: names in it can be used wherever a decoder is
    /// named.
    #[arg(long, default_value = "adapters/adapters.toml", value_name = "PATH")]
    pub adapters: PathBuf,
    /// Seconds to wait for each answer from an external decoder (> 0).
    #[arg(long, default_value = "5", value_parser = positive_seconds, value_name = "SECONDS")]
    pub timeout: Duration,
    /// Seconds all of one external decoder's requests may take; past it,
    /// the rest is not run and the report says so (> 0).
    #[arg(long, default_value = "600", value_parser = positive_seconds, value_name = "SECONDS")]
    pub budget: Duration,
    /// Seconds an adapter's build step may take (> 0).
    #[arg(long, default_value = "900", value_parser = positive_seconds, value_name = "SECONDS")]
    pub build_timeout: Duration,
}

/// A number of seconds, finite and above zero: `0`, `nan`, `inf` and
/// negative numbers are refused before any work starts.
pub fn positive_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "{text:?}: must be a finite number of seconds above 0"
        ));
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

/// The decoders chosen, and those that cannot run here with why.
pub struct Selection {
    /// Ready to run.
    pub subjects: Vec<Subject>,
    /// Known but not runnable here (a runtime missing, a build failed).
    pub skipped: Vec<Skipped>,
}

/// Resolves `names` (empty: every built-in decoder and every adapter; `all`
/// and `builtin` may stand in the list). A name the user typed that
/// resolves to nothing is an error; an adapter that cannot run is an error
/// when named, and skipped with its reason when only implied.
pub fn select(
    names: &[String],
    external: &ExternalArgs,
    builtin_only: bool,
) -> Result<Selection, String> {
    let root = adapters::repo_root();
    let mut skipped = Vec::new();
    if names.iter().any(|n| n.trim().is_empty()) {
        return Err("an empty decoder name; try `utf8conform decoders` for the list".into());
    }
    if let Some(cmd) = &external.cmd {
        let [name] = names else {
            return Err("--cmd needs exactly one decoder name to call it by".into());
        };
        let spec = spec(
            name,
            vec!["sh".into(), "-c".into(), cmd.clone()],
            &root,
            external,
        );
        let decoder = ProcessDecoder::start(spec).map_err(|e| format!("{name}: {e}"))?;
        return Ok(Selection {
            subjects: vec![Subject {
                decoder: Box::new(decoder),
                description: format!("external command: {cmd}"),
                expected_conformant: false,
                gate: all_levels(),
                format: Format::Utf8,
            }],
            skipped,
        });
    }
    let adapters_file = resolve(&root, &external.adapters);
    let implied = names.is_empty() || names.iter().any(|n| n == "all");
    let adapter_list = if builtin_only || (!adapters_file.exists() && implied && names.len() <= 1) {
        if !builtin_only {
            skipped.push(Skipped {
                name: "adapters".into(),
                reason: format!("{} not found", adapters_file.display()),
            });
        }
        Vec::new()
    } else {
        adapters::load(&adapters_file)?
    };
    let mut wanted: Vec<(String, bool)> = Vec::new();
    for name in names {
        match name.as_str() {
            "all" => {
                wanted.extend(
                    decoders::BUILTIN_NAMES
                        .iter()
                        .map(|n| (n.to_string(), false)),
                );
                wanted.extend(adapter_list.iter().map(|a| (a.name.clone(), false)));
            }
            "builtin" => wanted.extend(
                decoders::BUILTIN_NAMES
                    .iter()
                    .map(|n| (n.to_string(), false)),
            ),
            _ => wanted.push((name.clone(), true)),
        }
    }
    if names.is_empty() {
        wanted.extend(
            decoders::BUILTIN_NAMES
                .iter()
                .map(|n| (n.to_string(), false)),
        );
        wanted.extend(adapter_list.iter().map(|a| (a.name.clone(), false)));
    }
    let mut seen = std::collections::HashSet::new();
    wanted.retain(|(n, _)| seen.insert(n.clone()));
    // Adapters are built and started in parallel: C and Java builds, and a
    // JVM's start, take a while.
    let prepared: Vec<(String, bool, Result<Subject, String>)> = wanted
        .par_iter()
        .map(|(name, named)| {
            (
                name.clone(),
                *named,
                subject(name, &adapter_list, &adapters_file, &root, external),
            )
        })
        .collect();
    let mut subjects = Vec::new();
    for (name, named, result) in prepared {
        match result {
            Ok(s) => subjects.push(s),
            Err(e) if named || e.starts_with("unknown decoder") => {
                return Err(format!("{name}: {e}"))
            }
            Err(e) => skipped.push(Skipped { name, reason: e }),
        }
    }
    Ok(Selection { subjects, skipped })
}

fn subject(
    name: &str,
    adapter_list: &[AdapterConfig],
    adapters_file: &Path,
    root: &Path,
    external: &ExternalArgs,
) -> Result<Subject, String> {
    if let Some(decoder) = decoders::builtin(name) {
        return Ok(Subject {
            decoder,
            description: builtin_description(name).to_string(),
            expected_conformant: true,
            gate: all_levels(),
            format: Format::Utf8,
        });
    }
    let Some(a) = adapter_list.iter().find(|a| a.name == name) else {
        let mut known: Vec<&str> = decoders::BUILTIN_NAMES.to_vec();
        known.extend(adapter_list.iter().map(|a| a.name.as_str()));
        return Err(format!(
            "unknown decoder {name:?}: not built in and not in {} (known: {})",
            adapters_file.display(),
            known.join(", ")
        ));
    };
    adapters::prepare(a, root, external.build_timeout)?;
    let decoder = ProcessDecoder::start(spec(&a.name, a.cmd.clone(), root, external))?;
    Ok(Subject {
        decoder: Box::new(decoder),
        description: a.description.clone(),
        expected_conformant: a.expected_conformant,
        gate: a.gate.clone().unwrap_or_else(all_levels),
        format: a.format,
    })
}

fn spec(name: &str, argv: Vec<String>, root: &Path, external: &ExternalArgs) -> ProcessSpec {
    let mut spec = ProcessSpec::new(name, argv, root);
    spec.timeout = external.timeout;
    spec.budget = Some(external.budget);
    spec
}

/// Every level's letter: the gate of a decoder documented to conform on
/// everything.
pub fn all_levels() -> String {
    Level::ALL.iter().map(|l| l.letter()).collect()
}

/// `path` as given when it exists or is absolute, else under `root`.
pub fn resolve(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() || path.exists() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_must_be_finite_and_positive() {
        assert_eq!(positive_seconds("0.25"), Ok(Duration::from_millis(250)));
        for bad in ["0", "-1", "nan", "inf", "NaN", "1e400", "soon", ""] {
            assert!(positive_seconds(bad).is_err(), "{bad}");
        }
    }
}
