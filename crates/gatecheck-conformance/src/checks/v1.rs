//! The `/v1` error conventions: validation status, unknown paths, the error body and the
//! request-id header.

use super::auth::model_routes;
use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{answered_as, Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::generators::media;
use crate::http::client::{Part, RequestSpec};
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::{route, Rejection};
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "v1.validation-status-400",
        kind: Failure,
        route: "/v1/audio/*, /v1/images/generations",
        spec: "spec: Errors (400: invalid prompt, text, file, model, voice, format, size)",
        title: "Invalid requests on the audio and image routes are answered exactly 400.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(validation_400(c)),
    },
    Check {
        id: "v1.unknown-path-404",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: Errors (404: wrong base URL or path)",
        title: "A request to a path the service does not have is answered 404, with a `/v1` error body (DECISIONS D-ROUTE-3; another body deviates).",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unknown_path(c)),
    },
    Check {
        id: "v1.unknown-subpath-404",
        kind: Failure,
        route: "/v1/videos/{task_id}/*",
        spec: "spec: Errors (404: wrong base URL or path); DECISIONS D-TASK-15",
        title: "A path under a task that exists but that the service does not have (`GET /v1/videos/{task_id}/<unknown>`) is answered 404, never as the poll of that task.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unknown_subpath(c)),
    },
    Check {
        id: "v1.error-body",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Error bodies",
        title: "`/v1` errors are JSON `{error:{message, type, param, code}}` with type `new_api_error`.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: Some(id::D_ERR),
        run: |c| Box::pin(error_body(c)),
    },
    Check {
        id: "v1.request-id-header",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Error bodies (X-Oneapi-Request-Id)",
        title: "Every `/v1` response carries `X-Oneapi-Request-Id`.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: Some(id::D_ERR),
        run: |c| Box::pin(request_id(c)),
    },
];

async fn validation_400(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let routes = model_routes(ctx);
    let route = |path: &str| routes.iter().find(|r| r.path == path);
    let mut invalid = Vec::new();
    if let Some(r) = route("/v1/audio/translations") {
        // Translation: temperature past 1.
        let mut parts = match &r.body {
            crate::http::client::Body::Multipart(p) => p.clone(),
            _ => vec![],
        };
        parts.push(Part::text(
            "temperature",
            (gatecheck_schemas::rules::media::TEMPERATURE.end() + 0.5).to_string(),
        ));
        invalid.push(RequestSpec::post("/v1/audio/translations").multipart(parts));
        invalid.push(
            RequestSpec::post("/v1/audio/translations").multipart(vec![Part::file(
                "file",
                "a.wav",
                "audio/wav",
                media::wav(100),
            )]),
        );
    }
    if let Some(r) = route("/v1/audio/speech")
        && let crate::http::client::Body::Json(v) = &r.body
    {
        let mut v = v.clone();
        v["input"] = json!("");
        invalid.push(RequestSpec::post("/v1/audio/speech").json(v));
    }
    if let Some(r) = route("/v1/images/generations")
        && let crate::http::client::Body::Json(v) = &r.body
    {
        let mut v = v.clone();
        v["size"] = json!("3x3");
        invalid.push(RequestSpec::post("/v1/images/generations").json(v));
    }
    let n = invalid.len();
    if n == 0 {
        return Err(Halt::Skip(
            SkipCause::RouteNotServed,
            "the target serves none of the audio and image routes".into(),
        ));
    }
    for_all(
        ctx,
        ctx.cfg.scope.cases.min(n as u32).max(1),
        0..n,
        |i: usize| {
            let spec = invalid[i].clone().auth(auth.clone());
            async move {
                let ex = ctx.send(&spec, 0).await?;
                ctx.expect_rejection(
                    Rejection::MediaValidation,
                    id::P2,
                    "a validation error",
                    &spec,
                    &ex,
                )
            }
        },
    )
    .await
}

async fn error_body(ctx: &CheckCtx) -> Outcome {
    super::for_all_routes(ctx, |spec| async move {
        let ex = ctx.send(&spec, 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        if ex.content_type().as_deref() != Some("application/json") {
            return Err(ctx.fail("the error is not application/json", &spec, Some(&ex)));
        }
        if let Err(e) = gatecheck_schemas::validate("v1-error", &v) {
            return Err(ctx.fail(format!("schema v1-error: {e}"), &spec, Some(&ex)));
        }
        if v.pointer("/error/type").and_then(Value::as_str) != Some("new_api_error") {
            return Err(ctx.fail("error.type is not new_api_error", &spec, Some(&ex)));
        }
        Ok(())
    })
    .await
}

async fn request_id(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth().ok();
    super::for_all_routes(ctx, |spec| {
        let spec = match &auth {
            Some(a) if spec.method == http::Method::GET => spec.auth(a.clone()),
            _ => spec,
        };
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if ex
                .header(gatecheck_schemas::rules::time::REQUEST_ID_HEADER)
                .is_none_or(str::is_empty)
            {
                return Err(ctx.fail("no X-Oneapi-Request-Id header", &spec, Some(&ex)));
            }
            Ok(())
        }
    })
    .await
}

