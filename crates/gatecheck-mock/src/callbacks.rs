//! Kling's `callback_url` (DECISIONS D-TASK-9): when a Kling task created with one reaches a
//! terminal state on the mock's clock, the mock POSTs Kling's task object there, as Kling
//! does for new-api's clients. Polling stays the source of truth: a callback is a courtesy,
//! sent at most once per task, and losing one changes no task.
//!
//! Bounded in every way: each POST has a timeout ([`ATTEMPT_TIMEOUT`]) and at most
//! [`MAX_ATTEMPTS`] tries with a doubling backoff; at most [`MAX_PENDING`] callbacks wait for
//! their task (more are refused); the outcomes kept for [`crate::MockServer::callbacks`] are
//! the last [`MAX_RECORDS`]. Each outcome (sent, failed or refused) is journaled and logged.
//! URLs go only to loopback hosts and to the allow list (`--allow-callbacks-to CIDR|HOST`); a
//! refused URL is never contacted. The pump takes what is due under the lock and sends after
//! releasing it: no lock is held across an `.await`.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Weak;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::app::App;

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
/// How often the pump looks for tasks that ended.
const TICK: Duration = Duration::from_millis(50);

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
    /// Where it went.
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

#[derive(Debug, Clone)]
struct Pending {
    task_id: String,
    url: String,
}

#[derive(Debug, Default)]
struct Inner {
    pending: Vec<Pending>,
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
    fn base(&self) -> &str {
        self.base.get().map(String::as_str).unwrap_or("")
    }

    /// Why `url` may not receive a callback, or `None` when it may.
    pub fn refusal(&self, url: &str) -> Option<String> {
        let Ok(parsed) = url::Url::parse(url) else {
            return Some("not an absolute URL".into());
        };
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

    /// Registers the callback of task `task_id` to `url`, or records its refusal. Returns the
    /// refusal, if any.
    pub fn register(&self, app: &App, task_id: &str, url: &str) -> Option<String> {
        let mut reason = self.refusal(url);
        {
            let mut inner = self.inner.lock();
            if reason.is_none() && inner.pending.len() >= MAX_PENDING {
                reason = Some(format!("{MAX_PENDING} callbacks are already waiting"));
            }
            if reason.is_none() {
                inner.pending.push(Pending {
                    task_id: task_id.to_owned(),
                    url: url.to_owned(),
                });
                return None;
            }
        }
        let reason = reason.unwrap_or_default();
        tracing::warn!(task = task_id, url, %reason, "callback refused");
        self.finish(
            app,
            CallbackRecord {
                task_id: task_id.to_owned(),
                url: url.to_owned(),
                payload: serde_json::Value::Null,
                attempts: 0,
                result: CallbackResult::Refused {
                    reason: reason.clone(),
                },
                at_ms: app.clock.now_ms(),
            },
        );
        Some(reason)
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

    /// Keeps an outcome, journals it and logs it.
    fn finish(&self, app: &App, record: CallbackRecord) {
        journal(app, &record);
        let mut inner = self.inner.lock();
        if inner.records.len() >= MAX_RECORDS {
            inner.records.pop_front();
        }
        inner.records.push_back(record);
    }

    /// The pending callbacks whose task has ended (or is gone), removed from the wait list,
    /// with their payloads.
    fn take_due(&self, app: &App) -> Vec<(Pending, Option<serde_json::Value>)> {
        let now = app.clock.now_ms();
        let mut inner = self.inner.lock();
        if inner.pending.is_empty() {
            return Vec::new();
        }
        let mut due = Vec::new();
        inner
            .pending
            .retain(|p| match app.state.videos.get_any(&p.task_id) {
                Some(t) if !t.status_at(now).is_terminal() => true,
                task => {
                    due.push((p.clone(), task.map(|t| payload(app, &t, now))));
                    false
                }
            });
        due
    }

    /// POSTs `body` to `url` with the timeout, retries and backoff: the attempts made and the
    /// result.
    async fn send(&self, url: &str, body: Bytes) -> (u32, CallbackResult) {
        let mut last = CallbackResult::Failed {
            status: None,
            error: "not sent".into(),
        };
        for attempt in 1..=MAX_ATTEMPTS {
            if attempt > 1 {
                tokio::time::sleep(FIRST_BACKOFF * 2u32.pow(attempt - 2)).await;
            }
            let req = http::Request::post(url)
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

/// Kling's task object for a callback: the `data` of Kling's task answer.
fn payload(app: &App, t: &crate::video::StoredVideo, now: i64) -> serde_json::Value {
    let state = t.state(now);
    let url = t.content_url(app.callbacks.base());
    let updated = t.plan.finish_at_ms.min(now);
    let mut v = crate::routes::kling::kling_task(t, &state, &url, updated);
    v["data"].take()
}

/// Journals a callback's outcome as a request the mock made: `POST <url path>`, the result
/// as its fault text.
fn journal(app: &App, r: &CallbackRecord) {
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
    app.journal.push(crate::journal::Record {
        at_ms: r.at_ms,
        request_id: app.ids.request_id(r.at_ms),
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
    });
}

/// Sends the callbacks of tasks that ended, until the mock shuts down or is dropped.
pub(crate) async fn pump(app: Weak<App>, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = crate::shutdown::wait_down(&mut shutdown) => return,
            _ = tokio::time::sleep(TICK) => {}
        }
        let Some(app) = app.upgrade() else { return };
        let due = app.callbacks.take_due(&app);
        for (p, payload) in due {
            let app = app.clone();
            tokio::spawn(async move {
                let Some(payload) = payload else {
                    let record = CallbackRecord {
                        task_id: p.task_id.clone(),
                        url: p.url.clone(),
                        payload: serde_json::Value::Null,
                        attempts: 0,
                        result: CallbackResult::Refused {
                            reason: "the task is gone".into(),
                        },
                        at_ms: app.clock.now_ms(),
                    };
                    app.callbacks.finish(&app, record);
                    return;
                };
                let body = Bytes::from(payload.to_string());
                let (attempts, result) = app.callbacks.send(&p.url, body).await;
                tracing::info!(task = %p.task_id, url = %p.url, ?result, "callback");
                let record = CallbackRecord {
                    task_id: p.task_id,
                    url: p.url,
                    payload,
                    attempts,
                    result,
                    at_ms: app.clock.now_ms(),
                };
                app.callbacks.finish(&app, record);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
