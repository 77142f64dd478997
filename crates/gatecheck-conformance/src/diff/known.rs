//! The known differences between the `documented` and `new-api` profiles: each differing path
//! of a step is matched against the rows of docs/DECISIONS.md (`P1`..`P6`, `NA1`..`NA14`,
//! the stream rows `D-STREAM-*`,
//! from [`gatecheck_schemas::decisions`]); a match labels the difference with the row id, and
//! a difference no row explains stays plain.

use super::Difference;
use gatecheck_schemas::decisions;
use gatecheck_schemas::decisions::{id, Id};
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

/// Labels each difference of step `step` with the row that explains it ([`known_row`]) and
/// returns the rows, in order. When the status differs and no row explains that, no difference
/// of the step is labelled: a body that differs because the answer is another one (a gateway's
/// 500) is not explained by a row about the answer the row expects.
pub(super) fn label(step: &str, differences: &mut [Difference]) -> Vec<KnownDifference> {
    let status_unexplained = differences
        .iter()
        .any(|d| d.path == "/status" && known_row(step, d).is_none());
    let mut known: Vec<KnownDifference> = Vec::new();
    if status_unexplained {
        return known;
    }
    // A status difference that a whole-step row explains names the answer the target gave:
    // that row explains the step's every other body difference too (one step, one answer).
    let status_row = differences
        .iter()
        .find(|d| d.path == "/status")
        .and_then(|d| whole_step_row(step, d));
    for d in differences {
        let row = match status_row {
            Some(r) if !d.path.starts_with("/headers/") => Some(r),
            _ => known_row(step, d),
        };
        let Some(row) = row.and_then(|i| KnownDifference::row(i.as_str())) else {
            continue;
        };
        d.known = Some(row.id.to_owned());
        if !known.contains(&row) {
            known.push(row);
        }
    }
    known
}

/// Steps of the standard sequence whose every difference is one profile row, with the status
/// new-api answers there when it differs from the documented one. A status the row does not
/// give (a gateway's 500, say) is not explained by it. A step may have one row per answer: a
/// status difference is explained by the row that gives the target's status, a body
/// difference alone by the step's first row ([`whole_step_row`]).
const WHOLE_STEP_ROWS: &[(&str, Id, Option<u16>)] = &[
    ("token.update.name-20-multibyte", id::P1, None),
    ("video.poll.unknown-id-404", id::P3, Some(400)),
    ("token.update.status-without-status-only", id::P4, None),
    ("token.update.wrong-access-token", id::P5, Some(200)),
    ("token.update.missing-new-api-user", id::P6, Some(401)),
    // D-AUTH-9: since 31d70fca the dashboard auth refuses an unknown token 401
    // `AUTH_UNAUTHORIZED` and reads no `New-Api-User` (823e263 answers so; the frozen
    // `new-api-adaptors` profile plays the generation before it, P5 and P6).
    ("token.update.wrong-access-token", id::D_AUTH_9, Some(401)),
    ("token.update.missing-new-api-user", id::D_AUTH_9, Some(200)),
    ("video.content.not-completed-400", id::NA10, None),
    ("golden.video.content-unknown", id::NA10, None),
    ("golden.token.group-denied", id::NA12, None),
];

/// Steps on an audio or image route, streamed or not, where P2 (a validation failure is 400 in
/// the documented profile, 500 in new-api) can explain a 400 that became a 500.
fn is_media_validation_step(step: &str) -> bool {
    ["audio.", "image.", "stream."]
        .iter()
        .any(|p| step.starts_with(p))
}

