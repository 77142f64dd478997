//! new-api's task record as its task routes show it: the `{"code":"success","data":TaskDto}`
//! envelope of `GET /v1/video/generations/{task_id}` (and of the Kling and Jimeng fetch
//! routes), the `{code, message, data}` task error, the upper-case task statuses and the
//! `"NN%"` progress text (DECISIONS D-TASK).
//!
//! The state behind a task is the video task's ([`crate::rules::video`]): one state machine,
//! one clock. [`TaskStatus::of`] maps a video status to new-api's task status; the mock
//! renders a [`TaskDto`] from it, and the runner judges what a target answers with
//! [`check_envelope`], [`check_envelope_transition`] and [`check_task_error`].
//!
//! ```
//! use gatecheck_schemas::rules::task::{parse_progress, progress_text, TaskStatus};
//! use gatecheck_schemas::types::VideoStatus;
//!
//! assert_eq!(TaskStatus::of(VideoStatus::Completed).as_str(), "SUCCESS");
//! assert_eq!(progress_text(30), "30%");
//! assert_eq!(parse_progress("100%"), Some(100));
//! assert_eq!(parse_progress("100"), None);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::video::{is_task_id, BrokenRule};
use crate::types::VideoStatus;

/// The `code` of a task envelope that carries a task (dto/task.go `TaskSuccessCode`).
pub const SUCCESS_CODE: &str = "success";
/// The HTTP status of new-api's task refusals (`http.StatusBadRequest`): a task id the key's
/// user does not own, a remix of an unknown source, a task request its validation refuses, a
/// provider's refusal of a submit, a Jimeng request without `?Action=`.
pub const TASK_REFUSAL_STATUS: u16 = 400;
/// The `code` (and `message`) of the 400 answer for a task id the key's user does not own
/// (relay/relay_task.go videoFetchByIDRespBodyBuilder).
pub const TASK_NOT_EXIST: &str = "task_not_exist";
/// The `message` of the 400 answer to a remix of an unknown source
/// (relay/relay_task.go ResolveOriginTask: `task_origin_not_exist`, code [`TASK_NOT_EXIST`]).
pub const TASK_ORIGIN_NOT_EXIST: &str = "task_origin_not_exist";
/// The code of a request new-api's task validation refuses (`invalid_request`).
pub const INVALID_REQUEST: &str = "invalid_request";
/// The message of a remix without a prompt (relay/channel/task/sora validateRemixRequest).
pub const REMIX_PROMPT_REQUIRED: &str = "field prompt is required";
/// The code of an upstream refusal of a submit (relay/relay_task.go RelayTaskSubmit: a
/// non-200 upstream answer, relayed with the upstream's status).
pub const FAIL_TO_FETCH_TASK: &str = "fail_to_fetch_task";

/// The task's action: a text-only generation (constant `TaskActionTextGenerate`).
pub const ACTION_TEXT_GENERATE: &str = "textGenerate";
/// The task's action: a generation from an image (constant `TaskActionGenerate`).
pub const ACTION_GENERATE: &str = "generate";
/// The task's action: a remix of a completed task (constant `TaskActionRemix`).
pub const ACTION_REMIX: &str = "remixGenerate";

/// The Jimeng action that submits a task (`?Action=`).
pub const JIMENG_SUBMIT: &str = "CVSync2AsyncSubmitTask";
/// The Jimeng action that fetches a task; any other action submits
/// (middleware/jimeng_adapter.go JimengRequestConvert).
pub const JIMENG_GET_RESULT: &str = "CVSync2AsyncGetResult";
/// The 400 message of a Jimeng request without `?Action=`.
pub const MSG_ACTION_REQUIRED: &str = "Action query parameter is required";
/// The 400 message of a Jimeng request whose body is not a JSON object.
pub const MSG_INVALID_BODY: &str = "Invalid request body";
/// The 400 message of a Jimeng fetch without `task_id`.
pub const MSG_TASK_ID_REQUIRED: &str = "task_id is required for CVSync2AsyncGetResult";
/// The message of a task submit without a prompt (relay/common validatePrompt).
pub const PROMPT_REQUIRED: &str = "prompt is required";
/// The code of a provider refusal of a submit (relay/channel/task/kling DoResponse: Kling's
/// `code != 0`, 400).
pub const TASK_FAILED: &str = "task_failed";

