//! Normalization rules as data: the built-in default set, and extension files.

use super::selector::{Selector, SelectorError};
use gatecheck_schemas::rules::time::REQUEST_ID_HEADER;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// What a rule does to the values it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Replace an identifier by a placeholder `[<kind>-<n>]`, numbered by first appearance in
    /// the sequence, so that equal ids stay equal and different ids stay different.
    RedactId,
    /// A Unix timestamp (seconds or milliseconds) or an RFC 3339 string becomes `"[timestamp]"`.
    /// With `not_before`, a value earlier than that sibling field becomes
    /// `"[timestamp before <sibling>!]"`. Other values (`0`, `-1`) are kept: they mean something.
    Timestamp,
    /// A non-empty secret becomes `"[secret]"`.
    Secret,
    /// A request id becomes `"[request-id]"`.
    RequestId,
    /// A base64 payload becomes a summary: `"[png 1024x1024 ~1MiB]"`.
    Media,
    /// A URL keeps its scheme and path; its host becomes `[host]`, id-like path segments become
    /// id placeholders and the query becomes `?[query]`.
    UrlHost,
    /// An array is sorted (by the canonical JSON text of its items).
    Sort,
    /// The field is removed.
    Drop,
    /// The value is replaced by `value`.
    Replace,
    /// The value is kept as is, and no later rule applies to it (to exempt a field from the
    /// built-in rules).
    Keep,
}

/// The JSON type a rule is restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValueType {
    /// Strings.
    String,
    /// Integers.
    Integer,
    /// Any number.
    Number,
    /// Arrays.
    Array,
}

impl ValueType {
    pub(crate) fn accepts(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Integer => value.is_i64() || value.is_u64(),
            Self::Number => value.is_number(),
            Self::Array => value.is_array(),
        }
    }
}

/// One normalization rule.
///
/// A rule targets body values by `path` (a [`Selector`]; defaults to `**`, everywhere), or a
/// response header by `header`. With `pattern` (a regex), it applies to strings only, and to
/// each match inside them (a task id inside a URL or a message), rather than to the whole value.
///
/// ```json
/// {"path": "/data/*/id", "type": "integer", "action": "redact-id", "kind": "key"}
/// {"pattern": "task_[A-Za-z0-9]{16,}", "action": "redact-id", "kind": "task"}
/// {"path": "**/completed_at", "action": "timestamp", "not_before": "created_at"}
/// {"header": "x-oneapi-request-id", "action": "request-id"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Body selector; `**` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Header name (case-insensitive) instead of a body selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// A regex: the rule applies to each match inside string values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Restricts the rule to values of this JSON type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub value_type: Option<ValueType>,
    /// What to do.
    pub action: Action,
    /// Placeholder prefix of `redact-id` (`id` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// For `timestamp`: the sibling field this timestamp must not precede.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    /// For `replace`: the new value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Free text: why the rule exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Rule {
    /// A rule with this body selector and action.
    pub fn path(path: &str, action: Action) -> Self {
        Self {
            path: Some(path.to_owned()),
            header: None,
            pattern: None,
            value_type: None,
            action,
            kind: None,
            not_before: None,
            value: None,
            note: None,
        }
    }

    /// A rule with this pattern and action (on every string of the body).
    pub fn pattern(pattern: &str, action: Action) -> Self {
        Self {
            path: None,
            pattern: Some(pattern.to_owned()),
            ..Self::path("**", action)
        }
    }

    /// A rule on a response header.
    pub fn header(name: &str, action: Action) -> Self {
        Self {
            path: None,
            header: Some(name.to_ascii_lowercase()),
            ..Self::path("**", action)
        }
    }

    /// Sets the placeholder kind of `redact-id`.
    pub fn kind(mut self, kind: &str) -> Self {
        self.kind = Some(kind.to_owned());
        self
    }

    /// Restricts the rule to one JSON type.
    pub fn of_type(mut self, value_type: ValueType) -> Self {
        self.value_type = Some(value_type);
        self
    }

    /// Sets the sibling a timestamp must not precede.
    pub fn not_before(mut self, sibling: &str) -> Self {
        self.not_before = Some(sibling.to_owned());
        self
    }

    /// Sets the value of `replace`.
    pub fn value(mut self, value: Value) -> Self {
        self.value = Some(value);
        self
    }

    /// Sets the note.
    pub fn note(mut self, note: &str) -> Self {
        self.note = Some(note.to_owned());
        self
    }
}

