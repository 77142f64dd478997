//! Delivering Kling's callbacks (DECISIONS D-TASK-9; the model is
//! [`crate::tasks::callbacks`]): the pump that sends those whose task has ended. Registering a
//! callback and keeping each outcome (with its journal line) are [`App`]'s.

use std::sync::Weak;
use std::time::Duration;

use bytes::Bytes;

use crate::app::App;
use crate::shutdown::wait_down;
use crate::tasks::callbacks::{CallbackRecord, PendingCallback};
use crate::tasks::video::StoredVideo;

/// How often the pump looks for tasks that ended.
const TICK: Duration = Duration::from_millis(50);

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
    let upstream = crate::tasks::platforms::callback_room().and_then(|r| r.upstream);
    let mut v = upstream.map_or(serde_json::Value::Null, |f| f(t, &state, &url, updated));
    v["data"].take()
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
                        app.finish_callback(CallbackRecord::refused(p, reason, app.clock.now_ms()));
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
                app.finish_callback(record);
            });
        }
    }
}
