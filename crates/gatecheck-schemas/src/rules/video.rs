//! The video task lifecycle: a pure model of when a task is queued, in progress or terminal,
//! and (in `video/observed.rs`, re-exported here) the invariants every observed task and
//! every pair of successive polls must satisfy.
//!
//! The mock computes a task's state from its [`VideoPlan`] and the clock with [`state_at`];
//! the conformance runner checks what a target answers with [`check_task`],
//! [`check_task_decisions`], [`check_created`] and [`check_transition`].
//!
//! ```
//! use gatecheck_schemas::rules::video::{plan, state_at, VideoOutcome, VideoTiming};
//! use gatecheck_schemas::types::VideoStatus;
//!
//! let timing = VideoTiming { queued_seconds: 5.0, in_progress_seconds_per_video_second: 2.5,
//!                            min_in_progress_seconds: 10.0 };
//! let p = plan(0, 4, &timing, VideoOutcome::Completed, None);
//! assert_eq!(state_at(&p, 0).status, VideoStatus::Queued);
//! assert_eq!(state_at(&p, 10_000).status, VideoStatus::InProgress);
//! let done = state_at(&p, 15_000);
//! assert_eq!((done.status, done.progress, done.completed_at), (VideoStatus::Completed, 100, Some(15)));
//! ```

use serde::{Deserialize, Serialize};

use crate::types::{VideoStatus, VideoTaskError};
use crate::Profile;

mod observed;
pub use observed::{
    check_created, check_task, check_task_decisions, check_task_decisions_in,
    check_task_decisions_named, check_task_rule, check_transition, content_rejection,
    is_pending_status, is_task_id, missing_openai_keys, task_violations, BrokenRule,
    FOREIGN_PENDING_STATUSES, OPENAI_NULLABLE_KEYS, RULE_COMPLETED_AT, RULE_OBJECT,
    RULE_PROGRESS_100, RULE_PROGRESS_RANGE, TASK_RULES,
};

/// How long each phase of a task lasts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VideoTiming {
    /// Time in `queued`, seconds.
    pub queued_seconds: f64,
    /// Time in `in_progress` per second of requested video.
    pub in_progress_seconds_per_video_second: f64,
    /// Lower bound of the time in `in_progress`, seconds.
    pub min_in_progress_seconds: f64,
}

/// The terminal state a task ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoOutcome {
    /// Ends `completed`, progress 100.
    Completed,
    /// Ends `failed`, with an error.
    Failed,
    /// Ends `error`, with an error.
    Error,
}

impl VideoOutcome {
    /// The terminal status.
    pub fn status(self) -> VideoStatus {
        match self {
            Self::Completed => VideoStatus::Completed,
            Self::Failed => VideoStatus::Failed,
            Self::Error => VideoStatus::Error,
        }
    }

    /// Parses `completed`, `failed` or `error`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "completed" => Some(Self::Completed),
            "failed" => Some(Self::Failed),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

/// A fixture rule: a prompt containing `prompt_contains` ends in `outcome`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeRule {
    /// Substring to look for in the prompt.
    pub prompt_contains: String,
    /// The outcome when it is found.
    pub outcome: VideoOutcome,
    /// Error code of a failed or error task.
    #[serde(default)]
    pub code: String,
    /// Error message of a failed or error task.
    #[serde(default)]
    pub message: String,
}

/// The polling hint header of a video task's answers: the milliseconds a client waits before
/// it polls again ([`VideoConfig::poll_after_ms`]).
pub const POLL_AFTER_HEADER: &str = "openai-poll-after-ms";

/// The video configuration: the shape of `fixtures/video.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoConfig {
    /// Phase durations.
    pub timing: VideoTiming,
    /// The [`POLL_AFTER_HEADER`] hint.
    pub poll_after_ms: u64,
    /// Prompt rules, first match wins.
    #[serde(default)]
    pub outcomes: Vec<OutcomeRule>,
    /// The outcome when no rule matches.
    pub default_outcome: VideoOutcome,
}

impl VideoConfig {
    /// The outcome (and error, for failed and error) of a task with this prompt.
    pub fn outcome_for(&self, prompt: &str) -> (VideoOutcome, Option<VideoTaskError>) {
        match self
            .outcomes
            .iter()
            .find(|r| !r.prompt_contains.is_empty() && prompt.contains(&r.prompt_contains))
        {
            Some(r) => (r.outcome, error_for(r.outcome, &r.code, &r.message)),
            None => (
                self.default_outcome,
                error_for(self.default_outcome, "", ""),
            ),
        }
    }

