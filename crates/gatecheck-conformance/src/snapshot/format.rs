//! insta's `.snap` file format: a small YAML header between `---` lines, then the content.
//!
//! ```text
//! ---
//! source: gatecheck snapshot record
//! description: "POST /v1/images/generations (image as b64_json; check images.result)"
//! expression: image.generate.b64
//! ---
//! {
//!   "status": 200,
//!   ...
//! }
//! ```
//!
//! A mismatch is written beside the file as `<name>.snap.new`, which `cargo insta review`
//! offers to accept or reject.

use std::collections::BTreeMap;

/// A parsed `.snap` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapFile {
    /// Header fields (`source`, `description`, `expression`, ...), values unquoted.
    pub metadata: BTreeMap<String, String>,
    /// Everything after the header, trimmed.
    pub content: String,
}

/// A `.snap` file that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an insta snapshot: {0}")]
pub struct SnapFormatError(pub &'static str);

/// A YAML scalar: plain when safe, double-quoted (JSON escaping, valid YAML) otherwise.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/ ".contains(c))
        && !s.starts_with(' ')
        && !s.ends_with(' ');
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

impl SnapFile {
    /// A snapshot with this source, description, expression and content.
    pub fn new(source: &str, description: &str, expression: &str, content: String) -> Self {
        let mut metadata = BTreeMap::new();
        metadata.insert("source".to_owned(), source.to_owned());
        metadata.insert("description".to_owned(), description.to_owned());
        metadata.insert("expression".to_owned(), expression.to_owned());
        Self {
            metadata,
            content: content.trim().to_owned(),
        }
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        // insta writes `source` first, then the rest.
        if let Some(source) = self.metadata.get("source") {
            out.push_str(&format!("source: {}\n", yaml_scalar(source)));
        }
        for (k, v) in &self.metadata {
            if k != "source" {
                out.push_str(&format!("{k}: {}\n", yaml_scalar(v)));
            }
        }
        out.push_str("---\n");
        out.push_str(&self.content);
        out.push('\n');
        out
    }

    /// Parses a file's text.
    pub fn parse(text: &str) -> Result<Self, SnapFormatError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.split_inclusive('\n');
        match lines.next() {
            Some(l) if l.trim_end() == "---" => {}
            _ => return Err(SnapFormatError("the first line must be `---`")),
        }
        let mut metadata = BTreeMap::new();
        let mut consumed = text.find('\n').map(|i| i + 1).unwrap_or(text.len());
        let mut closed = false;
        for line in lines {
            consumed += line.len();
            let trimmed = line.trim_end();
            if trimmed == "---" {
                closed = true;
                break;
            }
            if let Some((k, v)) = trimmed.split_once(':')
                && !k.starts_with(' ')
            {
                metadata.insert(k.trim().to_owned(), unquote(v.trim()));
            }
        }
        if !closed {
            return Err(SnapFormatError("the header has no closing `---`"));
        }
        Ok(Self {
            metadata,
            content: text[consumed.min(text.len())..].trim().to_owned(),
        })
    }
}

fn unquote(v: &str) -> String {
    if v.starts_with('"') {
        serde_json::from_str(v).unwrap_or_else(|_| v.trim_matches('"').to_owned())
    } else if v.starts_with('\'') && v.ends_with('\'') && v.len() >= 2 {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let snap = SnapFile::new(
            "gatecheck snapshot record",
            "step 1: GET /api/models?p=1 (first: page)",
            "catalog.list.page",
            "{\n  \"a\": 1\n}".into(),
        );
        let text = snap.render();
        assert!(text.starts_with("---\nsource: gatecheck snapshot record\n"));
        assert_eq!(SnapFile::parse(&text).unwrap(), snap);
        assert!(SnapFile::parse("{}").is_err());
        assert!(SnapFile::parse("---\nsource: x\n").is_err());
    }
}
