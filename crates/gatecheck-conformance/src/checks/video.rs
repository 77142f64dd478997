//! Video tasks: creation, polling to a terminal state, the lifecycle invariants, the content
//! route. One observed run (`video_run.rs`: tasks created and polled once) serves every
//! lifecycle check.

use super::property::for_all;
use super::video_run::{parse_task, run, verdict, video_model};
use super::Kind::{Deviation, Failure};
use super::{
    accepted, is_unknown_model_rejection, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase,
};
use crate::http::client::{Exchange, RequestSpec};
use crate::http::transport::is_new_api_unknown_model;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::video::{
    check_created, check_task_decisions, check_task_decisions_in, check_task_decisions_named,
    check_task_rule, check_transition, content_rejection, is_task_id, missing_openai_keys,
    RULE_COMPLETED_AT, RULE_PROGRESS_100, RULE_PROGRESS_RANGE,
};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::VideoStatus;
use gatecheck_schemas::{NamedProfile, Profile};
use proptest::prelude::*;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "video.create.queued",
        kind: Failure,
        route: "POST /v1/videos",
        spec: "spec: POST /v1/videos (Response); Video task (id, task_id, created_at)",
        title: "Creating a task answers a video task with status `queued`, progress 0, `object` `video`, `created_at`, and `task_id` equal to `id`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(create_queued(c)),
    },
    Check {
        id: "video.task.schema",
        kind: Failure,
        route: "POST /v1/videos, GET /v1/videos/{task_id}",
        spec: "spec: Video task",
        title: "Every create and poll answer is a JSON video task valid against the schema.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(task_schema(c)),
    },
    Check {
        id: "video.poll.id-matches",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: GET /v1/videos/{task_id}",
        title: "Polling a task answers that task: the same `id`, model and `created_at`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(id_matches(c)),
    },
    Check {
        id: "video.progress.range",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: Video task (progress 0 at creation, 100 when completed)",
        title: "`progress` is always within [0, 100].",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(progress_range(c)),
    },
    Check {
        id: "video.progress.monotone",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: States (video task status)",
        title: "Between polls, progress never decreases and the status never goes back.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(monotone(c)),
    },
    Check {
        id: "video.completed.progress-100",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: Video task (progress: 100 when completed)",
        title: "`progress` is 100 when the task is completed and below 100 while it is queued or in progress; a failed task may show 100 (new-api's FAILURE is at `100%`, D-TASK-2).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(progress_100(c)),
    },
    Check {
        id: "video.completed.timestamps",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: Video task (completed_at)",
        title: "A completed task's `completed_at` is not before its `created_at`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(timestamps(c)),
    },
    Check {
        id: "video.reaches-terminal",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: States (video task status: polling stops at completed, failed, error)",
        title: "Every task reaches a terminal state (completed, failed, error) within the video deadline.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(reaches_terminal(c)),
    },
    Check {
        id: "video.terminal.stable",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: States (completed, failed and error are terminal)",
        title: "Once terminal, a task never changes again.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(terminal_stable(c)),
    },
    Check {
        id: "video.task.decided-fields",
        kind: Deviation,
        route: "POST /v1/videos, GET /v1/videos/{task_id}",
        spec: "DECISIONS: Video tasks",
        title: "Decided fields: `task_` + 32 letters and digits ids, `video_url` and `metadata.url` when completed, `error{code,message}` when failed, and every key of OpenAI's VideoResource (`null` when unknown; D-ROUTE-4).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(decided_fields(c)),
    },
    Check {
        id: "video.content.mp4",
        kind: Deviation,
        route: "GET /v1/videos/{task_id}/content",
        spec: "DECISIONS: Video tasks (content route)",
        title: "A completed task's content is `video/mp4` bytes that parse as an MP4 with a video track.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(content_mp4(c)),
    },
    Check {
        id: "video.content.not-ready-400",
        kind: Deviation,
        route: "GET /v1/videos/{task_id}/content",
        spec: "DECISIONS: Video tasks (content route)",
        title: "The content of a task that is not completed is answered 400.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(content_not_ready(c)),
    },
    Check {
        id: "video.create.empty-prompt-400",
        kind: Failure,
        route: "POST /v1/videos",
        spec: "spec: Errors (400 invalid prompt)",
        title: "A create request with an empty or missing prompt is answered 400.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(empty_prompt(c)),
    },
    Check {
        id: "video.create.unknown-model-rejected",
        kind: Failure,
        route: "POST /v1/videos",
        spec: "spec: Errors (400 invalid model identifier; 404 wrong model identifier)",
        title: "A create request naming an unknown model is answered 400 or 404.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unknown_model(c)),
    },
    Check {
        id: "video.create.unknown-model-503",
        kind: Deviation,
        route: "POST /v1/videos",
        spec: "DECISIONS NA5 (new-api's distributor: 503 model_not_found)",
        title: "An unknown model is not answered 503 `model_not_found` (which the spec tells clients to retry).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(unknown_model_503(c)),
    },
    Check {
        id: "video.create.encodings",
        kind: Deviation,
        route: "POST /v1/videos",
        spec: "DECISIONS: Video tasks (multipart, urlencoded and JSON)",
        title: "Task creation accepts JSON and x-www-form-urlencoded bodies as well as multipart.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(encodings(c)),
    },
    Check {
        id: "video.poll.unknown-id-404",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: Errors (404 wrong task identifier)",
        title: "Polling an unknown task id is answered 404.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoPoll]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unknown_id(c)),
    },
];

