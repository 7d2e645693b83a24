//! `junit.xml`: one test case per decoder × level, for CI systems.

use super::escape;
use std::fmt::Write;
use utf8conform::level::Level;
use utf8conform::report::{status, Report};

/// Renders the JUnit XML. A level a decoder does not claim is `skipped`; a
/// level that failed, or that some inputs left unanswered, is a `failure`
/// (a level not checked is not a pass), also for a decoder not documented
/// as conformant (CI dashboards should show findings), whose test cases
/// are named so they can be told apart.
pub fn render(report: &Report) -> String {
    let not_passed = |s: &str| s == status::FAIL || s == status::INCOMPLETE;
    let cases: usize = report.decoders.len() * Level::ALL.len();
    let failures: usize = report
        .decoders
        .iter()
        .map(|d| d.levels.values().filter(|s| not_passed(s)).count())
        .sum();
    let skipped: usize = report
        .decoders
        .iter()
        .map(|d| {
            d.levels
                .values()
                .filter(|s| s.as_str() == status::NOT_APPLICABLE)
                .count()
        })
        .sum();
    let mut x = String::new();
    let _ = writeln!(x, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        x,
        r#"<testsuites name="utf8conform audit" tests="{cases}" failures="{failures}" skipped="{skipped}" time="{:.3}">"#,
        report.wall_seconds
    );
    for d in &report.decoders {
        let d_failures = d.levels.values().filter(|s| not_passed(s)).count();
        let d_skipped = d
            .levels
            .values()
            .filter(|s| s.as_str() == status::NOT_APPLICABLE)
            .count();
        let _ = writeln!(
            x,
            r#"  <testsuite name="{}" tests="{}" failures="{d_failures}" skipped="{d_skipped}" time="{:.3}">"#,
            escape(&d.name),
            Level::ALL.len(),
            d.seconds
        );
        for level in Level::ALL {
            let letter = level.letter().to_string();
            let name = escape(&format!("{letter} {}", level.question()));
            let class = escape(&format!(
                "utf8conform.{}{}",
                d.name,
                if d.expected_conformant {
                    ""
                } else {
                    ".nonconformant-expected"
                }
            ));
            match d.status(level) {
                status::PASS => {
                    let _ = writeln!(x, r#"    <testcase classname="{class}" name="{name}"/>"#);
                }
                status::FAIL => {
                    let count = d.failure_counts.get(&letter).copied().unwrap_or(0);
                    let _ = writeln!(x, r#"    <testcase classname="{class}" name="{name}">"#);
                    let _ = writeln!(
                        x,
                        r#"      <failure message="{count} failing input(s)" type="nonconformance">"#
                    );
                    for f in d.failures.iter().filter(|f| f.level == letter).take(10) {
                        let line = format!(
                            "input {} ({}): expected {}, got {}",
                            f.input, f.source, f.expected, f.got
                        );
                        let _ = writeln!(x, "{}", escape(&line));
                    }
                    let _ = writeln!(x, "      </failure>\n    </testcase>");
                }
                status::INCOMPLETE => {
                    let n = d.unanswered.get(&letter).copied().unwrap_or(0);
                    let _ = writeln!(x, r#"    <testcase classname="{class}" name="{name}">"#);
                    let _ = writeln!(
                        x,
                        r#"      <failure message="{n} input(s) got no answer" type="incomplete">"#
                    );
                    for i in d.incidents.iter().take(10) {
                        let line = format!("{} on {}: {}", i.kind, i.input, i.detail);
                        let _ = writeln!(x, "{}", escape(&line));
                    }
                    let _ = writeln!(x, "      </failure>\n    </testcase>");
                }
                _ => {
                    let _ = writeln!(
                        x,
                        r#"    <testcase classname="{class}" name="{name}"><skipped message="not claimed"/></testcase>"#
                    );
                }
            }
        }
        if !d.stderr_tail.is_empty() {
            let _ = writeln!(
                x,
                "    <system-err>{}</system-err>",
                escape(&d.stderr_tail.join("\n"))
            );
        }
        let _ = writeln!(x, "  </testsuite>");
    }
    let _ = writeln!(x, "</testsuites>");
    x
}
