//! What a verdict rests on: the [`Kind`] of the rule a check holds the target to, and the
//! [`Evidence`] a failing check shows. The checks write them; the report carries them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether breaking a check breaks the spec's letter or only a choice of DECISIONS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The spec states the rule: breaking it is a contract failure.
    Failure,
    /// DECISIONS.md fixes the behaviour where the spec is silent: breaking it is a deviation,
    /// reported, and failing the run only with `--strict`.
    Deviation,
}

impl Kind {
    /// `failure` or `deviation`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Failure => "failure",
            Kind::Deviation => "deviation",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a failing check shows: the rule broken, the request (as curl) and the answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// What was expected and what was seen.
    pub message: String,
    /// The request, as a curl command with secrets redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curl: Option<String>,
    /// The response status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response content type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The response body (redacted, truncated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The minimal generated input that fails (after shrinking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// Shrink steps taken.
    pub shrink_steps: u32,
    /// On a deviation: the id of the decision the target differs from (`D-MEDIA`, `NA5`...),
    /// a row of docs/DECISIONS.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// Other exchanges the verdict rests on (an update the target acknowledged, then the
    /// record that shows it was not applied), in the order they were sent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Cases run before the verdict (the failing case included); not serialized: the
    /// check's `cases` carries it.
    #[serde(skip)]
    pub cases_run: u32,
    /// The files the curl uploads (`$GATECHECK_UPLOADS/<name>`); the CLI writes them out.
    #[serde(skip)]
    pub uploads: Vec<Upload>,
}

/// A file a repro uploads: its name under `$GATECHECK_UPLOADS` and its bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Upload {
    /// `<16 hex digits of the content's FNV-1a hash>-<the part's file name>`.
    pub name: String,
    /// The bytes sent.
    pub bytes: bytes::Bytes,
}

/// One more exchange behind a verdict.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Related {
    /// What this exchange shows.
    pub what: String,
    /// The request, as a curl command with secrets redacted.
    pub curl: String,
    /// The response status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response body (redacted, truncated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The files the curl uploads.
    #[serde(skip)]
    pub uploads: Vec<Upload>,
}

/// A status with its reason phrase, as people read it: `404 Not Found`.
pub(crate) fn status_text(status: u16) -> String {
    match http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}
