//! `summary.md`: one table of every decoder, then the findings per decoder
//! with the shortest inputs that show them.

use std::fmt::Write;
use utf8conform::audit::classify::FLAG_NAMES;
use utf8conform::report::{Report, LEVELS};

/// Renders the summary.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# UTF-8 conformance audit\n");
    let _ = writeln!(s, "{}\n", report.run_line());
    let _ = writeln!(
        s,
        "Levels (✓ pass, ✗ fail, · not claimed): {}.\n",
        LEVELS
            .iter()
            .map(|(l, q)| format!("**{l}** {q}"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let _ = writeln!(
        s,
        "| decoder | kind | V | P | S | R | C | E | policy | BOM | security flags |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for d in &report.decoders {
        let cell = |l: &str| match d.levels.get(l).map(String::as_str) {
            Some("pass") => "✓",
            Some("fail") => "✗",
            _ => "·",
        };
        let policy = match &d.replacement {
            Some(r) => format!("{} ({r})", d.policy),
            None => d.policy.clone(),
        };
        let flags = if d.security_flags.is_empty() {
            "—".to_string()
        } else {
            d.security_flags.join(", ")
        };
        let _ = writeln!(
            s,
            "| `{}`{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            d.name,
            if d.expected_conformant {
                ""
            } else {
                " ⁽ⁿ⁾"
            },
            d.kind,
            cell("V"),
            cell("P"),
            cell("S"),
            cell("R"),
            cell("C"),
            cell("E"),
            policy,
            d.bom,
            flags
        );
    }
    let _ = writeln!(s, "\n⁽ⁿ⁾ not documented as conformant: its failures are findings, not regressions (the audit's exit status ignores them).\n");
    if !report.skipped.is_empty() {
        let _ = writeln!(s, "Not audited:\n");
        for k in &report.skipped {
            let _ = writeln!(s, "- `{}`: {}", k.name, k.reason);
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "## Findings\n");
    for d in &report.decoders {
        let _ = writeln!(s, "### `{}` — {}\n", d.name, d.version);
        let _ = writeln!(s, "{}  \nclaims: {}; checked {} vector cases, {} exhaustive inputs, {} differential inputs in {:.1} s{}.\n",
            d.description,
            d.capabilities.join(", "),
            d.checked.vectors, d.checked.exhaustive, d.checked.differential, d.seconds,
            if d.restarts > 0 { format!("; restarted {} times", d.restarts) } else { String::new() });
        for flag in &d.security_flags {
            let what = FLAG_NAMES
                .iter()
                .find(|(n, _)| n == flag)
                .map_or("", |(_, w)| w);
            let _ = writeln!(s, "- **{flag}**: {what}");
        }
        if d.policy != "maximal-subpart" && d.policy != "n/a" {
            let differing: Vec<String> = d
                .policy_evidence
                .iter()
                .filter(|e| e.got != e.maximal_subpart)
                .take(3)
                .map(|e| {
                    format!(
                        "`{}` → {} (Unicode §3.9: {})",
                        e.input,
                        scalars(&e.got),
                        scalars(&e.maximal_subpart)
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "- **replacement policy {}**: {}",
                d.policy,
                differing.join("; ")
            );
        }
        if d.failures.is_empty() {
            if d.security_flags.is_empty() {
                let _ = writeln!(
                    s,
                    "No divergence from RFC 3629 / Unicode §3.9 on any claimed level."
                );
            }
            let _ = writeln!(s);
            continue;
        }
        for (level, question) in LEVELS {
            let Some(count) = d.failure_counts.get(level) else {
                continue;
            };
            let _ = writeln!(
                s,
                "\n**{level}** ({question}) — {count} failing input(s); shortest:\n"
            );
            let _ = writeln!(s, "| input | expected | got | found by |");
            let _ = writeln!(s, "|---|---|---|---|");
            for f in d.failures.iter().filter(|f| f.level == level).take(5) {
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} |",
                    f.input,
                    md(&f.expected),
                    md(&f.got),
                    f.source
                );
            }
        }
        let _ = writeln!(s);
    }
    s
}

fn scalars(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|c| format!("{c:04X}")).collect();
    format!("[{}]", items.join(" "))
}

fn md(text: &str) -> String {
    text.replace('|', "\\|")
}
