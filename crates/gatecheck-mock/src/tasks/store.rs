//! The one store of every task of a mock: video tasks, the task routes' table, Midjourney
//! tasks and Kling callbacks, with their reset, dump and load.
//!
//! # Lock discipline
//!
//! Each part guards its own data with one `parking_lot` mutex, taken inside its own methods
//! for a few map operations and released before they return: no guard leaves a part, none is
//! held across an `.await` (a callback's POST is sent after [`TaskStore::take_due_callbacks`]
//! has returned), and no part calls another while it holds its lock. Two locks are held at
//! once in one place only, [`TaskStore::take_due_callbacks`]: the callbacks' wait list, then
//! the video store, always in that order.
//!
//! # Bounds
//!
//! Every part keeps today's caps: [`DEFAULT_MAX_VIDEO_TASKS`] video tasks (the oldest
//! terminal one goes first) and [`PROMPT_BUDGET_BYTES`] of their prompts, as many route-table
//! entries, [`MAX_MJ_TASKS`] Midjourney tasks, [`MAX_PENDING`] waiting callbacks and the last
//! [`MAX_RECORDS`] callback outcomes.
//!
//! [`DEFAULT_MAX_VIDEO_TASKS`]: super::video::DEFAULT_MAX_VIDEO_TASKS
//! [`PROMPT_BUDGET_BYTES`]: super::video::PROMPT_BUDGET_BYTES
//! [`MAX_MJ_TASKS`]: super::midjourney::MAX_MJ_TASKS
//! [`MAX_PENDING`]: super::callbacks::MAX_PENDING
//! [`MAX_RECORDS`]: super::callbacks::MAX_RECORDS

use std::sync::Arc;

use super::callbacks::{Callbacks, PendingCallback};
use super::midjourney::{MjStore, MjTask};
use super::unified::{TaskMetaEntry, TaskMetas};
use super::video::{StoredVideo, VideoSnapshot, VideoStore};

/// Every task of one mock, and all the mock keeps about them.
#[derive(Debug)]
pub(crate) struct TaskStore {
    /// Video tasks: those of `/v1/videos` and every task of the task routes (Kling, Jimeng,
    /// remix), with the settlement of failed tasks' charges.
    pub(crate) videos: VideoStore,
    /// What the task routes add to video tasks (DECISIONS D-TASK).
    pub(crate) meta: TaskMetas,
    /// Midjourney tasks (owned by the `/mj` routes; DECISIONS D-MJ).
    pub(crate) mj: MjStore,
    /// Kling callbacks (DECISIONS D-TASK-9).
    pub(crate) callbacks: Callbacks,
}

/// The tasks' part of a [`crate::StateSnapshot`], in its fields' words.
#[derive(Debug, Default)]
pub(crate) struct TaskDump {
    /// Video tasks.
    pub(crate) videos: VideoSnapshot,
    /// The task routes' table.
    pub(crate) task_meta: Vec<TaskMetaEntry>,
    /// Kling callbacks still waiting for their task.
    pub(crate) callbacks: Vec<PendingCallback>,
    /// Midjourney tasks.
    pub(crate) mj_tasks: Vec<MjTask>,
}

impl TaskStore {
    /// No task yet; callbacks may go to loopback and to `callback_allow`.
    pub(crate) fn new(callback_allow: &[String]) -> Self {
        Self {
            videos: VideoStore::default(),
            meta: TaskMetas::default(),
            mj: MjStore::default(),
            callbacks: Callbacks::new(callback_allow),
        }
    }

    /// Forgets every task, table entry, waiting callback and callback outcome (a reset).
    pub(crate) fn reset(&self) {
        self.videos.reset();
        self.mj.reset();
        self.meta.clear();
        self.callbacks.clear();
    }

    /// Every task as the state dump holds it.
    pub(crate) fn dump(&self) -> TaskDump {
        TaskDump {
            videos: self.videos.snapshot(),
            mj_tasks: self.mj.snapshot(),
            task_meta: self.meta.snapshot(),
            callbacks: self.callbacks.waiting(),
        }
    }

    /// Replaces every task with those of `dump` (loaded at `now_ms`: waiting callbacks past
    /// their bound are kept as refused outcomes of that time).
    pub(crate) fn load(&self, dump: TaskDump, now_ms: i64) {
        self.meta.restore(dump.task_meta);
        self.callbacks.restore(dump.callbacks, now_ms);
        self.videos.restore(dump.videos);
        self.mj.restore(dump.mj_tasks);
    }