fn status_of(v: &Option<Value>) -> Option<u16> {
    v.as_ref()
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok())
}

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
/// use gatecheck_schemas::decisions::id;
/// use serde_json::json;
/// let d = Difference {
///     path: "/body/error/param".into(), left: Some(json!("size")), right: None, known: None,
/// };
/// assert_eq!(known_row("image.generate.bad-size-400", &d), Some(id::NA13));
/// let d = Difference {
///     path: "/status".into(), left: Some(json!(400)), right: Some(json!(500)), known: None,
/// };
/// assert_eq!(known_row("image.generate.bad-size-400", &d), Some(id::P2));
/// let d = Difference {
///     path: "/body/data/0/name".into(), left: Some(json!("a")), right: Some(json!("b")),
///     known: None,
/// };
/// assert_eq!(known_row("catalog.list.page", &d), None);
/// // A gateway's 500 where the documented answer is a success is no known difference.
/// let d = Difference {
///     path: "/status".into(), left: Some(json!(200)), right: Some(json!(500)), known: None,
/// };
/// assert_eq!(known_row("video.create", &d), None);
/// let d = Difference {
///     path: "/status".into(), left: Some(json!(404)), right: Some(json!(502)), known: None,
/// };
/// assert_eq!(known_row("video.poll.unknown-id-404", &d), None);
/// // Nor is a dropped header, even on a step whose every body difference is one row.
/// let d = Difference {
///     path: "/headers/x-oneapi-request-id".into(), left: Some(json!("[request-id]")),
///     right: None, known: None,
/// };
/// assert_eq!(known_row("token.update.wrong-access-token", &d), None);
/// ```
pub fn known_row(step: &str, d: &Difference) -> Option<Id> {
    // No row is about headers: both profiles send the same ones (a gateway that drops
    // `X-Oneapi-Request-Id` differs from both).
    if d.path.starts_with("/headers/") {
        return None;
    }
    if WHOLE_STEP_ROWS.iter().any(|(s, ..)| *s == step) {
        return whole_step_row(step, d);
    }
    let (left, right) = (str_of(&d.left), str_of(&d.right));
    let path = d.path.as_str();
    let (status_left, status_right) = (status_of(&d.left), status_of(&d.right));
    let documented = |r: Rejection| Some(r.http_status(Profile::Documented));
    let new_api = |r: Rejection| Some(r.http_status(Profile::NewApi));
    match path {
        // P2: a validation failure on an audio or image route is 500 in new-api (and only
        // there: a 500 where the documented answer is a success is no validation failure).
        "/status"
            if is_media_validation_step(step)
                && status_left == documented(Rejection::MediaValidation)
                && status_right == new_api(Rejection::MediaValidation) =>
        {
            Some(id::P2)
        }
        // NA5: an unknown model is 503 model_not_found, where the documented answer refuses it.
        "/status"
            if status_left == documented(Rejection::UnknownModel)
                && status_right == new_api(Rejection::UnknownModel) =>
        {
            Some(id::NA5)
        }
        "/body/error/code" if right == Rejection::UnknownModel.code(Profile::NewApi) => {
            Some(id::NA5)
        }
        // D-TASK-2: new-api's poller writes `"100%"` on FAILURE, and its video object copies
        // it; the documented profile keeps a failed task at the progress it had.
        "/body/progress" if step.ends_with("failed") && d.right == Some(Value::from(100)) => {
            Some(id::D_TASK_2)
        }
        // NA13: no `param` on the middleware's refusals and `param: ""` on the relay's errors,
        // `code` "" rather than null, the request id in the message.
        "/body/error/param" if d.right.is_none() || right == Some("") => Some(id::NA13),
        "/body/error/code" if d.left == Some(Value::Null) && right == Some("") => Some(id::NA13),
        "/body/error/message" => message_row(step, left, right?),
        // NA12: new-api's capitalised name-length message.
        "/body/message"
            if left == Some(MSG_NAME_TOO_LONG) && right == Some(MSG_NAME_TOO_LONG_NEW_API) =>
        {
            Some(id::NA12)
        }
        // NA3: no top-level video_url.
        p if p.ends_with("/video_url") && d.right.is_none() => Some(id::NA3),
        // D-STREAM-1: new-api re-emits each speech event without its `event:` line.
        p if step == "stream.speech.sse"
            && p.starts_with("/events/")
            && p.ends_with("/event")
            && d.right.is_none() =>
        {
            Some(id::D_STREAM_1)
        }
        // D-STREAM-3: new-api ends an image stream with `data: [DONE]`.
        p if step == "stream.images.partials"
            && p.starts_with("/events/")
            && d.left.is_none()
            && d.right == Some(serde_json::json!({"data": "[DONE]"})) =>
        {
            Some(id::D_STREAM_3)
        }
        // D-ROUTE-4: new-api leaves out OpenAI's video keys that are unset, and has no prompt.
        p if d.right.is_none()
            && step.contains("video.")
            && OPENAI_NULLABLE_KEYS.iter().any(|k| {
                p.strip_suffix(k).is_some_and(|rest| rest.ends_with('/'))
                    && (d.left == Some(Value::Null) || *k == "prompt")
            }) =>
        {
            Some(id::D_ROUTE_4)
        }
        // NA9: new-api fills in an image request's quality (`standard` for dall-e-3), and the
        // usage it bills follows that quality.
        "/body/quality" if step.starts_with("image.generate") && right.is_some() => Some(id::NA9),
        p if step.starts_with("image.generate") && p.starts_with("/body/usage/") => Some(id::NA9),
        // NA15: new-api measures an upload's audio before the relay: an extension it cannot
        // decode is its `count_token_failed` (a missing file `convert_request_failed`).
        "/body/error/code"
            if step.starts_with("audio.translation")
                && right.is_some_and(|r| {
                    gatecheck_schemas::rules::rejection::NEW_API_UPLOAD_CODES.contains(&r)
                }) =>
        {
            Some(id::NA15)
        }
        // NA4: an erroring task reports `failed`.
        p if p.ends_with("/status") && left == Some("error") && right == Some("failed") => {
            Some(id::NA4)
        }
        _ => None,
    }
}

