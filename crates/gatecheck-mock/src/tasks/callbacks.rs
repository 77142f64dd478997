//! Kling's `callback_url` (DECISIONS D-TASK-9): when a Kling task created with one reaches a
//! terminal state on the mock's clock, the mock POSTs Kling's task object there, as Kling
//! does for new-api's clients. Polling stays the source of truth: a callback is a courtesy,
//! sent at most once per task, and losing one changes no task.
//!
//! With `--state-file` the callbacks still waiting for their task are part of the state
//! ([`crate::StateSnapshot::callbacks`]): a mock restarted from the file sends them when their
//! task ends. The pump writes the state before it sends (the file no longer lists what it is
//! about to send), so a restart never sends one twice: a callback cut off by a crash mid-send
//! is lost, as the courtesy allows.
//!
//! Bounded in every way: each POST has a timeout ([`ATTEMPT_TIMEOUT`]) and at most
//! [`MAX_ATTEMPTS`] tries with a doubling backoff; at most [`MAX_PENDING`] callbacks wait for
//! their task (more are refused); the outcomes kept for [`crate::MockServer::callbacks`] are
//! the last [`MAX_RECORDS`]. Each outcome (sent, failed or refused) is journaled and logged.
//! URLs go only to loopback hosts and to the allow list (`--allow-callbacks-to CIDR|HOST`); a
//! refused URL is never contacted. The pump takes what is due under the lock and sends after
//! releasing it: no lock is held across an `.await`.
//!
//! This module holds the callbacks' model (the wait list, the outcomes, one POST with its
//! retries); `delivery.rs` registers them from a task route and runs the pump.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// How long one POST may take.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(3);
/// How many times a callback is tried.
pub const MAX_ATTEMPTS: u32 = 3;
/// The wait before the second try (doubling after).
pub const FIRST_BACKOFF: Duration = Duration::from_millis(200);
/// How many callbacks may wait for their task at once.
pub const MAX_PENDING: usize = 1000;
/// How many outcomes are kept.
pub const MAX_RECORDS: usize = 256;

/// One allow-list entry: an address range or a host name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowEntry {
    /// Addresses in this range (`10.0.0.0/8`, `192.168.1.7/32`).
    Net(ipnet::IpNet),
    /// This host name, exactly (case-insensitive).
    Host(String),
}

impl std::str::FromStr for AllowEntry {
    type Err = String;

    /// A CIDR (`10.0.0.0/8`), an address (a /32 or /128) or a host name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Ok(net) = s.parse::<ipnet::IpNet>() {
            return Ok(Self::Net(net));
        }
        if let Ok(ip) = s.parse::<IpAddr>() {
            return Ok(Self::Net(ip.into()));
        }
        let host_ok = !s.is_empty()
            && s.len() <= 253
            && s.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if host_ok {
            Ok(Self::Host(s.to_ascii_lowercase()))
        } else {
            Err(format!(
                "{s:?} is neither a CIDR, an IP address nor a host name"
            ))
        }
    }
}

/// What became of one callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum CallbackResult {
    /// The receiver answered 2xx.
    Delivered {
        /// Its status.
        status: u16,
    },
    /// Every attempt failed (a non-2xx answer, a timeout or a connection error).
    Failed {
        /// The last status, if an answer came.
        status: Option<u16>,
        /// What went wrong last.
        error: String,
    },
    /// The URL is not allowed (or cannot be used); nothing was sent.
    Refused {
        /// Why.
        reason: String,
    },
}

/// One callback: what was sent, where, and with what result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackRecord {
    /// The task.
    pub task_id: String,
    /// Where it went, its userinfo redacted (`http://***@host/`).
    pub url: String,
    /// The JSON body sent (Kling's task object); `null` when refused.
    pub payload: serde_json::Value,
    /// Tries made (0 when refused).
    pub attempts: u32,
    /// The outcome.
    #[serde(flatten)]
    pub result: CallbackResult,
    /// Mock-clock time of the outcome, Unix ms.
    pub at_ms: i64,
}

impl CallbackRecord {
    /// The outcome of a callback refused at `at_ms` for `reason`: nothing sent, no payload.
    pub(crate) fn refused(p: PendingCallback, reason: String, at_ms: i64) -> Self {
        Self {
            task_id: p.task_id,
            url: crate::userinfo::redact(&p.url).into_owned(),
            payload: serde_json::Value::Null,
            attempts: 0,
            result: CallbackResult::Refused { reason },
            at_ms,
        }
    }
}

/// The refusal of a callback when [`MAX_PENDING`] already wait.
fn wait_list_full() -> String {
    format!("{MAX_PENDING} callbacks are already waiting")
}

/// A callback waiting for its task to end (as [`crate::StateSnapshot::callbacks`] holds it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCallback {
    /// The Kling task.
    pub task_id: String,
    /// Where its task object goes when it ends (serialized with its userinfo redacted: a
    /// state file never holds the credentials; a callback loaded with them redacted is
    /// refused when its task ends).
    #[serde(serialize_with = "crate::userinfo::serialize")]
    pub url: String,
}