    /// The refunds due at `now_ms`, as `(key id, quota)` (see [`VideoStore::settle`]).
    pub(crate) fn settle(&self, now_ms: i64) -> Vec<(i64, i64)> {
        self.videos.settle(now_ms)
    }

    /// Takes off the wait list the callbacks whose task has ended at `now_ms` or is gone,
    /// each with its task as it stands (`None`: gone).
    pub(crate) fn take_due_callbacks(
        &self,
        now_ms: i64,
    ) -> Vec<(PendingCallback, Option<Arc<StoredVideo>>)> {
        self.callbacks
            .take_due(|p| match self.videos.get_any(&p.task_id) {
                Some(t) if !t.status_at(now_ms).is_terminal() => None,
                task => Some(task),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::midjourney::MJ_PLAN_SECONDS;
    use crate::tasks::unified::TaskMeta;
    use gatecheck_schemas::rules::task::ACTION_REMIX;
    use gatecheck_schemas::rules::video::{plan, VideoOutcome};

    fn video(id: &str) -> StoredVideo {
        let cfg = crate::Fixtures::embedded().video;
        StoredVideo {
            id: id.into(),
            owner: 1,
            model: "sora-2".into(),
            seconds: 4,
            size: "720x1280".into(),
            plan: plan(0, 4, &cfg.timing, VideoOutcome::Completed, None),
            prompt: None,
            remixed_from_video_id: None,
            key_id: 0,
            charged: 0,
        }
    }

    /// One of each: a video task, its table entry, a Midjourney task, a waiting callback.
    fn filled() -> TaskStore {
        let store = TaskStore::new(&[]);
        let t = store.videos.insert(video("task_a"), 0);
        let meta = TaskMeta {
            remixed_from: Some("task_src".into()),
            ..TaskMeta::sora(&t, ACTION_REMIX)
        };
        store.meta.insert(&t.id, meta);
        let cfg = crate::Fixtures::embedded().video;
        store.mj.insert(MjTask {
            id: "1".into(),
            owner: 1,
            action: "IMAGINE".into(),
            prompt: "a cat".into(),
            plan: cfg.plan(0, MJ_PLAN_SECONDS, "a cat"),
            quota: 0,
        });
        store
            .callbacks
            .queue("task_a", "http://127.0.0.1:9/hook")
            .expect("a loopback callback waits");
        store
    }

    #[test]
    fn a_dump_holds_every_part_and_loads_back_after_a_reset() {
        let store = filled();
        let dump = store.dump();
        assert_eq!(
            (
                dump.videos.tasks.len(),
                dump.task_meta.len(),
                dump.mj_tasks.len(),
                dump.callbacks.len()
            ),
            (1, 1, 1, 1)
        );
        store.reset();
        let empty = store.dump();
        assert!(empty.videos.tasks.is_empty() && empty.task_meta.is_empty());
        assert!(empty.mj_tasks.is_empty() && empty.callbacks.is_empty());
        let (videos, task_meta) = (dump.videos.clone(), dump.task_meta.clone());
        let (mj_tasks, callbacks) = (dump.mj_tasks.clone(), dump.callbacks.clone());
        store.load(dump, 0);
        let again = store.dump();
        assert_eq!(again.videos, videos);
        assert_eq!(again.task_meta, task_meta);
        assert_eq!(again.mj_tasks, mj_tasks);
        assert_eq!(again.callbacks, callbacks);
        let t = store.videos.get_any("task_a").expect("the task");
        assert_eq!(store.meta.remixed_from(&t).as_deref(), Some("task_src"));
    }

    #[test]
    fn due_callbacks_are_those_whose_task_ended_or_is_gone() {
        let store = filled();
        store
            .callbacks
            .queue("task_gone", "http://127.0.0.1:9/other")
            .expect("queued");
        // At 0 the task runs: only the callback of the unknown task is due, without a task.
        let due = store.take_due_callbacks(0);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].0.task_id, "task_gone");
        assert!(due[0].1.is_none());
        let end = store
            .videos
            .get_any("task_a")
            .expect("task")
            .plan
            .finish_at_ms;
        assert!(store.take_due_callbacks(end - 1).is_empty());
        let due = store.take_due_callbacks(end);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].1.as_ref().map(|t| t.id.as_str()), Some("task_a"));
        assert!(store.callbacks.waiting().is_empty());
    }
}
