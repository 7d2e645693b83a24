//! Turning a fuzzer's crash or a divergence into a permanent regression
//! vector: `vectors/regressions.json`, with expectations from the reference
//! decoder, read by `vectors check`, `cargo test` and the audit like every
//! other vector file.

use super::{Case, DecodeCase, VectorFile, SCHEMA_VERSION};
use std::path::Path;

/// The file promoted inputs go to, inside the vectors folder.
pub const FILE_NAME: &str = "regressions.json";

/// What [`promote`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Promoted {
    /// A new case with this id was added.
    Added(String),
    /// The same bytes were already a regression case, with this id.
    AlreadyThere(String),
}

/// A stable id for an input: `regression-` and FNV-1a 64 of its bytes, so
/// promoting the same crash twice names it the same way.
pub fn id_for(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("regression-{hash:016x}")
}

/// The case for `bytes`, its expectations computed by the reference.
pub fn case_for(bytes: &[u8], note: &str) -> DecodeCase {
    DecodeCase::from_reference(id_for(bytes), bytes, note.to_string())
}

/// Adds `bytes` to `dir/regressions.json` (creating it), unless the same
/// bytes are already there.
pub fn promote(dir: &Path, bytes: &[u8], note: &str) -> Result<Promoted, String> {
    let path = dir.join(FILE_NAME);
    let mut file = if path.exists() {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        VectorFile::parse(&path, &text).map_err(|e| e.to_string())?
    } else {
        VectorFile {
            schema: SCHEMA_VERSION,
            category: "regressions".into(),
            description: "Inputs that once exposed a bug or a divergence (fuzzer crashes, diff findings), promoted with `utf8conform promote`; expectations from the reference decoder.".into(),
            references: vec!["RFC 3629 §4".into(), "Unicode §3.9 (maximal subparts)".into()],
            cases: Vec::new(),
        }
    };
    let case = case_for(bytes, note);
    if let Some(existing) = file
        .cases
        .iter()
        .find(|c| matches!(c, Case::Decode(d) if d.bytes == case.bytes))
    {
        return Ok(Promoted::AlreadyThere(existing.id().to_string()));
    }
    let id = case.id.clone();
    // The new case is written in the current version, so an older file is
    // brought up to it first (its cases gain their UTF-16 fields).
    file.upgrade();
    file.cases.push(Case::Decode(case));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    super::write_atomically(&path, &file.to_json())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Promoted::Added(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_file_is_upgraded_before_a_case_is_added() {
        let dir = std::env::temp_dir().join(format!("u8c-promote-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A version 1 file as an older release wrote it: U+10000 (F0 90 80
        // 80), which is the pair D800 DC00 in UTF-16.
        let v1 = r#"{"schema":1,"category":"regressions","description":"d","references":[],"cases":[
{"id":"old","bytes":"f0908080","valid":true,"scalars":[65536],"lossy":[65536],"note":"n"}]}"#;
        std::fs::write(dir.join(FILE_NAME), v1).unwrap();
        promote(&dir, b"\xC0", "C0").unwrap();
        let text = std::fs::read_to_string(dir.join(FILE_NAME)).unwrap();
        let file = VectorFile::parse(&dir.join(FILE_NAME), &text).unwrap();
        assert_eq!(file.schema, 2);
        let Case::Decode(old) = &file.cases[0] else {
            panic!()
        };
        assert_eq!(old.utf16.as_deref(), Some(&[0xD800, 0xDC00][..]));
        assert_eq!(old.lossy_utf16.as_deref(), Some(&[0xD800, 0xDC00][..]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn promoting_twice_adds_once_and_the_file_stays_loadable() {
        let dir = std::env::temp_dir().join(format!("u8c-promote-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join(FILE_NAME));
        let first = promote(&dir, b"\xF4\x90\x80\x80", "U+110000").unwrap();
        let Promoted::Added(id) = first else {
            panic!("{first:?}")
        };
        assert_eq!(
            promote(&dir, b"\xF4\x90\x80\x80", "again").unwrap(),
            Promoted::AlreadyThere(id.clone())
        );
        promote(&dir, b"ok", "valid text").unwrap();
        let text = std::fs::read_to_string(dir.join(FILE_NAME)).unwrap();
        let file = VectorFile::parse(&dir.join(FILE_NAME), &text).unwrap();
        assert_eq!(file.cases.len(), 2);
        // Expectations are RFC 3629's: F4 allows only 80-8F next.
        let Case::Decode(c) = &file.cases[0] else {
            panic!()
        };
        let e = &c.expected;
        assert_eq!(
            (e.valid, e.valid_up_to, e.error_len),
            (Some(false), Some(0), Some(Some(1)))
        );
        assert_eq!(e.lossy.as_deref(), Some(&[0xFFFD; 4][..]));
        // In UTF-16 (RFC 2781 §2.1), U+FFFD is one unit.
        assert_eq!(c.lossy_utf16.as_deref(), Some(&[0xFFFD; 4][..]));
        assert_eq!(c.utf16, None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
