//! Video tasks: the store the `/v1/videos` routes read and write (owned by the media routes).
//!
//! A task is stored as its [`VideoPlan`] (when it leaves `queued`, when it ends, and how): its
//! state at any instant is computed from the mock clock by
//! [`gatecheck_schemas::rules::video::state_at`], so the virtual clock drives every task at
//! once with no background work. The store is bounded: past [`DEFAULT_MAX_VIDEO_TASKS`] the
//! oldest terminal task is evicted first (the oldest task if none is terminal). Tasks are kept
//! behind an [`Arc`]: a poll takes the lock only to bump a reference count, and renders
//! outside it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

use gatecheck_schemas::rules::refund::refund_on_edge;
use gatecheck_schemas::rules::video::{
    override_outcome, shown_progress, state_at, OverrideError, VideoConfig, VideoOutcome,
    VideoPlan, VideoState,
};
use gatecheck_schemas::types::{VideoStatus, VideoTask, VideoTaskError};
use gatecheck_schemas::Profile;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// `n` in decimal, written into `buf` (an `i64` takes at most 20 bytes).
fn decimal(n: i64, buf: &mut [u8; 20]) -> &str {
    let mut digits = itoa::Buffer::new();
    let text = digits.format(n).as_bytes();
    let len = text.len().min(buf.len());
    buf[..len].copy_from_slice(&text[..len]);
    std::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// The longest task id kept inline in the store's index (the mock's own ids are 37 bytes).
const INLINE_ID: usize = 47;

/// A task id as the index's key: inline when it is short, so that a lookup compares it in
/// the table's own memory instead of reading one more heap line (a poll over 10 000 tasks is
/// mostly cache misses).
#[derive(Debug, Clone)]
enum TaskKey {
    Inline { len: u8, bytes: [u8; INLINE_ID] },
    Heap(Box<str>),
}

impl TaskKey {
    fn new(id: &str) -> Self {
        match u8::try_from(id.len()) {
            Ok(len) if id.len() <= INLINE_ID => {
                let mut bytes = [0; INLINE_ID];
                bytes[..id.len()].copy_from_slice(id.as_bytes());
                Self::Inline { len, bytes }
            }
            _ => Self::Heap(id.into()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(s) => s.as_bytes(),
        }
    }
}

impl std::hash::Hash for TaskKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq for TaskKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for TaskKey {}

/// A borrowed id to look a [`TaskKey`] up by (hashed the same way; no key built per poll).
struct IdRef<'a>(&'a str);

impl std::hash::Hash for IdRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_bytes().hash(state);
    }
}

impl hashbrown::Equivalent<TaskKey> for IdRef<'_> {
    fn equivalent(&self, key: &TaskKey) -> bool {
        self.0.as_bytes() == key.as_bytes()
    }
}

/// How many tasks the store keeps at most.
pub const DEFAULT_MAX_VIDEO_TASKS: usize = 10_000;

/// One stored task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredVideo {
    /// `task_` + 32 letters and digits.
    pub id: String,
    /// The user whose key created it; other users see 404.
    pub owner: i64,
    /// Model identifier.
    pub model: String,
    /// Requested duration, seconds.
    pub seconds: i64,
    /// Requested size, `<w>x<h>`.
    pub size: String,
    /// Its schedule and outcome.
    pub plan: VideoPlan,
    /// The prompt it was created with, shown in the documented profile (`None`: shown as
    /// `null`, e.g. past [`PROMPT_BUDGET_BYTES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The task it remixes, if it is a remix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remixed_from_video_id: Option<String>,
    /// The key charged at submit (0: none).
    #[serde(default)]
    pub key_id: i64,
    /// The quota charged at submit and not given back yet: refunded in full when the task
    /// fails ([`gatecheck_schemas::rules::refund`]), then 0.
    #[serde(default)]
    pub charged: i64,
}

/// The most prompt bytes the store keeps over all its tasks: a task created past it shows
/// `prompt: null` (unknown), so that memory stays bounded whatever the prompts
/// ([`DEFAULT_MAX_VIDEO_TASKS`] prompts of 32 000 characters would be over 1 GB).
pub const PROMPT_BUDGET_BYTES: usize = 16 * 1024 * 1024;

