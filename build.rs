//! Records the exact versions of the oracle libraries (from Cargo.lock) and
//! of rustc (for `std`), so `utf8conform decoders` and every report can say
//! precisely which code was tested.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for krate in ["simdutf8", "simdutf", "encoding_rs", "bstr"] {
        let version = locked_version(&lock, krate).unwrap_or_else(|| "unknown".into());
        let var = format!("UTF8CONFORM_VERSION_{}", krate.to_uppercase());
        println!("cargo:rustc-env={var}={version}");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (unknown)".into());
    println!("cargo:rustc-env=UTF8CONFORM_RUSTC_VERSION={version}");
}

/// The version of `name` in a Cargo.lock (`name = "x"` then `version = "y"`).
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}
