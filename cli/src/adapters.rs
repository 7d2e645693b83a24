//! `adapters/adapters.toml`: the known external decoders and how to build
//! and start them.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use utf8conform::level::Level;
use utf8conform::reference::variants::Format;

/// One `[[adapter]]` table.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AdapterConfig {
    /// The decoder's name in reports (its hello carries the same name).
    pub name: String,
    /// One line: library and calls.
    pub description: String,
    /// Commands that must be on PATH (bare names, checked before `build`)
    /// and files relative to the repository root that must exist after it
    /// (entries with a `/`).
    #[serde(default)]
    pub requires: Vec<String>,
    /// argv run once from the repository root before first use.
    #[serde(default)]
    pub build: Vec<String>,
    /// The adapter's argv, run from the repository root.
    pub cmd: Vec<String>,
    /// Whether the library is documented to conform; the audit exits
    /// non-zero when such a decoder fails a level.
    pub expected_conformant: bool,
    /// The levels the audit's exit status gates on for this decoder (default
    /// all of them), for a library documented to conform on some levels
    /// only.
    #[serde(default)]
    pub gate: Option<String>,
    /// The neighbouring format the library implements on purpose (CESU-8,
    /// Modified UTF-8, ...): it is then scored by that format's rules.
    #[serde(default, deserialize_with = "format_by_name")]
    pub format: Format,
}

/// A format's name (`cesu-8`, `wtf-8`, ...), as `Format::parse` reads it.
fn format_by_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
    let name = String::deserialize(d)?;
    Format::parse(&name).ok_or_else(|| {
        let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        serde::de::Error::custom(format!(
            "unknown format {name:?} (known: {})",
            known.join(", ")
        ))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    adapter: Vec<AdapterConfig>,
}

/// Reads an adapters file; errors name the file and, from the TOML parser,
/// the line and column.
pub fn load(path: &Path) -> Result<Vec<AdapterConfig>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut seen = std::collections::HashSet::new();
    for a in &file.adapter {
        if a.cmd.is_empty() {
            return Err(format!(
                "{}: adapter {:?} has an empty cmd",
                path.display(),
                a.name
            ));
        }
        if let Some(bad) = a
            .gate
            .as_deref()
            .and_then(|g| g.chars().find(|&c| Level::from_letter(c).is_none()))
        {
            return Err(format!(
                "{}: adapter {:?}: gate level {bad:?} is not one of V P S R C U E",
                path.display(),
                a.name
            ));
        }
        if !seen.insert(a.name.clone()) {
            return Err(format!(
                "{}: adapter {:?} is listed twice",
                path.display(),
                a.name
            ));
        }
    }
    Ok(file.adapter)
}

/// Whether `program` can be found on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Makes the adapter ready to start: checks the commands it needs, runs its
/// build (for at most `build_timeout`, then its whole process group is
/// killed), checks the files the build should have made. `Err` is the
/// one-line reason it is skipped.
pub fn prepare(
    adapter: &AdapterConfig,
    root: &Path,
    build_timeout: Duration,
) -> Result<(), String> {
    let (files, commands): (Vec<&String>, Vec<&String>) =
        adapter.requires.iter().partition(|r| r.contains('/'));
    if let Some(missing) = commands.iter().find(|c| !on_path(c)) {
        return Err(format!("`{missing}` is not installed"));
    }
    if let Some((program, args)) = adapter.build.split_first() {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run its build ({program}): {e}"))?;
        // Read stderr on the side, so a chatty build cannot fill the pipe.
        let mut stderr = child.stderr.take().expect("stderr was piped");
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
            text
        });
        let deadline = Instant::now() + build_timeout;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| format!("its build: {e}"))? {
                break status;
            }
            if Instant::now() > deadline {
                utf8conform::decoders::process::kill_process_group(&mut child);
                return Err(format!(
                    "its build did not finish within {} s (killed)",
                    build_timeout.as_secs_f64()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stderr = String::from_utf8_lossy(&reader.join().unwrap_or_default()).to_string();
        if !status.success() {
            let last = stderr.lines().last().unwrap_or("").trim();
            return Err(format!("its build failed ({status}): {last}"));
        }
    }
    if let Some(missing) = files.iter().find(|f| !root.join(f).exists()) {
        // build.sh prints why it skipped; say where to look.
        return Err(format!(
            "{missing} was not built (see `bash {}`; `--install` installs what it needs)",
            adapter
                .build
                .get(1)
                .map(String::as_str)
                .unwrap_or("adapters/build.sh")
        ));
    }
    Ok(())
}

/// The repository root: the folder holding `adapters/adapters.toml`,
/// searched from the current directory upwards, else the workspace this
/// crate was built in.
pub fn repo_root() -> PathBuf {
    let mut dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    loop {
        if dir.join("adapters/adapters.toml").is_file() {
            return dir;
        }
        if !dir.pop() {
            return workspace_root();
        }
    }
}

/// The workspace the CLI crate was built in (its parent folder).
fn workspace_root() -> PathBuf {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR"));
    cli.parent().unwrap_or(cli).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_adapters_file_loads() {
        let adapters = load(&workspace_root().join("adapters/adapters.toml")).unwrap();
        assert!(adapters.len() >= 10);
        assert!(adapters.iter().any(|a| a.name == "python-bytes-decode"));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = std::env::temp_dir().join(format!("u8c-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(
            &path,
            "[[adapter]]\nname = \"x\"\ncmd = [\"a\"]\nexpected_conformant = 3\n",
        )
        .unwrap();
        let e = load(&path).unwrap_err();
        assert!(e.contains("bad.toml") && e.contains("line 4"), "{e}");
        std::fs::write(&path, "[[adapter]]\nname = \"x\"\ndescription = \"d\"\ncmd = []\nexpected_conformant = true\n").unwrap();
        assert!(load(&path).unwrap_err().contains("empty cmd"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_commands_are_reported_not_run() {
        let a = AdapterConfig {
            name: "x".into(),
            description: "d".into(),
            requires: vec!["definitely-not-a-command-u8c".into()],
            build: vec!["false".into()],
            cmd: vec!["x".into()],
            expected_conformant: false,
            gate: None,
            format: Format::Utf8,
        };
        let e = prepare(&a, Path::new("."), Duration::from_secs(60)).unwrap_err();
        assert!(e.contains("definitely-not-a-command-u8c"), "{e}");
    }

    #[test]
    fn a_build_that_hangs_is_stopped_and_reported() {
        let a = AdapterConfig {
            name: "slow".into(),
            description: "d".into(),
            requires: vec![],
            build: vec!["sh".into(), "-c".into(), "sleep 30".into()],
            cmd: vec!["x".into()],
            expected_conformant: false,
            gate: None,
            format: Format::Utf8,
        };
        let started = std::time::Instant::now();
        let e = prepare(&a, Path::new("."), Duration::from_millis(300)).unwrap_err();
        assert!(e.contains("did not finish within 0.3 s"), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the build was not stopped"
        );
    }
}
