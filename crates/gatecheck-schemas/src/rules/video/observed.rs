//! The rules every observed video task and every pair of successive polls must satisfy: the
//! spec's ([`TASK_RULES`], [`check_created`], [`check_transition`]) and the decisions'
//! ([`check_task_decisions_named`], [`OPENAI_NULLABLE_KEYS`], [`content_rejection`]). The
//! runner judges a target's answers with them; `rules::video` re-exports them beside the
//! lifecycle the mock plays.

use crate::rules::rejection::Rejection;
use crate::types::{VideoStatus, VideoTask};
use crate::Profile;

/// A broken rule of a task (the video task, and the provider tasks of `rules::task`): the
/// rule's stable id and what was observed. Not a schema [`crate::Violation`], which
/// `validate` reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{rule}: {message}")]
pub struct BrokenRule {
    /// Stable rule id, e.g. `video.progress_monotonic`.
    pub rule: &'static str,
    /// What was observed.
    pub message: String,
}

fn violation(rule: &'static str, message: impl Into<String>) -> Result<(), BrokenRule> {
    Err(BrokenRule {
        rule,
        message: message.into(),
    })
}

fn rank(s: VideoStatus) -> u8 {
    match s {
        VideoStatus::Queued => 0,
        VideoStatus::InProgress => 1,
        _ => 2,
    }
}

/// Whether `id` has the decided form `task_` + 32 ASCII letters and digits.
pub fn is_task_id(id: &str) -> bool {
    id.strip_prefix("task_")
        .is_some_and(|r| r.len() == 32 && r.bytes().all(|c| c.is_ascii_alphanumeric()))
}

/// The spec's rules for any observed task, by rule id: `object` is `video`
/// (`video.object`), progress is within 0..=100 (`video.progress_range`), progress is 100 when
/// completed and below 100 while queued or in progress, a failed task at any progress (new-api
/// shows 100 on a failure, [`super::shown_progress`]; `video.progress_100_iff_completed`), and a
/// completed task's `completed_at` (when present) is not before `created_at`
/// (`video.completed_at`).
pub const TASK_RULES: [&str; 4] = [
    RULE_OBJECT,
    RULE_PROGRESS_RANGE,
    RULE_PROGRESS_100,
    RULE_COMPLETED_AT,
];
/// `object` is `video`.
pub const RULE_OBJECT: &str = "video.object";
/// Progress is within 0..=100.
pub const RULE_PROGRESS_RANGE: &str = "video.progress_range";
/// Progress is 100 when the task is completed, and below 100 while it is queued or in
/// progress (a failed or error task may show 100: new-api's `FAILURE` is at `"100%"`).
pub const RULE_PROGRESS_100: &str = "video.progress_100_iff_completed";
/// `completed_at` is not before `created_at`.
pub const RULE_COMPLETED_AT: &str = "video.completed_at";

/// Every rule of [`TASK_RULES`] that `t` breaks, each judged on its own.
///
/// ```
/// use gatecheck_schemas::rules::video::task_violations;
/// use gatecheck_schemas::types::VideoTask;
/// let t: VideoTask = serde_json::from_value(serde_json::json!({"id": "task_1", "object": "clip",
///     "model": "sora-2", "status": "in_progress", "progress": 120})).unwrap();
/// let rules: Vec<_> = task_violations(&t).into_iter().map(|v| v.rule).collect();
/// assert_eq!(rules, ["video.object", "video.progress_range"]);
/// ```
pub fn task_violations(t: &VideoTask) -> Vec<BrokenRule> {
    let mut out = Vec::new();
    if t.object != "video" {
        out.push(BrokenRule {
            rule: RULE_OBJECT,
            message: format!("object is {:?}, not \"video\"", t.object),
        });
    }
    if !(0..=100).contains(&t.progress) {
        out.push(BrokenRule {
            rule: RULE_PROGRESS_RANGE,
            message: format!("progress {}", t.progress),
        });
    }
    let completed = t.status == VideoStatus::Completed;
    if (completed && t.progress != 100) || (!t.status.is_terminal() && t.progress == 100) {
        out.push(BrokenRule {
            rule: RULE_PROGRESS_100,
            message: format!("status {} with progress {}", t.status.as_str(), t.progress),
        });
    }
    if let Some(c) = t.completed_at.filter(|c| *c < t.created_at) {
        out.push(BrokenRule {
            rule: RULE_COMPLETED_AT,
            message: format!("completed_at {c} is before created_at {}", t.created_at),
        });
    }
    out
}

