//! Midjourney tasks: the store the `/mj/*` routes read and write (DECISIONS D-MJ).
//!
//! A task is stored with its [`VideoPlan`], the plan of a video task of 4 seconds with the
//! same prompt rules (`fixtures/video.json`): its state at any instant comes from the mock
//! clock ([`gatecheck_schemas::rules::video::state_at`]), so the virtual clock drives it as it
//! drives `/v1/videos`, and the outcome override works the same way. The store is bounded:
//! past [`MAX_MJ_TASKS`] the oldest task is evicted.
//!
//! Every task, with its plan (its times and any forced outcome), is part of the state dump
//! ([`crate::StateSnapshot::mj_tasks`]): a restart with `--state-file` or a `PUT /__mock/state`
//! keeps it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use gatecheck_schemas::rules::midjourney::record_status;
use gatecheck_schemas::rules::video::{override_outcome, state_at, VideoOutcome, VideoPlan};
use gatecheck_schemas::types::{VideoStatus, VideoTaskError};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// How many Midjourney tasks the store keeps at most.
pub const MAX_MJ_TASKS: usize = 10_000;

/// The seconds of video a Midjourney task is planned as (its run time on the clock).
pub const MJ_PLAN_SECONDS: i64 = 4;

/// One stored task (as the state dump writes it, too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MjTask {
    /// 16 digits, as midjourney-proxy numbers its tasks.
    pub id: String,
    /// The user whose key submitted it; others get `task_no_found`.
    pub owner: i64,
    /// IMAGINE, UPSCALE, ...
    pub action: String,
    /// The prompt (a derivative task's is its origin's).
    pub prompt: String,
    /// Its schedule and outcome.
    pub plan: VideoPlan,
    /// What the submit was charged (0 when nothing): what a refund would give back.
    pub quota: i64,
}

impl MjTask {
    /// The status of the task at `now_ms`.
    pub fn status_at(&self, now_ms: i64) -> VideoStatus {
        state_at(&self.plan, now_ms).status
    }

    /// The task record at `now_ms` (new-api's MidjourneyDto), with `imageUrl` under `base`
    /// once the task succeeded.
    pub fn record(&self, now_ms: i64, base: &str) -> Value {
        let s = state_at(&self.plan, now_ms);
        let status = record_status(s.status);
        let started = now_ms >= self.plan.started_at_ms;
        let terminal = s.status.is_terminal();
        let success = s.status == VideoStatus::Completed;
        let image_url = if success {
            format!("{base}/mj/image/{}", self.id)
        } else {
            String::new()
        };
        let buttons = (success
            && matches!(self.action.as_str(), "IMAGINE" | "VARIATION" | "REROLL"))
        .then(|| self.buttons());
        json!({
            "id": self.id,
            "action": self.action,
            "customId": "",
            "botType": "",
            "prompt": self.prompt,
            "promptEn": self.prompt,
            "description": "Submit success",
            "state": "",
            "submitTime": self.plan.created_at_ms,
            "startTime": if started { self.plan.started_at_ms } else { 0 },
            "finishTime": if terminal { self.plan.finish_at_ms } else { 0 },
            "imageUrl": image_url,
            "videoUrl": "",
            "videoUrls": null,
            "status": status,
            "progress": format!("{}%", s.progress),
            "failReason": s.error.map(|e| e.message).unwrap_or_default(),
            "buttons": buttons,
            "maskBase64": "",
            "properties": null,
        })
    }

    /// U1..U4, V1..V4 and the reroll of a finished grid, as midjourney-proxy lists them.
    fn buttons(&self) -> Value {
        let mut out = Vec::with_capacity(9);
        for (op, label) in [("upsample", "U"), ("variation", "V")] {
            for i in 1..=4 {
                out.push(json!({
                    "customId": format!("MJ::JOB::{op}::{i}::{}", self.id),
                    "emoji": "", "label": format!("{label}{i}"), "type": 2, "style": 2
                }));
            }
        }
        out.push(json!({
            "customId": format!("MJ::JOB::reroll::0::{}::SOLO", self.id),
            "emoji": "🔄", "label": "", "type": 2, "style": 2
        }));
        Value::Array(out)
    }
}

#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<String, Arc<MjTask>>,
    order: VecDeque<String>,
}

/// All Midjourney tasks of the mock.
#[derive(Debug, Default)]
pub struct MjStore {
    inner: Mutex<Inner>,
}

/// Why an outcome override was refused.
#[derive(Debug, thiserror::Error)]
pub enum MjOverrideError {
    /// No such task.
    #[error("no Midjourney task {0}")]
    NotFound(String),
    /// The task is already terminal.
    #[error("{0}")]
    Terminal(String),
}

impl MjStore {
    /// Stores `task`, evicting the oldest past [`MAX_MJ_TASKS`].
    pub fn insert(&self, task: MjTask) {
        let mut inner = self.inner.lock();
        while inner.order.len() >= MAX_MJ_TASKS {
            match inner.order.pop_front() {
                Some(old) => {
                    inner.tasks.remove(&old);
                }
                None => break,
            }
        }
        inner.order.push_back(task.id.clone());
        inner.tasks.insert(task.id.clone(), Arc::new(task));
    }

    /// The task `id` of `owner`.
    pub fn get(&self, id: &str, owner: i64) -> Option<Arc<MjTask>> {
        self.get_any(id).filter(|t| t.owner == owner)
    }