/// A set of rules and the response headers compared.
///
/// Rules are tried in order and the first one that selects a value decides (pattern rules
/// then run on strings no whole-value rule touched). An extension's rules go before the
/// built-in ones, so that they can override them (`keep`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    /// Response headers compared (lower case). Others are ignored.
    #[serde(default)]
    pub headers: Vec<String>,
    /// The rules, in order.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// In an extension file: replace the built-in rules rather than extend them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replace_defaults: bool,
}

/// An error of loading or compiling rules.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The file could not be read.
    #[error("cannot read rules file {path}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a rule set.
    #[error("bad rules file {path}")]
    Parse {
        /// The file.
        path: String,
        /// The cause.
        source: serde_json::Error,
    },
    /// A selector does not parse.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// A pattern is not a valid regex.
    #[error("bad pattern `{pattern}`")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// The cause.
        source: regex::Error,
    },
    /// A rule is inconsistent.
    #[error("bad rule #{index}: {reason}")]
    Rule {
        /// Position in the set, from 0.
        index: usize,
        /// Why.
        reason: &'static str,
    },
}

impl Default for RuleSet {
    fn default() -> Self {
        Self::builtin()
    }
}

impl RuleSet {
    /// The built-in default rules: ids and task ids, timestamps, key secrets, request ids,
    /// base64 payloads, URL hosts, and the order of the catalog's tag lists.
    pub fn builtin() -> Self {
        use Action::*;
        let rules = vec![
            // Identifiers.
            Rule::pattern("task_[A-Za-z0-9]{16,}", RedactId)
                .kind("task")
                .note("video task ids, wherever they occur (ids, URLs, messages)"),
            Rule::path("/id", RedactId)
                .kind("task")
                .of_type(ValueType::String),
            Rule::path("/task_id", RedactId).kind("task"),
            Rule::path("/data/id", RedactId)
                .kind("key")
                .of_type(ValueType::Integer)
                .note("the key record of PUT /api/token/"),
            Rule::path("/data/*/id", RedactId)
                .kind("key")
                .of_type(ValueType::Integer)
                .note("key listings; the catalog's string ids are kept"),
            Rule::path("/data/items/*/id", RedactId)
                .kind("key")
                .of_type(ValueType::Integer)
                .note("key listings in the paged shape"),
            Rule::path("**/user_id", RedactId).kind("user"),
            // Secrets.
            Rule::path("**/key", Secret).of_type(ValueType::String),
            Rule::path("**/access_token", Secret),
            Rule::pattern("sk-[A-Za-z0-9]{16,}", Secret),
            // Request ids (new-api appends them to error messages).
            Rule::pattern("request id: [A-Za-z0-9_.-]+", RequestId),
            Rule::header(REQUEST_ID_HEADER, RequestId),
            Rule::header("x-request-id", RequestId),
            Rule::header("date", Timestamp),
            // Timestamps: present, and ordered.
            Rule::path("**/completed_at", Timestamp).not_before("created_at"),
            Rule::path("**/accessed_time", Timestamp).not_before("created_time"),
            Rule::path("**/*_at", Timestamp),
            Rule::path("**/*_time", Timestamp),
            Rule::path("**/created", Timestamp),
            // Payloads.
            Rule::path("**/b64_json", Media),
            Rule::path("/audio", Media)
                .of_type(ValueType::String)
                .note("a speech.audio.delta event's base64 audio"),
            Rule::pattern("^[A-Za-z0-9+/]{200,}={0,2}$", Media)
                .note("long base64 anywhere: summarized"),
            // URLs.
            Rule::path("**/url", UrlHost),
            Rule::path("**/video_url", UrlHost),
            Rule::pattern(r#"https?://[^\s"'<>]+"#, UrlHost),
            // Quota balances: they move with every use of the key, by anyone.
            Rule::path("**/remain_quota", Replace)
                .of_type(ValueType::Integer)
                .value(Value::String("[quota]".into()))
                .note("balances are state, not contract; pricing is checked by `gatecheck check`"),
            Rule::path("**/used_quota", Replace)
                .of_type(ValueType::Integer)
                .value(Value::String("[quota]".into())),
            Rule::path("**/total_used", Replace)
                .of_type(ValueType::Integer)
                .value(Value::String("[quota]".into()))
                .note("GET /api/usage/token"),
            Rule::path("**/total_available", Replace)
                .of_type(ValueType::Integer)
                .value(Value::String("[quota]".into())),
            // Unordered collections.
            Rule::path("/data/*/features", Sort),
            Rule::path("/data/*/endpoints", Sort).of_type(ValueType::Array),
        ];
        Self {
            headers: ["content-type", REQUEST_ID_HEADER, "retry-after"]
                .map(str::to_owned)
                .to_vec(),
            rules,
            replace_defaults: false,
        }
    }

    /// Parses a rule set: either `{"headers": [...], "rules": [...]}` or a bare array of rules.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        let value: Value = serde_json::from_str(text)?;
        if value.is_array() {
            Ok(Self {
                headers: Vec::new(),
                rules: serde_json::from_value(value)?,
                replace_defaults: false,
            })
        } else {
            serde_json::from_value(value)
        }
    }

