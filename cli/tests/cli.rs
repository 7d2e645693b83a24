//! The binary as users and other tools meet it: the protocol through
//! `serve` as a child process, and clear errors for bad input.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_utf8conform"))
}

#[test]
fn serve_speaks_the_protocol_with_pipelined_requests() {
    let mut child = bin()
        .args(["serve", "--decoder", "reference"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let requests = [
        r#"{"id": 1, "op": "decode", "bytes": "f4908080"}"#,
        r#"{"id": 2, "op": "decode", "bytes": "41e282ac"}"#,
        r#"{"id": 3, "op": "decode", "bytes": "f09f98"}"#,
        "this is not json",
        r#"{"id": 4, "op": "encode", "scalar": 55296}"#,
        r#"{"id": 5, "op": "encode", "scalar": 1114112}"#,
        r#"{"id": 6, "op": "encode", "scalar": 8364}"#,
        r#"{"id": 7, "op": "decode", "bytes": ""}"#,
    ];
    // Write everything before reading anything: the server must not wait.
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).expect("every line is JSON"))
        .collect();
    assert!(child.wait().unwrap().success(), "exits 0 when stdin closes");
    assert_eq!(lines.len(), 1 + requests.len());
    let hello = &lines[0]["hello"];
    assert_eq!(hello["name"], "reference");
    let caps: Vec<&str> = hello["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(caps.contains(&"lossy") && caps.contains(&"encode"));

    // Expected answers from RFC 3629: F4 90 is outside %xF4 %x80-8F.
    let r = &lines[1];
    assert_eq!(
        (r["id"].as_i64(), r["valid"].as_bool()),
        (Some(1), Some(false))
    );
    assert_eq!(
        (r["valid_up_to"].as_i64(), r["error_len"].as_i64()),
        (Some(0), Some(1))
    );
    assert_eq!(r["lossy"], serde_json::json!([65533, 65533, 65533, 65533]));
    // 41 E2 82 AC = "A€".
    assert_eq!(lines[2]["scalars"], serde_json::json!([0x41, 0x20AC]));
    // Cut-off emoji: error_len is present and null.
    assert!(lines[3]["error_len"].is_null() && lines[3].get("error_len").is_some());
    // Bad line: error with a null id, and the server went on.
    assert!(lines[4]["id"].is_null());
    assert!(lines[4]["error"]
        .as_str()
        .unwrap()
        .starts_with("bad request"));
    assert_eq!(lines[5]["error"], "surrogate");
    assert_eq!(lines[6]["error"], "out-of-range");
    assert_eq!(lines[7]["bytes"], "e282ac");
    assert_eq!(lines[8]["valid"], true);
    assert_eq!(lines[8]["scalars"], serde_json::json!([]));
}

fn run_fails_with(args: &[&str], needle: &str) {
    let out = bin().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line for {args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn user_errors_are_one_line_and_exit_2() {
    run_fails_with(&["decode", "--hex", "c0g1"], "not a hex digit");
    run_fails_with(&["decode", "--hex", "abc"], "odd number");
    run_fails_with(
        &["decode", "--decoder", "nope", "--hex", "00"],
        "unknown decoder \"nope\"",
    );
    run_fails_with(
        &["decode", "--file", "/definitely/not/here"],
        "cannot read /definitely/not/here",
    );
    run_fails_with(&["serve", "--decoder", "nope"], "unknown decoder");
    run_fails_with(
        &["diff", "--decoders", "std,nope"],
        "unknown decoder \"nope\"",
    );
}

#[test]
fn decode_refuses_inputs_past_max_size_without_loading_them() {
    // A sparse file far past any memory: refused by its size.
    let dir = std::env::temp_dir().join(format!("u8c-max-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = dir.join("huge");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    run_fails_with(
        &["decode", "--file", huge.to_str().unwrap()],
        "is larger than --max-size 16 MiB",
    );
    // An endless stream: read to one byte past the limit, then refused.
    let out = bin()
        .args(["decode", "--max-size", "1", "-"])
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("standard input is larger than --max-size 1 MiB"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decode_json_gives_the_protocol_fields() {
    let out = bin()
        .args([
            "decode",
            "--decoder",
            "std",
            "--json",
            "--hex",
            "2fc0ae2e2f",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // RFC 3629 §10: C0 at offset 1 starts nothing → one byte.
    assert_eq!(v["decoder"], "std");
    assert_eq!(v["valid"], false);
    assert_eq!(v["valid_up_to"], 1);
    assert_eq!(v["error_len"], 1);
}

#[test]
fn diff_is_reproducible_and_clean_on_the_builtin_decoders() {
    let run = || {
        bin()
            .args(["diff", "--iterations", "3000", "--seed", "42"])
            .output()
            .unwrap()
    };
    let (a, b) = (run(), run());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stdout));
    let summary = |o: &std::process::Output| {
        let s = String::from_utf8_lossy(&o.stdout).to_string();
        s.lines().last().unwrap().contains("0 divergence(s)")
    };
    assert!(summary(&a) && summary(&b));
}

#[test]
#[cfg(unix)]
fn a_closed_stdout_ends_the_run_quietly_with_status_141() {
    // The reading end is closed before the binary starts, so its first
    // write fails with EPIPE every time (no race with a reader like `head`).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = bin()
        .arg("decoders")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "no panic message: {stderr}");
}
