//! What new-api's task routes know of a video task beyond its [`StoredVideo`]: the action,
//! the platform and the remix source (DECISIONS D-TASK).
//!
//! Every task of the task routes is a [`StoredVideo`] in the one [`super::video::VideoStore`]:
//! one state machine on one clock, with the same outcome controls, faults and billing as
//! `/v1/videos`. This table only adds what the task envelope and remix show. It is bounded
//! like the store (the oldest entry goes first), and an entry applies to a task only when it
//! was made for that very task (same creation time and owner): after a reset the seeded ids
//! repeat, and a stale entry must not dress up a new task.
//!
//! The table is part of the state dump ([`crate::StateSnapshot::task_meta`], entries
//! [`TaskMetaEntry`]), so a restart with `--state-file` or a `PUT /__mock/state` keeps each
//! task's envelope.

use std::collections::VecDeque;
use std::sync::Arc;

use super::video::{StoredVideo, DEFAULT_MAX_VIDEO_TASKS};
use gatecheck_schemas::rules::platforms::OPENAI_VIDEO;
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_REMIX, ACTION_TEXT_GENERATE};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// Every action a task route records (a dumped entry must name one of these to load).
const ACTIONS: [&str; 3] = [ACTION_TEXT_GENERATE, ACTION_GENERATE, ACTION_REMIX];
/// Every platform a task route records (the channel type as text): the registry's outside
/// the unified route, then those of the unified route (`super::platforms`).
fn platforms() -> Vec<&'static str> {
    use gatecheck_schemas::rules::platforms::{task_rooms, unified};
    task_rooms()
        .chain(unified())
        .map(|p| p.channel_type)
        .collect()
}

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
    /// A video platform's upstream state chosen through the control API (it applies while
    /// the task's state maps to the same status; `super::platforms`).
    pub upstream_word: Option<&'static str>,
    /// Conditions chosen beside the upstream state (Gemini and Vertex: `unreachable`, Gemini's
    /// `no_key`; DECISIONS D-PLAT-20..22); choosing a state clears them.
    pub upstream_flags: Vec<&'static str>,
    /// An Ali task's upstream error answer to new-api's polls, chosen through the control API
    /// (DashScope's body as JSON text; DECISIONS D-PLAT-11): shown while the task is not
    /// terminal.
    pub upstream_error: Option<String>,
}

impl TaskMeta {
    /// The facts of a task created on an OpenAI-video route, for `task`.
    pub fn sora(task: &StoredVideo, action: &'static str) -> Self {
        Self {
            created_at_ms: task.plan.created_at_ms,
            owner: task.owner,
            action,
            platform: OPENAI_VIDEO.channel_type,
            remixed_from: None,
            callback_url: None,
            upstream_word: None,
            upstream_flags: Vec::new(),
            upstream_error: None,
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

/// One entry of the task-route table in a [`crate::StateSnapshot`]: what the task routes show
/// of the video task `id` beyond the task itself (DECISIONS D-TASK).
///
/// `action` and `platform` are written as text and read back as the mock's own constants:
/// a dump naming an action or platform the mock does not know does not load (the
/// `PUT /__mock/state` is refused with 400; a `--state-file` stops the start with an error
/// naming the file, which is left untouched). No entry is dropped silently.
///
/// ```
/// let entry: gatecheck_mock::TaskMetaEntry = serde_json::from_str(
///     r#"{"id":"task_a","created_at_ms":0,"owner":1,"action":"textGenerate","platform":"50"}"#,
/// ).unwrap();
/// assert_eq!((entry.platform, entry.callback_url), ("50", None));
/// assert!(serde_json::from_str::<gatecheck_mock::TaskMetaEntry>(
///     r#"{"id":"task_a","created_at_ms":0,"owner":1,"action":"textGenerate","platform":"99"}"#,
/// ).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskMetaEntry {
    /// The video task's id.
    pub id: String,
    /// The task's creation time, ms (the entry applies only to the task made then).
    pub created_at_ms: i64,
    /// The task's owner (the entry applies only to that user's task).
    pub owner: i64,
    /// new-api's action (`textGenerate`, `generate`, `remixGenerate`).
    pub action: &'static str,
    /// The channel type as text (`55` Sora, `50` Kling, `51` Jimeng, `52` Vidu, `35` MiniMax,
    /// `54` Doubao).
    pub platform: &'static str,
    /// The id of the task this one remixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remixed_from: Option<String>,
    /// The Kling `callback_url` the client gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    /// A video platform's upstream state chosen through the control API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_word: Option<&'static str>,
    /// Conditions chosen beside it (`unreachable`, `no_key`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream_flags: Vec<&'static str>,
    /// An Ali task's upstream error answer to new-api's polls (DashScope's body as JSON
    /// text; DECISIONS D-PLAT-11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_error: Option<String>,
}

/// A [`TaskMetaEntry`] as the dump writes it, before its names are checked.
#[derive(Deserialize)]
struct EntryText {
    id: String,
    created_at_ms: i64,
    owner: i64,
    action: String,
    platform: String,
    #[serde(default)]
    remixed_from: Option<String>,
    #[serde(default)]
    callback_url: Option<String>,
    #[serde(default)]
    upstream_word: Option<String>,
    #[serde(default)]
    upstream_flags: Vec<String>,
    #[serde(default)]
    upstream_error: Option<String>,
}

/// Whether `body` is an upstream error answer the task of `platform` may show: DashScope's
/// error body (a `code`, no `output.task_status`) for an Ali task (DECISIONS D-PLAT-11).
pub(crate) fn check_upstream_error(platform: &str, body: &str) -> Result<(), String> {
    let p = gatecheck_schemas::rules::platforms::by_channel_type(platform);
    let Some(refusals) = p.and_then(|p| p.refusals) else {
        let modelled: Vec<String> = gatecheck_schemas::rules::platforms::all()
            .iter()
            .filter(|p| p.refusals.is_some())
            .map(|p| format!("{} (platform {})", p.title, p.channel_type))
            .collect();
        return Err(format!(
            "an upstream error answer is modelled for {} tasks only, not platform {platform}",
            modelled.join(", ")
        ));
    };
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) if (refusals.poll)(&v).is_some() => Ok(()),
        _ => Err(format!(
            "the upstream error answer {body:?} is not DashScope's error body (a JSON object with a \
             non-empty `code` and no `output.task_status`)"
        )),
    }
}

