//! Normalization of responses before they are compared: volatile values are redacted.
//!
//! One module, used by `gatecheck diff`, by snapshots and by the golden tests. The rules are data
//! ([`RuleSet`], serde): a built-in default set ([`RuleSet::builtin`]), extendable from a JSON
//! file, in the spirit of insta's redactions and LocalStack's snapshot transformers.
//!
//! What the default set does:
//!
//! | Volatile value | Becomes |
//! |---|---|
//! | video task ids (`task_…`, anywhere) | `[task-1]`, `[task-2]`, … by first appearance |
//! | key ids, user ids | `[key-1]`, `[user-1]`, … |
//! | timestamps (`*_at`, `*_time`, `created`) | `"[timestamp]"`; `0` and `-1` are kept; a `completed_at` before `created_at` becomes `"[timestamp before created_at!]"` |
//! | key secrets (`key`, `sk-…`) | `"[secret]"` |
//! | request ids (header, and `request id: …` in messages) | `"[request-id]"` |
//! | base64 payloads (`b64_json`, a speech delta's `audio`, long base64 anywhere) | `"[png 1024x1024 ~1MiB]"` (type, dimensions, size class) |
//! | URLs | `https://[host]/path`, id-like segments as ids, query `?[query]` |
//! | quota balances (`remain_quota`, `used_quota`, `total_used`, `total_available`) | `"[quota]"` |
//! | the catalog's `features` | sorted |
//!
//! A streamed answer (`text/event-stream`) is normalized event by event, each event's data by
//! the same rules ([`Normalizer::normalize_events`]).
//!
//! Ids are numbered per [`Normalizer`]: one normalizer per target and sequence keeps equality
//! relations (the id a create returned is the id the poll shows) without the values.
//! Normalization is idempotent, and placeholders pass through it unchanged.

mod media;
mod rules;
mod selector;
mod stream;

pub use media::{size_class, sniff, summarize_base64, summarize_bytes};
pub use rules::{Action, Rule, RuleSet, RulesError, ValueType};
pub use selector::{escape_segment, Selector, SelectorError};

use rules::Compiled;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A response after normalization: what diffs and snapshots compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalizedResponse {
    /// HTTP status.
    pub status: u16,
    /// The compared headers present in the response (lower-case names), normalized.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// A JSON body, normalized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// A text body (subtitles, plain text), line by line, normalized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Vec<String>>,
    /// A binary body, summarized: `[mp3 ~16KiB]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// A `text/event-stream` body, event by event: `{"event": <name>, "data": <normalized>}`
    /// (see [`Normalizer::normalize_events`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Value>>,
}

impl NormalizedResponse {
    /// The response as one JSON value (`status`, `headers`, then `body`, `text` or `binary`).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Applies a [`RuleSet`], numbering ids consistently across every response it sees.
#[derive(Debug, Clone)]
pub struct Normalizer {
    rules: Arc<Vec<Compiled>>,
    headers: Arc<Vec<String>>,
    ids: HashMap<(String, String), String>,
    counters: HashMap<String, usize>,
}

impl Default for Normalizer {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Normalizer {
    /// A normalizer with the built-in rules.
    pub fn builtin() -> Self {
        Self::new(&RuleSet::builtin()).unwrap_or_else(|_| Self::empty())
    }

    fn empty() -> Self {
        Self {
            rules: Arc::new(Vec::new()),
            headers: Arc::new(Vec::new()),
            ids: HashMap::new(),
            counters: HashMap::new(),
        }
    }

    /// Compiles a rule set.
    pub fn new(set: &RuleSet) -> Result<Self, RulesError> {
        Ok(Self {
            rules: Arc::new(rules::compile(set)?),
            headers: Arc::new(set.headers.iter().map(|h| h.to_ascii_lowercase()).collect()),
            ids: HashMap::new(),
            counters: HashMap::new(),
        })
    }

    /// A normalizer with the same rules and no ids seen yet (for another target or sequence).
    pub fn fresh(&self) -> Self {
        Self {
            rules: Arc::clone(&self.rules),
            headers: Arc::clone(&self.headers),
            ids: HashMap::new(),
            counters: HashMap::new(),
        }
    }

    /// Forgets the ids seen so far.
    pub fn reset(&mut self) {
        self.ids.clear();
        self.counters.clear();
    }