impl StoredVideo {
    /// The task as the API shows it at `now_ms`, with result URLs under `base_url`. In
    /// `new-api` (dto/openai_video.go OpenAIVideo) there is no top-level `video_url` (the URL
    /// is in `metadata.url`, DECISIONS NA3), no `error` status: such a task is `failed`
    /// with its `error` object (NA4), no `prompt`, and an unset OpenAI key is left out; the
    /// documented profile writes every key of OpenAI's `VideoResource`, `null` when unset
    /// (D-ROUTE-4).
    pub fn render(&self, now_ms: i64, base_url: &str, profile: Profile) -> VideoTask {
        let state = self.state(now_ms);
        let url = (state.status == VideoStatus::Completed).then(|| self.content_url(base_url));
        let mut seconds = [0; 20];
        self.view(state, url.as_deref(), &mut seconds, profile)
            .into_owned()
    }

    /// [`StoredVideo::render`] of the task in `s` (its [`StoredVideo::state`] at some instant)
    /// without copying: the strings are borrowed from the task, from `url` (its
    /// [`StoredVideo::content_url`], shown only when the task is completed, so a caller may
    /// pass `None` for a task that is not) and from `seconds_buf` (where `seconds` is written
    /// as text).
    pub fn view<'a>(
        &'a self,
        s: VideoState,
        url: Option<&'a str>,
        seconds_buf: &'a mut [u8; 20],
        profile: Profile,
    ) -> VideoTask<&'a str> {
        let url = url.filter(|_| s.status == VideoStatus::Completed);
        VideoTask {
            id: &self.id,
            task_id: &self.id,
            object: "video",
            model: &self.model,
            status: match (s.status, profile) {
                (VideoStatus::Error, Profile::NewApi) => VideoStatus::Failed,
                (status, _) => status,
            },
            progress: shown_progress(&s, profile),
            created_at: self.plan.created_at_ms.div_euclid(1000),
            completed_at: s.completed_at,
            metadata: url.map(|u| serde_json::json!({ "url": u })),
            video_url: url.filter(|_| profile == Profile::Documented),
            seconds: Some(decimal(self.seconds, seconds_buf)),
            size: Some(&self.size),
            error: s.error,
            // The mock's content does not expire.
            expires_at: None,
            prompt: self
                .prompt
                .as_deref()
                .filter(|_| profile == Profile::Documented),
            remixed_from_video_id: self.remixed_from_video_id.as_deref(),
            openai_nulls: profile == Profile::Documented,
        }
    }

    /// The URL of the task's content under `base_url`.
    pub fn content_url(&self, base_url: &str) -> String {
        format!("{base_url}/v1/videos/{}/content", self.id)
    }

    /// The status at `now_ms`.
    pub fn status_at(&self, now_ms: i64) -> VideoStatus {
        self.state(now_ms).status
    }

    /// The task's state at `now_ms` (status, progress, completion, error).
    pub fn state(&self, now_ms: i64) -> VideoState {
        state_at(&self.plan, now_ms)
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// foldhash (hashbrown's default): a poll hashes a 37-byte id, and SipHash's defence
    /// against chosen keys is not needed for ids the mock draws itself.
    tasks: hashbrown::HashMap<TaskKey, Arc<StoredVideo>>,
    /// Ids in creation order.
    order: VecDeque<String>,
    /// The bytes of the prompts kept (at most [`PROMPT_BUDGET_BYTES`]).
    prompt_bytes: usize,
    /// Charged tasks not seen terminal yet, with the status their billing last saw.
    unsettled: Vec<(String, VideoStatus)>,
}

impl Inner {
    /// Removes the task `id`; whether there was one.
    fn remove(&mut self, id: &str) -> bool {
        match self.tasks.remove(&IdRef(id)) {
            Some(t) => {
                self.prompt_bytes -= prompt_len(&t);
                if t.charged != 0 {
                    self.unsettled.retain(|(u, _)| u != id);
                }
                true
            }
            None => false,
        }
    }
}

