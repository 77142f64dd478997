//! Secrets redaction, used for every line of output, every report and every snapshot.
//!
//! A [`Redactor`] knows the secret strings of a run (API keys, access tokens, scratch keys) and
//! replaces each occurrence with [`REDACTED`]. It also blanks JSON fields that hold secrets by
//! name (`key`, `access_token`, ...), so a key record printed as evidence never leaks its key,
//! even one the runner did not know about.

use parking_lot::RwLock;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// What a redacted secret is replaced with.
pub const REDACTED: &str = "<redacted>";

/// JSON object fields whose string values are always redacted.
pub const SECRET_FIELDS: [&str; 6] = [
    "key",
    "access_token",
    "api_key",
    "authorization",
    "token",
    "password",
];

/// Secrets shorter than this are not searched for (they would match too much text).
const MIN_SECRET_LEN: usize = 6;

/// A secret string: its `Debug` and `Display` never show the value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value. Use it only to build a request.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self::new(value)
    }
}

/// Replaces known secrets in text and secret-named fields in JSON. Cheap to clone (shared).
///
/// ```
/// use gatecheck_conformance::Redactor;
/// let r = Redactor::new();
/// r.add("sk-abcdefghijklmnop");
/// assert_eq!(r.text("Bearer sk-abcdefghijklmnop"), "Bearer <redacted>");
/// ```
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Arc<RwLock<Vec<String>>>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.read().len())
            .finish()
    }
}

impl Redactor {
    /// A redactor that knows no secrets yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a secret. An API key is registered with and without its `sk-` prefix.
    pub fn add(&self, secret: &str) {
        let secret = secret.trim();
        let mut variants = vec![secret.to_owned()];
        if let Some(bare) = secret.strip_prefix("sk-") {
            variants.push(bare.to_owned());
        }
        let mut list = self.secrets.write();
        for v in variants {
            if v.len() >= MIN_SECRET_LEN && !list.contains(&v) {
                list.push(v);
            }
        }
        // Longest first, so a prefixed form is replaced whole.
        list.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// Registers a [`Secret`].
    pub fn add_secret(&self, secret: &Secret) {
        self.add(secret.expose());
    }

    /// Text with every known secret replaced by [`REDACTED`].
    pub fn text(&self, text: &str) -> String {
        let list = self.secrets.read();
        let mut out = text.to_owned();
        for s in list.iter() {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED);
            }
        }
        out
    }

    /// A JSON value with secret-named string fields and known secrets redacted.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let secret_field = SECRET_FIELDS.contains(&k.to_ascii_lowercase().as_str());
                        let v = match v {
                            Value::String(s) if secret_field && !s.is_empty() => {
                                Value::String(REDACTED.to_owned())
                            }
                            other => self.json(other),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A response body for display: JSON is redacted structurally, other text by substitution,
    /// binary bodies are summarized; the result is at most `max` characters.
    pub fn body(&self, bytes: &[u8], max: usize) -> String {
        let text = if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            self.json(&v).to_string()
        } else {
            match std::str::from_utf8(bytes) {
                Ok(s) => self.text(s),
                Err(_) => format!("<{} bytes of binary data>", bytes.len()),
            }
        };
        truncate(&text, max)
    }
}

/// `text` cut to at most `max` characters, with a marker when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}… ({} chars in all)", text.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_prefixed_and_bare_keys_and_fields() {
        let r = Redactor::new();
        r.add("sk-ABCDEFGHIJKLMNOP");
        assert_eq!(r.text("x ABCDEFGHIJKLMNOP y"), "x <redacted> y");
        assert_eq!(r.text("sk-ABCDEFGHIJKLMNOP"), "<redacted>");
        let v = serde_json::json!({"data": {"key": "zzzzzzzzzzzz", "name": "n"}});
        assert_eq!(
            r.json(&v),
            serde_json::json!({"data": {"key": "<redacted>", "name": "n"}})
        );
        assert!(format!("{:?}", Secret::new("hunter22")).contains("redacted"));
    }

    #[test]
    fn short_strings_are_not_secrets() {
        let r = Redactor::new();
        r.add("abc");
        assert_eq!(r.text("abc"), "abc");
    }
}