async fn create_queued(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    for t in &r.traces {
        let o = &t.create;
        let Some(task) = o.task.as_ref().filter(|_| o.ex.status.is_success()) else {
            return Err(ctx.fail(
                format!("creating a task was answered {}", o.ex.status),
                &o.spec,
                Some(&o.ex),
            ));
        };
        let problem = if let Err(v) = check_created(task) {
            Some(v.to_string())
        } else if task.task_id.is_empty() && !ctx.judges_plugins() {
            // The plugin era's create answer has none (DECISIONS D-ERA-2).
            Some(format!(
                "the create answer has no task_id (the spec: the same value as id {:?})",
                task.id
            ))
        } else if !task.task_id.is_empty() && task.task_id != task.id {
            Some(format!(
                "task_id {:?} differs from id {:?}",
                task.task_id, task.id
            ))
        } else if task.model != r.model {
            Some(format!("model {:?}, requested {:?}", task.model, r.model))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(ctx.fail(p, &o.spec, Some(&o.ex)));
        }
    }
    Ok(Pass {
        cases: r.traces.len() as u32,
        note: None,
    })
}

async fn task_schema(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, _| {
        if !o.ex.status.is_success() {
            return Some(format!("answered {}", o.ex.status));
        }
        if o.ex.content_type().as_deref() != Some("application/json") {
            return Some("not application/json".into());
        }
        let v = o.ex.json().unwrap_or(Value::Null);
        gatecheck_schemas::validate_pinned("video-task", &v)
            .err()
            .map(|e| format!("schema video-task: {e}"))
    })
}

async fn id_matches(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |t, o, _| {
        let created = t.create.task.as_ref()?;
        let task = o.task.as_ref()?;
        if task.id != created.id
            || task.model != created.model
            || task.created_at != created.created_at
        {
            return Some(format!(
                "polled {:?} and got task {:?} (model {}, created_at {})",
                created.id, task.id, task.model, task.created_at
            ));
        }
        None
    })
}

async fn progress_range(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, _| {
        let t = o.task.as_ref()?;
        check_task_rule(t, RULE_PROGRESS_RANGE)
            .err()
            .map(|v| v.to_string())
    })
}

async fn monotone(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, prev| {
        let (a, b) = (prev?.task.as_ref()?, o.task.as_ref()?);
        if a.status.is_terminal() {
            return None;
        }
        match check_transition(a, b) {
            Err(v) if v.rule == "video.progress_monotonic" || v.rule == "video.status_order" => {
                Some(v.to_string())
            }
            _ => None,
        }
    })
}

async fn progress_100(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, _| {
        let t = o.task.as_ref()?;
        check_task_rule(t, RULE_PROGRESS_100)
            .err()
            .map(|v| v.to_string())
    })
}

async fn timestamps(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, _| {
        let t = o.task.as_ref()?;
        check_task_rule(t, RULE_COMPLETED_AT)
            .err()
            .map(|v| v.to_string())
    })
}

async fn reaches_terminal(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    for t in &r.traces {
        if t.create.task.is_none() {
            continue;
        }
        if !t.terminal {
            let last = t.polls.last().unwrap_or(&t.create);
            let status = last
                .task
                .as_ref()
                .map(|t| t.status.as_str())
                .unwrap_or("unreadable");
            return Err(ctx.fail(
                format!(
                    "no terminal state after {:?} ({} polls); last status {status}",
                    t.waited,
                    t.polls.len()
                ),
                &last.spec,
                Some(&last.ex),
            ));
        }
    }
    Ok(Pass {
        cases: r.traces.len() as u32,
        note: None,
    })
}

async fn terminal_stable(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    verdict(ctx, &r, |_, o, prev| {
        let (a, b) = (prev?.task.as_ref()?, o.task.as_ref()?);
        if !a.status.is_terminal() {
            return None;
        }
        match check_transition(a, b) {
            Err(v) if v.rule == "video.terminal_stable" => Some(v.to_string()),
            _ => None,
        }
    })
}

