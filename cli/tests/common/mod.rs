//! What the end-to-end tests share: where the crate is, whether Python is
//! there to run the fixture adapters, and a fresh scratch directory.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::Command;

/// The CLI crate's directory, where `tests/fixtures` lives.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `python3` runs; says so on stderr when it does not, so that a
/// skipped test is visible in `--nocapture` output.
pub fn have_python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping: python3 is not installed");
    }
    ok
}

/// A scratch directory path unique to this test process, removed if a
/// previous run left it behind (not created).
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("u8c-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