/// new-api's task status (model/task.go `TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaskStatus {
    /// Inserted, not yet polled upstream.
    NotStart,
    /// Accepted upstream.
    Submitted,
    /// Waiting upstream.
    Queued,
    /// Running.
    InProgress,
    /// Ended without a result.
    Failure,
    /// Ended with a result.
    Success,
    /// The upstream status was not understood.
    Unknown,
}

impl TaskStatus {
    /// Every status.
    pub const ALL: [TaskStatus; 7] = [
        TaskStatus::NotStart,
        TaskStatus::Submitted,
        TaskStatus::Queued,
        TaskStatus::InProgress,
        TaskStatus::Failure,
        TaskStatus::Success,
        TaskStatus::Unknown,
    ];

    /// The status of a task whose video status is `s`: what new-api's poller stores after
    /// reading the upstream task (relay/channel/task/sora ParseTaskResult). `failed` and
    /// `error` are both `FAILURE`.
    pub fn of(s: VideoStatus) -> Self {
        match s {
            VideoStatus::Queued => TaskStatus::Queued,
            VideoStatus::InProgress => TaskStatus::InProgress,
            VideoStatus::Completed => TaskStatus::Success,
            VideoStatus::Failed | VideoStatus::Error => TaskStatus::Failure,
        }
    }

    /// As written on the wire (`SUCCESS`...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::NotStart => "NOT_START",
            TaskStatus::Submitted => "SUBMITTED",
            TaskStatus::Queued => "QUEUED",
            TaskStatus::InProgress => "IN_PROGRESS",
            TaskStatus::Failure => "FAILURE",
            TaskStatus::Success => "SUCCESS",
            TaskStatus::Unknown => "UNKNOWN",
        }
    }

    /// Parses the wire form.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Whether the task has ended (`SUCCESS` or `FAILURE`).
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Success | TaskStatus::Failure)
    }

    /// The order of the lifecycle: not started or unknown, then queued, running, ended.
    fn rank(self) -> u8 {
        match self {
            TaskStatus::NotStart | TaskStatus::Unknown => 0,
            TaskStatus::Submitted | TaskStatus::Queued => 1,
            TaskStatus::InProgress => 2,
            TaskStatus::Failure | TaskStatus::Success => 3,
        }
    }
}

/// Progress as new-api stores it: `"NN%"`.
pub fn progress_text(progress: i64) -> String {
    format!("{}%", progress.clamp(0, 100))
}

/// The number of a `"NN%"` progress text (0 to 100), `None` for any other text.
pub fn parse_progress(text: &str) -> Option<i64> {
    let digits = text.strip_suffix('%')?;
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i64>().ok().filter(|n| *n <= 100)
}

/// `properties` of a task record (model/task.go `Properties`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskProperties {
    /// The prompt (new-api leaves it empty on the video routes).
    #[serde(default)]
    pub input: String,
    /// The model sent upstream.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub upstream_model_name: String,
    /// The model the client asked for.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin_model_name: String,
}

/// A task record as the task routes show it (dto/task.go `TaskDto`, filled by
/// relay/relay_task.go `TaskModel2Dto`). Times are Unix seconds; 0 when not reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDto {
    /// The row id.
    pub id: i64,
    /// When the row was made.
    pub created_at: i64,
    /// When the row last changed.
    pub updated_at: i64,
    /// The public task id (`task_` + 32 letters and digits).
    pub task_id: String,
    /// The channel type as text (`55` Sora, `50` Kling, `51` Jimeng).
    pub platform: String,
    /// The key's user.
    pub user_id: i64,
    /// The key's group.
    pub group: String,
    /// The channel that serves it.
    pub channel_id: i64,
    /// Quota charged at submit.
    pub quota: i64,
    /// `textGenerate`, `generate`, `remixGenerate`...
    pub action: String,
    /// Upper-case status.
    pub status: TaskStatus,
    /// Why it failed; empty otherwise.
    pub fail_reason: String,
    /// The result (the video's content URL) once `SUCCESS`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_url: Option<String>,
    /// When it was submitted.
    pub submit_time: i64,
    /// When it started running.
    pub start_time: i64,
    /// When it ended.
    pub finish_time: i64,
    /// `"NN%"`.
    pub progress: String,
    /// Model names and input.
    pub properties: TaskProperties,
    /// The upstream's last answer about the task, verbatim.
    pub data: Value,
}

