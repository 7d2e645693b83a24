//! `junit.xml`: one test case per decoder × level, for CI systems.

use super::escape;
use std::fmt::Write;
use utf8conform::report::{Report, LEVELS};

/// Renders the JUnit XML. A level a decoder does not claim is `skipped`; a
/// failed level of a decoder not documented as conformant is still a
/// `failure` (CI dashboards should show findings), and its test case is
/// named so it can be told apart.
pub fn render(report: &Report) -> String {
    let cases: usize = report.decoders.len() * LEVELS.len();
    let failures: usize = report
        .decoders
        .iter()
        .map(|d| d.failed_levels().len())
        .sum();
    let skipped: usize = report
        .decoders
        .iter()
        .map(|d| d.levels.values().filter(|s| s.as_str() == "n/a").count())
        .sum();
    let mut x = String::new();
    let _ = writeln!(x, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        x,
        r#"<testsuites name="utf8conform audit" tests="{cases}" failures="{failures}" skipped="{skipped}" time="{:.3}">"#,
        report.wall_seconds
    );
    for d in &report.decoders {
        let d_failures = d.failed_levels().len();
        let d_skipped = d.levels.values().filter(|s| s.as_str() == "n/a").count();
        let _ = writeln!(
            x,
            r#"  <testsuite name="{}" tests="{}" failures="{d_failures}" skipped="{d_skipped}" time="{:.3}">"#,
            escape(&d.name),
            LEVELS.len(),
            d.seconds
        );
        for (level, question) in LEVELS {
            let name = escape(&format!("{level} {question}"));
            let class = escape(&format!(
                "utf8conform.{}{}",
                d.name,
                if d.expected_conformant {
                    ""
                } else {
                    ".nonconformant-expected"
                }
            ));
            match d.levels.get(level).map(String::as_str) {
                Some("pass") => {
                    let _ = writeln!(x, r#"    <testcase classname="{class}" name="{name}"/>"#);
                }
                Some("fail") => {
                    let count = d.failure_counts.get(level).copied().unwrap_or(0);
                    let _ = writeln!(x, r#"    <testcase classname="{class}" name="{name}">"#);
                    let _ = writeln!(
                        x,
                        r#"      <failure message="{count} failing input(s)" type="nonconformance">"#
                    );
                    for f in d.failures.iter().filter(|f| f.level == level).take(10) {
                        let _ = writeln!(
                            x,
                            "{}",
                            escape(&format!(
                                "input {} ({}): expected {}, got {}",
                                f.input, f.source, f.expected, f.got
                            ))
                        );
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
        let _ = writeln!(x, "  </testsuite>");
    }
    let _ = writeln!(x, "</testsuites>");
    x
}