    /// Normalizes a JSON body.
    ///
    /// ```
    /// use gatecheck_conformance::normalize::Normalizer;
    /// use serde_json::json;
    /// let mut n = Normalizer::builtin();
    /// let task = json!({"id": "task_0123456789abcdef0123456789abcdef", "status": "queued",
    ///                   "created_at": 1763700000});
    /// assert_eq!(n.normalize_json(&task),
    ///            json!({"id": "[task-1]", "status": "queued", "created_at": "[timestamp]"}));
    /// ```
    pub fn normalize_json(&mut self, value: &Value) -> Value {
        let mut path = Vec::new();
        self.walk(value, &mut path, None).unwrap_or(Value::Null)
    }

    /// Normalizes one response: status, the compared headers, and the body by its kind.
    pub fn normalize_response(
        &mut self,
        status: u16,
        headers: &http::HeaderMap,
        body: &[u8],
    ) -> NormalizedResponse {
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut out = NormalizedResponse {
            status,
            headers: self.normalize_headers(headers),
            body: None,
            text: None,
            binary: None,
            events: None,
        };
        if body.is_empty() {
            return out;
        }
        if stream::is_event_stream(&content_type) {
            out.events = Some(self.normalize_events(body));
            return out;
        }
        let binary_type = ["audio/", "video/", "image/", "application/octet-stream"]
            .iter()
            .any(|p| content_type.starts_with(p));
        if !binary_type {
            let json_type = content_type.contains("json") || content_type.is_empty();
            if json_type && let Ok(value) = serde_json::from_slice::<Value>(body) {
                out.body = Some(self.normalize_json(&value));
                return out;
            }
            if let Ok(text) = std::str::from_utf8(body) {
                out.text = Some(self.normalize_text(text));
                return out;
            }
        }
        out.binary = Some(summarize_bytes(body));
        out
    }

    /// Normalizes a text body, line by line (pattern rules apply to each line).
    pub fn normalize_text(&mut self, text: &str) -> Vec<String> {
        text.lines()
            .map(|line| {
                let line = line.trim_end_matches('\r');
                self.patterns(line, &[]).unwrap_or_default()
            })
            .collect()
    }

    fn normalize_headers(&mut self, headers: &http::HeaderMap) -> BTreeMap<String, String> {
        let names = Arc::clone(&self.headers);
        let mut out = BTreeMap::new();
        for name in names.iter() {
            let values: Vec<&str> = headers
                .get_all(name.as_str())
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            if values.is_empty() {
                continue;
            }
            let mut value = values.join(", ");
            if name == "content-type" {
                value = canonical_content_type(&value);
            }
            let rule = self
                .rules
                .iter()
                .find(|c| c.rule.header.as_deref() == Some(name.as_str()))
                .map(|c| c.rule.clone());
            let normalized = match rule {
                Some(rule) => match rule.action {
                    Action::Keep => Some(value),
                    Action::Drop => None,
                    _ => Some(
                        self.whole(&rule, &Value::String(value.clone()), None)
                            .as_str()
                            .map(str::to_owned)
                            .unwrap_or(value),
                    ),
                },
                None => self.patterns(&value, &[]),
            };
            if let Some(v) = normalized {
                out.insert(name.clone(), v);
            }
        }
        out
    }

    /// Normalizes `value` at `path`; `None` drops it.
    fn walk(
        &mut self,
        value: &Value,
        path: &mut Vec<String>,
        parent: Option<&Map<String, Value>>,
    ) -> Option<Value> {
        let rules = Arc::clone(&self.rules);
        let rule = rules.iter().find(|c| {
            c.pattern.is_none()
                && c.selector.as_ref().is_some_and(|s| s.matches(path))
                && c.rule.value_type.is_none_or(|t| t.accepts(value))
        });
        if let Some(c) = rule {
            match c.rule.action {
                Action::Keep => return Some(value.clone()),
                Action::Drop => return None,
                Action::Replace => return c.rule.value.clone(),
                _ => {}
            }
        }
        let normalized = match value {
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, child) in map {
                    path.push(key.clone());
                    let v = self.walk(child, path, Some(map));
                    path.pop();
                    if let Some(v) = v {
                        out.insert(key.clone(), v);
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, child) in items.iter().enumerate() {
                    path.push(i.to_string());
                    let v = self.walk(child, path, None);
                    path.pop();
                    if let Some(v) = v {
                        out.push(v);
                    }
                }
                Value::Array(out)
            }
            Value::String(s) => Value::String(self.patterns(s, path)?),
            other => other.clone(),
        };
        match rule {
            Some(c) => Some(self.whole(&c.rule, &normalized, parent)),
            None => Some(normalized),
        }
    }

