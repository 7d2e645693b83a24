//! `index.html`: a self-contained page (no network) in the spirit of
//! JSONTestSuite's results matrix — rows are groups of vector cases with the
//! same outcome for every decoder, columns are decoders, cells are coloured
//! — preceded by the per-level summary and followed by the findings.

use super::escape;
use std::fmt::Write;
use utf8conform::audit::classify::FLAG_NAMES;
use utf8conform::level::Level;
use utf8conform::report::{status, DecoderReport, Report};

const STYLE: &str = r#"
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px} h3{font-size:15px;margin:18px 0 6px}
.meta{color:#57606a;margin-bottom:16px}
table{border-collapse:collapse} td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
code,.hex{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.pass{background:#2da44e;color:#fff;text-align:center} .fail{background:#cf222e;color:#fff;text-align:center}
.na{background:#eaeef2;color:#8c959f;text-align:center} .flag{background:#fff1e5;color:#953800}
.inc{background:#bf8700;color:#fff;text-align:center}
.matrix td.c{width:18px;min-width:18px;padding:0;height:18px;font-size:10px}
.matrix th.d{height:150px;white-space:nowrap;vertical-align:bottom;padding:2px}
.matrix th.d div{writing-mode:vertical-rl;transform:rotate(180deg);font-size:12px}
.matrix td.label{white-space:nowrap;max-width:520px;overflow:hidden;text-overflow:ellipsis}
.matrix tr.cat td{background:#f6f8fa;font-weight:600}
.legend span{display:inline-block;padding:0 8px;margin-right:6px}
.nc{color:#8c959f;font-size:11px}
"#;

const SCRIPT: &str = r#"
function onlyDiff(on){document.querySelectorAll('tr.same').forEach(function(r){r.style.display=on?'none':''});}
"#;

/// Renders the page.
pub fn render(report: &Report) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>utf8conform audit</title><style>{STYLE}</style><script>{SCRIPT}</script></head><body>\n"
    );
    let _ = writeln!(h, "<h1>UTF-8 conformance audit</h1>");
    let _ = writeln!(
        h,
        "<div class=\"meta\">{}</div>",
        escape(&report.run_line())
    );
    summary(&mut h, report);
    matrix(&mut h, report);
    findings(&mut h, report);
    let _ = writeln!(h, "</body></html>");
    h
}

fn level_cell(d: &DecoderReport, level: Level) -> &'static str {
    match d.status(level) {
        status::PASS => "<td class=\"pass\">✓</td>",
        status::FAIL => "<td class=\"fail\">✗</td>",
        status::INCOMPLETE => "<td class=\"inc\" title=\"some inputs got no answer\">?</td>",
        _ => "<td class=\"na\">·</td>",
    }
}

fn summary(h: &mut String, report: &Report) {
    let _ = writeln!(h, "<p><a href=\"#summary\">Summary</a> · <a href=\"#matrix\">Vector matrix</a> · <a href=\"#findings\">Findings</a></p><h2 id=\"summary\">Summary</h2><table><tr><th>decoder</th><th>kind</th>");
    for l in Level::ALL {
        let _ = write!(
            h,
            "<th title=\"{}\">{}</th>",
            escape(l.question()),
            l.letter()
        );
    }
    let _ = writeln!(
        h,
        "<th>policy</th><th>BOM</th><th>matches</th><th>security flags</th></tr>"
    );
    for d in &report.decoders {
        let _ = write!(
            h,
            "<tr><td><a href=\"#d-{0}\"><code>{0}</code></a>{1}<br><span class=\"nc\">{2}</span></td><td>{3}</td>",
            escape(&d.name),
            if d.expected_conformant { "" } else { " <span class=\"nc\">(not documented conformant)</span>" },
            escape(&d.version),
            escape(&d.kind)
        );
        for l in Level::ALL {
            h.push_str(level_cell(d, l));
        }
        let policy = match &d.replacement {
            Some(r) => format!("{} ({r})", d.policy),
            None => d.policy.clone(),
        };
        let flags: Vec<String> = d.security_flags.iter().map(|f| escape(&f.flag)).collect();
        let _ = writeln!(
            h,
            "<td>{}</td><td>{}</td><td>{}</td><td{}>{}</td></tr>",
            escape(&policy),
            escape(&d.bom),
            escape(&d.variants.join(", ")),
            if flags.is_empty() {
                ""
            } else {
                " class=\"flag\""
            },
            if flags.is_empty() {
                "—".into()
            } else {
                flags.join("<br>")
            }
        );
    }
    let _ = writeln!(h, "</table>");
    if !report.skipped.is_empty() {
        let _ = writeln!(h, "<p>Not audited:</p><ul>");
        for s in &report.skipped {
            let _ = writeln!(
                h,
                "<li><code>{}</code>: {}</li>",
                escape(&s.name),
                escape(&s.reason)
            );
        }
        let _ = writeln!(h, "</ul>");
    }
}

fn matrix(h: &mut String, report: &Report) {
    let _ = writeln!(
        h,
        "<h2 id=\"matrix\">Vector matrix</h2><p class=\"legend\"><span class=\"pass\">pass</span><span class=\"fail\">fail (letters: levels)</span><span class=\"na\">not claimed</span> Each row stands for all cases of its category with that exact pattern of outcomes (hover for the note). <label><input type=\"checkbox\" onchange=\"onlyDiff(this.checked)\"> only rows where decoders differ</label></p>"
    );
    let _ = write!(h, "<table class=\"matrix\"><tr><th>cases</th>");
    for d in &report.decoders {
        let _ = write!(h, "<th class=\"d\"><div>{}</div></th>", escape(&d.name));
    }
    let _ = writeln!(h, "</tr>");
    let mut category = "";
    for row in &report.matrix {
        if row.category != category {
            category = &row.category;
            let _ = writeln!(
                h,
                "<tr class=\"cat\"><td colspan=\"{}\">{}</td></tr>",
                report.decoders.len() + 1,
                escape(category)
            );
        }
        let all_same = row
            .cells
            .iter()
            .filter(|c| c.as_str() != "n/a")
            .all(|c| c == "pass")
            || row.cells.windows(2).all(|w| w[0] == w[1]);
        let ids = if row.count == 1 {
            row.first_id.clone()
        } else {
            format!("{} cases: {} … {}", row.count, row.first_id, row.last_id)
        };
        let input = if row.input.len() > 40 {
            format!("{}…", &row.input[..40])
        } else {
            row.input.clone()
        };
        let _ = write!(
            h,
            "<tr{}><td class=\"label\" title=\"{}\">{} <span class=\"hex\">{}</span></td>",
            if all_same { " class=\"same\"" } else { "" },
            escape(&row.note),
            escape(&ids),
            escape(&input)
        );
        for (cell, d) in row.cells.iter().zip(&report.decoders) {
            let (class, text) = match cell.as_str() {
                "pass" => ("pass", String::new()),
                "n/a" => ("na", String::new()),
                "no-answer" => ("inc", "?".to_string()),
                fail => ("fail", fail.trim_start_matches("fail:").to_string()),
            };
            let _ = write!(
                h,
                "<td class=\"c {class}\" title=\"{}: {}\">{}</td>",
                escape(&d.name),
                escape(cell),
                escape(&text)
            );
        }
        let _ = writeln!(h, "</tr>");
    }
    let _ = writeln!(h, "</table>");
}

fn findings(h: &mut String, report: &Report) {
    let _ = writeln!(h, "<h2 id=\"findings\">Findings</h2>");
    for d in &report.decoders {
        let _ = writeln!(
            h,
            "<h3 id=\"d-{0}\"><code>{0}</code> — {1}</h3><p>{2}<br>claims {3}; checked {4} vector cases, {5} exhaustive, {9} deep and {6} differential inputs, {10} streams, {11} reuse sequences in {7:.1} s{8}.</p>",
            escape(&d.name),
            escape(&d.version),
            escape(&d.description),
            escape(&d.capabilities.join(", ")),
            d.checked.vectors,
            d.checked.exhaustive,
            d.checked.differential,
            d.seconds,
            if d.restarts > 0 { format!("; restarted {} times", d.restarts) } else { String::new() },
            d.checked.deep,
            d.checked.streams,
            d.checked.reuse
        );
        let _ = writeln!(h, "<ul>");
        for f in &d.security_flags {
            let what = FLAG_NAMES
                .iter()
                .find(|(n, _)| *n == f.flag)
                .map_or("", |(_, w)| w);
            let _ = writeln!(
                h,
                "<li class=\"flag\"><b>{}</b>: {} — <span class=\"hex\">{}</span> → {}</li>",
                escape(&f.flag),
                escape(what),
                escape(&f.input),
                escape(&f.answer)
            );
        }
        for i in &d.incidents {
            let _ = writeln!(
                h,
                "<li class=\"flag\"><b>{}</b> on <span class=\"hex\">{}</span>{}: {} ({} failed, {} not run)</li>",
                escape(&i.kind),
                escape(if i.input.is_empty() { "(any input)" } else { &i.input }),
                if i.minimized { " (minimised)" } else { "" },
                escape(&i.detail),
                i.failures,
                i.not_run
            );
        }
        if let Some(why) = &d.stopped {
            let _ = writeln!(
                h,
                "<li><b>stopped</b>: {} ({} not run)</li>",
                escape(why),
                d.not_run
            );
        }
        if let Some(max) = d.max_input {
            let _ = writeln!(
                h,
                "<li><b>max_input</b> {max} bytes (the library's API takes no more): {} request(s) with longer inputs left out</li>",
                d.beyond_max_input
            );
        }
        let _ = writeln!(h, "</ul>");
        let findings = !d.failures.is_empty() || !d.incidents.is_empty();
        if !d.stderr_tail.is_empty() && findings {
            let _ = writeln!(
                h,
                "<details><summary>stderr</summary><pre>{}</pre></details>",
                escape(&d.stderr_tail.join("\n"))
            );
        }
        if d.failures.is_empty() {
            continue;
        }
        let _ = writeln!(h, "<table><tr><th>level</th><th>input</th><th>expected</th><th>got</th><th>found by</th></tr>");
        for level in Level::ALL {
            let letter = level.letter().to_string();
            for f in d.failures.iter().filter(|f| f.level == letter).take(5) {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td class=\"hex\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&f.level),
                    escape(&f.input),
                    escape(&f.expected),
                    escape(&f.got),
                    escape(&f.source)
                );
            }
        }
        let _ = writeln!(h, "</table>");
    }
}