/// The decided fields of every observed task. A completed task with its URL only in
/// `metadata.url` is new-api's shape (DECISIONS NA3), judged by `--expect` once all else
/// passed.
async fn decided_fields(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    let mut na3: Option<(String, RequestSpec, Exchange)> = None;
    let mut omitted: Option<(Vec<&'static str>, RequestSpec, Exchange)> = None;
    let pass = verdict(ctx, &r, |_, o, _| {
        let t = o.task.as_ref()?;
        if omitted.is_none() {
            let missing = missing_openai_keys(&o.ex.json().unwrap_or(Value::Null));
            if !missing.is_empty() {
                omitted = Some((missing, o.spec.clone(), o.ex.clone()));
            }
        }
        if !is_task_id(&t.id) {
            return Some(format!(
                "id {:?} is not task_ + 32 letters and digits",
                t.id
            ));
        }
        match check_task_decisions(t) {
            Ok(()) => None,
            // The plugin era's host-owned render (DECISIONS D-ERA-2, D-ERA-3).
            Err(_)
                if ctx.judges_plugins()
                    && check_task_decisions_named(t, NamedProfile::NEW_API).is_ok() =>
            {
                None
            }
            Err(v) if check_task_decisions_in(t, Profile::NewApi).is_ok() => {
                if na3.is_none() {
                    na3 = Some((v.to_string(), o.spec.clone(), o.ex.clone()));
                }
                None
            }
            Err(v) => Some(v.to_string()),
        }
    })?;
    if let Some((msg, spec, ex)) = na3 {
        ctx.known_difference(
            id::NA3,
            format!(
                "{msg}: the URL is only in metadata.url; a client reading video_url finds none"
            ),
            &spec,
            Some(&ex),
        )?;
    }
    if let Some((missing, spec, ex)) = omitted {
        ctx.known_difference(
            id::D_ROUTE_4,
            format!(
                "the video object lacks {}, keys OpenAI's VideoResource requires (null when \
                 unknown): a client decoding it with OpenAI's types finds them missing",
                missing.join(", ")
            ),
            &spec,
            Some(&ex),
        )?;
    }
    Ok(pass)
}

async fn content_mp4(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    let auth = ctx.model_auth()?;
    let mut n = 0;
    for t in &r.traces {
        let Some(done) = t.polls.iter().rev().find_map(|o| {
            o.task
                .as_ref()
                .filter(|t| t.status == VideoStatus::Completed)
        }) else {
            continue;
        };
        let spec = RequestSpec::get(format!("/v1/videos/{}/content", done.id)).auth(auth.clone());
        let ex = ctx.send(&spec, 0).await?;
        if accepted(&ex) {
            let label = format!("{} ({})", done.id, done.model);
            ctx.keep_media("video.content.mp4", label, "video/mp4", &ex.body);
        }
        if !accepted(&ex) || ex.content_type().as_deref() != Some("video/mp4") {
            return Err(ctx.fail(
                format!(
                    "expected {ACCEPTED} video/mp4, got {}",
                    super::status_and_type(&ex)
                ),
                &spec,
                Some(&ex),
            ));
        }
        match gatecheck_schemas::rules::media::parse_mp4(&ex.body) {
            Ok(info) if info.tracks.iter().any(|t| t.handler == "vide") => {}
            Ok(_) => return Err(ctx.fail("the MP4 has no video track", &spec, Some(&ex))),
            Err(e) => {
                return Err(ctx.fail(
                    format!("the content is not a valid MP4: {e}"),
                    &spec,
                    Some(&ex),
                ))
            }
        }
        n += 1;
    }
    if n == 0 {
        return Err(Halt::not_observed("no task completed"));
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

async fn content_not_ready(ctx: &CheckCtx) -> Outcome {
    let r = run(ctx).await?;
    let mut n = 0;
    for t in &r.traces {
        if let Some(o) = &t.content_early {
            let expected = content_rejection(VideoStatus::Queued);
            if !expected.is_some_and(|r| ctx.rejected_as(r, o.ex.status.as_u16())) {
                return Err(ctx.fail(
                    format!("content of a queued task was answered {}", o.ex.status),
                    &o.spec,
                    Some(&o.ex),
                ));
            }
            n += 1;
        }
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

async fn empty_prompt(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let (model, _, _) = video_model(ctx)?;
    let strat = prop_oneof![Just(None), Just(Some(String::new()))];
    for_all(
        ctx,
        ctx.cfg.scope.cases.min(4),
        strat,
        |prompt: Option<String>| {
            let mut body = json!({"model": model});
            if let Some(p) = prompt {
                body["prompt"] = json!(p);
            }
            let spec = RequestSpec::post("/v1/videos")
                .auth(auth.clone())
                .json(body);
            async move {
                let ex = ctx.send(&spec, 0).await?;
                if !ctx.rejected_as(Rejection::Validation, ex.status.as_u16()) {
                    return Err(ctx.fail(
                        format!("an empty or missing prompt was answered {}", ex.status),
                        &spec,
                        Some(&ex),
                    ));
                }
                let body = ex.json().unwrap_or(Value::Null);
                if ctx.judges_plugins() && !gatecheck_schemas::rules::era::is_plugin_refusal(&body) {
                    return Err(ctx.deviate(
                        id::D_ERA_4,
                        format!(
                            "the plugin era refuses an empty prompt in the plugin's decodeRequest (code plugin_request_invalid); this refusal is {}",
                            super::answer_summary(&ex)
                        ),
                        &spec,
                        Some(&ex),
                    ));
                }
                Ok(())
            }
        },
    )
    .await
}

/// Sends one create request per case for a model no catalog holds, and judges each answer.
async fn with_unknown_models(
    ctx: &CheckCtx,
    cases: u32,
    judge: fn(&CheckCtx, &RequestSpec, &Exchange) -> Result<(), Halt>,
) -> Outcome {
    let auth = ctx.model_auth()?;
    let strat = "gatecheck-[a-z0-9]{6,12}";
    for_all(ctx, cases, strat, |model: String| {
        let spec = RequestSpec::post("/v1/videos")
            .auth(auth.clone())
            .json(json!({"model": model, "prompt": "a cat"}));
        async move {
            let ex = ctx.send(&spec, 0).await?;
            judge(ctx, &spec, &ex)
        }
    })
    .await
}

async fn unknown_model(ctx: &CheckCtx) -> Outcome {
    with_unknown_models(ctx, ctx.cfg.scope.cases.min(4), |ctx, spec, ex| {
        // new-api's 503 `model_not_found` is judged by video.create.unknown-model-503 (NA5).
        if !is_unknown_model_rejection(ex) && !is_new_api_unknown_model(ex) {
            let s = ex.status.as_u16();
            return Err(ctx.fail(format!("an unknown model was answered {s}"), spec, Some(ex)));
        }
        Ok(())
    })
    .await
}

/// DECISIONS NA5: an unknown model answered 503 `model_not_found` is a deviation, because the
/// spec tells clients to retry 503: a client with a typo in the model name retries forever.
/// This check sends one request per case and never retries it.
async fn unknown_model_503(ctx: &CheckCtx) -> Outcome {
    with_unknown_models(ctx, ctx.cfg.scope.cases.min(2), |ctx, spec, ex| {
        if is_new_api_unknown_model(ex) {
            return ctx.known_difference(
                id::NA5,
                "an unknown model was answered 503 model_not_found; the spec tells \
                 clients to retry 503, so a client with a typo in the model name retries \
                 forever (documented: 400; this runner does not retry it)",
                spec,
                Some(ex),
            );
        }
        Ok(())
    })
    .await
}

async fn encodings(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let (model, seconds, size) = video_model(ctx)?;
    let price = ctx.price(
        &model,
        Usage {
            seconds: seconds as f64,
            ..Usage::one_request()
        },
    );
    let fields = vec![
        ("model".to_string(), model.clone()),
        ("prompt".to_string(), "a paper boat (gatecheck)".to_string()),
        ("seconds".to_string(), seconds.to_string()),
        ("size".to_string(), size.clone()),
    ];
    let specs = [
        RequestSpec::post("/v1/videos").auth(auth.clone()).json(json!({"model": model, "prompt": "a paper boat (gatecheck)", "seconds": seconds, "size": size})),
        RequestSpec::post("/v1/videos").auth(auth.clone()).form(fields),
    ];
    for spec in specs {
        let ex = ctx.send(&spec, price).await?;
        let ok = ex.status.is_success()
            && parse_task(&ex).is_some_and(|t| t.status == VideoStatus::Queued);
        if !ok {
            return Err(ctx.fail(
                format!("the encoding was not accepted ({})", ex.status),
                &spec,
                Some(&ex),
            ));
        }
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}

async fn unknown_id(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let strat = "[A-Za-z0-9]{32}";
    for_all(ctx, ctx.cfg.scope.cases.min(4), strat, |suffix: String| {
        let spec = RequestSpec::get(format!("/v1/videos/task_{suffix}")).auth(auth.clone());
        async move {
            let ex = ctx.send(&spec, 0).await?;
            ctx.expect_rejection(
                Rejection::TaskNotFound,
                id::P3,
                "an unknown task id",
                &spec,
                &ex,
            )
        }
    })
    .await
}