    /// The plan of a task created at `created_at_ms` for `seconds` of video with `prompt`.
    pub fn plan(&self, created_at_ms: i64, seconds: i64, prompt: &str) -> VideoPlan {
        let (outcome, error) = self.outcome_for(prompt);
        plan(created_at_ms, seconds, &self.timing, outcome, error)
    }
}

/// The error of a failed or error task, with defaults for empty code or message.
pub fn error_for(outcome: VideoOutcome, code: &str, message: &str) -> Option<VideoTaskError> {
    let (dc, dm) = match outcome {
        VideoOutcome::Completed => return None,
        VideoOutcome::Failed => (
            "video_generation_failed",
            "The video could not be generated.",
        ),
        VideoOutcome::Error => ("internal_error", "The video task ended in an error."),
    };
    Some(VideoTaskError {
        code: if code.is_empty() { dc } else { code }.to_string(),
        message: if message.is_empty() { dm } else { message }.to_string(),
    })
}

/// When a task changes state. All times are milliseconds of the mock's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoPlan {
    /// Creation time.
    pub created_at_ms: i64,
    /// When it leaves `queued`.
    pub started_at_ms: i64,
    /// When a completed task would finish; progress is scaled to this.
    pub run_end_ms: i64,
    /// When it becomes terminal (`run_end_ms` for completed tasks, earlier for failures).
    pub finish_at_ms: i64,
    /// Its terminal state.
    pub outcome: VideoOutcome,
    /// The error of a failed or error task.
    pub error: Option<VideoTaskError>,
}

fn secs_to_ms(s: f64) -> i64 {
    if s.is_finite() && s > 0.0 {
        (s * 1000.0).round().min(1e15) as i64
    } else {
        0
    }
}

/// Plans a task: `queued` for `queued_seconds`, then `in_progress` for
/// max(`min_in_progress_seconds`, seconds × `in_progress_seconds_per_video_second`); a
/// completed task finishes at the end of that, a failed or error task halfway through it.
pub fn plan(
    created_at_ms: i64,
    seconds: i64,
    timing: &VideoTiming,
    outcome: VideoOutcome,
    error: Option<VideoTaskError>,
) -> VideoPlan {
    let started = created_at_ms.saturating_add(secs_to_ms(timing.queued_seconds));
    let run = secs_to_ms(timing.min_in_progress_seconds).max(secs_to_ms(
        timing.in_progress_seconds_per_video_second * seconds.max(0) as f64,
    ));
    let run_end = started.saturating_add(run);
    let finish = match outcome {
        VideoOutcome::Completed => run_end,
        _ => started.saturating_add(run / 2),
    };
    VideoPlan {
        created_at_ms,
        started_at_ms: started,
        run_end_ms: run_end,
        finish_at_ms: finish,
        outcome,
        error,
    }
}

/// The observable state of a task at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoState {
    /// Status.
    pub status: VideoStatus,
    /// 0..=100; 100 exactly when completed.
    pub progress: i64,
    /// Unix seconds, when completed.
    pub completed_at: Option<i64>,
    /// The error, when failed or error.
    pub error: Option<VideoTaskError>,
}

fn running_progress(p: &VideoPlan, now_ms: i64) -> i64 {
    let span = (p.run_end_ms - p.started_at_ms).max(1);
    let done = (now_ms - p.started_at_ms).clamp(0, span);
    ((done as i128 * 100) / span as i128).clamp(0, 99) as i64
}

/// The state of the task at `now_ms`. Progress never decreases as `now_ms` grows, it is 100
/// exactly when completed, and once terminal the state never changes.
pub fn state_at(p: &VideoPlan, now_ms: i64) -> VideoState {
    if now_ms >= p.finish_at_ms {
        let status = p.outcome.status();
        let (progress, completed_at) = match p.outcome {
            VideoOutcome::Completed => (100, Some(p.finish_at_ms.div_euclid(1000))),
            _ => (running_progress(p, p.finish_at_ms), None),
        };
        return VideoState {
            status,
            progress,
            completed_at,
            error: p.error.clone(),
        };
    }
    if now_ms < p.started_at_ms {
        return VideoState {
            status: VideoStatus::Queued,
            progress: 0,
            completed_at: None,
            error: None,
        };
    }
    VideoState {
        status: VideoStatus::InProgress,
        progress: running_progress(p, now_ms),
        completed_at: None,
        error: None,
    }
}

