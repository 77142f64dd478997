//! Everything one running mock shares across requests.

use crate::config::MockConfig;
use crate::fixtures::catalog::Catalog;
use crate::harness::clock::Clock;
use crate::harness::faults::FaultSet;
use crate::harness::journal::Journal;
use crate::ids::Ids;
use crate::state::persist::Persist;
use crate::state::ratelimit::RateLimiter;
use crate::state::{State, StateSnapshot};
use crate::tasks::callbacks::{CallbackRecord, CallbackResult, PendingCallback};
use crate::tasks::{TaskDump, TaskStore};
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::watch;

/// The shared parts of a running mock.
#[derive(Debug)]
pub(crate) struct App {
    /// The configuration; its fixtures without the catalog and capabilities, which are in
    /// [`App::catalog`].
    pub(crate) config: MockConfig,
    /// The era of new-api's task layer played ([`MockConfig::named_profile`]).
    pub(crate) era: gatecheck_schemas::Era,
    pub(crate) clock: Clock,
    pub(crate) state: State,
    pub(crate) catalog: Catalog,
    pub(crate) journal: Journal,
    pub(crate) faults: FaultSet,
    /// Stream scripts installed through the library API.
    pub(crate) scripts: crate::response::script::StreamScripts,
    pub(crate) ids: Ids,
    pub(crate) ratelimit: RateLimiter,
    /// Flips to true when the server shuts down (ends hanging requests).
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Woken by [`App::reset`]: requests held by a `delay` fault are answered 503
    /// `mock_reset` at once (not served), those held by a `hang` fault are dropped.
    pub(crate) waits_cancelled: tokio::sync::Notify,
    /// The clock reading at each video task's last poll (with `poll_advance`).
    pub(crate) polls: crate::harness::polls::Polls,
    /// The render queue of the public media route.
    pub(crate) renderer: crate::response::render::Renderer,
    /// The durable-state writer (with `--state-file`).
    pub(crate) persist: Option<Arc<Persist>>,
    /// Every task: video and Midjourney tasks, the task routes' table, Kling callbacks.
    pub(crate) tasks: TaskStore,
    /// The address the mock listens on (the control API answers it as a `Host`).
    pub(crate) bound: Option<std::net::IpAddr>,
    /// The usage log of the charges and refunds (`/api/log/self`, `/api/data/self`).
    pub(crate) usage: crate::state::usage::UsageLog,
}

impl App {
    pub(crate) fn new(mut config: MockConfig, shutdown: watch::Receiver<bool>) -> Self {
        let clock = Clock::new(config.clock);
        let state = State::new(&config.fixtures);
        // The catalog and the capabilities move into `catalog`, the one place that reads them
        // (they never change): `config.fixtures` keeps the rest, which a reset goes back to.
        let catalog = Catalog::new(
            std::mem::take(&mut config.fixtures.catalog),
            std::mem::take(&mut config.fixtures.capabilities),
        );
        let faults = FaultSet::new(config.seed);
        for fault in &config.faults {
            faults.add(fault.clone());
        }
        Self {
            era: config.named_profile().era,
            clock,
            state,
            catalog,
            journal: Journal::new(config.journal_capacity),
            faults,
            scripts: Default::default(),
            ids: Ids::new(config.seed),
            ratelimit: RateLimiter::new(config.rate_limit),
            shutdown,
            waits_cancelled: tokio::sync::Notify::new(),
            polls: Default::default(),
            renderer: Default::default(),
            persist: None,
            tasks: TaskStore::new(&config.callback_allow),
            bound: None,
            usage: Default::default(),
            config,
        }
    }

    /// Gives back the quota of every charged task that has failed by `now_ms` (once each;
    /// see [`crate::tasks::video::VideoStore::settle`]). One atomic read while none can have
    /// ended.
    pub(crate) fn settle_tasks(&self, now_ms: i64) {
        for (key_id, quota) in self.tasks.settle(now_ms) {
            self.state.refund(key_id, quota);
            // service/task_billing.go RefundTaskQuota logs the refund (LogTypeRefund).
            if let Some(key) = self.state.key(key_id) {
                self.usage.push(crate::state::usage::UsageEntry {
                    id: 0,
                    user_id: key.user_id,
                    key_id,
                    created_at: now_ms.div_euclid(1000),
                    kind: crate::state::usage::TYPE_REFUND,
                    model: None,
                    quota,
                    request_id: None,
                });
            }
        }
    }