#[derive(Debug, Default)]
struct Inner {
    pending: Vec<PendingCallback>,
    records: VecDeque<CallbackRecord>,
}

/// The callbacks of one mock.
#[derive(Debug)]
pub(crate) struct Callbacks {
    allow: Vec<AllowEntry>,
    /// `http://<the mock's address>`, for the result URLs of payloads.
    base: std::sync::OnceLock<String>,
    inner: Mutex<Inner>,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Callbacks {
    /// Callbacks allowed to loopback and to `allow` (entries that do not parse are skipped
    /// with a warning; the CLI refuses them before).
    pub fn new(allow: &[String]) -> Self {
        let allow = allow
            .iter()
            .filter_map(|s| match s.parse() {
                Ok(e) => Some(e),
                Err(e) => {
                    tracing::warn!("--allow-callbacks-to: {e}");
                    None
                }
            })
            .collect();
        let mut http = HttpConnector::new();
        http.set_connect_timeout(Some(ATTEMPT_TIMEOUT));
        Self {
            allow,
            base: std::sync::OnceLock::new(),
            inner: Mutex::new(Inner::default()),
            client: Client::builder(TokioExecutor::new()).build(http),
        }
    }

    /// Sets the mock's own base URL (once, at start).
    pub fn set_base(&self, base: String) {
        let _ = self.base.set(base);
    }

    /// The mock's own base URL (empty before start).
    pub(crate) fn base(&self) -> &str {
        self.base.get().map(String::as_str).unwrap_or("")
    }

    /// Why `url` may not receive a callback, or `None` when it may.
    pub fn refusal(&self, url: &str) -> Option<String> {
        let Ok(parsed) = url::Url::parse(url) else {
            return Some("not an absolute URL".into());
        };
        if crate::userinfo::is_redacted(url) {
            return Some(
                "its credentials were redacted when the state was stored (a state file never \
                 holds them)"
                    .into(),
            );
        }
        if parsed.scheme() != "http" {
            return Some(format!(
                "scheme {} (the mock sends http only)",
                parsed.scheme()
            ));
        }
        let allowed = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => self.ip_allowed(ip.into()),
            Some(url::Host::Ipv6(ip)) => self.ip_allowed(ip.into()),
            Some(url::Host::Domain(d)) => {
                let d = d.to_ascii_lowercase();
                d == "localhost"
                    || self
                        .allow
                        .iter()
                        .any(|e| matches!(e, AllowEntry::Host(h) if *h == d))
            }
            None => false,
        };
        (!allowed).then(|| {
            format!(
                "host {} is not loopback and not allowed (gatecheck serve --allow-callbacks-to)",
                parsed.host_str().unwrap_or("")
            )
        })
    }

    fn ip_allowed(&self, ip: IpAddr) -> bool {
        ip.is_loopback()
            || self
                .allow
                .iter()
                .any(|e| matches!(e, AllowEntry::Net(n) if n.contains(&ip)))
    }

    /// Puts the callback of task `task_id` to `url` on the wait list, or says why it is
    /// refused (the URL, or a full wait list).
    pub(crate) fn queue(&self, task_id: &str, url: &str) -> Result<(), String> {
        if let Some(reason) = self.refusal(url) {
            return Err(reason);
        }
        let mut inner = self.inner.lock();
        if inner.pending.len() >= MAX_PENDING {
            return Err(wait_list_full());
        }
        inner.pending.push(PendingCallback {
            task_id: task_id.to_owned(),
            url: url.to_owned(),
        });
        Ok(())
    }

    /// The callbacks waiting for their task, in the order they were registered.
    pub(crate) fn waiting(&self) -> Vec<PendingCallback> {
        self.inner.lock().pending.clone()
    }

    /// Replaces the wait list with `waiting` (a loaded state). Beyond [`MAX_PENDING`] (a file
    /// written by hand), the rest are kept as refused outcomes at `now_ms`, not dropped
    /// unseen. A URL the allow list no longer admits is refused when its task ends.
    pub(crate) fn restore(&self, mut waiting: Vec<PendingCallback>, now_ms: i64) {
        let over = waiting.split_off(waiting.len().min(MAX_PENDING));
        self.inner.lock().pending = waiting;
        for p in over {
            self.keep(CallbackRecord::refused(p, wait_list_full(), now_ms));
        }
    }

    /// Every outcome kept, oldest first.
    pub fn records(&self) -> Vec<CallbackRecord> {
        self.inner.lock().records.iter().cloned().collect()
    }

