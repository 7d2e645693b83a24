//! The committed vectors: fresh, schema-valid, and passed by every built-in
//! decoder on every level it claims; malformed files are reported precisely.

use std::path::Path;
use utf8conform::decoders;
use utf8conform::vectors::{self, generate, run, VectorFile};

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors"))
}

#[test]
fn committed_vectors_are_what_the_generator_makes() {
    let generated = generate::all().expect("the generator agrees with every pinned expectation");
    for file in &generated {
        let path = dir().join(format!("{}.json", file.category));
        let committed = std::fs::read_to_string(&path).expect("every category is committed");
        assert!(
            committed == file.to_json(),
            "{} is stale: run `utf8conform vectors generate`",
            path.display()
        );
    }
    let schema = std::fs::read_to_string(dir().join("schema.json")).unwrap();
    assert_eq!(schema, vectors::SCHEMA_JSON);
}

#[test]
fn every_builtin_decoder_passes_every_claimed_level() {
    let files: Vec<VectorFile> = vectors::load_dir(dir())
        .unwrap()
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    let result = run::run(&files, &decoders::all_builtin());
    let unexpected = result.unexpected();
    let first: Vec<String> = result
        .failures
        .iter()
        .take(10)
        .map(|f| format!("{} {}/{}: {:?}", f.decoder, f.category, f.id, f.mismatch))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{unexpected:?}\n{}",
        first.join("\n")
    );
    // Every decoder ran on every category it can: nothing was skipped.
    for d in decoders::BUILTIN_NAMES {
        let ran: usize = result
            .tallies
            .iter()
            .filter(|((n, _), _)| n == d)
            .map(|(_, t)| t.run)
            .sum();
        assert!(ran >= 5_900, "{d} ran only {ran} cases");
    }
}

#[test]
fn a_wrong_expectation_is_caught_by_the_runner() {
    // Take a real case and corrupt its expectation: every decoder that
    // claims the field must now fail it, proving the runner compares.
    let mut files: Vec<VectorFile> = vectors::load_dir(dir())
        .unwrap()
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    let file = files
        .iter_mut()
        .find(|f| f.category == "rfc-examples")
        .unwrap();
    for case in &mut file.cases {
        if let vectors::Case::Decode(d) = case {
            if d.id == "rfc10-overlong-slash" {
                d.expected.valid_up_to = Some(2);
            }
        }
    }
    let result = run::run(&files, &decoders::all_builtin());
    let failed: Vec<&str> = result.failures.iter().map(|f| f.decoder.as_str()).collect();
    for d in [
        "reference",
        "codec",
        "std",
        "simdutf8-compat",
        "simdutf",
        "encoding_rs",
        "bstr",
    ] {
        assert!(failed.contains(&d), "{d} did not notice");
    }
    assert!(
        !failed.contains(&"simdutf8-basic"),
        "basic claims no position"
    );
}

#[test]
fn malformed_files_name_the_file_case_and_field() {
    let path = Path::new("bad.json");
    let header = r#"{"schema":1,"category":"x","description":"d","references":[],"cases":["#;
    let cases = [
        (
            r#"{"id":"a","bytes":"zz","valid":true,"scalars":[],"lossy":[],"note":"n"}"#,
            "bytes",
            "case \"a\" (#0)",
        ),
        (
            r#"{"id":"b","bytes":"41","valid":true,"lossy":[65],"note":"n"}"#,
            "scalars",
            "case \"b\" (#0)",
        ),
        (
            r#"{"id":"c","bytes":"c0","valid":false,"error_len":1,"lossy":[65533],"note":"n"}"#,
            "valid_up_to",
            "case \"c\"",
        ),
        (
            r#"{"id":"d","bytes":"c0","valid":false,"valid_up_to":0,"lossy":[65533],"note":"n"}"#,
            "error_len",
            "case \"d\"",
        ),
        (
            r#"{"bytes":"41","valid":true,"scalars":[65],"lossy":[65],"note":"n"}"#,
            "id",
            "case #0",
        ),
        (
            r#"{"id":"e","bytes":"41","valid":"yes","scalars":[65],"lossy":[65],"note":"n"}"#,
            "",
            "case \"e\"",
        ),
    ];
    for (case, field, where_) in cases {
        let text = format!("{header}{case}]}}");
        let e = VectorFile::parse(path, &text).expect_err(case);
        let shown = e.to_string();
        assert!(shown.starts_with("bad.json: "), "{shown}");
        assert!(shown.contains(where_), "{shown}");
        if !field.is_empty() {
            assert_eq!(e.field.as_deref(), Some(field), "{shown}");
        }
    }
    // Version 2: the UTF-16 fields, and UTF-16 cases.
    let header2 = r#"{"schema":2,"category":"x","description":"d","references":[],"cases":["#;
    let cases2 = [
        // U+10000 is D800 DC00 in UTF-16 (RFC 2781 §2.1), not D800 DC01.
        (
            r#"{"id":"f","bytes":"f0908080","valid":true,"scalars":[65536],"lossy":[65536],"utf16":[55296,56321],"lossy_utf16":[55296,56320],"note":"n"}"#,
            "utf16",
        ),
        (
            r#"{"id":"g","bytes":"41","valid":true,"scalars":[65],"lossy":[65],"utf16":[65],"note":"n"}"#,
            "lossy_utf16",
        ),
        (
            r#"{"id":"h","bytes":"c0","valid":false,"valid_up_to":0,"error_len":1,"lossy":[65533],"utf16":[],"lossy_utf16":[65533],"note":"n"}"#,
            "utf16",
        ),
        (
            r#"{"id":"i","units":[65,55296],"valid":false,"error_index":0,"lossy":"41efbfbd","note":"n"}"#,
            "error_index",
        ),
        (
            r#"{"id":"j","units":[65,70000],"valid":true,"bytes":"41","lossy":"41","note":"n"}"#,
            "units",
        ),
        (
            r#"{"id":"k","units":[65],"valid":true,"bytes":"4G","lossy":"41","note":"n"}"#,
            "bytes",
        ),
    ];
    for (case, field) in cases2 {
        let text = format!("{header2}{case}]}}");
        let e = VectorFile::parse(path, &text).expect_err(case);
        assert_eq!(e.field.as_deref(), Some(field), "{e}");
    }
    // …which a version 1 file may not have.
    let v1_with_utf16 = format!(
        "{header}{}]}}",
        r#"{"id":"l","bytes":"41","valid":true,"scalars":[65],"lossy":[65],"utf16":[65],"lossy_utf16":[65],"note":"n"}"#
    );
    let e = VectorFile::parse(path, &v1_with_utf16).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("utf16"), "{e}");
    let e = VectorFile::parse(path, "{\"schema\": 3}").unwrap_err();
    assert!(e.to_string().contains("version 3 is not supported"), "{e}");
    let e = VectorFile::parse(path, "{ not json").unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
}

#[test]
fn every_committed_file_is_bundled_as_it_is() {
    let files = vectors::load_dir(dir()).expect("all files load");
    assert_eq!(
        files.len(),
        vectors::BUNDLED.len(),
        "a vector file is not in vectors::BUNDLED"
    );
    for (path, _) in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let bundled = vectors::BUNDLED.iter().find(|(n, _)| *n == name);
        assert_eq!(bundled.map(|(_, t)| *t), Some(text.as_str()), "{name}");
    }
}
