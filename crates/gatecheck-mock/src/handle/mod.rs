//! The library API: a running [`MockServer`], in the style of wiremock (its options and start
//! are in [`crate::handle::builder`]).

pub(crate) mod builder;

use crate::app::App;
use crate::fixtures::Fixtures;
use crate::harness::clock::Clock;
use crate::harness::faults::Fault;
use crate::harness::journal::JournalEntry;
use crate::response::script::StreamScript;
use crate::state::{NewKey, StateSnapshot};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::types::{Account, KeyRecord, KEY_STATUS_ENABLED};
use gatecheck_schemas::Profile;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A running mock gateway. It shuts down gracefully when dropped.
///
/// ```no_run
/// # async fn demo() {
/// let server = gatecheck_mock::MockServer::start().await;
/// let catalog = format!("{}/api/models", server.uri());
/// let auth = format!("Bearer {}", server.demo_key());
/// # let _ = (catalog, auth);
/// # }
/// ```
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    app: Arc<App>,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
    /// The replay front (with [`crate::MockServerBuilder::replay`]) and its accept loop.
    front: Option<(Arc<crate::server::replay::Front>, JoinHandle<()>)>,
}

impl MockServer {
    /// The handle of a server [`crate::MockServerBuilder::try_start`] has started.
    pub(crate) fn assemble(
        addr: SocketAddr,
        app: Arc<App>,
        shutdown: watch::Sender<bool>,
        task: JoinHandle<()>,
        front: Option<(Arc<crate::server::replay::Front>, JoinHandle<()>)>,
    ) -> Self {
        Self {
            addr,
            app,
            shutdown,
            task: Some(task),
            front,
        }
    }

    /// `http://<address>`, the base URL to point clients at.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let models = format!("{}/api/models?page_size=5", server.uri());
    /// # let _ = models;
    /// # }
    /// ```
    pub fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The listening address.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert!(server.address().ip().is_loopback());
    /// # }
    /// ```
    pub fn address(&self) -> SocketAddr {
        self.addr
    }

    /// The behaviour profile.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert_eq!(server.profile(), gatecheck_schemas::Profile::Documented);
    /// # }
    /// ```
    pub fn profile(&self) -> Profile {
        self.app.config.profile
    }

    /// The named profile played: the profile and the era of new-api's task layer.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert_eq!(server.named_profile(), gatecheck_schemas::NamedProfile::DOCUMENTED);
    /// # }
    /// ```
    pub fn named_profile(&self) -> gatecheck_schemas::NamedProfile {
        self.app.config.named_profile()
    }

    /// The era of new-api's task layer played ([`gatecheck_schemas::Era`]).
    pub fn era(&self) -> gatecheck_schemas::Era {
        self.app.config.named_profile().era
    }

    /// The demo account's enabled, unrestricted key, as clients send it (`sk-...`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert!(server.demo_key().starts_with("sk-"));
    /// # }
    /// ```
    pub fn demo_key(&self) -> String {
        demo_key_of(&self.app.config.fixtures)
            .map(|k| format!("sk-{}", k.key))
            .unwrap_or_default()
    }

    /// The demo account (its id and personal access token for `/api/token/`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let account = server.demo_account();
    /// let headers = [("Authorization", account.access_token.clone()),
    ///                ("New-Api-User", account.id.to_string())];
    /// # let _ = headers;
    /// # }
    /// ```
    pub fn demo_account(&self) -> Account {
        self.app
            .config
            .fixtures
            .demo_account()
            .cloned()
            .unwrap_or(Account {
                id: 1,
                username: "demo".into(),
                access_token: String::new(),
                groups: vec![],
            })
    }

    /// The mock's clock.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{ClockMode, MockServer};
    /// let server = MockServer::builder().clock(ClockMode::virtual_default()).start().await;
    /// let before = server.clock().now();
    /// server.clock().advance(std::time::Duration::from_secs(30));
    /// assert_eq!(server.clock().now(), before + 30);
    /// # }
    /// ```
    pub fn clock(&self) -> &Clock {
        &self.app.clock
    }

    /// Creates a key from a partial record and returns the full record (with its secret,
    /// without `sk-`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{MockServer, NewKey};
    /// let server = MockServer::start().await;
    /// let key = server.add_key(NewKey::new().remain_quota(100).name("tiny"));
    /// let bearer = format!("Bearer sk-{}", key.key);
    /// # let _ = bearer;
    /// # }
    /// ```
    pub fn add_key(&self, new: NewKey) -> KeyRecord {
        self.app
            .state
            .create_key(new, self.app.clock.now(), &self.app.ids)
    }

    /// One key's current record.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let used = server.key(1).map(|k| k.used_quota);
    /// # let _ = used;
    /// # }
    /// ```
    pub fn key(&self, id: i64) -> Option<KeyRecord> {
        self.app.settle_tasks(self.app.clock.now_ms());
        self.app.state.key(id)
    }

    /// Installs a fault and returns its id.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{Fault, MockServer};
    /// let server = MockServer::start().await;
    /// server.inject(Fault::status(503).on("POST /v1/videos").times(1));
    /// # }
    /// ```
    pub fn inject(&self, fault: Fault) -> u64 {
        self.app.faults.add(fault)
    }