    /// Forgets pending callbacks and outcomes (a reset).
    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.pending.clear();
        inner.records.clear();
    }

    /// Keeps an outcome (the last [`MAX_RECORDS`]).
    pub(crate) fn keep(&self, record: CallbackRecord) {
        let mut inner = self.inner.lock();
        if inner.records.len() >= MAX_RECORDS {
            inner.records.pop_front();
        }
        inner.records.push_back(record);
    }

    /// Takes off the wait list the callbacks that `due` says are due, with what it gave for
    /// each (`None` from `due`: still waiting). `due` runs under the lock.
    pub(crate) fn take_due<T, F>(&self, mut due: F) -> Vec<(PendingCallback, T)>
    where
        F: FnMut(&PendingCallback) -> Option<T>,
    {
        let mut inner = self.inner.lock();
        if inner.pending.is_empty() {
            return Vec::new();
        }
        let mut taken = Vec::new();
        inner.pending.retain(|p| match due(p) {
            None => true,
            Some(payload) => {
                taken.push((p.clone(), payload));
                false
            }
        });
        taken
    }

    /// POSTs `body` to `url` with the timeout, retries and backoff: the attempts made and the
    /// result.
    pub(crate) async fn send(&self, url: &str, body: Bytes) -> (u32, CallbackResult) {
        let mut last = CallbackResult::Failed {
            status: None,
            error: "not sent".into(),
        };
        for attempt in 1..=MAX_ATTEMPTS {
            if attempt > 1 {
                tokio::time::sleep(FIRST_BACKOFF * 2u32.pow(attempt - 2)).await;
            }
            // A URL's userinfo goes as Basic auth (as Go's client sends it), not in the URI.
            let (target, auth) = match crate::userinfo::split_credentials(url) {
                Some((bare, auth)) => (bare, Some(auth)),
                None => (url.to_owned(), None),
            };
            let mut req = http::Request::post(target);
            if let Some(auth) = auth {
                req = req.header(http::header::AUTHORIZATION, auth);
            }
            let req = req
                .header(http::header::CONTENT_TYPE, "application/json")
                .header(http::header::USER_AGENT, "gatecheck-mock callback")
                .body(Full::new(body.clone()));
            let req = match req {
                Ok(r) => r,
                Err(e) => {
                    return (
                        0,
                        CallbackResult::Refused {
                            reason: format!("bad URL: {e}"),
                        },
                    )
                }
            };
            match tokio::time::timeout(ATTEMPT_TIMEOUT, self.client.request(req)).await {
                Ok(Ok(resp)) if resp.status().is_success() => {
                    let status = resp.status().as_u16();
                    return (attempt, CallbackResult::Delivered { status });
                }
                Ok(Ok(resp)) => {
                    last = CallbackResult::Failed {
                        status: Some(resp.status().as_u16()),
                        error: format!("answered {}", resp.status()),
                    }
                }
                Ok(Err(e)) => {
                    last = CallbackResult::Failed {
                        status: None,
                        error: format!("request failed: {e}"),
                    }
                }
                Err(_) => {
                    last = CallbackResult::Failed {
                        status: None,
                        error: format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs()),
                    }
                }
            }
        }
        (MAX_ATTEMPTS, last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loaded_wait_list_is_kept_in_order_and_bounded_without_dropping_any_unseen() {
        let c = Callbacks::new(&[]);
        let list: Vec<PendingCallback> = (0..MAX_PENDING + 2)
            .map(|i| PendingCallback {
                task_id: format!("t{i}"),
                url: "http://127.0.0.1:9/h".into(),
            })
            .collect();
        c.restore(list.clone(), 42);
        assert_eq!(c.waiting(), list[..MAX_PENDING]);
        let refused = c.records();
        assert_eq!(refused.len(), 2);
        assert_eq!(refused[1].task_id, format!("t{}", MAX_PENDING + 1));
        assert!(matches!(refused[0].result, CallbackResult::Refused { .. }));
        assert_eq!(refused[0].at_ms, 42);
        c.restore(Vec::new(), 43);
        assert!(c.waiting().is_empty());
    }

    #[test]
    fn loopback_and_the_allow_list_only() {
        let c = Callbacks::new(&["10.1.0.0/16".into(), "hooks.example.com".into()]);
        for ok in [
            "http://127.0.0.1:9/x",
            "http://localhost:8080/",
            "http://[::1]:1/",
            "http://10.1.2.3/h",
            "http://HOOKS.example.com/h",
        ] {
            assert_eq!(c.refusal(ok), None, "{ok}");
        }
        for bad in [
            "http://10.2.0.1/",
            "http://example.com/",
            "https://127.0.0.1/",
            "not a url",
            "http://192.168.0.1/",
        ] {
            assert!(c.refusal(bad).is_some(), "{bad}");
        }
        assert!("10.0.0.0/33".parse::<AllowEntry>().is_err());
        assert!("bad host!".parse::<AllowEntry>().is_err());
        assert_eq!(
            "::1".parse::<AllowEntry>(),
            Ok(AllowEntry::Net("::1/128".parse().unwrap()))
        );
    }
}
