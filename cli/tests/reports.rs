//! Reports across runs: a baseline gate that stops only on new failures,
//! `report diff` and `report merge` (which refuses what it cannot join
//! honestly), a destination checked before any work, and writes that are
//! all or nothing when the disk fills (a file-size limit stands in for a
//! full disk: the write fails half-way, as it would).

mod common;

use common::{have_python, root, temp};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_utf8conform"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A small audit of built-in decoders into `out`.
fn audit_builtin(decoders: &[&str], seed: &str, out: &Path, extra: &[&str]) -> Output {
    let mut cmd = bin();
    cmd.arg("audit");
    for d in decoders {
        cmd.args(["-d", d]);
    }
    cmd.args([
        "--diff",
        "1000",
        "--exhaustive",
        "1",
        "--no-deep",
        "--seed",
        seed,
    ])
    .args(extra)
    .arg("--out")
    .arg(out)
    .output()
    .unwrap()
}

/// A small audit of the hostile fixture adapter in `mode`, always called
/// `subject`, so that two modes compare as two versions of one decoder.
fn audit_adapter(mode: &str, out: &Path, extra: &[&str]) -> Output {
    let script = root().join("tests/fixtures/hostile_adapter.py");
    let cmd = format!("python3 {} {mode}", script.display());
    bin()
        .args(["audit", "-d", "subject", "--cmd", &cmd, "--timeout", "2"])
        .args([
            "--external-exhaustive",
            "1",
            "--external-diff",
            "300",
            "--no-deep",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn report(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn a_baseline_gate_fails_on_a_regression_and_passes_an_improvement() {
    if !have_python() {
        return;
    }
    let good = temp("baseline-good");
    let o = audit_adapter("conformant", &good, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(report(&good)["decoders"][0]["levels"]["V"], "pass");

    // The same decoder, now crashing on F5: a new failure against the
    // baseline, so the gate fails although the decoder is not gated.
    let bad = temp("baseline-bad");
    let baseline = good.join("report.json");
    let o = audit_adapter(
        "crash-f5",
        &bad,
        &["--baseline", baseline.to_str().unwrap()],
    );
    let text = stdout(&o) + &stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("NEW FAILURE: subject:"), "{text}");
    assert!(text.contains("crash on f5"), "{text}");

    // `report diff` says the same, both ways round, with JUnit on request.
    let junit = bad.join("diff.xml");
    let o = bin()
        .args(["report", "diff"])
        .arg(&baseline)
        .arg(bad.join("report.json"))
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("failures=\"1\"") && xml.contains("name=\"subject\""),
        "{xml}"
    );
    let o = bin()
        .args(["report", "diff"])
        .arg(bad.join("report.json"))
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "an improvement: {}", stdout(&o));
    assert!(stdout(&o).contains("changed: subject:"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("NEW FAILURE"), "{}", stdout(&o));
    let o = bin()
        .args(["report", "diff"])
        .arg(&baseline)
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("no change"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&good);
    let _ = std::fs::remove_dir_all(&bad);
}

#[test]
fn merge_joins_split_audits_and_refuses_what_it_cannot_join() {
    let dirs: Vec<PathBuf> = ["merge-a", "merge-b", "merge-c", "merge-d", "merge-out"]
        .iter()
        .map(|n| temp(n))
        .collect();
    let [a, b, c, d, out] = &dirs[..] else {
        unreachable!()
    };
    for (dir, decoder, seed) in [(a, "reference", "1"), (b, "std", "1"), (c, "std", "2")] {
        let o = audit_builtin(&[decoder], seed, dir, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // Other vectors: one vector file fewer.
    let vectors = temp("merge-vectors");
    std::fs::create_dir_all(&vectors).unwrap();
    for entry in std::fs::read_dir(root().join("../vectors")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() != "replacement.json" {
            std::fs::copy(&path, vectors.join(path.file_name().unwrap())).unwrap();
        }
    }
    let o = audit_builtin(
        &["codec"],
        "1",
        d,
        &["--vectors", vectors.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));

    let merge = |parts: &[&PathBuf]| {
        let mut cmd = bin();
        cmd.args(["report", "merge", "--out"]).arg(out);
        for p in parts {
            cmd.arg(p.join("report.json"));
        }
        cmd.output().unwrap()
    };
    let o = merge(&[a, b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = report(out);
    let names: Vec<&str> = merged["decoders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["reference", "std"]);
    let row = &merged["matrix"][0];
    assert_eq!(row["cells"].as_array().unwrap().len(), 2, "{row}");
    assert!(out.join("index.html").is_file() && out.join("junit.xml").is_file());

    for (parts, needle) in [
        (vec![b, c], "seeds 1 and 2"),
        (vec![a, a], "in more than one report"),
        (vec![a, d], "other vectors"),
    ] {
        let o = merge(&parts);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
    }
    for dir in dirs.iter().chain([&vectors]) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_destination_that_cannot_take_reports_is_refused_before_any_work() {
    let dir = temp("destination");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, b"keep me").unwrap();
    let started = Instant::now();
    // The default audit runs for minutes; the refusal must come first.
    let o = bin().args(["audit", "--out"]).arg(&file).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a folder"), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");
    let o = bin()
        .args(["audit", "--out"])
        .arg(file.join("below-a-file"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot create"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the binary with `args` under a file-size limit of `kib` KiB (with
/// SIGXFSZ ignored, a write past it fails with EFBIG, as on a full disk).
fn with_file_limit(kib: u32, args: &[&str]) -> Option<Output> {
    let bash = Command::new("bash").arg("--version").output();
    if !bash.is_ok_and(|o| o.status.success()) {
        eprintln!("skipping: bash is not installed");
        return None;
    }
    let script = format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" \"$@\"");
    Some(
        Command::new("bash")
            .args(["-c", &script, env!("CARGO_BIN_EXE_utf8conform")])
            .args(args)
            .output()
            .unwrap(),
    )
}

/// Every file in `dir`: its name, size and a hash of its bytes (short to
/// print when a comparison fails).
fn snapshot(dir: &Path) -> Vec<(String, usize, u64)> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut files: Vec<(String, usize, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap_or_default();
            let mut h = DefaultHasher::new();
            bytes.hash(&mut h);
            (name, bytes.len(), h.finish())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_report_write_that_fails_half_way_leaves_the_earlier_reports() {
    let (small, big) = (temp("atomic-small"), temp("atomic-big"));
    assert!(audit_builtin(&["reference"], "1", &small, &[])
        .status
        .success());
    assert!(
        audit_builtin(&["reference", "std", "codec"], "1", &big, &[])
            .status
            .success()
    );
    let before = snapshot(&small);
    let largest = before.iter().map(|&(_, len, _)| len).max().unwrap();
    // Room for any file of the small report, not for the big one's.
    let kib = (largest / 1024 + 1) as u32;
    let big_json = big.join("report.json");
    let Some(o) = with_file_limit(
        kib,
        &[
            "report",
            "render",
            "--from",
            big_json.to_str().unwrap(),
            "--out",
            small.to_str().unwrap(),
        ],
    ) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("unchanged"), "{}", stderr(&o));
    assert_eq!(
        snapshot(&small),
        before,
        "every file as it was, nothing left over"
    );
    let _ = std::fs::remove_dir_all(&small);
    let _ = std::fs::remove_dir_all(&big);
}

#[test]
fn a_promote_that_fails_half_way_keeps_every_earlier_regression() {
    let dir = temp("promote");
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("small.bin");
    std::fs::write(&small, b"a\xc0\xafb").unwrap();
    let o = bin()
        .args([
            "promote",
            "--dir",
            dir.to_str().unwrap(),
            small.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let regressions = std::fs::read(dir.join("regressions.json")).unwrap();
    // A case far larger than the limit: the new file cannot be written.
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![0xE2u8; 64 * 1024]).unwrap();
    let before = snapshot(&dir);
    let kib = (regressions.len() / 1024 + 4) as u32;
    let Some(o) = with_file_limit(
        kib,
        &[
            "promote",
            "--dir",
            dir.to_str().unwrap(),
            big.to_str().unwrap(),
        ],
    ) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
    assert!(
        std::fs::read(dir.join("regressions.json")).unwrap() == regressions,
        "regressions.json changed"
    );
    assert_eq!(snapshot(&dir), before, "no temporary file left behind");
    let _ = std::fs::remove_dir_all(&dir);
}
