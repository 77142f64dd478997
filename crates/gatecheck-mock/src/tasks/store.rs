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
