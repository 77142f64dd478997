//! Everything one running mock shares across requests.

use crate::catalog::Catalog;
use crate::clock::Clock;
use crate::config::MockConfig;
use crate::faults::FaultSet;
use crate::ids::Ids;
use crate::journal::Journal;
use crate::persist::Persist;
use crate::ratelimit::RateLimiter;
use crate::state::{State, StateSnapshot};
use crate::tasks::{TaskDump, TaskStore};
use std::sync::Arc;
use tokio::sync::watch;

/// The shared parts of a running mock.
#[derive(Debug)]
pub(crate) struct App {
    /// The configuration; its fixtures without the catalog and capabilities, which are in
    /// [`App::catalog`].
    pub(crate) config: MockConfig,
    pub(crate) clock: Clock,
    pub(crate) state: State,
    pub(crate) catalog: Catalog,
    pub(crate) journal: Journal,
    pub(crate) faults: FaultSet,
    /// Stream scripts installed through the library API.
    pub(crate) scripts: crate::script::StreamScripts,
    pub(crate) ids: Ids,
    pub(crate) ratelimit: RateLimiter,
    /// Flips to true when the server shuts down (ends hanging requests).
    pub(crate) shutdown: watch::Receiver<bool>,
    /// The render queue of the public media route.
    pub(crate) renderer: crate::render::Renderer,
    /// The durable-state writer (with `--state-file`).
    pub(crate) persist: Option<Arc<Persist>>,
    /// Every task: video and Midjourney tasks, the task routes' table, Kling callbacks.
    pub(crate) tasks: TaskStore,
    /// The address the mock listens on (the control API answers it as a `Host`).
    pub(crate) bound: Option<std::net::IpAddr>,
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
            clock,
            state,
            catalog,
            journal: Journal::new(config.journal_capacity),
            faults,
            scripts: Default::default(),
            ids: Ids::new(config.seed),
            ratelimit: RateLimiter::new(config.rate_limit),
            shutdown,
            renderer: Default::default(),
            persist: None,
            tasks: TaskStore::new(&config.callback_allow),
            bound: None,
            config,
        }
    }

    /// Gives back the quota of every charged task that has failed by `now_ms` (once each;
    /// see [`crate::tasks::video::VideoStore::settle`]). One atomic read while none can have
    /// ended.
    pub(crate) fn settle_tasks(&self, now_ms: i64) {
        for (key_id, quota) in self.tasks.settle(now_ms) {
            self.state.refund(key_id, quota);
        }
    }

    /// Back to the start: fixtures' state, empty journal, the configured faults only, no
    /// rate-limit counts, no stream scripts, no task-route entries, no clock offset.
    pub(crate) fn reset(&self) {
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
}

impl Drop for App {
    fn drop(&mut self) {
        // No request is left (each holds the app): every acknowledged change is on disk.
        if let Some(persist) = &self.persist {
            persist.close(true);
        }
    }
}
