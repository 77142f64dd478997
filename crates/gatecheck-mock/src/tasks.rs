//! What new-api's task routes know of a video task beyond its [`StoredVideo`]: the action,
//! the platform and the remix source (DECISIONS D-TASK).
//!
//! Every task of the task routes is a [`StoredVideo`] in the one [`crate::video::VideoStore`]:
//! one state machine on one clock, with the same outcome controls, faults and billing as
//! `/v1/videos`. This table only adds what the task envelope and remix show. It is bounded
//! like the store (the oldest entry goes first), and an entry applies to a task only when it
//! was made for that very task (same creation time and owner): after a reset the seeded ids
//! repeat, and a stale entry must not dress up a new task.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::video::{StoredVideo, DEFAULT_MAX_VIDEO_TASKS};
use gatecheck_schemas::rules::task::{ACTION_TEXT_GENERATE, PLATFORM_SORA};
use parking_lot::Mutex;

/// The task-route facts of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskMeta {
    /// The task's creation time, ms (to match the entry to its task).
    pub created_at_ms: i64,
    /// The task's owner (to match the entry to its task).
    pub owner: i64,
    /// new-api's action (`textGenerate`, `remixGenerate`...).
    pub action: &'static str,
    /// The channel type as text (`55`...).
    pub platform: &'static str,
    /// The id of the task this one remixes.
    pub remixed_from: Option<String>,
    /// The Kling `callback_url` the client gave.
    pub callback_url: Option<String>,
}

impl TaskMeta {
    /// The facts of a task created on an OpenAI-video route, for `task`.
    pub fn sora(task: &StoredVideo, action: &'static str) -> Self {
        Self {
            created_at_ms: task.plan.created_at_ms,
            owner: task.owner,
            action,
            platform: PLATFORM_SORA,
            remixed_from: None,
            callback_url: None,
        }
    }

    /// The facts of a task made on a provider route (`platform`).
    pub fn provider(task: &StoredVideo, platform: &'static str, action: &'static str) -> Self {
        Self {
            platform,
            ..Self::sora(task, action)
        }
    }

    /// The facts new-api would show for a task of `POST /v1/videos` (no entry).
    pub fn default_for(task: &StoredVideo) -> Self {
        Self::sora(task, ACTION_TEXT_GENERATE)
    }
}

#[derive(Debug, Default)]
struct Inner {
    by_id: hashbrown::HashMap<String, Arc<TaskMeta>>,
    order: VecDeque<String>,
}

/// The table, at most [`DEFAULT_MAX_VIDEO_TASKS`] entries.
#[derive(Debug, Default)]
pub(crate) struct TaskMetas {
    inner: Mutex<Inner>,
    /// Whether any remix was ever recorded: a poll of `/v1/videos/{id}` asks only then (the
    /// poll is the hot path; most mocks never see a remix).
    any_remix: std::sync::atomic::AtomicBool,
}

impl TaskMetas {
    /// Records `meta` for the task `id` (replacing an older entry of that id).
    pub fn insert(&self, id: &str, meta: TaskMeta) {
        if meta.remixed_from.is_some() {
            self.any_remix
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let mut inner = self.inner.lock();
        if inner.by_id.insert(id.to_owned(), Arc::new(meta)).is_some() {
            inner.order.retain(|x| x != id);
        }
        inner.order.push_back(id.to_owned());
        while inner.order.len() > DEFAULT_MAX_VIDEO_TASKS {
            if let Some(old) = inner.order.pop_front() {
                inner.by_id.remove(&old);
            }
        }
    }

    /// The entry made for `task`, if any.
    pub fn get(&self, task: &StoredVideo) -> Option<Arc<TaskMeta>> {
        let found = self.inner.lock().by_id.get(&task.id).cloned()?;
        (found.created_at_ms == task.plan.created_at_ms && found.owner == task.owner)
            .then_some(found)
    }

    /// The id of the task `task` remixes, if it is a remix.
    pub fn remixed_from(&self, task: &StoredVideo) -> Option<String> {
        if !self.any_remix.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        self.get(task).and_then(|m| m.remixed_from.clone())
    }

    /// Number of entries.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.inner.lock().by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecheck_schemas::rules::task::ACTION_REMIX;
    use gatecheck_schemas::rules::video::{plan, VideoOutcome};

    fn task(id: &str, created: i64) -> StoredVideo {
        let cfg = crate::Fixtures::embedded().video;
        StoredVideo {
            id: id.into(),
            owner: 1,
            model: "sora-2".into(),
            seconds: 4,
            size: "720x1280".into(),
            plan: plan(created, 4, &cfg.timing, VideoOutcome::Completed, None),
            prompt: None,
            remixed_from_video_id: None,
            key_id: 0,
            charged: 0,
        }
    }

    #[test]
    fn entries_match_their_own_task_only_and_stay_bounded() {
        let metas = TaskMetas::default();
        let a = task("task_a", 0);
        metas.insert(&a.id, TaskMeta::sora(&a, ACTION_REMIX));
        assert_eq!(metas.get(&a).map(|m| m.action), Some(ACTION_REMIX));
        // The same id made again later (after a reset): the old entry does not apply.
        assert!(metas.get(&task("task_a", 5)).is_none());
        for i in 0..DEFAULT_MAX_VIDEO_TASKS + 10 {
            let t = task(&format!("task_{i}"), 0);
            metas.insert(&t.id, TaskMeta::default_for(&t));
        }
        assert_eq!(metas.len(), DEFAULT_MAX_VIDEO_TASKS);
        assert!(metas.get(&a).is_none());
    }
}
