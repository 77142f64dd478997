//! The native vendor routes the platforms' plugins declare (`PluginFacts::native`, the plugin
//! era; DECISIONS D-ERA-11), served from the route table's [`Op::Native`] rows by one handler:
//! the declaration says what a route does, the platform's description how it renders.
//!
//! - A submit: the plugin's `decode` hook reads the vendor's JSON body into a task request,
//!   the model must be one of the plugin's `meta.models`, then the platform's task is placed
//!   as on `POST /v1/videos` (`platform::place`: the key's limits, the channel, the charge)
//!   and the renderer of the new row answers 200.
//! - A query: the key's task named by the path, one of the platform's, rendered at the mock's
//!   now; none is 404 `task_not_found`.
//! - Every refusal past the key is the plugin's `native.error` of the host's sanitized error
//!   (`rules::platforms::native::refusal`), with the host's status.
//!
//! [`Op::Native`]: gatecheck_schemas::routes::Op::Native

use super::ctx::Ctx;
use super::platform::{place, record_now, with_ratios, Checks};
use crate::response::{self, MockResponse};
use crate::tasks::platforms::{hooks_of, Adaptor};
use gatecheck_schemas::routes::NativeOp;
use gatecheck_schemas::rules::platforms::native::{
    refusal, NativeOperation, NativeRoute, NativeTask,
};
use gatecheck_schemas::rules::platforms::{Era, Platform};
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

/// The plugin's `native.error` of a refusal `status` of platform `p`.
fn refused(p: &Platform, status: u16) -> MockResponse {
    let (status, body) = refusal(p, status);
    response::json(status, &body)
}

/// A declared native route (admitted: the key is the caller's).
pub(crate) async fn serve(
    cx: &Ctx,
    req: Request<Incoming>,
    op: NativeOp,
    task_id: &str,
) -> MockResponse {
    let Some((p, route)) = op.route() else {
        return cx.not_found(req.method(), req.uri().path());
    };
    let Some(a) = hooks_of(p.key) else {
        return refused(p, 500);
    };
    match route.operation {
        NativeOperation::Submit => submit(cx, req, a, route).await,
        NativeOperation::Query => query(cx, a, route, task_id),
    }
}

/// A submit route: decode, the plugin's models, the task placed, the new row rendered.
async fn submit(
    cx: &Ctx,
    req: Request<Incoming>,
    a: &'static Adaptor,
    route: &NativeRoute,
) -> MockResponse {
    let p = a.rules;
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return refused(p, resp.status().as_u16()),
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return refused(p, 400);
    };
    let decoded = route.decode.map(|decode| decode(&body));
    let Some(Ok(intent)) = decoded else {
        return refused(p, 400);
    };
    if !p.models_in(Era::Plugins).contains(&intent.model.as_str())
        || p.refusal_in(Era::Plugins, &intent.body).is_err()
    {
        return refused(p, 400);
    }
    let placed = place(
        cx,
        a,
        &intent.model,
        &intent.prompt,
        intent.body,
        Checks::Decoded,
    );
    let (task, ratios) = match placed {
        Ok(placed) => placed,
        Err(resp) => return refused(p, resp.status().as_u16()),
    };
    let record = record_now(cx, a, &task);
    let row = NativeTask {
        task_id: &task.id,
        status: gatecheck_schemas::rules::task::TaskStatus::NotStart,
        fail_reason: "",
        data: record.data(),
    };
    with_ratios(response::json(200, &(route.render)(&row)), ratios)
}

/// A query route: the key's task of the platform named by the path, rendered now.
fn query(cx: &Ctx, a: &'static Adaptor, route: &NativeRoute, task_id: &str) -> MockResponse {
    let p = a.rules;
    let owner = cx.key().map(|k| k.user_id).unwrap_or(0);
    let task = cx.videos().get(task_id, owner).filter(|t| {
        cx.app
            .tasks
            .meta
            .get(t)
            .is_some_and(|m| p.serves_in(Era::Plugins, m.platform))
    });
    let Some(task) = task else {
        return refused(p, 404);
    };
    let record = record_now(cx, a, &task);
    let fail_reason = record.fail_reason();
    let row = NativeTask {
        task_id: &task.id,
        status: record.status(),
        fail_reason: &fail_reason,
        data: record.data(),
    };
    response::json(200, &(route.render)(&row))
}
