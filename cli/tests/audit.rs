//! External decoders and the audit, end to end: the process decoder
//! survives every way an adapter can misbehave, the classifier names the
//! hazards of a deliberately lax decoder, and `utf8conform audit` writes
//! schema-valid reports and gates its exit status.

mod common;

use common::{have_python, root, temp};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use utf8conform::audit::classify;
use utf8conform::decoder::Decoder;
use utf8conform::decoders::process::{ProcessDecoder, ProcessSpec};
use utf8conform::level::Level;
use utf8conform::outcome::FailureKind;

fn fake(mode: &str) -> Option<ProcessDecoder> {
    if !have_python() {
        return None;
    }
    let py = "python3";
    let script = root().join("tests/fixtures/fake_adapter.py");
    let mut spec = ProcessSpec::new(
        format!("fake-{mode}"),
        vec![py.into(), script.display().to_string(), mode.into()],
        root(),
    );
    spec.timeout = Duration::from_millis(700);
    Some(ProcessDecoder::start(spec).expect("the fake adapter starts"))
}

#[test]
fn the_process_decoder_survives_crashes_hangs_garbage_and_wrong_ids() {
    let Some(d) = fake("unruly") else { return };
    let inputs: [&[u8]; 9] = [
        b"A",
        b"\xC0",
        b"B",
        b"\xC1",
        b"C",
        b"\xC2",
        b"D",
        b"\xC3",
        b"\xE2\x82\xAC",
    ];
    let results = utf8conform::decoder::decode_batch(&d, &inputs);
    assert_eq!(results.len(), inputs.len());
    let kinds: Vec<Option<FailureKind>> = results
        .iter()
        .map(|r| r.as_ref().err().map(|f| f.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(FailureKind::Crash),
            None,
            Some(FailureKind::Timeout),
            None,
            Some(FailureKind::ProtocolError),
            None,
            Some(FailureKind::ProtocolError),
            None,
        ]
    );
    // Nothing answered before or after a failure is lost, and the answers
    // are the right ones for their inputs.
    let scalars = |i: usize| results[i].as_ref().unwrap().scalars.clone().unwrap();
    assert_eq!(scalars(0), [0x41]);
    assert_eq!(scalars(4), [0x43]);
    assert_eq!(scalars(8), [0x20AC]);
    assert_eq!(d.restarts(), 4);
    assert!(
        format!("{:?}", results[1]).contains("exited"),
        "{:?}",
        results[1]
    );
    // And it is still usable afterwards.
    assert_eq!(d.decode(b"ok").unwrap().valid, Some(true));
}

#[test]
fn an_adapter_that_cannot_start_is_a_clear_error() {
    let spec = ProcessSpec::new("nope", vec!["/definitely/not/a/program".into()], root());
    let e = ProcessDecoder::start(spec).err().unwrap();
    assert!(e.contains("cannot start /definitely/not/a/program"), "{e}");
    let spec = ProcessSpec::new(
        "silent",
        vec!["sh".into(), "-c".into(), "echo hi".into()],
        root(),
    );
    let e = ProcessDecoder::start(spec).err().unwrap();
    assert!(e.contains("not a hello"), "{e}");
}

#[test]
fn serve_through_the_process_decoder_equals_the_in_process_decoder() {
    let spec = ProcessSpec::new(
        "served-codec",
        vec![
            env!("CARGO_BIN_EXE_utf8conform").into(),
            "serve".into(),
            "--decoder".into(),
            "codec".into(),
        ],
        root(),
    );
    let remote = ProcessDecoder::start(spec).unwrap();
    let local = utf8conform::decoders::builtin("codec").unwrap();
    assert_eq!(
        remote.capabilities().names(),
        [
            "validate",
            "position",
            "subpart",
            "decode",
            "lossy",
            "encode",
            "stream-strict",
            "stream-lossy"
        ]
    );
    let inputs: Vec<Vec<u8>> = (0..3000)
        .map(|i| utf8conform::generate::campaign_input(9, i))
        .collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    for (input, answer) in inputs
        .iter()
        .zip(utf8conform::decoder::decode_batch(&remote, &refs))
    {
        assert_eq!(
            answer.unwrap(),
            local.decode(input).unwrap(),
            "{input:02x?}"
        );
    }
    for v in [0x41, 0xD800, 0x10FFFF, 0x110000] {
        assert_eq!(remote.encode(v).unwrap(), local.encode(v).unwrap());
    }
}