fn prompt_len(t: &StoredVideo) -> usize {
    t.prompt.as_ref().map_or(0, String::len)
}

/// All video tasks of the mock.
#[derive(Debug)]
pub struct VideoStore {
    inner: Mutex<Inner>,
    cap: usize,
    /// `poll_after_ms` of the video fixture as a header value, made once (not per poll).
    poll_after: OnceLock<http::HeaderValue>,
    /// No unsettled task can end before this (ms): [`VideoStore::settle`] returns at once
    /// before it, with one atomic read.
    next_due_ms: AtomicI64,
}

impl Default for VideoStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_MAX_VIDEO_TASKS)
    }
}

/// Keeps `t`'s prompt when the store's prompts stay within [`PROMPT_BUDGET_BYTES`], else
/// drops it (shown as `null`).
fn admit_prompt(inner: &mut Inner, t: &mut StoredVideo) {
    let len = prompt_len(t);
    if inner.prompt_bytes + len > PROMPT_BUDGET_BYTES {
        t.prompt = None;
    } else {
        inner.prompt_bytes += len;
    }
}

/// A serializable dump of the [`VideoStore`], part of `GET|PUT /__mock/state`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VideoSnapshot {
    /// Every task, oldest first.
    #[serde(default)]
    pub tasks: Vec<StoredVideo>,
}

/// Why an outcome override failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutcomeOverrideError {
    /// No task with that id.
    #[error("no video task {0}")]
    NotFound(String),
    /// The task is terminal already.
    #[error(transparent)]
    Terminal(#[from] OverrideError),
}

