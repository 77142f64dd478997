//! `task.native-routes`: the native vendor routes the platforms' task plugins declare
//! (`PluginFacts::native`, new-api's plugin era; DECISIONS D-ERA-15, D-ERA-16), for every
//! platform with a model in the target's catalog: a submit through the declared route in the
//! vendor's own body, then the declared fetch of that task and of an unknown one.
//!
//! What fails: a declared route not served, an answer other than 200 JSON in the declared
//! body (its schema, `NativeRoute::schema`), a submit whose public id is no `task_` id, and a
//! fetch answering another task than the one asked. What deviates (D-ERA-16): an unknown task
//! not answered 404 in the plugin's `native.error` shape. Skipped with its cause in the Go
//! adaptors' era, which routes none of them.

use super::Kind::Failure;
use super::{Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::platforms::native::{
    refusal, violations, NativeOperation, NativeRoute,
};
use gatecheck_schemas::rules::platforms::{all, Platform};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::video::is_task_id;
use gatecheck_schemas::Era;
use serde_json::Value;

pub(crate) const CHECKS: &[Check] = &[Check {
    id: "task.native-routes",
    kind: Failure,
    route: "the native routes the platforms' plugins declare (a submit, a fetch of {task_id})",
    spec: "DECISIONS D-ERA-15, D-ERA-16",
    title: "In new-api's plugin era, each native route a platform's plugin declares (Doubao's Ark, Ali's DashScope) submits a task in the vendor's own body and fetches it back: 200 in the declared body with the public `task_` id, the fetch the task asked for; an unknown task is 404 in the plugin's `native.error`. Skipped in the Go-adaptor era.",
    phase: Phase::Shared,
    needs: Needs::Nothing,
    mock_only: None,
    decision: None,
    run: |c| Box::pin(native_routes(c)),
}];

/// The id of a task no key has.
const UNKNOWN_TASK: &str = "task_gatecheckNoSuchNativeTask00";

/// The prompt of every native submit.
const PROMPT: &str = "a paper kite over dunes (gatecheck)";

async fn native_routes(ctx: &CheckCtx) -> Outcome {
    if ctx.env.era() != Era::Plugins {
        return Err(Halt::Skip(
            SkipCause::RouteNotServed,
            format!(
                "the task-layer era is {}: the plugins' native routes are the plugin era's (DECISIONS D-ERA-15)",
                ctx.env.era.describe()
            ),
        ));
    }
    let mut cases = 0;
    let mut missing = Vec::new();
    for p in all().iter().copied() {
        let native = &p.plugins.native;
        let (Some(submit), Some(query)) = (
            native.route(NativeOperation::Submit),
            native.route(NativeOperation::Query),
        ) else {
            continue;
        };
        match super::platforms::model_of(ctx, p) {
            Ok(model) => cases += platform(ctx, p, &model, submit, query).await?,
            Err(_) => missing.push(p.name),
        }
    }
    if cases == 0 {
        return Err(Halt::no_model(format!(
            "no model of a platform with native routes ({}) in the catalog",
            missing.join(", ")
        )));
    }
    Ok(Pass { cases, note: None })
}

/// The submit, its fetch and an unknown task's fetch through `p`'s declared routes.
async fn platform(
    ctx: &CheckCtx,
    p: &'static Platform,
    model: &str,
    submit: &NativeRoute,
    query: &NativeRoute,
) -> Result<u32, Halt> {
    let auth = ctx.model_auth()?;
    let body = submit.example.map_or(Value::Null, |f| f(model, PROMPT));
    let price = ctx.price(
        model,
        Usage {
            seconds: 5.0,
            ..Usage::one_request()
        },
    );
    let spec = RequestSpec::new(method(submit), submit.path)
        .auth(auth.clone())
        .json(body);
    let ex = ctx.send(&spec, price).await?;
    let created = vendor_body(ctx, p, submit, &spec, &ex)?;
    let id = created
        .pointer(submit.id_pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if !is_task_id(&id) {
        return Err(ctx.fail(
            format!(
                "{}'s native create answered {:?} at {}, not the public task_ id",
                p.title, id, submit.id_pointer
            ),
            &spec,
            Some(&ex),
        ));
    }
    let fetch =
        RequestSpec::new(method(query), query.path.replace("{task_id}", &id)).auth(auth.clone());
    let fetched = ctx.send(&fetch, 0).await?;
    let status = vendor_body(ctx, p, query, &fetch, &fetched)?;
    if status.pointer(query.id_pointer) != Some(&Value::from(id.as_str())) {
        return Err(ctx.fail(
            format!(
                "{}'s native fetch of {id} answered the task {} at {}",
                p.title,
                status.pointer(query.id_pointer).unwrap_or(&Value::Null),
                query.id_pointer
            ),
            &fetch,
            Some(&fetched),
        ));
    }
    unknown_task(ctx, p, query).await?;
    Ok(3)
}

/// The method of a declared route.
fn method(r: &NativeRoute) -> http::Method {
    http::Method::from_bytes(r.method.as_bytes()).unwrap_or(http::Method::GET)
}

/// The answer of a declared route: 200 JSON in the route's declared body.
fn vendor_body(
    ctx: &CheckCtx,
    p: &Platform,
    r: &NativeRoute,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<Value, Halt> {
    if ex.status == http::StatusCode::NOT_FOUND {
        return Err(ctx.fail(
            format!(
                "{} {} is not served: the plugin era routes the native routes {}'s plugin declares ({})",
                r.method, r.path, p.title, p.plugins.source
            ),
            spec,
            Some(ex),
        ));
    }
    let v = ctx.json_200(spec, ex)?;
    let broken = violations(&(r.schema)(), &v);
    if let Some(first) = broken.first() {
        return Err(ctx.fail(
            format!(
                "{}'s native `{}` body breaks its schema ({} rule(s)): {first}",
                p.title,
                r.renderer,
                broken.len()
            ),
            spec,
            Some(ex),
        ));
    }
    Ok(v)
}

/// An unknown task: 404 in the plugin's `native.error` of the host's `task_not_found` (a
/// deviation otherwise; a message of another host version is no difference).
async fn unknown_task(ctx: &CheckCtx, p: &Platform, query: &NativeRoute) -> Result<(), Halt> {
    let spec = RequestSpec::new(method(query), query.path.replace("{task_id}", UNKNOWN_TASK))
        .auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    let mut broken = violations(&(p.plugins.native.error_schema)(), &v);
    let (status, want) = refusal(p, 404);
    let code = |v: &Value| v.pointer("/error/code").or_else(|| v.get("code")).cloned();
    if broken.is_empty() && code(&v) != code(&want) {
        broken.push(format!(
            "code {} where the host names {}",
            code(&v).unwrap_or(Value::Null),
            code(&want).unwrap_or(Value::Null)
        ));
    }
    if ex.status.as_u16() == status && broken.is_empty() {
        return Ok(());
    }
    Err(ctx.deviate(
        id::D_ERA_16,
        format!(
            "an unknown task on {} {} was answered {}{}, not 404 in {}'s native.error",
            query.method,
            query.path,
            ex.status.as_u16(),
            broken
                .first()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default(),
            p.title
        ),
        &spec,
        Some(&ex),
    ))
}