/// The constant of `known` spelled `text`, or an error naming what was not known.
fn known(known: &[&'static str], text: &str, what: &str) -> Result<&'static str, String> {
    known.iter().copied().find(|k| *k == text).ok_or_else(|| {
        format!(
            "unknown task {what} {text:?} (this mock knows {})",
            known.join(", ")
        )
    })
}

// Written out: a derived `Deserialize` would borrow the `&'static str` fields from the input
// (and so only read `'static` text); these are read as owned text and mapped to constants.
impl<'de> Deserialize<'de> for TaskMetaEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let e = EntryText::deserialize(d)?;
        let name = |list: &[&'static str], text: &str, what: &str| {
            known(list, text, what).map_err(serde::de::Error::custom)
        };
        let platform = name(&platforms(), &e.platform, "platform")?;
        let words = super::platforms::adaptor(platform)
            .map(|a| super::platforms::control_words(a.rules))
            .unwrap_or_default();
        let upstream_word = match e.upstream_word {
            None => None,
            Some(w) => Some(name(&words, &w, "upstream state")?),
        };
        let upstream_flags = e
            .upstream_flags
            .iter()
            .map(|w| name(&words, w, "upstream condition"))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(body) = &e.upstream_error {
            check_upstream_error(platform, body).map_err(serde::de::Error::custom)?;
        }
        Ok(Self {
            upstream_error: e.upstream_error,
            action: name(&ACTIONS, &e.action, "action")?,
            platform,
            upstream_word,
            upstream_flags,
            id: e.id,
            created_at_ms: e.created_at_ms,
            owner: e.owner,
            remixed_from: e.remixed_from,
            callback_url: e.callback_url,
        })
    }
}

impl TaskMetaEntry {
    fn new(id: &str, m: &TaskMeta) -> Self {
        Self {
            id: id.to_owned(),
            created_at_ms: m.created_at_ms,
            owner: m.owner,
            action: m.action,
            platform: m.platform,
            remixed_from: m.remixed_from.clone(),
            callback_url: m.callback_url.clone(),
            upstream_word: m.upstream_word,
            upstream_flags: m.upstream_flags.clone(),
            upstream_error: m.upstream_error.clone(),
        }
    }

