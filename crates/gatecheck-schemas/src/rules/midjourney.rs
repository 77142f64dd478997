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

/// The fields of new-api's MidjourneyRequest (dto/midjourney.go) with their JSON type: Go
/// refuses a body whose field has another type (`null` aside), and new-api answers
/// `bind_request_body_failed`.
pub const REQUEST_FIELDS: [(&str, FieldType); 11] = [
    ("prompt", FieldType::Text),
    ("customId", FieldType::Text),
    ("botType", FieldType::Text),
    ("notifyHook", FieldType::Text),
    ("action", FieldType::Text),
    ("index", FieldType::Integer),
    ("state", FieldType::Text),
    ("taskId", FieldType::Text),
    ("base64Array", FieldType::TextList),
    ("content", FieldType::Text),
    ("maskBase64", FieldType::Text),
];

/// The JSON type of a request field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string.
    Text,
    /// An integer (Go `int`).
    Integer,
    /// An array of strings.
    TextList,
}

/// Whether every field of [`REQUEST_FIELDS`] in `body` has its type (or is `null`), as Go's
/// `json.Unmarshal` into MidjourneyRequest checks it.
///
/// ```
/// use gatecheck_schemas::rules::midjourney::fields_have_their_types;
/// use serde_json::json;
/// assert!(fields_have_their_types(&json!({"prompt": "a cat", "index": 2, "extra": {}})));
/// assert!(!fields_have_their_types(&json!({"notifyHook": {}})));
/// assert!(!fields_have_their_types(&json!({"index": 1.5})));
/// ```
pub fn fields_have_their_types(body: &serde_json::Value) -> bool {
    REQUEST_FIELDS
        .iter()
        .all(|(name, ty)| match body.get(name) {
            None | Some(serde_json::Value::Null) => true,
            Some(v) => match ty {
                FieldType::Text => v.is_string(),
                FieldType::Integer => v.is_i64(),
                FieldType::TextList => v
                    .as_array()
                    .is_some_and(|a| a.iter().all(|i| i.is_string() || i.is_null())),
            },
        })
}

/// The header new-api reads the key from when `Authorization` is empty or
/// `midjourney-proxy` (middleware/auth.go TokenAuth).
pub const MJ_SECRET_HEADER: &str = "mj-api-secret";

/// The `Authorization` value that defers to [`MJ_SECRET_HEADER`].
pub const PROXY_PLACEHOLDER: &str = "midjourney-proxy";

/// The submit routes, `POST /mj/submit/<name>`, with the action each one fixes (`None`: the
/// action comes from the body: `change`, `simple-change`, `action`).
pub const SUBMIT_ROUTES: [(&str, Option<&str>); 11] = [
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
    ("upload-discord-images", Some(ACTION_UPLOAD)),
];

/// The action of `POST /mj/submit/upload-discord-images` (constant.MjActionUpload).
pub const ACTION_UPLOAD: &str = "UPLOAD";
/// The action of `POST /mj/insight-face/swap` (constant.MjActionSwapFace).
pub const ACTION_SWAP_FACE: &str = "SWAP_FACE";
/// The prompt new-api stores for a face swap (relay/mjproxy_handler.go RelaySwapFace).
pub const SWAP_FACE_PROMPT: &str = "InsightFace";
/// The refusal of a face swap without both images (RelaySwapFace; new-api's spelling).
pub const SWAP_FACE_IMAGES_REQUIRED: &str = "sour_base64_and_target_base64_is_required";
/// The refusal of a `list-by-condition` body that is not `{ids: [string]}`
/// (RelayMidjourneyTask: gin's BindJSON failed).
pub const LIST_BODY_REFUSED: &str = "do_request_failed";
/// The upstream's (midjourney-proxy's) answer to an upload without images, relayed by
/// new-api with its HTTP 200: `code` 4 and this description, charged nothing.
pub const UPLOAD_EMPTY: &str = "base64Array不能为空";
/// The upstream's answer to an upload entry that is not a `data:<mime>;base64,` URL.
pub const UPLOAD_MALFORMED: &str = "base64格式错误";