    /// Runs the pattern rules that select `path` over a string; `None` drops it.
    fn patterns(&mut self, s: &str, path: &[String]) -> Option<String> {
        let rules = Arc::clone(&self.rules);
        let mut current = s.to_owned();
        for c in rules.iter() {
            let Some(re) = &c.pattern else { continue };
            if !c.selector.as_ref().is_some_and(|sel| sel.matches(path)) {
                continue;
            }
            if !re.is_match(&current) {
                continue;
            }
            match c.rule.action {
                Action::Keep => return Some(current),
                Action::Drop => return None,
                Action::Sort => continue,
                _ => {}
            }
            let mut out = String::with_capacity(current.len());
            let mut last = 0;
            for m in re.find_iter(&current) {
                out.push_str(&current[last..m.start()]);
                let replaced = self.whole(&c.rule, &Value::String(m.as_str().to_owned()), None);
                match replaced {
                    Value::String(r) => out.push_str(&r),
                    other => out.push_str(&other.to_string()),
                }
                last = m.end();
            }
            out.push_str(&current[last..]);
            current = out;
        }
        Some(current)
    }

    /// Applies a whole-value action (children already normalized).
    fn whole(&mut self, rule: &Rule, value: &Value, parent: Option<&Map<String, Value>>) -> Value {
        if let Value::String(s) = value
            && is_placeholder(s)
        {
            return value.clone();
        }
        let text = |s: &str| Value::String(s.to_owned());
        match rule.action {
            Action::Keep | Action::Drop => value.clone(),
            Action::Replace => rule.value.clone().unwrap_or(Value::Null),
            Action::Sort => match value {
                Value::Array(items) => {
                    let mut items = items.clone();
                    items.sort_by_cached_key(|v| v.to_string());
                    Value::Array(items)
                }
                other => other.clone(),
            },
            Action::RedactId => match value {
                Value::String(s) if s.is_empty() => value.clone(),
                Value::String(_) | Value::Number(_) => {
                    let kind = rule.kind.as_deref().unwrap_or("id");
                    Value::String(self.placeholder(kind, value))
                }
                other => other.clone(),
            },
            Action::Secret => match value {
                Value::String(s) if !s.is_empty() => text("[secret]"),
                other => other.clone(),
            },
            Action::RequestId => match value {
                Value::String(s) if !s.is_empty() => text("[request-id]"),
                other => other.clone(),
            },
            Action::Timestamp => timestamp(value, rule.not_before.as_deref(), parent),
            Action::Media => match value {
                Value::String(s) => summarize_base64(s)
                    .map(Value::String)
                    .unwrap_or_else(|| value.clone()),
                other => other.clone(),
            },
            Action::UrlHost => match value {
                Value::String(s) => Value::String(self.url(s)),
                other => other.clone(),
            },
        }
    }

    /// The placeholder of an id, numbered by first appearance within its kind.
    fn placeholder(&mut self, kind: &str, value: &Value) -> String {
        let raw = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let key = (kind.to_owned(), raw);
        if let Some(p) = self.ids.get(&key) {
            return p.clone();
        }
        let counter = self.counters.entry(kind.to_owned()).or_insert(0);
        *counter += 1;
        let p = format!("[{kind}-{counter}]");
        self.ids.insert(key, p.clone());
        p
    }