    /// Scripts the streamed answers of a route (and optionally a model): their events,
    /// waits and a cut, for the next N of them or until [`MockServer::reset`]. The request is
    /// still admitted as without the script (key, model, validation, charge); only a request
    /// the mock streams plays it. Scripts are tried in the order they were added.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{MockServer, StreamScript};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let server = MockServer::start().await;
    /// server.script_stream(
    ///     StreamScript::new("POST /v1/audio/transcriptions")
    ///         .model("gpt-4o-mini-transcribe")
    ///         .event("transcript.text.delta", &json!({"type": "transcript.text.delta", "delta": "Hel"}))
    ///         .wait(Duration::from_millis(300))
    ///         .event("transcript.text.delta", &json!({"type": "transcript.text.delta", "delta": "lo"}))
    ///         .cut_after(2) // the connection closes before any `transcript.text.done`
    ///         .times(1),
    /// );
    /// // ... a client asking for a streamed transcription now sees two deltas, then a cut ...
    /// # }
    /// ```
    pub fn script_stream(&self, script: StreamScript) {
        self.app.scripts.add(script);
    }

    /// Removes every fault.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.clear_faults();
    /// # }
    /// ```
    pub fn clear_faults(&self) {
        self.app.faults.clear();
    }

    /// The journal, oldest first (at most its capacity).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// // ... drive the client under test ...
    /// let calls = server.received_requests();
    /// assert!(calls.iter().all(|r| r.status != 500));
    /// # }
    /// ```
    pub fn received_requests(&self) -> Vec<JournalEntry> {
        self.app.journal.recent(None)
    }

    /// On a replaying mock ([`crate::MockServerBuilder::replay`]): the `seq` of the recorded
    /// exchanges no request used; empty otherwise.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().replay("rec").start().await;
    /// // ... drive the client under test ...
    /// println!("not replayed: {:?}", server.replay_unused());
    /// # }
    /// ```
    pub fn replay_unused(&self) -> Vec<u64> {
        self.front
            .as_ref()
            .map(|(f, _)| f.matcher().unused())
            .unwrap_or_default()
    }

    /// The Kling callbacks the mock made (at most the last 256), oldest first: the task, the
    /// URL, the JSON sent, the attempts and the result (delivered, failed or refused). Polling
    /// stays the source of truth; this shows what a client's callback endpoint was sent.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::callbacks::CallbackResult;
    /// let server = gatecheck_mock::MockServer::start().await;
    /// // ... create a Kling task with "callback_url": "http://127.0.0.1:<port>/hook" and
    /// // let it end (on the virtual clock: POST /__mock/clock/advance) ...
    /// for cb in server.callbacks() {
    ///     if let CallbackResult::Delivered { status } = cb.result {
    ///         println!("{} -> {} ({status}): {}", cb.task_id, cb.url, cb.payload["task_status"]);
    ///     }
    /// }
    /// # }
    /// ```
    pub fn callbacks(&self) -> Vec<crate::tasks::callbacks::CallbackRecord> {
        self.app.tasks.callbacks.records()
    }

    /// Dumps the whole state (accounts, keys, video tasks, clock offset).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let json = serde_json::to_string(&server.state()).unwrap();
    /// # let _ = json;
    /// # }
    /// ```
    pub fn state(&self) -> StateSnapshot {
        self.app.settle_tasks(self.app.clock.now_ms());
        self.app.snapshot()
    }

    /// Loads a whole state.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let saved = server.state();
    /// server.load_state(saved);
    /// # }
    /// ```
    pub fn load_state(&self, state: StateSnapshot) {
        self.app.restore(state);
    }

    /// Back to the start: the fixtures' state, an empty journal, only the configured faults, no
    /// rate-limit counts, no stream scripts, no clock offset.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.reset();
    /// # }
    /// ```
    pub fn reset(&self) {
        self.app.reset();
    }

    /// Stops accepting, lets open connections finish (at most 5 s), and waits.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.shutdown().await;
    /// # }
    /// ```
    pub async fn shutdown(self) {
        let _ = self.close().await;
    }

    /// Like [`MockServer::shutdown`], then (with a state file) writes the final state and
    /// says whether that worked: stop accepting, drain the open connections, write.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .state_file("state.json")
    ///     .start()
    ///     .await;
    /// server.close().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn close(mut self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        if let Some((_, task)) = self.front.take() {
            let _ = task.await;
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        match &self.app.persist {
            Some(persist) => {
                let result = persist.write_final(self.app.snapshot()).await;
                if let Err(e) = &result {
                    tracing::error!(error = %e, "cannot write the final state");
                }
                result
            }
            None => Ok(()),
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

/// The demo key of a fixture set: the demo account's first enabled key without IP or model
/// restrictions and with limited quota.
///
/// ```
/// let fixtures = gatecheck_mock::Fixtures::embedded();
/// assert_eq!(gatecheck_mock::demo_key_of(&fixtures).map(|k| k.id), Some(1));
/// ```
pub fn demo_key_of(fixtures: &Fixtures) -> Option<&KeyRecord> {
    let user = fixtures.demo_account().map(|a| a.id).unwrap_or(1);
    fixtures.keys.iter().find(|k| {
        k.user_id == user
            && k.status == KEY_STATUS_ENABLED
            && !ip::is_restricted(k.allow_ips.as_deref())
            && !k.model_limits_enabled
            && !k.unlimited_quota
            && k.remain_quota > 0
            && k.expired_time == -1
    })
}