/// The rule `rule` of [`TASK_RULES`], alone: the violation when `t` breaks it.
pub fn check_task_rule(t: &VideoTask, rule: &str) -> Result<(), BrokenRule> {
    match task_violations(t).into_iter().find(|v| v.rule == rule) {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// The spec's rules for any observed task ([`TASK_RULES`]): the first one `t` breaks.
pub fn check_task(t: &VideoTask) -> Result<(), BrokenRule> {
    match task_violations(t).into_iter().next() {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// The decisions' rules on top of [`check_task`]: the id form, `task_id` = `id`, a queued task
/// at progress 0, a completed task with `completed_at`, `video_url` and `metadata.url`, and a
/// failed or error task with `error{code,message}`.
pub fn check_task_decisions(t: &VideoTask) -> Result<(), BrokenRule> {
    check_task_decisions_in(t, Profile::Documented)
}

/// [`check_task_decisions`] as `profile` decides it: in `new-api` a completed task carries its
/// URL in `metadata.url` only (dto/openai_video.go OpenAIVideo has no top-level `video_url`,
/// DECISIONS NA3); a `video_url`, when present, must still equal it.
///
/// ```
/// use gatecheck_schemas::rules::video::check_task_decisions_in;
/// use gatecheck_schemas::types::VideoTask;
/// use gatecheck_schemas::Profile;
/// let t: VideoTask = serde_json::from_value(serde_json::json!({
///     "id": "task_0123456789abcdef0123456789abcdef", "task_id": "task_0123456789abcdef0123456789abcdef",
///     "object": "video", "model": "sora-2", "status": "completed", "progress": 100,
///     "created_at": 1, "completed_at": 2, "metadata": {"url": "http://x/v1/videos/t/content"}
/// })).unwrap();
/// assert!(check_task_decisions_in(&t, Profile::NewApi).is_ok());
/// assert!(check_task_decisions_in(&t, Profile::Documented).is_err());
/// ```
pub fn check_task_decisions_in(t: &VideoTask, profile: Profile) -> Result<(), BrokenRule> {
    check_task_decisions_named(t, crate::NamedProfile::new(profile, crate::Era::Adaptors))
}

/// [`check_task_decisions_in`] for a named profile: new-api's plugin era
/// ([`crate::NamedProfile::NEW_API`]) shows no `task_id` (one, when present, must still equal
/// `id`) and no result URL at all, the host having removed `metadata.url` (DECISIONS D-ERA-2,
/// D-ERA-3).
///
/// ```
/// use gatecheck_schemas::rules::video::check_task_decisions_named;
/// use gatecheck_schemas::types::VideoTask;
/// use gatecheck_schemas::NamedProfile;
/// let t: VideoTask = serde_json::from_value(serde_json::json!({
///     "id": "task_0123456789abcdef0123456789abcdef", "object": "video", "model": "sora-2",
///     "status": "completed", "progress": 100, "created_at": 1, "completed_at": 2
/// })).unwrap();
/// assert!(check_task_decisions_named(&t, NamedProfile::NEW_API).is_ok());
/// assert!(check_task_decisions_named(&t, NamedProfile::NEW_API_ADAPTORS).is_err());
/// ```
pub fn check_task_decisions_named(
    t: &VideoTask,
    named: crate::NamedProfile,
) -> Result<(), BrokenRule> {
    let plugins = named.profile == Profile::NewApi && named.effective_era() == crate::Era::Plugins;
    let profile = named.profile;
    check_task(t)?;
    if !is_task_id(&t.id) {
        return violation("video.id_format", format!("id {:?}", t.id));
    }
    if t.task_id != t.id && !(plugins && t.task_id.is_empty()) {
        return violation(
            "video.task_id",
            format!("task_id {:?} != id {:?}", t.task_id, t.id),
        );
    }
    match t.status {
        VideoStatus::Queued if t.progress != 0 => violation(
            "video.queued_progress",
            format!("queued with progress {}", t.progress),
        ),
        VideoStatus::Completed => {
            if t.completed_at.is_none() {
                return violation("video.completed_fields", "completed without completed_at");
            }
            let meta_url = t
                .metadata
                .as_ref()
                .and_then(|m| m.get("url"))
                .and_then(|u| u.as_str());
            match (&t.video_url, meta_url) {
                (None, None) if plugins => Ok(()),
                (Some(v), Some(m)) if !v.is_empty() && v == m => Ok(()),
                (None, Some(m)) if profile == Profile::NewApi && !m.is_empty() => Ok(()),
                _ => violation(
                    "video.completed_fields",
                    "completed without video_url equal to metadata.url",
                ),
            }
        }
        VideoStatus::Failed | VideoStatus::Error => match &t.error {
            Some(e) if !e.code.is_empty() && !e.message.is_empty() => Ok(()),
            _ => violation(
                "video.error_fields",
                "failed or error task without error{code,message}",
            ),
        },
        _ => Ok(()),
    }
}

/// The keys of OpenAI's `VideoResource` (openai/openai-openapi openapi.yaml) that are required
/// but may be `null`: the documented profile always carries them, `null` when unknown;
/// new-api's dto/openai_video.go leaves an unset one out (`omitempty`, and it has no `prompt`
/// at all). DECISIONS D-ROUTE-4.
pub const OPENAI_NULLABLE_KEYS: [&str; 5] = [
    "completed_at",
    "expires_at",
    "prompt",
    "remixed_from_video_id",
    "error",
];

/// The keys of [`OPENAI_NULLABLE_KEYS`] that the JSON video object `body` lacks (a key whose
/// value is `null` is present).
///
/// ```
/// use gatecheck_schemas::rules::video::missing_openai_keys;
/// let body = serde_json::json!({"id": "task_1", "completed_at": null, "expires_at": null,
///     "prompt": "a boat", "error": null});
/// assert_eq!(missing_openai_keys(&body), ["remixed_from_video_id"]);
/// ```
pub fn missing_openai_keys(body: &serde_json::Value) -> Vec<&'static str> {
    let Some(object) = body.as_object() else {
        return OPENAI_NULLABLE_KEYS.to_vec();
    };
    OPENAI_NULLABLE_KEYS
        .into_iter()
        .filter(|k| !object.contains_key(*k))
        .collect()
}

/// How `GET /v1/videos/{task_id}/content` answers a task in `status`: `None` when it serves the
/// video (a completed task), else the rejection (DECISIONS: Video tasks, content route).
///
/// ```
/// use gatecheck_schemas::rules::{video::content_rejection, Rejection};
/// use gatecheck_schemas::types::VideoStatus;
/// assert_eq!(content_rejection(VideoStatus::Completed), None);
/// assert_eq!(content_rejection(VideoStatus::Queued), Some(Rejection::Validation));
/// ```
pub fn content_rejection(status: VideoStatus) -> Option<Rejection> {
    (status != VideoStatus::Completed).then_some(Rejection::Validation)
}

/// The create response: status `queued` and progress 0 (spec), plus [`check_task`].
pub fn check_created(t: &VideoTask) -> Result<(), BrokenRule> {
    check_task(t)?;
    if t.status != VideoStatus::Queued || t.progress != 0 {
        return violation(
            "video.created_queued",
            format!(
                "created with status {} progress {}",
                t.status.as_str(),
                t.progress
            ),
        );
    }
    Ok(())
}

/// Rules between two successive polls of the same task: identity fields do not change, the
/// status never goes back (queued → in_progress → terminal), progress never decreases, and a
/// terminal task never changes again.
pub fn check_transition(prev: &VideoTask, next: &VideoTask) -> Result<(), BrokenRule> {
    if prev.id != next.id || prev.model != next.model || prev.created_at != next.created_at {
        return violation("video.identity_stable", "id, model or created_at changed");
    }
    if prev.status.is_terminal() {
        if next.status != prev.status
            || next.progress != prev.progress
            || next.completed_at != prev.completed_at
        {
            return violation(
                "video.terminal_stable",
                format!(
                    "terminal {} ({}%) became {} ({}%)",
                    prev.status.as_str(),
                    prev.progress,
                    next.status.as_str(),
                    next.progress
                ),
            );
        }
        return Ok(());
    }
    if rank(next.status) < rank(prev.status) {
        return violation(
            "video.status_order",
            format!(
                "{} went back to {}",
                prev.status.as_str(),
                next.status.as_str()
            ),
        );
    }
    if next.progress < prev.progress {
        return violation(
            "video.progress_monotonic",
            format!("progress fell from {} to {}", prev.progress, next.progress),
        );
    }
    Ok(())
}

/// The status words other gateways write for a video task that is still running, beside
/// new-api's own `queued` and `in_progress`.
pub const FOREIGN_PENDING_STATUSES: [&str; 2] = ["processing", "pending"];

/// Whether a polled status word means the video task is still running (a poller keeps
/// polling): `queued`, `in_progress`, or one of [`FOREIGN_PENDING_STATUSES`].
///
/// ```
/// use gatecheck_schemas::rules::video::is_pending_status;
/// assert!(is_pending_status("in_progress") && is_pending_status("pending"));
/// assert!(!is_pending_status("completed") && !is_pending_status("SUCCESS"));
/// ```
pub fn is_pending_status(word: &str) -> bool {
    [VideoStatus::Queued, VideoStatus::InProgress]
        .iter()
        .any(|s| s.as_str() == word)
        || FOREIGN_PENDING_STATUSES.contains(&word)
}
