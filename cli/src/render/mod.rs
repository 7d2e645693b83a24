//! The report's renderers: Markdown for people, a self-contained HTML
//! matrix for people at a glance, JUnit XML for CI. Each reads only the
//! model, [`utf8conform::report::Report`].

pub mod html;
pub mod junit;
pub mod markdown;

/// Escapes text for HTML and XML. Characters XML 1.0 cannot hold at all,
/// not even as references (C0 controls but tab, newline and carriage
/// return; U+FFFE, U+FFFF), are spelled out instead (`\x1B`), so an
/// adapter that prints an escape sequence cannot make `junit.xml`
/// unparseable.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\0'..='\u{1F}' | '\u{7F}' => out.push_str(&format!("\\x{:02X}", c as u32)),
            '\u{FFFE}' | '\u{FFFF}' => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        // Not even a reference to these is well-formed XML 1.0.
        assert_eq!(escape("\u{0}\u{1B}[31m\u{FFFF}"), "\\x00\\x1B[31m\\u{FFFF}");
        assert_eq!(escape("a\tb\nc"), "a\tb\nc");
    }
}
