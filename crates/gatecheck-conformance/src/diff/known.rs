//! The known differences between the `documented` and `new-api` profiles: each differing path
//! of a step is matched against the rows of docs/DECISIONS.md (`P1`..`P6`, `NA1`..`NA14`,
//! from [`gatecheck_schemas::decisions`]); a match labels the difference with the row id, and
//! a difference no row explains stays plain.

use super::Difference;
use gatecheck_schemas::decisions;
use gatecheck_schemas::rules::token::{MSG_NAME_TOO_LONG, MSG_NAME_TOO_LONG_NEW_API};
use gatecheck_schemas::rules::video::OPENAI_NULLABLE_KEYS;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use serde::Serialize;
use serde_json::Value;

/// A DECISIONS row that explains a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct KnownDifference {
    /// The row id (`P2`, `NA13`...).
    pub id: &'static str,
    /// The row's title.
    pub title: &'static str,
    /// What the runner reports for the `new-api` behaviour: `failure`, `deviation`,
    /// `accepted`...
    pub verdict: &'static str,
}

impl KnownDifference {
    /// The row `id` of the decisions table, when it exists.
    ///
    /// ```
    /// use gatecheck_conformance::diff::KnownDifference;
    /// assert_eq!(KnownDifference::row("NA5").unwrap().verdict, "deviation");
    /// assert!(KnownDifference::row("NA99").is_none());
    /// ```
    pub fn row(id: &str) -> Option<Self> {
        decisions::DECISIONS
            .iter()
            .find(|d| d.id == id)
            .map(|d| Self {
                id: d.id,
                title: d.title,
                verdict: d.verdict.as_str(),
            })
    }
}

/// Steps of the standard sequence whose every difference is one profile row.
const WHOLE_STEP_ROWS: &[(&str, &str)] = &[
    ("token.update.name-20-multibyte", "P1"),
    ("video.poll.unknown-id-404", "P3"),
    ("token.update.status-without-status-only", "P4"),
    ("token.update.wrong-access-token", "P5"),
    ("token.update.missing-new-api-user", "P6"),
    ("video.content.not-completed-400", "NA10"),
    ("golden.video.content-unknown", "NA10"),
    ("golden.token.group-denied", "NA12"),
];

/// What the normalizer makes of new-api's ` (request id: …)` message suffix (NA13).
const REQUEST_ID_SUFFIX: &str = " ([request-id])";

fn str_of(v: &Option<Value>) -> Option<&str> {
    v.as_ref().and_then(Value::as_str)
}

/// The start of new-api's unknown-model message, before the model's name.
fn unknown_model_prefix() -> String {
    let marked =
        gatecheck_schemas::rules::rejection::unknown_model_message(Profile::NewApi, "\0", "");
    marked.split('\0').next().unwrap_or_default().to_owned()
}

/// The DECISIONS row that explains difference `d` of step `step` (a step id of the standard
/// sequence), if any.
///
/// ```
/// use gatecheck_conformance::diff::{known_row, Difference};
/// use serde_json::json;
/// let d = Difference {
///     path: "/body/error/param".into(), left: Some(json!("size")), right: None, known: None,
/// };
/// assert_eq!(known_row("image.generate.bad-size-400", &d), Some("NA13"));
/// let d = Difference {
///     path: "/status".into(), left: Some(json!(400)), right: Some(json!(500)), known: None,
/// };
/// assert_eq!(known_row("image.generate.bad-size-400", &d), Some("P2"));
/// let d = Difference {
///     path: "/body/data/0/name".into(), left: Some(json!("a")), right: Some(json!("b")),
///     known: None,
/// };
/// assert_eq!(known_row("catalog.list.page", &d), None);
/// ```
pub fn known_row(step: &str, d: &Difference) -> Option<&'static str> {
    if let Some((_, row)) = WHOLE_STEP_ROWS.iter().find(|(s, _)| *s == step) {
        return Some(row);
    }
    let (left, right) = (str_of(&d.left), str_of(&d.right));
    let path = d.path.as_str();
    let validation_500 = Rejection::MediaValidation.http_status(Profile::NewApi);
    let unknown_model = Rejection::UnknownModel.http_status(Profile::NewApi);
    match path {
        // P2: a validation failure on an audio or image route is 500 in new-api.
        "/status" if d.right.as_ref().and_then(Value::as_u64) == Some(validation_500.into()) => {
            Some("P2")
        }
        // NA5: an unknown model is 503 model_not_found.
        "/status" if d.right.as_ref().and_then(Value::as_u64) == Some(unknown_model.into()) => {
            Some("NA5")
        }
        "/body/error/code" if right == Rejection::UnknownModel.code(Profile::NewApi) => Some("NA5"),
        // NA13: no `param`, `code` "" rather than null, the request id in the message.
        "/body/error/param" if d.right.is_none() => Some("NA13"),
        "/body/error/code" if d.left == Some(Value::Null) && right == Some("") => Some("NA13"),
        "/body/error/message" => {
            let right = right?;
            if left.is_some_and(|l| format!("{l}{REQUEST_ID_SUFFIX}") == right) {
                Some("NA13")
            } else if right.starts_with(Rejection::InvalidKey.message(Profile::NewApi)) {
                Some("NA2")
            } else if right.starts_with(Rejection::IpNotAllowed.message(Profile::NewApi)) {
                Some("NA13")
            } else if right.starts_with(&unknown_model_prefix()) {
                Some("NA5")
            } else {
                None
            }
        }
        // NA12: new-api's capitalised name-length message.
        "/body/message"
            if left == Some(MSG_NAME_TOO_LONG) && right == Some(MSG_NAME_TOO_LONG_NEW_API) =>
        {
            Some("NA12")
        }
        // NA3: no top-level video_url.
        p if p.ends_with("/video_url") && d.right.is_none() => Some("NA3"),
        // D-ROUTE-4: new-api leaves out OpenAI's video keys that are unset, and has no prompt.
        p if d.right.is_none()
            && step.contains("video.")
            && OPENAI_NULLABLE_KEYS.iter().any(|k| {
                p.strip_suffix(k).is_some_and(|rest| rest.ends_with('/'))
                    && (d.left == Some(Value::Null) || *k == "prompt")
            }) =>
        {
            Some("D-ROUTE-4")
        }
        // NA4: an erroring task reports `failed`.
        p if p.ends_with("/status") && left == Some("error") && right == Some("failed") => {
            Some("NA4")
        }
        _ => None,
    }
}
