//! The one escaping of a target's bytes for human output: every control character made
//! visible, so that an answer cannot drive the terminal or the CI log that shows it.
//!
//! A target chooses the bytes of its answers, and the summary, the progress lines and the
//! Markdown, JUnit and HTML reports quote them. Left raw, `ESC ] 0 ; … BEL` retitles the
//! window of a CI log, `ESC [ 2 J` clears it, a CR or a backspace overwrites the line before
//! it (a `failed` drawn over with `passed`), and the C1 control U+009B is a CSI on its own,
//! even inside a JSON string (JSON escapes only C0). [`escape`] writes each of them as an
//! escape a reader sees: `\n`, `\r`, `\t`, else `\u001b` (the form JSON and JavaScript read
//! back as the same character, so a JSON document stays the same value). [`escape_lines`] is
//! the same escaping between the line breaks of a document we wrote, applied to every human
//! output as a whole.

use std::borrow::Cow;

/// Every control character of `text` (C0 with ESC, CR, LF, TAB, BS and BEL; DEL; C1 with
/// U+009B) escaped: `\n`, `\r`, `\t`, else `\uXXXX`. Other text is kept as it is.
///
/// ```
/// use gatecheck_conformance::terminal;
/// assert_eq!(terminal::escape("\u{1b}]0;pwned\u{7}ok\r"), "\\u001b]0;pwned\\u0007ok\\r");
/// assert_eq!(terminal::escape("{\"a\":\"\u{9b}2J\"}"), "{\"a\":\"\\u009b2J\"}");
/// assert_eq!(terminal::escape("plain é"), "plain é");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, false)
}

/// [`escape`], keeping the line feeds: for a whole document whose lines we wrote (the
/// summary, the reports), after its fields were put in.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_with(text, true)
}

fn escape_with(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let needs = |c: char| c.is_control() && !(keep_newlines && c == '\n');
    let Some(first) = text.find(needs) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            c if !needs(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// Whether `text` holds a control character other than a line feed: what a human output
/// must never hold after [`escape_lines`].
pub fn has_controls(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The sequences a hostile target sent.
    pub(crate) const HOSTILE: &str =
        "\u{1b}]0;pwned\u{7}\u{1b}[2J\rpassed\u{8}\u{8}\u{7f}\u{9b}31m\u{85}\u{0}\t\u{1b}P";

    #[test]
    fn every_control_character_is_escaped() {
        for c in (0u32..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            let e = escape(&format!("a{c}b")).into_owned();
            assert!(
                !has_controls(&e) && !e.contains('\n'),
                "{:#x}: {e:?}",
                c as u32
            );
            assert!(e.starts_with("a\\") && e.ends_with('b'), "{e:?}");
        }
        let e = escape(HOSTILE);
        assert!(!has_controls(&e), "{e:?}");
        assert_eq!(
            e,
            "\\u001b]0;pwned\\u0007\\u001b[2J\\rpassed\\u0008\\u0008\\u007f\\u009b31m\\u0085\\u0000\\t\\u001bP"
        );
    }

    #[test]
    fn lines_keep_their_breaks_and_json_keeps_its_value() {
        assert_eq!(escape_lines("a\r\nb\n"), "a\\r\nb\n");
        let json = serde_json::json!({ "msg": HOSTILE }).to_string();
        let escaped = escape_lines(&json);
        assert!(!has_controls(&escaped));
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["msg"], HOSTILE);
        assert!(matches!(escape("nothing to do"), Cow::Borrowed(_)));
    }
}
