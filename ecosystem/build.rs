//! Records the pinned version of every crate under test (from this
//! crate's own Cargo.toml), so each decoder's hello and report name the
//! exact code tested.

#[path = "../build/pinned.rs"]
mod pinned;

use pinned::pinned_version;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap_or_default();
    for krate in [
        "utf-8",
        "utf8parse",
        "utf8_iter",
        "encoding",
        "tendril",
        "cesu8",
        "wtf8",
        "utf8-chars",
    ] {
        let version = pinned_version(&manifest, krate).unwrap_or_else(|| "unknown".into());
        let var = format!(
            "ECOSYSTEM_VERSION_{}",
            krate.to_uppercase().replace('-', "_")
        );
        println!("cargo:rustc-env={var}={version}");
    }
}
