//! Shared by the build scripts that report what they test: the version a
//! crate is pinned to in a manifest.

/// The version `name` is pinned to in a manifest's dependencies:
/// `name = "=x.y.z"` or `name = { version = "=x.y.z", ... }`.
pub fn pinned_version(manifest: &str, name: &str) -> Option<String> {
    manifest
        .lines()
        .filter(|l| l.split_once('=').is_some_and(|(key, _)| key.trim() == name))
        .find_map(|line| {
            let start = line.find("\"=")? + 2;
            let end = start + line[start..].find('"')?;
            Some(line[start..end].to_string())
        })
}