    /// The built-in rules extended by a JSON file (see [`RuleSet::extend`]).
    pub fn builtin_extended_from(path: &Path) -> Result<Self, RulesError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Read {
            path: shown.clone(),
            source,
        })?;
        let extension = Self::from_json(&text).map_err(|source| RulesError::Parse {
            path: shown,
            source,
        })?;
        let mut set = Self::builtin();
        set.extend(extension);
        Ok(set)
    }

    /// Adds an extension: its rules go first (they win), its headers are added. With
    /// `replace_defaults`, the extension replaces this set.
    pub fn extend(&mut self, extension: RuleSet) {
        if extension.replace_defaults {
            *self = RuleSet {
                replace_defaults: false,
                ..extension
            };
            return;
        }
        let mut rules = extension.rules;
        rules.append(&mut self.rules);
        self.rules = rules;
        for header in extension.headers {
            let header = header.to_ascii_lowercase();
            if !self.headers.contains(&header) {
                self.headers.push(header);
            }
        }
    }
}

/// A rule ready to run.
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pub(crate) rule: Rule,
    pub(crate) selector: Option<Selector>,
    pub(crate) pattern: Option<regex::Regex>,
}

/// Compiles every rule; reports the first bad one.
pub(crate) fn compile(set: &RuleSet) -> Result<Vec<Compiled>, RulesError> {
    set.rules
        .iter()
        .enumerate()
        .map(|(index, rule)| {
            if rule.header.is_some() && rule.path.is_some() {
                return Err(RulesError::Rule {
                    index,
                    reason: "a rule has either `path` or `header`, not both",
                });
            }
            if rule.action == Action::Replace && rule.value.is_none() {
                return Err(RulesError::Rule {
                    index,
                    reason: "`replace` needs a `value`",
                });
            }
            let selector = match (&rule.header, &rule.path) {
                (Some(_), _) => None,
                (None, Some(path)) => Some(Selector::parse(path)?),
                (None, None) => Some(Selector::parse("**")?),
            };
            let pattern = match &rule.pattern {
                Some(p) => Some(regex::Regex::new(p).map_err(|source| RulesError::Pattern {
                    pattern: p.clone(),
                    source,
                })?),
                None => None,
            };
            Ok(Compiled {
                rule: rule.clone(),
                selector,
                pattern,
            })
        })
        .collect()
}
