//! The Midjourney task routes new-api serves (`/mj/*` and `/{mode}/mj/*`, DECISIONS `D-MJ`):
//! the submit actions and their models, where the key is read, the answers' codes, the task
//! record's statuses and progress, and when a submit is charged.
//!
//! From new-api's router/relay-router.go (registerMjRouterGroup), middleware/auth.go
//! (TokenAuth), middleware/distributor.go (getModelRequest), relay/mjproxy_handler.go
//! (RelayMidjourneySubmit, RelayMidjourneyTask, RelayMidjourneyImage), controller/relay.go
//! (RelayMidjourney) and dto/midjourney.go.
//!
//! ```
//! use gatecheck_schemas::rules::midjourney::{effective_key, model_for, record_status};
//! use gatecheck_schemas::types::VideoStatus;
//! assert_eq!(model_for("IMAGINE"), "mj_imagine");
//! assert_eq!(effective_key("", "Bearer sk-abc"), Some("abc"));
//! assert_eq!(effective_key("Bearer midjourney-proxy", "abc"), Some("abc"));
//! assert_eq!(record_status(VideoStatus::Completed), "SUCCESS");
//! ```

use crate::types::VideoStatus;

/// The header new-api reads the key from when `Authorization` is empty or
/// `midjourney-proxy` (middleware/auth.go TokenAuth).
pub const MJ_SECRET_HEADER: &str = "mj-api-secret";

/// The `Authorization` value that defers to [`MJ_SECRET_HEADER`].
pub const PROXY_PLACEHOLDER: &str = "midjourney-proxy";

/// The submit routes, `POST /mj/submit/<name>`, with the action each one fixes (`None`: the
/// action comes from the body: `change`, `simple-change`, `action`).
pub const SUBMIT_ROUTES: [(&str, Option<&str>); 10] = [
    ("imagine", Some("IMAGINE")),
    ("change", None),
    ("simple-change", None),
    ("action", None),
    ("modal", Some("MODAL")),
    ("describe", Some("DESCRIBE")),
    ("blend", Some("BLEND")),
    ("shorten", Some("SHORTEN")),
    ("edits", Some("EDITS")),
    ("video", Some("VIDEO")),
];

/// The actions a derivative submit (`change`, `simple-change`, `action`) may name.
pub const CHANGE_ACTIONS: [&str; 3] = ["UPSCALE", "VARIATION", "REROLL"];

/// The models the routes charge: `mj_` + the action in lower case
/// (service/midjourney.go CovertMjpActionToModelName).
pub const MJ_MODELS: [&str; 10] = [
    "mj_imagine",
    "mj_upscale",
    "mj_variation",
    "mj_reroll",
    "mj_modal",
    "mj_describe",
    "mj_blend",
    "mj_shorten",
    "mj_edits",
    "mj_video",
];

/// `code` of an accepted submit.
pub const CODE_SUBMITTED: i64 = 1;
/// `code` of a refused request (constant.MjRequestError).
pub const CODE_REQUEST_ERROR: i64 = 4;
/// The HTTP status of a refused request (controller/relay.go RelayMidjourney).
pub const REFUSAL_STATUS: u16 = 400;
/// The description of an unknown task on the fetch route (the audit's `task_no_found` is
/// right: that is new-api's spelling).
pub const TASK_NO_FOUND: &str = "task_no_found";
/// The terminal and running statuses of a task record.
pub const STATUSES: [&str; 4] = ["SUBMITTED", "IN_PROGRESS", "SUCCESS", "FAILURE"];

/// The key of a Midjourney request, as new-api's TokenAuth reads it: `Authorization` (with
/// `Bearer ` and `sk-` stripped, ending at the first `-`), or [`MJ_SECRET_HEADER`] when that is
/// empty or [`PROXY_PLACEHOLDER`]. `None` when neither carries one.
pub fn effective_key<'a>(authorization: &'a str, mj_secret: &'a str) -> Option<&'a str> {
    let raw = authorization.trim();
    let raw = match raw.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("bearer ") => raw[7..].trim(),
        _ => raw,
    };
    if raw.is_empty() || raw == PROXY_PLACEHOLDER {
        super::auth::parse_bearer(mj_secret)
    } else {
        super::auth::parse_bearer(authorization)
    }
}

/// The model an action is charged as: `mj_` + the action in lower case.
pub fn model_for(action: &str) -> String {
    format!("mj_{}", action.to_ascii_lowercase())
}