impl VideoStore {
    /// A store keeping at most `cap` tasks (at least 1).
    pub fn with_capacity(cap: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            cap: cap.max(1),
            poll_after: OnceLock::new(),
            next_due_ms: AtomicI64::new(i64::MAX),
        }
    }

    /// The `openai-poll-after-ms` value of task answers: `poll_after_ms` of the video
    /// fixture, as a header value made once per store.
    pub(crate) fn poll_after_header(&self, config: &VideoConfig) -> http::HeaderValue {
        self.poll_after
            .get_or_init(|| http::HeaderValue::from(config.poll_after_ms))
            .clone()
    }

    /// Forgets every task.
    pub fn reset(&self) {
        let mut inner = self.inner.lock();
        inner.tasks.clear();
        inner.order.clear();
        inner.prompt_bytes = 0;
        inner.unsettled.clear();
        self.next_due_ms.store(i64::MAX, Ordering::Release);
    }

    /// Dumps every task.
    pub fn snapshot(&self) -> VideoSnapshot {
        let inner = self.inner.lock();
        VideoSnapshot {
            tasks: inner
                .order
                .iter()
                .filter_map(|id| inner.tasks.get(&IdRef(id)).map(|t| StoredVideo::clone(t)))
                .collect(),
        }
    }

    /// Replaces every task with those of `snapshot` (the newest `cap` of them).
    pub fn restore(&self, snapshot: VideoSnapshot) {
        let mut inner = self.inner.lock();
        inner.tasks.clear();
        inner.order.clear();
        inner.prompt_bytes = 0;
        let skip = snapshot.tasks.len().saturating_sub(self.cap);
        for mut t in snapshot.tasks.into_iter().skip(skip) {
            if inner.tasks.contains_key(&IdRef(&t.id)) {
                continue;
            }
            admit_prompt(&mut inner, &mut t);
            if t.charged != 0 {
                // Not refunded when the state was dumped: the next settlement looks again.
                inner.unsettled.push((t.id.clone(), VideoStatus::Queued));
            }
            inner.order.push_back(t.id.clone());
            inner.tasks.insert(TaskKey::new(&t.id), Arc::new(t));
        }
        self.next_due_ms.store(i64::MIN, Ordering::Release);
    }

    /// Number of stored tasks.
    pub fn len(&self) -> usize {
        self.inner.lock().tasks.len()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stores a new task, evicting the oldest terminal task (at `now_ms`) when full; returns
    /// the task as stored (its prompt dropped past [`PROMPT_BUDGET_BYTES`]).
    pub fn insert(&self, mut task: StoredVideo, now_ms: i64) -> Arc<StoredVideo> {
        let mut inner = self.inner.lock();
        while inner.tasks.len() >= self.cap {
            let victim = inner
                .order
                .iter()
                .position(|id| {
                    inner
                        .tasks
                        .get(&IdRef(id))
                        .is_none_or(|t| t.status_at(now_ms).is_terminal())
                })
                .unwrap_or(0);
            match inner.order.remove(victim) {
                Some(id) => {
                    inner.remove(&id);
                }
                None => break,
            }
        }
        admit_prompt(&mut inner, &mut task);
        if task.charged != 0 {
            inner.unsettled.push((task.id.clone(), VideoStatus::Queued));
            self.next_due_ms
                .fetch_min(task.plan.finish_at_ms, Ordering::AcqRel);
        }
        let task = Arc::new(task);
        inner.order.push_back(task.id.clone());
        inner.tasks.insert(TaskKey::new(&task.id), task.clone());
        task
    }

    /// The task `id` when it belongs to `owner` (`None` for an unknown id or another user's).
    pub fn get(&self, id: &str, owner: i64) -> Option<Arc<StoredVideo>> {
        self.inner
            .lock()
            .tasks
            .get(&IdRef(id))
            .filter(|t| t.owner == owner)
            .cloned()
    }

    /// Deletes the task `id` when it belongs to `owner`; whether it did.
    pub fn remove(&self, id: &str, owner: i64) -> bool {
        let mut inner = self.inner.lock();
        if inner.tasks.get(&IdRef(id)).is_none_or(|t| t.owner != owner) {
            return false;
        }
        inner.remove(id);
        inner.order.retain(|x| x != id);
        true
    }

    /// The newest `limit` tasks of `owner`, newest first.
    pub fn list(&self, owner: i64, limit: usize) -> Vec<Arc<StoredVideo>> {
        let inner = self.inner.lock();
        inner
            .order
            .iter()
            .rev()
            .filter_map(|id| inner.tasks.get(&IdRef(id)))
            .filter(|t| t.owner == owner)
            .take(limit)
            .cloned()
            .collect()
    }

    /// The task `id`, whoever owns it.
    pub fn get_any(&self, id: &str) -> Option<Arc<StoredVideo>> {
        self.inner.lock().tasks.get(&IdRef(id)).cloned()
    }

    /// Sets the outcome of a task that is not terminal yet (see
    /// [`gatecheck_schemas::rules::video::override_outcome`]).
    pub fn set_outcome(
        &self,
        id: &str,
        now_ms: i64,
        outcome: VideoOutcome,
        error: Option<VideoTaskError>,
        immediate: bool,
    ) -> Result<StoredVideo, OutcomeOverrideError> {
        let mut inner = self.inner.lock();
        let task = inner
            .tasks
            .get_mut(&IdRef(id))
            .ok_or_else(|| OutcomeOverrideError::NotFound(id.to_owned()))?;
        let plan = override_outcome(&task.plan, now_ms, outcome, error, immediate)?;
        self.next_due_ms
            .fetch_min(plan.finish_at_ms, Ordering::AcqRel);
        Arc::make_mut(task).plan = plan;
        Ok(StoredVideo::clone(task))
    }

    /// The refunds due at `now_ms`, as `(key id, quota)`: every charged task that has ended
    /// since the last settlement is looked at once, and one that failed is refunded in full
    /// ([`gatecheck_schemas::rules::refund::refund_on_edge`]; its `charged` becomes 0). Costs
    /// one atomic read (and no allocation) while no charged task can have ended.
    pub fn settle(&self, now_ms: i64) -> Vec<(i64, i64)> {
        if now_ms < self.next_due_ms.load(Ordering::Acquire) {
            return Vec::new();
        }
        let mut inner = self.inner.lock();
        let Inner {
            tasks, unsettled, ..
        } = &mut *inner;
        let mut refunds = Vec::new();
        let mut next = i64::MAX;
        unsettled.retain_mut(|(id, seen)| {
            let Some(task) = tasks.get_mut(&IdRef(id)) else {
                return false;
            };
            let status = task.status_at(now_ms);
            if !status.is_terminal() {
                next = next.min(task.plan.finish_at_ms);
                *seen = status;
                return true;
            }
            let refund = refund_on_edge(*seen, status, task.charged);
            if refund > 0 {
                refunds.push((task.key_id, refund));
                Arc::make_mut(task).charged = 0;
            }
            false
        });
        self.next_due_ms.store(next, Ordering::Release);
        refunds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecheck_schemas::rules::video::plan;

    fn task(id: &str, created: i64, cfg: &VideoConfig) -> StoredVideo {
        StoredVideo {
            id: id.into(),
            owner: 1,
            model: "sora-2".into(),
            seconds: 4,
            size: "720x1280".into(),
            plan: plan(created, 4, &cfg.timing, VideoOutcome::Completed, None),
            prompt: Some("a boat".into()),
            remixed_from_video_id: None,
            key_id: 1,
            charged: 0,
        }
    }

    /// One step of a ledger run.
    #[derive(Debug, Clone)]
    enum Op {
        /// A task charged this much, ending this way.
        Create(i64, VideoOutcome),
        /// The clock moves on (ms).
        Advance(i64),
        /// The task with this index (modulo) gets this outcome now, if it is still running.
        Override(usize, VideoOutcome),
        /// The task with this index (modulo) is deleted.
        Delete(usize),
        /// A settlement.
        Settle,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        let outcome = prop_oneof![
            Just(VideoOutcome::Completed),
            Just(VideoOutcome::Failed),
            Just(VideoOutcome::Error),
        ];
        prop_oneof![
            (0i64..5_000, outcome.clone()).prop_map(|(p, o)| Op::Create(p, o)),
            (0i64..40_000).prop_map(Op::Advance),
            (any::<usize>(), outcome).prop_map(|(i, o)| Op::Override(i, o)),
            any::<usize>().prop_map(Op::Delete),
            Just(Op::Settle),
        ]
    }

    proptest::proptest! {
        /// The ledger: whatever the order of creations, overrides, deletions, clock moves and
        /// settlements, every task that ends failed or error (and was not deleted before) is
        /// refunded its whole charge exactly once, and no other task is refunded.
        #[test]
        fn every_failed_task_is_refunded_once_in_full(ops in proptest::collection::vec(op(), 1..60)) {
            let cfg = crate::Fixtures::embedded().video;
            let store = VideoStore::with_capacity(1_000);
            let mut now = 0i64;
            let mut ids: Vec<String> = Vec::new();
            let mut prices: Vec<i64> = Vec::new();
            let mut refunded: std::collections::HashMap<i64, i64> = Default::default();
            let mut deleted_running: std::collections::HashSet<String> = Default::default();
            let mut settle = |store: &VideoStore, now: i64| {
                for (key, quota) in store.settle(now) {
                    *refunded.entry(key).or_default() += quota;
                }
            };
            for op in ops {
                match op {
                    Op::Create(price, outcome) => {
                        let id = format!("t{}", ids.len());
                        let mut t = task(&id, now, &cfg);
                        t.plan = plan(now, 4, &cfg.timing, outcome, None);
                        // One key per task: the refunds are read back per task.
                        t.key_id = ids.len() as i64;
                        t.charged = price;
                        store.insert(t, now);
                        ids.push(id);
                        prices.push(price);
                    }
                    Op::Advance(ms) => now += ms,
                    Op::Override(i, outcome) if !ids.is_empty() => {
                        let _ = store.set_outcome(&ids[i % ids.len()], now, outcome, None, true);
                    }
                    Op::Delete(i) if !ids.is_empty() => {
                        // What the mock does before any request: settle first.
                        settle(&store, now);
                        let id = &ids[i % ids.len()];
                        if store.get_any(id).is_some_and(|t| !t.status_at(now).is_terminal()) {
                            deleted_running.insert(id.clone());
                        }
                        store.remove(id, 1);
                    }
                    Op::Settle => settle(&store, now),
                    _ => {}
                }
            }
            // Much later, every task has ended; settling twice changes nothing the second time.
            now += 10_000_000;
            settle(&store, now);
            proptest::prop_assert!(store.settle(now).is_empty());
            for (key, id) in ids.iter().enumerate() {
                let key = key as i64;
                let got = refunded.get(&key).copied().unwrap_or(0);
                let price = prices[key as usize];
                match store.get_any(id) {
                    Some(t) if t.status_at(now) == VideoStatus::Completed => {
                        proptest::prop_assert_eq!((got, t.charged), (0, price), "task {}", id);
                    }
                    Some(t) => {
                        proptest::prop_assert_eq!((got, t.charged), (price, 0), "task {}", id);
                    }
                    // Deleted while running: never refunded; deleted after failing: refunded.
                    None if deleted_running.contains(id) => proptest::prop_assert_eq!(got, 0),
                    None => {}
                }
            }
        }
    }

    #[test]
    fn prompts_are_kept_within_their_budget() {
        let cfg = crate::Fixtures::embedded().video;
        let store = VideoStore::with_capacity(8);
        let big = "p".repeat(PROMPT_BUDGET_BYTES / 2);
        let mut shown = Vec::new();
        for i in 0..3 {
            let mut t = task(&format!("t{i}"), 0, &cfg);
            t.prompt = Some(big.clone());
            shown.push(store.insert(t, 0).prompt.is_some());
        }
        // Two halves fit; the third is shown as unknown.
        assert_eq!(shown, [true, true, false]);
        // Deleting one frees its bytes.
        assert!(store.remove("t0", 1));
        let mut t = task("t3", 0, &cfg);
        t.prompt = Some(big);
        assert!(store.insert(t, 0).prompt.is_some());
        store.reset();
        assert!(store.insert(task("t4", 0, &cfg), 0).prompt.is_some());
    }

    #[test]
    fn bounded_and_evicts_terminal_tasks_first() {
        let store = VideoStore::with_capacity(3);
        let cfg = crate::Fixtures::embedded().video;
        store.insert(task("a", 0, &cfg), 0);
        store.insert(task("b", 1_000_000, &cfg), 0);
        store.insert(task("c", 0, &cfg), 0);
        // At t=100s, a and c are completed, b (created at 1000 s) is not: a goes first.
        store.insert(task("d", 0, &cfg), 100_000);
        assert!(store.get_any("a").is_none());
        store.insert(task("e", 0, &cfg), 100_000);
        assert!(store.get_any("b").is_some() && store.get_any("c").is_none());
        assert_eq!(store.len(), 3);
        assert!(store.get("b", 2).is_none());
        let snap = store.snapshot();
        store.reset();
        assert!(store.is_empty());
        store.restore(snap.clone());
        assert_eq!(store.snapshot(), snap);
    }

    /// Ids of every length, inline (up to 47 bytes) or not, are stored, found, told apart and
    /// removed; a prefix of an id is another id.
    #[test]
    fn ids_short_and_long_index_alike() {
        let store = VideoStore::with_capacity(100);
        let cfg = crate::Fixtures::embedded().video;
        let ids: Vec<String> = [0, 1, 37, 46, 47, 48, 200]
            .iter()
            .map(|&n| "x".repeat(n))
            .chain(["task_é".to_owned()])
            .collect();
        for id in &ids {
            store.insert(task(id, 0, &cfg), 0);
        }
        for id in &ids {
            assert_eq!(store.get(id, 1).map(|t| t.id.clone()).as_ref(), Some(id));
        }
        assert!(store.get_any(&"x".repeat(2)).is_none());
        assert!(store.remove(&"x".repeat(48), 1));
        assert!(store.get_any(&"x".repeat(48)).is_none());
        assert!(store.get_any(&"x".repeat(47)).is_some());
        assert_eq!(store.len(), ids.len() - 1);
    }
}