    fn into_meta(self) -> (String, TaskMeta) {
        let meta = TaskMeta {
            created_at_ms: self.created_at_ms,
            owner: self.owner,
            action: self.action,
            platform: self.platform,
            remixed_from: self.remixed_from,
            callback_url: self.callback_url,
            upstream_word: self.upstream_word,
            upstream_flags: self.upstream_flags,
            upstream_error: self.upstream_error,
        };
        (self.id, meta)
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
    /// Whether any task of a video platform (`super::platforms`) was ever recorded: likewise.
    any_platform: std::sync::atomic::AtomicBool,
}

impl TaskMetas {
    /// Records `meta` for the task `id` (replacing an older entry of that id).
    pub fn insert(&self, id: &str, meta: TaskMeta) {
        if meta.remixed_from.is_some() {
            self.any_remix
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        self.note_platform(meta.platform);
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

    fn note_platform(&self, platform: &str) {
        if super::platforms::adaptor(platform).is_some() {
            self.any_platform
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether a task of a video platform was ever recorded (a poll asks only then).
    pub fn any_platform(&self) -> bool {
        self.any_platform.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Every entry, oldest first (for the state dump).
    pub fn snapshot(&self) -> Vec<TaskMetaEntry> {
        let inner = self.inner.lock();
        inner
            .order
            .iter()
            .filter_map(|id| inner.by_id.get(id).map(|m| TaskMetaEntry::new(id, m)))
            .collect()
    }

    /// Replaces every entry with those of a dump, oldest first: the newest
    /// [`DEFAULT_MAX_VIDEO_TASKS`] of them, and of two entries for one id the first (as
    /// [`super::video::VideoStore::restore`] keeps tasks).
    pub fn restore(&self, entries: Vec<TaskMetaEntry>) {
        let mut inner = self.inner.lock();
        *inner = Inner::default();
        let skip = entries.len().saturating_sub(DEFAULT_MAX_VIDEO_TASKS);
        for entry in entries.into_iter().skip(skip) {
            let (id, meta) = entry.into_meta();
            if inner.by_id.contains_key(&id) {
                continue;
            }
            if meta.remixed_from.is_some() {
                self.any_remix
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            self.note_platform(meta.platform);
            inner.order.push_back(id.clone());
            inner.by_id.insert(id, Arc::new(meta));
        }
    }

    /// Forgets every entry (a reset).
    pub fn clear(&self) {
        *self.inner.lock() = Inner::default();
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

    #[test]
    fn every_known_name_survives_a_dump_and_unknown_ones_do_not_load() {
        let metas = TaskMetas::default();
        let mut n = 0;
        for action in ACTIONS {
            for platform in platforms() {
                n += 1;
                let t = task(&format!("task_{n}"), n);
                let meta = TaskMeta {
                    remixed_from: (action == ACTION_REMIX).then(|| "task_src".to_owned()),
                    callback_url: super::super::platforms::callback_room()
                        .is_some_and(|r| r.rules.channel_type == platform)
                        .then(|| "http://h/cb".to_owned()),
                    ..TaskMeta::provider(&t, platform, action)
                };
                metas.insert(&t.id, meta);
            }
        }
        let dump = metas.snapshot();
        let json = serde_json::to_string(&dump).unwrap();
        let back: Vec<TaskMetaEntry> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, dump);
        let again = TaskMetas::default();
        again.restore(back);
        assert_eq!(again.snapshot(), dump);
        // The first remix: after the other two actions on every platform.
        let first_remix = 2 * platforms().len() as i64 + 1;
        let t = task(&format!("task_{first_remix}"), first_remix);
        assert_eq!(again.remixed_from(&t).as_deref(), Some("task_src"));
        for bad in [("textGenerate", "99"), ("remix", OPENAI_VIDEO.channel_type)] {
            let text = format!(
                r#"{{"id":"t","created_at_ms":0,"owner":1,"action":"{}","platform":"{}"}}"#,
                bad.0, bad.1
            );
            let err = serde_json::from_str::<TaskMetaEntry>(&text).unwrap_err();
            assert!(err.to_string().contains("unknown task"), "{err}");
        }
        again.clear();
        assert!(again.snapshot().is_empty());
        let many: Vec<TaskMetaEntry> = (0..DEFAULT_MAX_VIDEO_TASKS + 5)
            .map(|i| {
                let t = task(&format!("task_{i}"), 0);
                TaskMetaEntry::new(&t.id, &TaskMeta::default_for(&t))
            })
            .collect();
        again.restore(many);
        assert_eq!(again.len(), DEFAULT_MAX_VIDEO_TASKS);
        assert!(again.get(&task("task_4", 0)).is_none());
        assert!(again.get(&task("task_5", 0)).is_some());
        let first = dump[0].clone();
        let later = TaskMetaEntry {
            created_at_ms: first.created_at_ms + 1,
            ..first.clone()
        };
        again.restore(vec![first.clone(), later]);
        assert_eq!(
            again.snapshot(),
            vec![first],
            "a repeated id keeps its first entry"
        );
    }
}