/// The envelope of a task fetch: `{"code":"success","message":"","data":{...}}`
/// (dto/task.go `TaskResponse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEnvelope {
    /// `success`.
    pub code: String,
    /// Empty.
    pub message: String,
    /// The task.
    pub data: TaskDto,
}

impl TaskEnvelope {
    /// The envelope of `data`.
    pub fn success(data: TaskDto) -> Self {
        Self {
            code: SUCCESS_CODE.to_owned(),
            message: String::new(),
            data,
        }
    }
}

/// A task error as read from an answer (dto/task.go `TaskError`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskErrorBody {
    /// Machine-readable code.
    pub code: String,
    /// Human-readable reason.
    pub message: String,
    /// `null`.
    pub data: Value,
}

/// The body of `POST /v1/videos/{video_id}/remix`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemixRequest {
    /// What to change.
    pub prompt: String,
}

/// The body of a task error: `{"code","message","data":null}` (dto/task.go `TaskError`).
pub fn task_error(code: &str, message: &str) -> Value {
    serde_json::json!({ "code": code, "message": message, "data": null })
}

/// The envelope is `{"code":"success"}` with a `data` object.
pub const RULE_ENVELOPE: &str = "task.envelope";
/// `data.status` is one of new-api's upper-case statuses.
pub const RULE_STATUS: &str = "task.status";
/// `data.progress` is `"NN%"`, 0 to 100.
pub const RULE_PROGRESS: &str = "task.progress_text";
/// `data.task_id` is the decided id form.
pub const RULE_TASK_ID: &str = "task.task_id";
/// A `FAILURE` task has a `fail_reason`; a task not ended has no `result_url`.
pub const RULE_TERMINAL_FIELDS: &str = "task.terminal_fields";
/// `finish_time` is set exactly when the task has ended, not before `submit_time`.
pub const RULE_TIMES: &str = "task.times";
/// Between fetches: the same task, status never back, progress never down, ended stays.
pub const RULE_TRANSITION: &str = "task.transition";
/// A task error is `{"code": string, "message": string, "data": null}`.
pub const RULE_TASK_ERROR: &str = "task.error_body";
/// A `SUCCESS` task is finished: progress `"100%"` and a `result_url` to fetch the result
/// from (a failure where it breaks: DECISIONS D-TASK-12).
pub const RULE_RESULT: &str = "task.result";

/// Whether a broken `rule` of this module is a failure, not a deviation (DECISIONS D-TASK-10
/// to D-TASK-12): the rules clients depend on with one right answer, a finished task's result
/// ([`RULE_RESULT`]) and a state machine that never goes back ([`RULE_TRANSITION`]). The rest
/// (the envelope's form, its decided fields, the error bodies) are new-api's choices.
///
/// ```
/// use gatecheck_schemas::rules::task::{is_failure_rule, RULE_RESULT, RULE_STATUS, RULE_TRANSITION};
/// assert!(is_failure_rule(RULE_TRANSITION) && is_failure_rule(RULE_RESULT));
/// assert!(!is_failure_rule(RULE_STATUS));
/// ```
pub fn is_failure_rule(rule: &str) -> bool {
    rule == RULE_RESULT || rule == RULE_TRANSITION
}

fn violation(rule: &'static str, message: impl Into<String>) -> Result<(), BrokenRule> {
    Err(BrokenRule {
        rule,
        message: message.into(),
    })
}

/// The task of an envelope, after the envelope rule.
pub fn envelope_task(v: &Value) -> Result<TaskDto, BrokenRule> {
    if v.get("code").and_then(Value::as_str) != Some(SUCCESS_CODE) {
        violation(
            RULE_ENVELOPE,
            format!("code is {}, not \"success\"", v["code"]),
        )?;
    }
    let data = v.get("data").filter(|d| d.is_object()).ok_or(BrokenRule {
        rule: RULE_ENVELOPE,
        message: "no data object".into(),
    })?;
    if let Some(s) = data.get("status").and_then(Value::as_str)
        && TaskStatus::parse(s).is_none()
    {
        violation(RULE_STATUS, format!("status {s:?} is not a task status"))?;
    }
    serde_json::from_value(data.clone()).map_err(|e| BrokenRule {
        rule: RULE_ENVELOPE,
        message: format!("data is not a task record: {e}"),
    })
}

