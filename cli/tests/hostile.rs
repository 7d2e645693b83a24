//! The audit against adapters that misbehave (tests/fixtures/
//! hostile_adapter.py, real processes): it finishes, loses nothing it
//! found, never calls a level a pass that it could not check, and says what
//! happened — each failure narrowed to the input that causes it.

mod common;

use common::{have_python, root, temp};
use serde_json::Value;
use std::process::{Command, Output};

/// Audits the hostile adapter in `mode` with small stages and a short
/// timeout; returns the output and the report (if one was written).
fn audit(mode: &str, extra: &[&str]) -> (Output, Option<Value>) {
    let out = temp(mode);
    let script = root().join("tests/fixtures/hostile_adapter.py");
    // `exec`, so that no shell between the harness and the adapter holds
    // the adapter's stdout open.
    let cmd = format!("exec python3 {} {mode}", script.display());
    let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args(["audit", "-d", mode, "--cmd", &cmd, "--timeout", "0.5"])
        .args([
            "--external-exhaustive",
            "1",
            "--external-diff",
            "300",
            "--no-deep",
        ])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(out.join("report.json"))
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    let _ = std::fs::remove_dir_all(&out);
    (o, report)
}

fn decoder(report: &Option<Value>) -> &Value {
    &report.as_ref().expect("a report")["decoders"][0]
}

