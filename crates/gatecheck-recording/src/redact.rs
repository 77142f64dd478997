//! Secrets out of a recording: every form of a key or token becomes a placeholder, and the
//! signatures of signed media URLs are replaced.

use base64::Engine as _;

/// Secrets shorter than this are not searched for (they would match ordinary text).
const MIN_SECRET_LEN: usize = 8;

/// Secrets and the placeholders they become, in every form a client or a target may write them.
#[derive(Debug, Clone, Default)]
pub struct Substitutions {
    /// `(needle, placeholder)`, longest needle first.
    pairs: Vec<(Vec<u8>, String)>,
    names: Vec<String>,
}

impl Substitutions {
    /// The forms of secret `value` named `name`: raw (`{{NAME}}`); without an `sk-` prefix
    /// (`{{NAME:bare}}`); base64 (standard and URL-safe, padded or not) of `value:` and of
    /// `value` (`{{NAME:base64-colon}}`, `{{NAME:base64}}`), and of the other spelling (with
    /// `sk-` added or removed: `{{NAME:other-base64-colon}}`, `{{NAME:other-base64}}`); percent-encoded (`{{NAME:pct}}`);
    /// JSON-escaped (`{{NAME:json}}`). Forms equal to another are listed once.
    pub fn forms(name: &str, value: &str) -> Vec<(String, String)> {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let mut out: Vec<(String, String)> = vec![(value.to_owned(), format!("{{{{{name}}}}}"))];
        if let Some(bare) = value.strip_prefix("sk-") {
            out.push((bare.to_owned(), format!("{{{{{name}:bare}}}}")));
        }
        // A key is sent with and without its `sk-` prefix: the base64 forms of the other
        // spelling too (`Basic` of `sk-KEY:` when the secret is the bare key, and back).
        let other = match value.strip_prefix("sk-") {
            Some(bare) => bare.to_owned(),
            None => format!("sk-{value}"),
        };
        for (input, label) in [
            (format!("{value}:"), "base64-colon"),
            (value.to_owned(), "base64"),
            (format!("{other}:"), "other-base64-colon"),
            (other.clone(), "other-base64"),
        ] {
            for engine in [STANDARD, URL_SAFE, STANDARD_NO_PAD, URL_SAFE_NO_PAD] {
                out.push((engine.encode(&input), format!("{{{{{name}:{label}}}}}")));
            }
        }
        let pct: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        out.push((pct, format!("{{{{{name}:pct}}}}")));
        let json = serde_json::to_string(value).unwrap_or_default();
        out.push((
            json.trim_matches('"').to_owned(),
            format!("{{{{{name}:json}}}}"),
        ));
        let mut seen = std::collections::HashSet::new();
        out.retain(|(needle, _)| needle.len() >= MIN_SECRET_LEN && seen.insert(needle.clone()));
        out
    }

    /// Adds secret `value` as `name`, in every form of [`Substitutions::forms`].
    pub fn add_secret(&mut self, name: &str, value: &str) {
        for (needle, placeholder) in Self::forms(name, value) {
            self.pairs.push((needle.into_bytes(), placeholder));
        }
        self.names.push(name.to_owned());
        self.sort();
    }

    /// Adds one literal replacement (a URL that changes from run to run).
    pub fn add_literal(&mut self, needle: &str, placeholder: &str) {
        if !needle.is_empty() {
            self.pairs
                .push((needle.as_bytes().to_vec(), placeholder.to_owned()));
            self.sort();
        }
    }

    fn sort(&mut self) {
        self.pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    }

    /// The names of the secrets added.
    pub fn secret_names(&self) -> &[String] {
        &self.names
    }

    /// `bytes` with every needle replaced by its placeholder.
    pub fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for (needle, placeholder) in &self.pairs {
            if contains(&out, needle) {
                out = replace(&out, needle, placeholder.as_bytes());
            }
        }
        out
    }

    /// `text` with every needle replaced by its placeholder.
    pub fn apply_str(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.apply(text.as_bytes())).into_owned()
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle, 0).is_some()
}

pub(super) fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len())
        .find(|&i| haystack[i] == needle[0] && &haystack[i..i + needle.len()] == needle)
}

/// `haystack` with every `needle` replaced by `with`.
pub fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut at = 0;
    while let Some(i) = find(haystack, needle, at) {
        out.extend_from_slice(&haystack[at..i]);
        out.extend_from_slice(with);
        at = i + needle.len();
    }
    out.extend_from_slice(&haystack[at..]);
    out
}

/// The placeholder of a signature in a signed media URL's query (URL-safe: a client may
/// follow the recorded URL, and the replay matches it).
pub const SIGNED_PLACEHOLDER: &str = "REDACTED-SIGNATURE";

/// Query parameters that sign a media URL (S3, GCS, Azure, CloudFront, generic), matched
/// without regard to case: their values become [`SIGNED_PLACEHOLDER`].
const SIGNING_PARAMS: [&str; 12] = [
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "x-goog-signature",
    "x-goog-credential",
    "signature",
    "sig",
    "token",
    "access_token",
    "key-pair-id",
    "policy",
    "auth_key",
];

/// `bytes` with the values of signing query parameters (`?X-Amz-Signature=...`, `&sig=...`)
/// replaced by [`SIGNED_PLACEHOLDER`]: a parameter counts after `?` or `&` and ends at `&`,
/// `"`, `'`, `#`, `\`, `<`, whitespace or the end.
pub fn redact_signed_urls(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        out.push(b);
        i += 1;
        if b != b'?' && b != b'&' {
            continue;
        }
        let Some(name) = SIGNING_PARAMS.iter().find(|p| {
            let end = i + p.len();
            bytes.len() > end
                && bytes[end] == b'='
                && bytes[i..end].eq_ignore_ascii_case(p.as_bytes())
        }) else {
            continue;
        };
        let value_start = i + name.len() + 1;
        let value_end = bytes[value_start..]
            .iter()
            .position(|c| b"&\"'#\\<".contains(c) || c.is_ascii_whitespace())
            .map_or(bytes.len(), |n| value_start + n);
        if value_end > value_start {
            out.extend_from_slice(&bytes[i..value_start]);
            out.extend_from_slice(SIGNED_PLACEHOLDER.as_bytes());
            i = value_end;
        }
    }
    out
}