    /// Back to the start: fixtures' state, empty journal, the configured faults only, no
    /// rate-limit counts, no stream scripts, no task-route entries, no clock offset; the
    /// requests held by a `delay` fault are answered 503 `mock_reset` at once, not served, so
    /// they cannot change the fresh state; those held by a `hang` are dropped.
    /// Requests in flight across the reset are not journaled (the journal's generation).
    pub(crate) fn reset(&self) {
        self.waits_cancelled.notify_waiters();
        self.state.reset(&self.config.fixtures);
        self.journal.clear();
        self.faults.clear();
        for fault in &self.config.faults {
            self.faults.add(fault.clone());
        }
        self.ratelimit.clear();
        self.scripts.clear();
        self.tasks.reset();
        self.clock.set_offset_ms(0);
        self.polls.clear();
        self.usage.clear();
    }

    /// The whole state: keys and accounts, every task, the clock offset.
    pub(crate) fn snapshot(&self) -> StateSnapshot {
        let (accounts, keys) = self.state.snapshot();
        let tasks = self.tasks.dump();
        StateSnapshot {
            accounts,
            keys,
            videos: tasks.videos,
            clock_offset_ms: self.clock.offset_ms(),
            task_meta: tasks.task_meta,
            callbacks: tasks.callbacks,
            mj_tasks: tasks.mj_tasks,
        }
    }

    /// Loads a whole state.
    pub(crate) fn restore(&self, snap: StateSnapshot) {
        self.clock.set_offset_ms(snap.clock_offset_ms);
        let tasks = TaskDump {
            videos: snap.videos,
            task_meta: snap.task_meta,
            callbacks: snap.callbacks,
            mj_tasks: snap.mj_tasks,
        };
        self.tasks.load(tasks, self.clock.now_ms());
        self.state.restore(snap.accounts, snap.keys);
    }

    /// Registers the callback of task `task_id` to `url`, or records its refusal. Returns the
    /// refusal, if any.
    pub(crate) fn register_callback(&self, task_id: &str, url: &str) -> Option<String> {
        let Err(reason) = self.tasks.callbacks.queue(task_id, url) else {
            return None;
        };
        let shown = crate::userinfo::redact(url);
        tracing::warn!(task = task_id, url = %shown, %reason, "callback refused");
        let p = PendingCallback {
            task_id: task_id.to_owned(),
            url: url.to_owned(),
        };
        self.finish_callback(CallbackRecord::refused(
            p,
            reason.clone(),
            self.clock.now_ms(),
        ));
        Some(reason)
    }

    /// Keeps a callback's outcome, journals it and logs it.
    pub(crate) fn finish_callback(&self, record: CallbackRecord) {
        self.journal_callback(&record);
        self.tasks.callbacks.keep(record);
    }

    /// Journals a callback's outcome as a request the mock made: `POST <url path>`, the result
    /// as its fault text.
    fn journal_callback(&self, r: &CallbackRecord) {
        let parsed = url::Url::parse(&r.url).ok();
        let path = parsed
            .as_ref()
            .map(|u| u.path().to_owned())
            .unwrap_or_default();
        let ip = parsed
            .as_ref()
            .and_then(|u| match u.host() {
                Some(url::Host::Ipv4(ip)) => Some(IpAddr::from(ip)),
                Some(url::Host::Ipv6(ip)) => Some(IpAddr::from(ip)),
                _ => None,
            })
            .unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let (status, what) = match &r.result {
            CallbackResult::Delivered { status } => {
                (*status, format!("callback {} delivered", r.task_id))
            }
            CallbackResult::Failed { status, error } => (
                status.unwrap_or(0),
                format!("callback {} failed: {error}", r.task_id),
            ),
            CallbackResult::Refused { reason } => {
                (0, format!("callback {} refused: {reason}", r.task_id))
            }
        };
        self.journal.push(crate::harness::journal::Record {
            generation: self.journal.generation(),
            at_ms: r.at_ms,
            request_id: self.ids.request_id(r.at_ms),
            method: http::Method::POST,
            path: &path,
            query: parsed.as_ref().and_then(|u| u.query()),
            client_ip: ip,
            key_id: None,
            status,
            duration_us: 0,
            fault: Some(format!("{what} ({} attempts) to {}", r.attempts, r.url)),
            body_len: None,
            body: None,
            headers: String::new(),
            form: None,
        });
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // No request is left (each holds the app): every acknowledged change is on disk.
        if let Some(persist) = &self.persist {
            persist.close(true);
        }
    }
}