fn incidents(d: &Value) -> Vec<(String, String)> {
    d["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_string(),
                i["input"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_decoder_that_crashes_on_one_byte_is_narrowed_to_it_and_not_passed() {
    if !have_python() {
        return;
    }
    let (o, report) = audit("crash-f5", &["--expect-conformant"]);
    let d = decoder(&report);
    assert!(
        incidents(d).contains(&("crash".into(), "f5".into())),
        "{}",
        d["incidents"]
    );
    assert!(
        d["not_run"].as_u64().unwrap() > 0,
        "inputs holding F5 stop being sent"
    );
    // Inputs holding F5 got no answer: validity cannot be a pass.
    assert_eq!(d["levels"]["V"], "incomplete");
    assert_eq!(
        o.status.code(),
        Some(1),
        "an incomplete gated level fails the gate"
    );
}

#[test]
fn a_decoder_that_hangs_on_one_byte_is_narrowed_and_its_children_killed() {
    if !have_python() {
        return;
    }
    let (_, report) = audit("hang-ff", &[]);
    let d = decoder(&report);
    assert!(
        incidents(d).contains(&("timeout".into(), "ff".into())),
        "{}",
        d["incidents"]
    );
    assert!(d["not_run"].as_u64().unwrap() > 0);
    // The adapter's child (sleep 3600) went with its process group.
    let left = Command::new("pgrep").args(["-f", "^sleep 3600$"]).output();
    if let Ok(left) = left {
        assert!(
            left.stdout.is_empty(),
            "orphans: {}",
            String::from_utf8_lossy(&left.stdout)
        );
    }
}

#[test]
fn a_decoder_that_hangs_after_its_hello_costs_a_few_timeouts() {
    if !have_python() {
        return;
    }
    let (_, report) = audit("hang-after-hello", &[]);
    let d = decoder(&report);
    // Narrowed to any input at all (the empty input), then nothing more
    // is sent.
    assert!(
        incidents(d).contains(&("timeout".into(), String::new())),
        "{}",
        d["incidents"]
    );
    assert_eq!(d["levels"]["V"], "incomplete");
    assert_eq!(d["policy"], "no-answer");
    assert_eq!(d["bom"], "no-answer");
}

#[test]
fn an_adapter_that_closes_stdout_and_keeps_running_does_not_hang_the_audit() {
    if !have_python() {
        return;
    }
    let (_, report) = audit("close-stdout", &[]);
    let d = decoder(&report);
    let detail = d["incidents"][0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("closed its stdout but kept running"),
        "{}",
        d["incidents"]
    );
}

#[test]
fn garbage_and_wrong_ids_on_every_request_are_narrowed_to_any_input() {
    if !have_python() {
        return;
    }
    for mode in ["garbage", "wrong-id"] {
        let (_, report) = audit(mode, &[]);
        let d = decoder(&report);
        assert!(
            incidents(d).contains(&("protocol-error".into(), String::new())),
            "{mode}: {}",
            d["incidents"]
        );
        assert!(
            d["restarts"].as_u64().unwrap() < 20,
            "{mode}: {}",
            d["restarts"]
        );
    }
}

#[test]
fn a_line_with_no_end_is_a_protocol_error_not_an_abort() {
    if !have_python() {
        return;
    }
    let (o, report) = audit("endless-line", &[]);
    assert!(
        o.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let d = decoder(&report);
    assert!(
        d["incidents"].to_string().contains("longer than"),
        "{}",
        d["incidents"]
    );
}

#[test]
fn a_claimed_level_whose_every_request_crashed_is_not_a_pass() {
    if !have_python() {
        return;
    }
    let (o, report) = audit("lossy-crash", &["--expect-conformant"]);
    let d = decoder(&report);
    for level in ["V", "R", "E"] {
        assert_ne!(d["levels"][level], "pass", "{level}: {}", d["levels"]);
    }
    assert_eq!(o.status.code(), Some(1));
    let junit = report.as_ref().map(|_| ()).is_some();
    assert!(junit);
}

#[test]
fn an_unknown_capability_is_refused_at_hello_with_one_line() {
    if !have_python() {
        return;
    }
    let (o, _) = audit("stream-v1", &[]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("needs \"protocol\": 2"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn non_utf8_stderr_is_read_kept_and_harmless() {
    if !have_python() {
        return;
    }
    let (_, report) = audit("stderr-binary", &[]);
    let d = decoder(&report);
    assert_eq!(d["levels"]["V"], "pass", "{}", d["incidents"]);
    assert!(
        d["incidents"].as_array().unwrap().is_empty(),
        "{}",
        d["incidents"]
    );
    let tail = d["stderr_tail"].to_string();
    assert!(tail.contains("not utf-8"), "{tail}");
}

#[test]
fn a_refused_request_leaves_the_adapter_running() {
    if !have_python() {
        return;
    }
    let (_, report) = audit("refuse-long", &[]);
    let d = decoder(&report);
    assert_eq!(d["restarts"], 0, "{}", d["incidents"]);
    assert!(
        d["incidents"].to_string().contains("longer than 100 bytes"),
        "{}",
        d["incidents"]
    );
}

#[test]
fn a_declared_input_limit_is_respected_and_not_a_failure() {
    if !have_python() {
        return;
    }
    // Refusing long inputs unannounced leaves them unanswered: V cannot
    // be a pass.
    let (_, report) = audit("refuse-long", &[]);
    assert_eq!(decoder(&report)["levels"]["V"], "incomplete");
    // The same refusals, announced as the API's limit in the hello: none
    // of those inputs is sent, and the levels are judged on the rest.
    let (_, report) = audit("max-100", &[]);
    let d = decoder(&report);
    assert_eq!(d["max_input"], 100);
    assert!(d["beyond_max_input"].as_u64().unwrap() > 0, "{d}");
    assert_eq!(d["levels"]["V"], "pass", "{}", d["unanswered"]);
    assert_eq!(d["levels"]["R"], "pass", "{}", d["unanswered"]);
    assert_eq!(
        d["incidents"].as_array().unwrap().len(),
        0,
        "{}",
        d["incidents"]
    );
    assert!(d["checked"]["longest_input"].as_u64().unwrap() <= 100);
}

#[test]
fn bad_options_are_refused_before_any_work() {
    for timeout in ["0", "nan", "inf", "-1"] {
        let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
            .args(["audit", "--builtin-only", "--timeout", timeout])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "--timeout {timeout}");
    }
    // An --out that is a file is refused before the audit runs.
    let file = temp("out-file");
    std::fs::write(&file, b"x").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args(["audit", "-d", "std", "--out"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a folder"));
    let _ = std::fs::remove_file(&file);
    let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args(["diff", "-d", "", "-n", "10"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "an empty decoder name is a usage error"
    );
}

#[test]
fn ctrl_c_writes_a_partial_report() {
    if !have_python() {
        return;
    }
    let out = temp("ctrl-c");
    let script = root().join("tests/fixtures/hostile_adapter.py");
    let cmd = format!("python3 {} hang-after-hello", script.display());
    let child = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args([
            "audit",
            "-d",
            "slow",
            "--cmd",
            &cmd,
            "--timeout",
            "30",
            "--out",
        ])
        .arg(&out)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(report["partial"].as_str().unwrap().contains("interrupted"));
    let _ = std::fs::remove_dir_all(&out);
}