/// Every rule of one fetched envelope: [`RULE_ENVELOPE`], [`RULE_STATUS`], [`RULE_PROGRESS`],
/// [`RULE_TASK_ID`], [`RULE_RESULT`], [`RULE_TERMINAL_FIELDS`], [`RULE_TIMES`]. Returns the
/// task.
///
/// ```
/// use gatecheck_schemas::rules::task::check_envelope;
/// let v = serde_json::json!({"code": "success", "message": "", "data": {
///     "id": 1, "created_at": 10, "updated_at": 10, "task_id": "task_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
///     "platform": "55", "user_id": 1, "group": "default", "channel_id": 1, "quota": 5,
///     "action": "textGenerate", "status": "IN_PROGRESS", "fail_reason": "", "submit_time": 10,
///     "start_time": 12, "finish_time": 0, "progress": "30%", "properties": {"input": ""},
///     "data": {}}});
/// assert!(check_envelope(&v).is_ok());
/// let mut done = v.clone();
/// done["data"]["status"] = "SUCCESS".into();
/// assert_eq!(check_envelope(&done).unwrap_err().rule, "task.result");
/// ```
pub fn check_envelope(v: &Value) -> Result<TaskDto, BrokenRule> {
    let t = envelope_task(v)?;
    let err = |rule, message: String| Err(BrokenRule { rule, message });
    let Some(progress) = parse_progress(&t.progress) else {
        return err(
            RULE_PROGRESS,
            format!("progress {:?} is not \"NN%\"", t.progress),
        );
    };
    if !is_task_id(&t.task_id) {
        return err(
            RULE_TASK_ID,
            format!(
                "task_id {:?} is not task_ + 32 letters and digits",
                t.task_id
            ),
        );
    }
    match t.status {
        TaskStatus::Success if progress != 100 || t.result_url.as_deref().is_none_or(str::is_empty) => {
            return err(
                RULE_RESULT,
                format!(
                    "SUCCESS with progress {:?} and result_url {:?}: a finished task is at \"100%\" with the URL of its result",
                    t.progress, t.result_url
                ),
            )
        }
        TaskStatus::Failure if t.fail_reason.is_empty() => {
            return err(RULE_TERMINAL_FIELDS, "FAILURE without a fail_reason".into())
        }
        s if !s.is_terminal() && t.result_url.is_some() => {
            return err(
                RULE_TERMINAL_FIELDS,
                format!("{} with a result_url", s.as_str()),
            )
        }
        _ => {}
    }
    if t.status.is_terminal() != (t.finish_time > 0)
        || (t.finish_time > 0 && t.finish_time < t.submit_time)
    {
        return err(
            RULE_TIMES,
            format!(
                "status {} with submit_time {} and finish_time {}",
                t.status.as_str(),
                t.submit_time,
                t.finish_time
            ),
        );
    }
    Ok(t)
}

/// The rules between two fetches of one task ([`RULE_TRANSITION`]): the same `task_id` and
/// `submit_time`, the status never goes back, progress never decreases, an ended task never
/// changes status.
pub fn check_envelope_transition(prev: &TaskDto, next: &TaskDto) -> Result<(), BrokenRule> {
    let progress = |t: &TaskDto| parse_progress(&t.progress).unwrap_or(0);
    if prev.task_id != next.task_id || prev.submit_time != next.submit_time {
        return violation(
            RULE_TRANSITION,
            format!("task {:?} became {:?}", prev.task_id, next.task_id),
        );
    }
    if next.status.rank() < prev.status.rank()
        || (prev.status.is_terminal() && next.status != prev.status)
    {
        return violation(
            RULE_TRANSITION,
            format!(
                "status went from {} to {}",
                prev.status.as_str(),
                next.status.as_str()
            ),
        );
    }
    if progress(next) < progress(prev) {
        return violation(
            RULE_TRANSITION,
            format!("progress went from {} to {}", prev.progress, next.progress),
        );
    }
    Ok(())
}

