//! Records the exact versions of the oracle libraries and of rustc (for
//! `std`), so `utf8conform decoders` and every report say precisely which
//! code was tested.
//!
//! The oracles are pinned with `=x.y.z` in this crate's own Cargo.toml,
//! which is read here: it is there whether the crate is built in its
//! workspace or as someone else's dependency (a Cargo.lock is not).

#[path = "build/pinned.rs"]
mod pinned;

use pinned::pinned_version;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap_or_default();
    for krate in ["simdutf8", "simdutf", "encoding_rs", "bstr"] {
        let version = pinned_version(&manifest, krate).unwrap_or_else(|| "unknown".into());
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
