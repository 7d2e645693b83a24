//! An adapter goes wherever a built-in decoder goes: `decode`, `diff`,
//! `vectors check` and `exhaustive` take `--cmd` (or an adapters.toml
//! name) as `audit` does, and report the adapter's own answers.

mod common;

use common::{have_python, root};
use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str], mode: &str) -> Output {
    let script = root().join("tests/fixtures/hostile_adapter.py");
    let cmd = format!("python3 {} {mode}", script.display());
    Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args(args)
        .args(["--cmd", &cmd, "--timeout", "5"])
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn decode_asks_the_adapter() {
    if !have_python() {
        return;
    }
    // CPython's answers (the adapter decodes with CPython): E2 82 is a
    // truncated sequence, A is kept (one U+FFFD per maximal subpart). The
    // adapter claims validity, scalars and lossy output, not positions, so
    // none are shown: the harness adds nothing the library did not say.
    let o = run(
        &["decode", "-d", "py", "--json", "--hex", "e28241"],
        "conformant",
    );
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["decoder"], "py");
    assert_eq!(v["valid"], false);
    assert_eq!(v["lossy"], serde_json::json!([0xFFFD, 0x41]));
    assert!(
        v.get("valid_up_to").is_none() && v.get("error_len").is_none(),
        "{v}"
    );
}

#[test]
fn diff_vectors_check_and_exhaustive_pass_a_conformant_adapter() {
    if !have_python() {
        return;
    }
    for args in [
        &["diff", "-d", "py", "-n", "300", "--seed", "3"][..],
        &["vectors", "check", "-d", "py"][..],
        &["exhaustive", "-d", "py", "--max-len", "1"][..],
    ] {
        let o = run(args, "conformant");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
    }
}

#[test]
fn diff_vectors_check_and_exhaustive_fail_an_adapter_that_crashes() {
    if !have_python() {
        return;
    }
    for args in [
        &["diff", "-d", "py", "-n", "300", "--seed", "3"][..],
        &["vectors", "check", "-d", "py"][..],
        &["exhaustive", "-d", "py", "--max-len", "1"][..],
    ] {
        let o = run(args, "crash-f5");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(
            text(&o).to_lowercase().contains("f5"),
            "{args:?}: {}",
            text(&o)
        );
    }
}

#[test]
fn an_empty_decoder_list_is_a_usage_error() {
    for args in [&["diff", "-d", ""][..], &["vectors", "check", "-d", ""][..]] {
        let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    }
}