/// The action of a derivative `customId` (`MJ::JOB::upsample::2::<hash>`), with its index,
/// as new-api's CoverPlusActionToNormalAction reads it; the refusal's description otherwise.
///
/// ```
/// use gatecheck_schemas::rules::midjourney::action_of_custom_id;
/// assert_eq!(action_of_custom_id("MJ::JOB::upsample::2::ab"), Ok(("UPSCALE", 2)));
/// assert_eq!(action_of_custom_id("MJ::JOB::reroll::0::ab::SOLO"), Ok(("REROLL", 0)));
/// assert_eq!(action_of_custom_id(""), Err("custom_id_is_required"));
/// ```
pub fn action_of_custom_id(custom_id: &str) -> Result<(&'static str, i64), &'static str> {
    if custom_id.trim().is_empty() {
        return Err("custom_id_is_required");
    }
    let parts: Vec<&str> = custom_id.split("::").collect();
    let action = match parts.get(1) {
        Some(&"JOB") => parts.get(2).copied().unwrap_or(""),
        Some(a) => a,
        None => return Err("unknown_action"),
    };
    let index = || {
        parts
            .get(3)
            .and_then(|i| i.parse::<i64>().ok())
            .ok_or("index_parse_failed")
    };
    if action.contains("upsample") {
        Ok(("UPSCALE", index()?))
    } else if action.contains("variation") {
        Ok(("VARIATION", index()?))
    } else if action.contains("reroll") {
        Ok(("REROLL", 0))
    } else {
        Err("unknown_action")
    }
}

/// The `content` of `simple-change` (`<task id> U2`, `V1`, `R`): the task id, the action and
/// its index; `None` when it does not parse (service/midjourney.go ConvertSimpleChangeParams).
///
/// ```
/// use gatecheck_schemas::rules::midjourney::simple_change;
/// assert_eq!(simple_change("1712 U2"), Some(("1712", "UPSCALE", 2)));
/// assert_eq!(simple_change("1712 R"), Some(("1712", "REROLL", 0)));
/// assert_eq!(simple_change("1712 U5"), None);
/// ```
pub fn simple_change(content: &str) -> Option<(&str, &'static str, i64)> {
    let mut parts = content.split_whitespace();
    let (id, op) = (parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let op = op.to_ascii_uppercase();
    let (action, index) = match (op.get(..1)?, op.get(1..)?) {
        ("R", "") => ("REROLL", 0),
        ("U", i) => ("UPSCALE", i.parse().ok()?),
        ("V", i) => ("VARIATION", i.parse().ok()?),
        _ => return None,
    };
    (action == "REROLL" || (1..=4).contains(&index)).then_some((id, action, index))
}

/// The `status` of a task record in each video state: `SUBMITTED` (queued), `IN_PROGRESS`,
/// `SUCCESS`, `FAILURE` (failed or error).
pub fn record_status(status: VideoStatus) -> &'static str {
    match status {
        VideoStatus::Queued => "SUBMITTED",
        VideoStatus::InProgress => "IN_PROGRESS",
        VideoStatus::Completed => "SUCCESS",
        VideoStatus::Failed | VideoStatus::Error => "FAILURE",
    }
}

/// Whether a submit answered with `code` is charged: only an accepted one
/// ([`CODE_SUBMITTED`]), after it was accepted (new-api charges Midjourney after the
/// submit, never before: relay/mjproxy_handler.go PostConsumeQuota in a defer).
pub fn charged_after_submit(code: i64) -> bool {
    code == CODE_SUBMITTED
}

/// The progress text of a record, `NN%`, as a number: `None` when it is not one.
///
/// ```
/// use gatecheck_schemas::rules::midjourney::parse_progress;
/// assert_eq!(parse_progress("100%"), Some(100));
/// assert_eq!(parse_progress("0%"), Some(0));
/// assert_eq!(parse_progress("50"), None);
/// ```
pub fn parse_progress(text: &str) -> Option<i64> {
    let n: i64 = text.strip_suffix('%')?.parse().ok()?;
    (0..=100).contains(&n).then_some(n)
}

/// The rules every fetched task record keeps (DECISIONS D-MJ-4): `status` one of
/// [`STATUSES`], `progress` an `NN%` within 0 to 100, `100%` and a non-empty `imageUrl` when
/// `SUCCESS`, a `failReason` when `FAILURE`. The broken rule's description otherwise.
pub fn check_record(record: &serde_json::Value) -> Result<(), String> {
    let text = |k: &str| record.get(k).and_then(|v| v.as_str());
    let status = text("status").ok_or("no `status` string")?;
    if !STATUSES.contains(&status) {
        return Err(format!(
            "status {status:?} is not one of {}",
            STATUSES.join(", ")
        ));
    }
    let progress = text("progress").ok_or("no `progress` string")?;
    let n = parse_progress(progress).ok_or_else(|| format!("progress {progress:?} is not NN%"))?;
    match status {
        "SUCCESS" if n != 100 => Err(format!("a SUCCESS task at progress {progress}")),
        "SUCCESS" if text("imageUrl").is_none_or(str::is_empty) => {
            Err("a SUCCESS task without imageUrl".into())
        }
        "SUBMITTED" | "IN_PROGRESS" if n == 100 => Err(format!("a {status} task at progress 100%")),
        "FAILURE" if text("failReason").is_none_or(str::is_empty) => {
            Err("a FAILURE task without failReason".into())
        }
        _ => Ok(()),
    }
}

/// The rank of a record status: a task's status never goes back.
pub fn status_rank(status: &str) -> u8 {
    match status {
        "SUBMITTED" => 0,
        "IN_PROGRESS" => 1,
        _ => 2,
    }
}