    /// `scheme://host:port/a/b?q` → `scheme://[host]/a/b?[query]`, id-like segments as ids.
    fn url(&mut self, s: &str) -> String {
        let Some(scheme_end) = s.find("://") else {
            return s.to_owned();
        };
        let (scheme, rest) = (&s[..scheme_end], &s[scheme_end + 3..]);
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let after = &rest[authority_end..];
        let (before_frag, fragment) = match after.find('#') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let (path, query) = match before_frag.find('?') {
            Some(i) => (&before_frag[..i], &before_frag[i + 1..]),
            None => (before_frag, ""),
        };
        let segments: Vec<String> = path
            .split('/')
            .map(|seg| match id_like(seg) {
                Some((stem, ext)) => {
                    format!(
                        "{}{ext}",
                        self.placeholder("id", &Value::String(stem.to_owned()))
                    )
                }
                None => seg.to_owned(),
            })
            .collect();
        let mut out = format!("{scheme}://[host]{}", segments.join("/"));
        if !query.is_empty() {
            out.push_str("?[query]");
        }
        out.push_str(fragment);
        out
    }
}

/// `[…]` with no nested brackets: a placeholder this module wrote.
pub fn is_placeholder(s: &str) -> bool {
    s.len() >= 3
        && s.starts_with('[')
        && s.ends_with(']')
        && !s[1..s.len() - 1].contains(['[', ']'])
}

/// `text/plain;charset=UTF-8` → `text/plain; charset=utf-8`; `application/json` loses a
/// `charset=utf-8` (RFC 8259 defines no charset for JSON, which is UTF-8: gin's
/// `application/json; charset=utf-8`, as new-api answers, and `application/json` are one type).
fn canonical_content_type(value: &str) -> String {
    let parts: Vec<String> = value
        .split(';')
        .map(|p| p.trim().to_ascii_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    let json = parts.first().is_some_and(|t| t == "application/json");
    parts
        .into_iter()
        .filter(|p| !(json && p.replace(' ', "") == "charset=utf-8"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A URL path segment that looks like a generated id: 16+ of `[A-Za-z0-9_-]` with at least four
/// letters and four digits, optionally with an extension. Returns (stem, extension).
fn id_like(seg: &str) -> Option<(&str, &str)> {
    let (stem, ext) = match seg.rfind('.') {
        Some(i) if seg.len() - i <= 6 && seg.len() - i > 1 => (&seg[..i], &seg[i..]),
        _ => (seg, ""),
    };
    let ok = stem.len() >= 16
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && stem.bytes().filter(u8::is_ascii_digit).count() >= 4
        && stem.bytes().filter(u8::is_ascii_alphabetic).count() >= 4;
    ok.then_some((stem, ext))
}

/// The timestamp action: Unix seconds or milliseconds, and date strings, become placeholders.
fn timestamp(
    value: &Value,
    not_before: Option<&str>,
    parent: Option<&Map<String, Value>>,
) -> Value {
    const MIN_UNIX: f64 = 1_000_000_000.0;
    match value {
        Value::Number(n) => {
            let Some(v) = n.as_f64() else {
                return value.clone();
            };
            if v < MIN_UNIX {
                return value.clone();
            }
            let sibling = not_before.and_then(|name| {
                parent
                    .and_then(|p| p.get(name))
                    .and_then(Value::as_f64)
                    .filter(|s| *s >= MIN_UNIX)
                    .map(|s| (name, s))
            });
            match sibling {
                Some((name, s)) if v < s => Value::String(format!("[timestamp before {name}!]")),
                _ => Value::String("[timestamp]".to_owned()),
            }
        }
        Value::String(s) if !s.is_empty() => Value::String("[timestamp]".to_owned()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn urls() {
        let mut n = Normalizer::builtin();
        assert_eq!(
            n.url("http://127.0.0.1:4000/files/ab12cd34ef56gh78ij90.png?sig=1#x"),
            "http://[host]/files/[id-1].png?[query]#x"
        );
        assert_eq!(
            n.url("https://[host]/v1/videos/[task-1]/content"),
            "https://[host]/v1/videos/[task-1]/content"
        );
    }

    #[test]
    fn content_types() {
        // new-api (gin) answers JSON as `application/json; charset=utf-8`, the mock without
        // the parameter: one type. A charset on text, or another charset on JSON, stays.
        for json_type in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
        ] {
            assert_eq!(canonical_content_type(json_type), "application/json");
        }
        assert_eq!(
            canonical_content_type("application/json; charset=latin1"),
            "application/json; charset=latin1"
        );
        assert_eq!(
            canonical_content_type("text/plain;charset=UTF-8"),
            "text/plain; charset=utf-8"
        );
    }

    #[test]
    fn ordering_of_timestamps() {
        let mut n = Normalizer::builtin();
        let bad = json!({"created_at": 1763700100, "completed_at": 1763700000});
        assert_eq!(
            n.normalize_json(&bad),
            json!({"created_at": "[timestamp]", "completed_at": "[timestamp before created_at!]"})
        );
        let kept = json!({"expired_time": -1, "created": 0});
        assert_eq!(n.normalize_json(&kept), kept);
    }
}