async fn unknown_path(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let strat = ("[a-z]{3,12}", proptest::bool::ANY);
    // Whether a 404 carried new-api's own not-found body (DECISIONS D-ROUTE-3: accepted).
    let new_api_body = &std::sync::atomic::AtomicBool::new(false);
    let mut pass = for_all(
        ctx,
        ctx.cfg.scope.cases.min(4),
        strat,
        |(seg, post): (String, bool)| {
            let path = format!("/v1/gatecheck-{seg}");
            let spec = if post {
                RequestSpec::post(path).json(json!({"model": "x"}))
            } else {
                RequestSpec::get(path)
            }
            .auth(auth.clone());
            async move {
                let ex = ctx.send(&spec, 0).await?;
                if !answered_as(&ex, Rejection::UnknownPath) {
                    return Err(ctx.fail(
                        format!("an unknown path was answered {}", ex.status),
                        &spec,
                        Some(&ex),
                    ));
                }
                not_found_body(ctx, &spec, &ex)?;
                if ctx.judges_plugins()
                    && !gatecheck_schemas::rules::era::forbids_store(ex.header("cache-control"))
                {
                    return Err(ctx.deviate(
                        id::D_ERA_5,
                        format!(
                            "the plugin era's not-found answer forbids caching (Cache-Control: no-store); this one says {:?}",
                            ex.header("cache-control").unwrap_or("nothing")
                        ),
                        &spec,
                        Some(&ex),
                    ));
                }
                let body = ex.json().unwrap_or(Value::Null);
                let message = route::not_found_message(spec.method.as_str(), &spec.path);
                if route::is_new_api_not_found(&body) && body["error"]["message"] == message {
                    new_api_body.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(())
            }
        },
    )
    .await?;
    if new_api_body.load(std::sync::atomic::Ordering::Relaxed) {
        pass.note = Some("answered with new-api's not-found body (DECISIONS D-ROUTE-3)".into());
    }
    Ok(pass)
}

/// The body of a 404 for an unrouted path: one of the shapes DECISIONS D-ROUTE-3 allows (the
/// documented `/v1` error or new-api's `RelayNotFound`, both `{error:{message, type, ...}}`,
/// extra fields and a gateway's request id in the message welcome); another body deviates
/// (the spec pins the status only).
fn not_found_body(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    ex: &crate::http::client::Exchange,
) -> Result<(), Halt> {
    let body = ex.json().unwrap_or(Value::Null);
    match gatecheck_schemas::validate("v1-error", &body) {
        Ok(()) => Ok(()),
        Err(e) => Err(ctx.deviate(
            id::D_ROUTE_3,
            format!(
                "the 404 of an unknown path is {}, not a /v1 error body: {e}",
                super::status_and_type(ex)
            ),
            spec,
            Some(ex),
        )),
    }
}

/// Unrouted paths under a task that exists: `GET /v1/videos/{id}/<unknown>` (and under its
/// content route) must be 404, not the poll of `{id}` (DECISIONS D-TASK-15).
async fn unknown_subpath(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let id = super::video_run::observed_task_id(ctx).await?;
    let test = |(seg, under_content): (String, bool)| {
        let tail = if under_content {
            format!("content/gatecheck-{seg}")
        } else {
            format!("gatecheck-{seg}")
        };
        let spec = RequestSpec::get(format!("/v1/videos/{id}/{tail}")).auth(auth.clone());
        let id = id.clone();
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if !answered_as(&ex, Rejection::UnknownPath) {
                let polled = ex.json().is_some_and(|v| v["id"].as_str() == Some(&id));
                let how = if polled {
                    format!(" with the task object of {id}: a sub-path is served as the poll")
                } else {
                    String::new()
                };
                return Err(ctx.fail(
                    format!(
                        "an unrouted sub-path of a task was answered {}{how}",
                        ex.status
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            not_found_body(ctx, &spec, &ex)
        }
    };
    let forced = subpath_forced();
    let n = forced.len() as u32;
    for case in forced {
        test(case).await?;
    }
    let mut pass = for_all(
        ctx,
        subpath_drawn(ctx.cfg.scope.cases),
        subpath_cases(),
        &test,
    )
    .await?;
    pass.cases += n;
    Ok(pass)
}

/// The drawn sub-paths: a segment, and whether it sits under `/content`.
pub(crate) fn subpath_cases() -> impl proptest::strategy::Strategy<Value = (String, bool)> {
    ("[a-z]{3,12}", proptest::bool::ANY)
}

/// The sub-paths sent on every run, whatever the seed: one of each kind (directly under the
/// task, and under its `/content`); the drawn ones come on top.
pub(crate) fn subpath_forced() -> Vec<(String, bool)> {
    vec![("probe".to_owned(), false), ("probe".to_owned(), true)]
}

/// The class of a sub-path case (what `v1.unknown-subpath-404` claims to send on every run).
#[cfg_attr(not(test), allow(dead_code))] // read by `classes.rs`'s test
pub(crate) fn subpath_class(case: &(String, bool)) -> Vec<String> {
    vec![if case.1 { "/content/<x>" } else { "/<x>" }.to_owned()]
}

/// The drawn cases of a run on top of [`subpath_forced`].
pub(crate) fn subpath_drawn(cases: u32) -> u32 {
    cases.min(4)
}
