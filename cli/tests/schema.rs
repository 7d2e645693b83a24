//! The vector files against vectors/schema.json, and the schema against
//! cases it must refuse (written by hand from the format's rules).

use std::path::{Path, PathBuf};
use utf8conform::vectors;
use utf8conform_cli::schema;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

#[test]
fn every_file_follows_the_schema_and_parses() {
    let files = vectors::load_dir(&dir()).expect("all files load");
    assert!(files.len() >= 10);
    for (path, _) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let violations = schema::violations(&text).unwrap();
        assert!(violations.is_empty(), "{}: {violations:?}", path.display());
    }
}

#[test]
fn the_schema_rejects_what_it_should() {
    let base = |case: &str| {
        format!(
            r#"{{"schema":1,"category":"x","description":"d","references":[],"cases":[{case}]}}"#
        )
    };
    let good = r#"{"id":"a","bytes":"c080","valid":false,"valid_up_to":0,"error_len":1,"lossy":[65533,65533],"note":"n"}"#;
    assert!(schema::violations(&base(good)).unwrap().is_empty());
    for bad in [
        // valid without scalars
        r#"{"id":"a","bytes":"41","valid":true,"lossy":[65],"note":"n"}"#,
        // invalid with scalars
        r#"{"id":"a","bytes":"c0","valid":false,"valid_up_to":0,"error_len":1,"scalars":[],"lossy":[65533],"note":"n"}"#,
        // uppercase hex
        r#"{"id":"a","bytes":"C0","valid":false,"valid_up_to":0,"error_len":1,"lossy":[65533],"note":"n"}"#,
        // error_len 4
        r#"{"id":"a","bytes":"c0","valid":false,"valid_up_to":0,"error_len":4,"lossy":[65533],"note":"n"}"#,
        // a surrogate in lossy output
        r#"{"id":"a","bytes":"41","valid":true,"scalars":[65],"lossy":[55296],"note":"n"}"#,
        // unknown field
        r#"{"id":"a","bytes":"41","valid":true,"scalars":[65],"lossy":[65],"note":"n","x":1}"#,
        // encode with both bytes and error
        r#"{"id":"e","scalar":55296,"bytes":"eda080","error":"surrogate","note":"n"}"#,
    ] {
        assert!(
            !schema::violations(&base(bad)).unwrap().is_empty(),
            "accepted {bad}"
        );
    }
}