/// The progress a task in `state` shows under `profile`: new-api's poller writes `"100%"` on
/// `FAILURE` as on `SUCCESS` (service/task_polling.go updateVideoSingleTask: `task.Progress =
/// taskcommon.ProgressComplete` in both branches), and the OpenAI video object copies it; the
/// documented profile keeps a failed task at the progress it had (DECISIONS D-TASK-2). The spec's
/// "100 when completed" does not forbid 100 on a failure.
///
/// ```
/// use gatecheck_schemas::rules::video::{shown_progress, VideoState};
/// use gatecheck_schemas::types::VideoStatus;
/// use gatecheck_schemas::Profile;
/// let failed = VideoState { status: VideoStatus::Failed, progress: 40, completed_at: None, error: None };
/// assert_eq!(shown_progress(&failed, Profile::NewApi), 100);
/// assert_eq!(shown_progress(&failed, Profile::Documented), 40);
/// let running = VideoState { status: VideoStatus::InProgress, ..failed };
/// assert_eq!(shown_progress(&running, Profile::NewApi), 40);
/// ```
pub fn shown_progress(state: &VideoState, profile: Profile) -> i64 {
    match (state.status, profile) {
        (VideoStatus::Failed | VideoStatus::Error, Profile::NewApi) => 100,
        _ => state.progress,
    }
}

/// Why an outcome override was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    /// The task is already terminal; terminal states never change.
    #[error("the task is already {0}; terminal states never change")]
    AlreadyTerminal(&'static str),
}