#[test]
fn a_lax_decoder_is_flagged_for_every_rfc_10_hazard_it_has() {
    let Some(d) = fake("lax") else { return };
    let found = classify::classify(d.capabilities(), |requests| d.ask(requests));
    let flags: Vec<&str> = found.flags.iter().map(|f| f.flag.as_str()).collect();
    for expected in [
        "accepts-overlong-nul",
        "accepts-overlong-slash",
        "accepts-surrogates",
        "accepts-above-10ffff",
        "encodes-surrogates",
        "encodes-above-10ffff",
    ] {
        assert!(
            flags.contains(&expected),
            "{expected} missing from {flags:?}"
        );
    }
    // It decodes the CESU-8 pair ED A1 8C ED BE B4 as the two surrogates
    // (D84C DFB4): it accepts surrogates, but joins nothing. It never
    // rejects a noncharacter, and decodes 5-byte forms to U+FFFDs.
    assert!(!flags.contains(&"joins-cesu8-pairs"), "{flags:?}");
    assert!(!flags.contains(&"rejects-noncharacters"), "{flags:?}");
    assert!(!flags.contains(&"accepts-5-6-byte-forms"), "{flags:?}");
    assert_eq!(found.bom, "keeps");
}

fn audit(args: &[&str], out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .arg("audit")
        .args(args)
        .args([
            "--diff",
            "2000",
            "--external-diff",
            "500",
            "--exhaustive",
            "2",
            "--out",
        ])
        .arg(out)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn audit_writes_schema_valid_reports_rendered_from_report_json() {
    let out = temp("audit");
    let o = audit(&["-d", "std", "-d", "simdutf8-basic", "-d", "codec"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    let schema: Value = serde_json::from_str(utf8conform::report::SCHEMA_JSON).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let decoders = report["decoders"].as_array().unwrap();
    assert_eq!(decoders.len(), 3);
    let basic = &decoders[1];
    assert_eq!(basic["name"], "simdutf8-basic");
    assert_eq!(basic["levels"]["V"], "pass");
    assert_eq!(basic["levels"]["P"], "n/a");
    assert_eq!(basic["policy"], "n/a");
    assert_eq!(decoders[2]["levels"]["C"], "pass");
    // One JUnit test case per decoder × level.
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 3 * Level::ALL.len());
    assert!(std::fs::read_to_string(out.join("summary.md"))
        .unwrap()
        .contains("| `codec` |"));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("class=\"matrix\"")
            && !html.contains("http://")
            && !html.contains("https://")
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn audit_gates_only_on_decoders_expected_to_conform() {
    if !have_python() {
        return;
    }
    let script = root().join("tests/fixtures/fake_adapter.py");
    let cmd = format!("python3 {} lax", script.display());
    let out = temp("gate");
    let o = audit(&["-d", "lax", "--cmd", &cmd], &out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "a finding, not a regression: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let d = &report["decoders"][0];
    assert_eq!(d["kind"], "external");
    assert_eq!(d["levels"]["V"], "fail");
    assert_eq!(d["levels"]["R"], "fail");
    let o = audit(&["-d", "lax", "--cmd", &cmd, "--expect-conformant"], &out);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected to conform failed: lax"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn audit_rejects_unknown_decoders_with_one_line() {
    let out = temp("unknown");
    let o = audit(&["-d", "no-such-decoder"], &out);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("unknown decoder \"no-such-decoder\""),
        "{stderr}"
    );
}