    /// The task `id`, whoever owns it (the image route has no key).
    pub fn get_any(&self, id: &str) -> Option<Arc<MjTask>> {
        self.inner.lock().tasks.get(id).cloned()
    }

    /// Forgets every task.
    pub fn reset(&self) {
        *self.inner.lock() = Inner::default();
    }

    /// Every task, oldest first (for the state dump).
    pub fn snapshot(&self) -> Vec<MjTask> {
        let inner = self.inner.lock();
        inner
            .order
            .iter()
            .filter_map(|id| inner.tasks.get(id).map(|t| MjTask::clone(t)))
            .collect()
    }

    /// Replaces every task with those of a dump, oldest first: the newest [`MAX_MJ_TASKS`]
    /// of them, and of two tasks with one id the first.
    pub fn restore(&self, tasks: Vec<MjTask>) {
        let mut inner = self.inner.lock();
        *inner = Inner::default();
        let skip = tasks.len().saturating_sub(MAX_MJ_TASKS);
        for task in tasks.into_iter().skip(skip) {
            if inner.tasks.contains_key(&task.id) {
                continue;
            }
            inner.order.push_back(task.id.clone());
            inner.tasks.insert(task.id.clone(), Arc::new(task));
        }
    }

    /// How many tasks are stored.
    pub fn len(&self) -> usize {
        self.inner.lock().order.len()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Changes the outcome of a task that is not terminal yet (as `/__mock/videos/{id}/outcome`
    /// does for videos).
    pub fn set_outcome(
        &self,
        id: &str,
        now_ms: i64,
        outcome: VideoOutcome,
        error: Option<VideoTaskError>,
        immediate: bool,
    ) -> Result<Arc<MjTask>, MjOverrideError> {
        let mut inner = self.inner.lock();
        let Some(task) = inner.tasks.get_mut(id) else {
            return Err(MjOverrideError::NotFound(id.to_owned()));
        };
        let plan = override_outcome(&task.plan, now_ms, outcome, error, immediate)
            .map_err(|e| MjOverrideError::Terminal(e.to_string()))?;
        let mut next = MjTask::clone(task);
        next.plan = plan;
        *task = Arc::new(next);
        Ok(task.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str) -> MjTask {
        let cfg = crate::Fixtures::embedded().video;
        MjTask {
            id: id.into(),
            owner: 1,
            action: "IMAGINE".into(),
            prompt: "a cat".into(),
            plan: cfg.plan(0, MJ_PLAN_SECONDS, "a cat"),
            quota: 0,
        }
    }

    #[test]
    fn records_move_to_success_with_an_image_url_and_buttons() {
        let store = MjStore::default();
        store.insert(task("1"));
        let t = store.get("1", 1).unwrap();
        assert!(
            store.get("1", 2).is_none(),
            "another user's task is not found"
        );
        let first = t.record(0, "http://h");
        assert_eq!(
            (first["status"].as_str(), first["progress"].as_str()),
            (Some("SUBMITTED"), Some("0%"))
        );
        let done = t.record(t.plan.finish_at_ms, "http://h");
        assert_eq!(done["status"], "SUCCESS");
        assert_eq!(done["progress"], "100%");
        assert_eq!(done["imageUrl"], "http://h/mj/image/1");
        assert_eq!(done["buttons"].as_array().map(Vec::len), Some(9));
        gatecheck_schemas::rules::midjourney::check_record(&done).unwrap();
    }

    #[test]
    fn the_store_is_bounded_and_outcomes_can_be_forced() {
        let store = MjStore::default();
        for i in 0..MAX_MJ_TASKS + 5 {
            store.insert(task(&i.to_string()));
        }
        assert_eq!(store.len(), MAX_MJ_TASKS);
        assert!(store.get_any("0").is_none());
        let t = store
            .set_outcome("9", 0, VideoOutcome::Failed, None, true)
            .unwrap();
        let r = t.record(0, "");
        assert_eq!(r["status"], "FAILURE");
        gatecheck_schemas::rules::midjourney::check_record(&r).unwrap();
    }

    #[test]
    fn a_dump_keeps_plans_and_forced_outcomes_and_stays_bounded() {
        let store = MjStore::default();
        store.insert(task("1"));
        store.insert(task("2"));
        store
            .set_outcome("2", 0, VideoOutcome::Failed, None, true)
            .unwrap();
        let dump = store.snapshot();
        let json = serde_json::to_string(&dump).unwrap();
        let again = MjStore::default();
        again.restore(serde_json::from_str(&json).unwrap());
        assert_eq!(again.snapshot(), dump);
        assert_eq!(
            again.get("2", 1).unwrap().record(0, "")["status"],
            "FAILURE"
        );
        let many: Vec<MjTask> = (0..MAX_MJ_TASKS + 5)
            .map(|i| task(&i.to_string()))
            .collect();
        again.restore(many);
        assert_eq!(again.len(), MAX_MJ_TASKS);
        assert!(again.get_any("4").is_none() && again.get_any("5").is_some());
        let twice = MjTask {
            prompt: "a dog".into(),
            ..task("1")
        };
        again.restore(vec![task("1"), twice]);
        assert_eq!(again.len(), 1);
        assert_eq!(again.get_any("1").unwrap().prompt, "a cat");
    }
}