/// Changes the outcome of a task that is not terminal yet. With `immediate`, the task becomes
/// terminal at `now_ms`; otherwise it keeps its schedule (a failure never ends before `now_ms`,
/// so progress already observed never goes backwards).
pub fn override_outcome(
    p: &VideoPlan,
    now_ms: i64,
    outcome: VideoOutcome,
    error: Option<VideoTaskError>,
    immediate: bool,
) -> Result<VideoPlan, OverrideError> {
    let current = state_at(p, now_ms);
    if current.status.is_terminal() {
        return Err(OverrideError::AlreadyTerminal(current.status.as_str()));
    }
    let scheduled = match outcome {
        VideoOutcome::Completed => p.run_end_ms,
        _ => p.started_at_ms + (p.run_end_ms - p.started_at_ms) / 2,
    };
    let finish = if immediate {
        now_ms
    } else {
        scheduled.max(now_ms)
    };
    Ok(VideoPlan {
        finish_at_ms: finish,
        outcome,
        error: match outcome {
            VideoOutcome::Completed => None,
            _ => error.or_else(|| error_for(outcome, "", "")),
        },
        ..p.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::VideoTask;

    fn timing() -> VideoTiming {
        VideoTiming {
            queued_seconds: 5.0,
            in_progress_seconds_per_video_second: 2.5,
            min_in_progress_seconds: 10.0,
        }
    }

    fn task(p: &VideoPlan, now: i64) -> VideoTask {
        let s = state_at(p, now);
        let url = "http://x/v1/videos/task_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/content".to_string();
        let completed = s.status == VideoStatus::Completed;
        VideoTask {
            id: "task_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".into(),
            task_id: "task_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".into(),
            object: "video".into(),
            model: "sora-2".into(),
            status: s.status,
            progress: s.progress,
            created_at: p.created_at_ms / 1000,
            completed_at: s.completed_at,
            video_url: completed.then(|| url.clone()),
            seconds: Some("4".into()),
            size: Some("720x1280".into()),
            error: s.error,
            metadata: completed.then(|| serde_json::json!({ "url": url })),
            expires_at: None,
            prompt: None,
            remixed_from_video_id: None,
            openai_nulls: false,
        }
    }

    #[test]
    fn every_outcome_walks_the_lifecycle_monotonically() {
        for outcome in [
            VideoOutcome::Completed,
            VideoOutcome::Failed,
            VideoOutcome::Error,
        ] {
            for secs in [0, 1, 4, 12, 60] {
                let created = 1_700_000_000_123;
                let p = plan(
                    created,
                    secs,
                    &timing(),
                    outcome,
                    error_for(outcome, "", ""),
                );
                let mut prev = task(&p, created);
                check_created(&prev).expect("created");
                for step in 1..400 {
                    let next = task(&p, created + step * 397);
                    check_task_decisions(&next).expect("task");
                    check_transition(&prev, &next).expect("transition");
                    prev = next;
                }
                assert_eq!(prev.status, outcome.status());
            }
        }
    }

    #[test]
    fn overrides_never_rewind_and_never_touch_terminal_tasks() {
        let p = plan(0, 8, &timing(), VideoOutcome::Completed, None);
        let at = 15_000; // in progress, past the failure midpoint
        let before = task(&p, at);
        let q = override_outcome(&p, at, VideoOutcome::Failed, None, false).expect("running");
        let after = task(&q, at + 1);
        check_transition(&before, &after).expect("monotone");
        assert_eq!(after.status, VideoStatus::Failed);
        assert!(override_outcome(&q, at + 1, VideoOutcome::Completed, None, true).is_err());
        let r = override_outcome(&p, 0, VideoOutcome::Completed, None, true).expect("queued");
        assert_eq!(state_at(&r, 0).progress, 100);
    }

    #[test]
    fn checkers_catch_broken_tasks() {
        let p = plan(0, 4, &timing(), VideoOutcome::Completed, None);
        let done = task(&p, 100_000);
        let mut back = done.clone();
        back.status = VideoStatus::InProgress;
        back.progress = 50;
        assert_eq!(
            check_transition(&done, &back).unwrap_err().rule,
            "video.terminal_stable"
        );
        let mut bad = done.clone();
        bad.progress = 99;
        assert!(check_task(&bad).is_err());
        let mut no_url = done;
        no_url.video_url = None;
        assert!(check_task(&no_url).is_ok());
        assert!(check_task_decisions(&no_url).is_err());
        assert!(is_task_id("task_0123456789abcdefABCDEF0123456789"));
        assert!(!is_task_id("task_short"));
    }

    fn outcome_of(k: u8) -> VideoOutcome {
        [
            VideoOutcome::Completed,
            VideoOutcome::Failed,
            VideoOutcome::Error,
        ][usize::from(k % 3)]
    }

    proptest::proptest! {
        /// For any timing, duration, outcome, poll times and (optional) override, every
        /// observed task and every pair of successive polls satisfies the invariants, and the
        /// task ends in its (possibly overridden) outcome.
        #[test]
        fn any_schedule_satisfies_the_invariants(
            queued in 0.0f64..100.0,
            per in 0.0f64..10.0,
            min in 0.0f64..100.0,
            secs in 0i64..120,
            outcome in 0u8..3,
            mut times in proptest::collection::vec(0i64..2_000_000, 1..40),
            change in proptest::option::of((0i64..2_000_000, 0u8..3, proptest::bool::ANY)),
        ) {
            let timing = VideoTiming {
                queued_seconds: queued,
                in_progress_seconds_per_video_second: per,
                min_in_progress_seconds: min,
            };
            let o = outcome_of(outcome);
            let mut p = plan(0, secs, &timing, o, error_for(o, "", ""));
            let mut expected = o;
            times.sort_unstable();
            let mut prev = task(&p, 0);
            check_created(&prev).map_err(|v| proptest::test_runner::TestCaseError::fail(v.to_string()))?;
            let mut pending = change;
            for t in times {
                if let Some((at, k, immediate)) = pending
                    && at <= t {
                        pending = None;
                        if let Ok(q) = override_outcome(&p, at, outcome_of(k), None, immediate) {
                            p = q;
                            expected = outcome_of(k);
                        }
                    }
                let next = task(&p, t);
                check_task_decisions(&next).map_err(|v| proptest::test_runner::TestCaseError::fail(v.to_string()))?;
                check_transition(&prev, &next).map_err(|v| proptest::test_runner::TestCaseError::fail(v.to_string()))?;
                prev = next;
            }
            let end = task(&p, i64::MAX / 4);
            proptest::prop_assert_eq!(end.status, expected.status());
            check_transition(&prev, &end).map_err(|v| proptest::test_runner::TestCaseError::fail(v.to_string()))?;
        }
    }

    #[test]
    fn fixture_rules_pick_outcomes() {
        let cfg = VideoConfig {
            timing: timing(),
            poll_after_ms: 10,
            outcomes: vec![OutcomeRule {
                prompt_contains: "[fail]".into(),
                outcome: VideoOutcome::Failed,
                code: "x".into(),
                message: String::new(),
            }],
            default_outcome: VideoOutcome::Completed,
        };
        assert_eq!(cfg.outcome_for("a cat").0, VideoOutcome::Completed);
        let (o, e) = cfg.outcome_for("a [fail] cat");
        assert_eq!(o, VideoOutcome::Failed);
        assert_eq!(e.map(|e| e.code), Some("x".into()));
    }
}
