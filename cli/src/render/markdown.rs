//! `summary.md`: one table of every decoder, then the findings per decoder,
//! each with the input and the answer that show it, shortest first.

use std::fmt::Write;
use utf8conform::audit::classify::FLAG_NAMES;
use utf8conform::level::Level;
use utf8conform::report::{status, DecoderReport, Report};

/// A level's cell: ✓ pass, ✗ fail, ? incomplete, · not claimed.
pub fn cell(d: &DecoderReport, level: Level) -> &'static str {
    match d.status(level) {
        status::PASS => "✓",
        status::FAIL => "✗",
        status::INCOMPLETE => "?",
        _ => "·",
    }
}

/// Renders the summary.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# UTF-8 conformance audit\n");
    let _ = writeln!(s, "{}\n", report.run_line());
    if let Some(why) = &report.partial {
        let _ = writeln!(s, "**Partial report:** {why}\n");
    }
    let _ = writeln!(
        s,
        "Levels (✓ pass, ✗ fail, ? incomplete: some inputs got no answer, · not claimed): {}.\n",
        Level::ALL
            .iter()
            .map(|l| format!("**{}** {}", l.letter(), l.question()))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let letters: Vec<String> = Level::ALL.iter().map(|l| l.letter().to_string()).collect();
    let _ = writeln!(
        s,
        "| decoder | kind | {} | policy | BOM | matches | security flags | incidents |",
        letters.join(" | ")
    );
    let _ = writeln!(
        s,
        "|---|---|{}---|---|---|---|",
        "---|".repeat(letters.len())
    );
    for d in &report.decoders {
        let policy = match &d.replacement {
            Some(r) => format!("{} ({r})", d.policy),
            None => d.policy.clone(),
        };
        let flags = if d.security_flags.is_empty() {
            "—".to_string()
        } else {
            d.security_flags
                .iter()
                .map(|f| f.flag.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let cells: Vec<&str> = Level::ALL.iter().map(|&l| cell(d, l)).collect();
        let incidents = if d.incidents.is_empty() {
            "—".to_string()
        } else {
            d.incidents
                .iter()
                .map(|i| i.kind.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "| `{}`{} | {} | {} | {} | {} | {} | {} |",
            d.name,
            if d.expected_conformant {
                ""
            } else {
                " ⁽ⁿ⁾"
            },
            d.kind,
            cells.join(" | "),
            policy,
            d.bom,
            flags,
            incidents
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
        decoder_findings(&mut s, d);
    }
    s
}

fn decoder_findings(s: &mut String, d: &DecoderReport) {
    let _ = writeln!(s, "### `{}` — {}\n", d.name, d.version);
    let c = &d.checked;
    let _ = writeln!(
        s,
        "{}  \nclaims: {}; checked {} vector cases, {} exhaustive inputs, {} deep inputs (longest {} bytes), {} differential inputs, {} streams, {} reuse sequences in {:.1} s{}.\n",
        d.description,
        d.capabilities.join(", "),
        c.vectors,
        c.exhaustive,
        c.deep,
        c.longest_input,
        c.differential,
        c.streams,
        c.reuse,
        d.seconds,
        if d.restarts > 0 { format!("; restarted {} times", d.restarts) } else { String::new() }
    );
    if !d.rules.is_empty() && !d.rules.starts_with("utf-8") {
        let _ = writeln!(
            s,
            "Scored by the rules of {}: the vectors and streams (UTF-8's) were not judged.\n",
            d.rules
        );
    }
    if !d.variants.is_empty() {
        let _ = writeln!(
            s,
            "Matches exactly (validity and decoded values): {}.\n",
            d.variants.join(", ")
        );
    } else if let Some(c) = &d.closest_variant {
        let _ = writeln!(
            s,
            "Matches no format exactly; closest: {} (differs on {} of {} probes, first on `{}`: {}).\n",
            c.format,
            c.differs_on,
            c.of,
            c.first.input,
            md(&c.first.answer)
        );
    }
    if !d.reuse_rules.is_empty() {
        let _ = writeln!(s, "Reuse held to: {}.\n", d.reuse_rules.join(", "));
    }
    for flag in &d.security_flags {
        let what = FLAG_NAMES
            .iter()
            .find(|(n, _)| *n == flag.flag)
            .map_or("", |(_, w)| w);
        let _ = writeln!(
            s,
            "- **{}**: {what} — `{}` → {}",
            flag.flag,
            flag.input,
            md(&flag.answer)
        );
    }
    if !matches!(d.policy.as_str(), "maximal-subpart" | "n/a") {
        let shown: Vec<String> = d
            .policy_evidence
            .iter()
            .filter(|e| e.got.as_ref() != Some(&e.maximal_subpart))
            .take(3)
            .map(|e| {
                let got = match (&e.got, &e.no_answer) {
                    (Some(g), _) => scalars(g),
                    (None, Some(why)) => format!("no answer ({})", md(why)),
                    (None, None) => "no answer".into(),
                };
                format!(
                    "`{}` → {} (Unicode §3.9: {})",
                    e.input,
                    got,
                    scalars(&e.maximal_subpart)
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "- **replacement policy {}**: {}",
            d.policy,
            shown.join("; ")
        );
    }
    for i in &d.incidents {
        let _ = writeln!(
            s,
            "- **{}** on `{}`{}: {} — {} request(s) failed this way, {} not run{}",
            i.kind,
            if i.input.is_empty() {
                "(any input)"
            } else {
                &i.input
            },
            if i.minimized { " (minimised)" } else { "" },
            md(&i.detail),
            i.failures,
            i.not_run,
            i.note.as_ref().map_or(String::new(), |n| format!(" ({n})"))
        );
    }
    if let Some(why) = &d.stopped {
        let _ = writeln!(s, "- **stopped**: {why}; {} request(s) not run", d.not_run);
    }
    if let Some(max) = d.max_input {
        let _ = writeln!(
            s,
            "- **max_input** {max} bytes (the library's API takes no more): {} request(s) with longer inputs left out",
            d.beyond_max_input
        );
    }
    for (level, n) in &d.unanswered {
        if d.failure_counts.contains_key(level) {
            continue;
        }
        let _ = writeln!(
            s,
            "- level {level}: {n} input(s) got no answer, so it is not a pass"
        );
    }
    let clean = d.failures.is_empty() && d.security_flags.is_empty() && d.incidents.is_empty();
    if clean {
        let _ = writeln!(
            s,
            "No divergence from RFC 3629 / Unicode §3.9 on any claimed level."
        );
    }
    for level in Level::ALL {
        let letter = level.letter().to_string();
        let Some(count) = d.failure_counts.get(&letter) else {
            continue;
        };
        let _ = writeln!(
            s,
            "\n**{letter}** ({}) — {count} failing input(s); shortest:\n",
            level.question()
        );
        let _ = writeln!(s, "| input | expected | got | found by |");
        let _ = writeln!(s, "|---|---|---|---|");
        for f in d.failures.iter().filter(|f| f.level == letter).take(5) {
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
    if !d.stderr_tail.is_empty() && !clean {
        let _ = writeln!(s, "\nLast lines on stderr:\n\n```text");
        for line in &d.stderr_tail {
            let _ = writeln!(s, "{line}");
        }
        let _ = writeln!(s, "```");
    }
    let _ = writeln!(s);
}

fn scalars(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|c| format!("{c:04X}")).collect();
    format!("[{}]", items.join(" "))
}

fn md(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
