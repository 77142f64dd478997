//! Delivering Kling's callbacks (DECISIONS D-TASK-9; the model is [`super::callbacks`]):
//! registering a task's callback from its route, the pump that sends those whose task has
//! ended, and the journal line of each outcome.

use std::net::IpAddr;
use std::sync::Weak;
use std::time::Duration;

use bytes::Bytes;

use super::callbacks::{CallbackRecord, CallbackResult, PendingCallback};
use super::video::StoredVideo;
use crate::app::App;
use crate::shutdown::wait_down;

/// How often the pump looks for tasks that ended.
const TICK: Duration = Duration::from_millis(50);

/// Registers the callback of task `task_id` to `url`, or records its refusal. Returns the
/// refusal, if any.
pub(crate) fn register(app: &App, task_id: &str, url: &str) -> Option<String> {
    let Err(reason) = app.tasks.callbacks.queue(task_id, url) else {
        return None;
    };
    let shown = crate::userinfo::redact(url);
    tracing::warn!(task = task_id, url = %shown, %reason, "callback refused");
    let p = PendingCallback {
        task_id: task_id.to_owned(),
        url: url.to_owned(),
    };
    finish(
        app,
        CallbackRecord::refused(p, reason.clone(), app.clock.now_ms()),
    );
    Some(reason)
}

/// Keeps an outcome, journals it and logs it.
fn finish(app: &App, record: CallbackRecord) {
    journal(app, &record);
    app.tasks.callbacks.keep(record);
}

/// The pending callbacks whose task has ended (or is gone), removed from the wait list,
/// with their payloads.
fn take_due(app: &App) -> Vec<(PendingCallback, Option<serde_json::Value>)> {
    let now = app.clock.now_ms();
    let due = app.tasks.take_due_callbacks(now);
    due.into_iter()
        .map(|(p, task)| (p, task.map(|t| payload(app, &t, now))))
        .collect()
}

/// Kling's task object for a callback: the `data` of Kling's task answer.
fn payload(app: &App, t: &StoredVideo, now: i64) -> serde_json::Value {
    let state = t.state(now);
    let url = t.content_url(app.tasks.callbacks.base());
    let updated = t.plan.finish_at_ms.min(now);
    let mut v = super::provider::kling_task(t, &state, &url, updated);
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
            _ = wait_down(&mut shutdown) => return,
            _ = tokio::time::sleep(TICK) => {}
        }
        let Some(app) = app.upgrade() else { return };
        let due = take_due(&app);
        if due.is_empty() {
            continue;
        }
        if let Some(persist) = app.persist.clone() {
            // The file forgets them before any is sent: a restart never sends one twice. A
            // failed write is logged by the writer; they are sent all the same.
            persist.sync().await;
        }
        for (p, payload) in due {
            let app = app.clone();
            tokio::spawn(async move {
                let sendable = match payload {
                    None => Err("the task is gone".to_owned()),
                    // A loaded state's callback, against this mock's allow list.
                    Some(v) => app.tasks.callbacks.refusal(&p.url).map_or(Ok(v), Err),
                };
                let payload = match sendable {
                    Ok(v) => v,
                    Err(reason) => {
                        finish(&app, CallbackRecord::refused(p, reason, app.clock.now_ms()));
                        return;
                    }
                };
                let body = Bytes::from(payload.to_string());
                let (attempts, result) = app.tasks.callbacks.send(&p.url, body).await;
                let url = crate::userinfo::redact(&p.url).into_owned();
                tracing::info!(task = %p.task_id, %url, ?result, "callback");
                let record = CallbackRecord {
                    task_id: p.task_id,
                    url,
                    payload,
                    attempts,
                    result,
                    at_ms: app.clock.now_ms(),
                };
                finish(&app, record);
            });
        }
    }
}