/// The row of [`WHOLE_STEP_ROWS`] that explains difference `d` of `step`: for the status, the
/// row that gives the target's status; for a body path, the stateless auth's `code` (D-AUTH-9)
/// or else the step's first row. `None` on a step with no such row.
fn whole_step_row(step: &str, d: &Difference) -> Option<Id> {
    let mut rows = WHOLE_STEP_ROWS.iter().filter(|(s, ..)| *s == step);
    if d.path == "/status" {
        return rows
            .find(|(_, _, status)| status_of(&d.right) == *status)
            .map(|(_, row, _)| *row);
    }
    if d.path == "/body/code"
        && str_of(&d.right) == Some(gatecheck_schemas::rules::auth::AUTH_UNAUTHORIZED)
    {
        return Some(id::D_AUTH_9);
    }
    rows.next().map(|(_, row, _)| *row)
}

/// The row that explains an `/body/error/message` difference: new-api's request-id suffix
/// (NA13), its invalid-key and IP-refusal texts (NA2, NA13), its unknown-model text (NA5), its
/// upload measured before the relay (NA15).
fn message_row(step: &str, left: Option<&str>, right: &str) -> Option<Id> {
    if left.is_some_and(|l| format!("{l}{REQUEST_ID_SUFFIX}") == right) {
        Some(id::NA13)
    } else if right.starts_with(Rejection::InvalidKey.message(Profile::NewApi)) {
        Some(id::NA2)
    } else if right.starts_with(Rejection::IpNotAllowed.message(Profile::NewApi)) {
        Some(id::NA13)
    } else if right.starts_with(&unknown_model_prefix()) {
        Some(id::NA5)
    } else if step.starts_with("audio.translation")
        && right.starts_with("error getting audio duration")
    {
        Some(id::NA15)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn d(path: &str, left: Value, right: Value) -> Difference {
        Difference {
            path: path.into(),
            left: Some(left),
            right: Some(right),
            known: None,
        }
    }

    #[test]
    fn an_unexplained_status_leaves_the_whole_step_unlabelled() {
        let step = "video.poll.unknown-id-404";
        let mut gateway = vec![
            d("/status", json!(404), json!(500)),
            d(
                "/body/error/message",
                json!("task not found"),
                json!("upstream down"),
            ),
        ];
        assert!(label(step, &mut gateway).is_empty());
        assert!(gateway.iter().all(|d| d.known.is_none()));
        let mut new_api = vec![
            d("/status", json!(404), json!(400)),
            d("/body/code", json!(null), json!("task_not_exist")),
        ];
        let rows = label(step, &mut new_api);
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), ["P3"]);
        assert!(new_api.iter().all(|d| d.known.as_deref() == Some("P3")));
    }

    /// What new-api at 823e263 answered to the key steps against the frozen adaptors profile
    /// (docs/new-api-live.md): an unknown access token 401 `AUTH_UNAUTHORIZED`, an access token
    /// without `New-Api-User` admitted. Both are D-AUTH-9's, not P5's or P6's.
    #[test]
    fn the_stateless_dashboard_auth_is_d_auth_9_against_the_adaptors_profile() {
        let mut wrong = vec![
            d("/status", json!(200), json!(401)),
            d("/body/code", Value::Null, json!("AUTH_UNAUTHORIZED")),
        ];
        wrong[1].left = None;
        let rows = label("token.update.wrong-access-token", &mut wrong);
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), ["D-AUTH-9"]);
        assert!(wrong.iter().all(|d| d.known.as_deref() == Some("D-AUTH-9")));
        let mut missing = vec![
            d("/status", json!(401), json!(200)),
            d("/body/success", json!(false), json!(true)),
            d(
                "/body/message",
                json!("Unauthorized, New-Api-User header not provided"),
                json!(""),
            ),
        ];
        let rows = label("token.update.missing-new-api-user", &mut missing);
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), ["D-AUTH-9"]);
        assert!(missing
            .iter()
            .all(|d| d.known.as_deref() == Some("D-AUTH-9")));
        // The generation before it, against the documented profile, keeps its rows.
        let mut old = vec![
            d("/status", json!(200), json!(401)),
            d("/body/success", json!(true), json!(false)),
        ];
        let rows = label("token.update.missing-new-api-user", &mut old);
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), ["P6"]);
        let mut p5 = vec![d("/status", json!(401), json!(200))];
        let rows = label("token.update.wrong-access-token", &mut p5);
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), ["P5"]);
        // A status neither row gives stays unexplained, the whole step unlabelled.
        let mut gateway = vec![
            d("/status", json!(401), json!(502)),
            d("/body/success", json!(false), json!(true)),
        ];
        assert!(label("token.update.missing-new-api-user", &mut gateway).is_empty());
    }
}