/// The actions a derivative submit (`change`, `simple-change`, `action`) may name.
pub const CHANGE_ACTIONS: [&str; 3] = ["UPSCALE", "VARIATION", "REROLL"];

/// The models the routes charge: `mj_` + the action in lower case
/// (service/midjourney.go CovertMjpActionToModelName).
pub const MJ_MODELS: [&str; 12] = [
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
    "mj_upload",
    "swap_face",
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

/// The model an action is charged as: `mj_` + the action in lower case, but `swap_face` for
/// a face swap (service/midjourney.go CovertMjpActionToModelName).
///
/// ```
/// use gatecheck_schemas::rules::midjourney::model_for;
/// assert_eq!(model_for("UPLOAD"), "mj_upload");
/// assert_eq!(model_for("SWAP_FACE"), "swap_face");
/// ```
pub fn model_for(action: &str) -> String {
    if action == ACTION_SWAP_FACE {
        return "swap_face".to_owned();
    }
    format!("mj_{}", action.to_ascii_lowercase())
}

/// Whether an upload entry is a data URL midjourney-proxy accepts: `data:<type>;base64,` and
/// base64 that decodes (ConvertUtils.convertBase64Array).
///
/// ```
/// use gatecheck_schemas::rules::midjourney::is_data_url;
/// assert!(is_data_url("data:image/png;base64,iVBORw0KGgo="));
/// assert!(!is_data_url("iVBORw0KGgo="));
/// assert!(!is_data_url("data:image/png;base64,***"));
/// ```
pub fn is_data_url(entry: &str) -> bool {
    use base64::Engine as _;
    let Some((head, data)) = entry.strip_prefix("data:").and_then(|r| r.split_once(',')) else {
        return false;
    };
    head.ends_with(";base64")
        && !data.is_empty()
        && base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .is_ok()
}

/// The seed a finished task's `image-seed` answers: decimal digits derived from the task id
/// (the mock's stand-in for the upstream's Discord seed).
pub fn image_seed(task_id: &str) -> String {
    (super::media::fnv1a(task_id.as_bytes()) % 4_294_967_296).to_string()
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
    check_result(record)?;
    match status {
        "SUBMITTED" | "IN_PROGRESS" if n == 100 => Err(format!("a {status} task at progress 100%")),
        "FAILURE" if text("failReason").is_none_or(str::is_empty) => {
            Err("a FAILURE task without failReason".into())
        }
        _ => Ok(()),
    }
}

/// The rule of a finished record that clients depend on (a failure where it breaks, DECISIONS
/// D-TASK-12): a `SUCCESS` task is at `100%` and has an `imageUrl`. Part of [`check_record`].
///
/// ```
/// use gatecheck_schemas::rules::midjourney::check_result;
/// let done = serde_json::json!({"status": "SUCCESS", "progress": "100%", "imageUrl": "http://x/1"});
/// assert!(check_result(&done).is_ok());
/// assert!(check_result(&serde_json::json!({"status": "SUCCESS", "progress": "99%", "imageUrl": "u"})).is_err());
/// assert!(check_result(&serde_json::json!({"status": "SUCCESS", "progress": "100%"})).is_err());
/// ```
pub fn check_result(record: &serde_json::Value) -> Result<(), String> {
    let text = |k: &str| record.get(k).and_then(|v| v.as_str());
    if text("status") != Some("SUCCESS") {
        return Ok(());
    }
    let progress = text("progress").unwrap_or("");
    if parse_progress(progress) != Some(100) {
        return Err(format!("a SUCCESS task at progress {progress:?}"));
    }
    if text("imageUrl").is_none_or(str::is_empty) {
        return Err("a SUCCESS task without imageUrl".into());
    }
    Ok(())
}

/// The rank of a record status: a task's status never goes back.
pub fn status_rank(status: &str) -> u8 {
    match status {
        "SUBMITTED" => 0,
        "IN_PROGRESS" => 1,
        _ => 2,
    }
}