/// A task error body ([`RULE_TASK_ERROR`]) with the code `code`.
pub fn check_task_error(v: &Value, code: &str) -> Result<(), BrokenRule> {
    let ok = v.get("code").and_then(Value::as_str) == Some(code)
        && v.get("message").is_some_and(Value::is_string)
        && v.get("data").is_some_and(Value::is_null);
    if ok {
        Ok(())
    } else {
        violation(
            RULE_TASK_ERROR,
            format!("expected {{\"code\":{code:?},\"message\":...,\"data\":null}}, got {v}"),
        )
    }
}

/// Where an answer about a task names the task, whatever its form (DECISIONS D-TASK-10): the
/// create object's `id` and `task_id`, the envelope's `data.task_id` (and a `data.id`, should
/// a form put one there).
const IDENTITY_AT: [&str; 4] = ["/task_id", "/id", "/data/task_id", "/data/id"];

/// The other task an answer about task `asked` names, in whatever form it came (a create
/// object where the envelope was due, the envelope, a provider's own shape): a public task id
/// (`task_` + 32 letters and digits) at `task_id`, `id`, `data.task_id` or `data.id` that is
/// not `asked` (DECISIONS D-TASK-10: a fetch answers the task asked about; a fetch that
/// answers a new task, made and charged, is the worst case of it). Ids of other forms (an
/// upstream's own id for the same task) and numbers (the row id) name no other task.
///
/// ```
/// use gatecheck_schemas::rules::task::other_task_named;
/// use serde_json::json;
/// let asked = "task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
/// let made = json!({"id": "task_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "object": "video", "status": "queued"});
/// assert_eq!(other_task_named(&made, asked).as_deref(), Some("task_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"));
/// let envelope = json!({"code": "success", "data": {"id": 7, "task_id": asked}});
/// assert_eq!(other_task_named(&envelope, asked), None);
/// let upstream = json!({"code": 0, "data": {"task_id": "8862739021"}});
/// assert_eq!(other_task_named(&upstream, asked), None);
/// ```
pub fn other_task_named(v: &Value, asked: &str) -> Option<String> {
    IDENTITY_AT
        .iter()
        .filter_map(|at| v.pointer(at).and_then(Value::as_str))
        .find(|id| *id != asked && is_task_id(id))
        .map(str::to_owned)
}

/// Whether an answer to a fetch of a task says the service has no such task: the spec's 404,
/// or new-api's 400 with code `task_not_exist` (a task error's `code`, or a `/v1` error's
/// `error.code`) ([`Rejection::TaskNotFound`](crate::rules::Rejection::TaskNotFound) in either
/// profile). A remix the service accepts for a source it says it has no record of is its own
/// records contradicted (DECISIONS D-TASK-4, D-TASK-10).
///
/// ```
/// use gatecheck_schemas::rules::task::says_no_such_task;
/// use serde_json::json;
/// assert!(says_no_such_task(404, &json!({"error": {"message": "not found"}})));
/// assert!(says_no_such_task(400, &json!({"code": "task_not_exist", "message": "task_not_exist", "data": null})));
/// assert!(!says_no_such_task(400, &json!({"code": "invalid_request"})));
/// assert!(!says_no_such_task(200, &json!({"id": "task_x"})));
/// ```
pub fn says_no_such_task(status: u16, v: &Value) -> bool {
    let code = v
        .pointer("/error/code")
        .or_else(|| v.get("code"))
        .and_then(Value::as_str);
    crate::rules::Rejection::TaskNotFound.answered_by(status, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_text_round_trips_and_rejects_other_forms() {
        for n in [0, 7, 30, 99, 100] {
            assert_eq!(parse_progress(&progress_text(n)), Some(n));
        }
        for bad in ["", "%", "30", "101%", "-1%", "3.5%", "0030%", " 30%"] {
            assert_eq!(parse_progress(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn statuses_map_and_order() {
        assert_eq!(TaskStatus::of(VideoStatus::Error), TaskStatus::Failure);
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(json, s.as_str());
        }
        assert!(TaskStatus::Queued.rank() < TaskStatus::InProgress.rank());
    }

    #[test]
    fn task_error_body_is_checked() {
        let v = task_error(TASK_NOT_EXIST, TASK_NOT_EXIST);
        assert!(check_task_error(&v, TASK_NOT_EXIST).is_ok());
        assert!(check_task_error(&v, "other").is_err());
        let mut bad = v.clone();
        bad["data"] = serde_json::json!({});
        assert!(check_task_error(&bad, TASK_NOT_EXIST).is_err());
    }
}
