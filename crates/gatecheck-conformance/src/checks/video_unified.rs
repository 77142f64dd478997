//! new-api's unified video routes (DECISIONS D-TASK-1..3): a task made on
//! `POST /v1/video/generations` answers the OpenAI video object, and
//! `GET /v1/video/generations/{task_id}` answers new-api's task record in its
//! `{"code":"success","data":{...}}` envelope, followed on the target's clock to a terminal
//! state. The spec names these routes without describing them: a target that lacks them skips
//! (`route-not-served`), one that answers in another form deviates, citing the row. What
//! clients depend on with one right answer fails (DECISIONS D-TASK-10 to D-TASK-12): a fetch
//! answers the task asked about, its states never go back, a `SUCCESS` task has its result.

use super::video_run::video_model;
use super::Kind::{Deviation, Failure};
use super::{accepted, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::task::{
    check_envelope, check_envelope_transition, check_task_error, is_failure_rule, other_task_named,
    TaskDto, TASK_NOT_EXIST, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::is_task_id;
use gatecheck_schemas::rules::video::BrokenRule;
use serde_json::{json, Value};
use std::time::Duration;

/// The unified create route.
pub(crate) const GENERATIONS: &str = "/v1/video/generations";

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "task.unified.create",
        kind: Deviation,
        route: "POST /v1/video/generations",
        spec: "DECISIONS: Provider and unified task routes D-TASK-1",
        title: "A task made on the unified route answers the OpenAI video object: `task_` + 32 letters and digits, `queued`, progress 0, the requested model.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoGenerations]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(unified_create(c)),
    },
    Check {
        id: "task.unified.envelope",
        kind: Failure,
        route: "POST /v1/video/generations, GET /v1/video/generations/{task_id}",
        spec: "DECISIONS: Provider and unified task routes D-TASK-2; failures D-TASK-10 to D-TASK-12",
        title: "Fetching a unified task answers new-api's envelope: upper-case status, `NN%` progress, times set when reached (a deviation otherwise); the task asked for, never going back between fetches, `100%` and a `result_url` once `SUCCESS` (failures otherwise).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unified_envelope(c)),
    },
    Check {
        id: "task.unified.unknown-id",
        kind: Deviation,
        route: "GET /v1/video/generations/{task_id}",
        spec: "DECISIONS: Provider and unified task routes D-TASK-3",
        title: "Fetching an unknown task id answers 400 `{code:\"task_not_exist\", message, data:null}`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoGenerations]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(unknown_id(c)),
    },
];

/// A task made with a JSON body on `path`: the request, the answer, the model asked for.
pub(crate) async fn create_json(
    ctx: &CheckCtx,
    path: &str,
    prompt: &str,
) -> Result<(RequestSpec, Exchange, String), Halt> {
    let auth = ctx.model_auth()?;
    let (model, seconds, size) = video_model(ctx)?;
    let price = ctx.price(
        &model,
        Usage {
            seconds: seconds as f64,
            ..Usage::one_request()
        },
    );
    let spec = RequestSpec::post(path).auth(auth).json(json!({
        "model": model, "prompt": prompt, "seconds": seconds.to_string(), "size": size,
    }));
    let ex = ctx.send(&spec, price).await?;
    Ok((spec, ex, model))
}

/// The task id of a create answer that is a 200 video object, or the deviation citing `row`.
pub(crate) fn created_id(
    ctx: &CheckCtx,
    row: Id,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(String, Value), Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    if !accepted(ex) {
        return Err(ctx.deviate(
            row,
            format!(
                "expected 200 with the video object, got {}",
                super::answer_summary(ex)
            ),
            spec,
            Some(ex),
        ));
    }
    // As the spec pins the video object: `null` for an unknown optional value is no deviation.
    if let Err(e) = gatecheck_schemas::validate_pinned("video-task", &v) {
        return Err(ctx.deviate(row, format!("not a video object: {e}"), spec, Some(ex)));
    }
    let id = v["id"].as_str().unwrap_or("").to_owned();
    Ok((id, v))
}

/// How long to wait between fetches: `--poll-interval`, else 2 s on the mock's clock and 10 s
/// on a deployment.
pub(crate) fn interval(ctx: &CheckCtx) -> Duration {
    ctx.cfg
        .limits
        .poll_interval
        .unwrap_or(if ctx.env.mock.is_some() {
            Duration::from_secs(2)
        } else {
            Duration::from_secs(10)
        })
}

async fn unified_create(ctx: &CheckCtx) -> Outcome {
    let (spec, ex, model) =
        create_json(ctx, GENERATIONS, "a lighthouse at dawn (gatecheck)").await?;
    let (id, v) = created_id(ctx, id::D_TASK_1, &spec, &ex)?;
    let problem = if !is_task_id(&id) {
        Some(format!("id {id:?} is not task_ + 32 letters and digits"))
    } else if v["status"] != "queued" || v["progress"] != 0 {
        Some(format!(
            "status {} and progress {}, not queued and 0",
            v["status"], v["progress"]
        ))
    } else if v["model"] != model.as_str() {
        Some(format!("model {}, requested {model:?}", v["model"]))
    } else {
        None
    };
    match problem {
        Some(p) => Err(ctx.deviate(id::D_TASK_1, p, &spec, Some(&ex))),
        None => super::pass1(),
    }
}

/// One fetch judged alone: the schema and the envelope rules.
fn judge_fetch(
    ctx: &CheckCtx,
    row: Id,
    spec: &RequestSpec,
    ex: &Exchange,
    id: &str,
) -> Result<TaskDto, Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    if !accepted(ex) {
        return Err(ctx.deviate(
            row,
            format!("fetching task {id} answered {}", super::answer_summary(ex)),
            spec,
            Some(ex),
        ));
    }
    // Before the form: an answer about another task fails in whatever form it comes.
    if let Some(other) = other_task_named(&v, id) {
        let made = (v["status"] == "queued").then_some(" (a new task, queued: the fetch made one)");
        return Err(ctx.fail(
            format!(
                "fetched {id}, answered the record of task_id {other:?}{} (DECISIONS D-TASK-10: a fetch answers the task asked about)",
                made.unwrap_or("")
            ),
            spec,
            Some(ex),
        ));
    }
    if let Err(e) = gatecheck_schemas::validate("task-envelope", &v) {
        return Err(ctx.deviate(row, format!("schema task-envelope: {e}"), spec, Some(ex)));
    }
    let t = check_envelope(&v).map_err(|e| judged(ctx, row, e, spec, ex))?;
    if t.task_id != id {
        return Err(ctx.fail(
            format!(
                "fetched {id}, answered the record of task_id {:?} (DECISIONS D-TASK-10: a fetch answers the task asked about)",
                t.task_id
            ),
            spec,
            Some(ex),
        ));
    }
    Ok(t)
}

/// A broken envelope rule as its verdict: a failure where the rule has one right answer
/// ([`is_failure_rule`]), a deviation citing `row` otherwise.
fn judged(ctx: &CheckCtx, row: Id, e: BrokenRule, spec: &RequestSpec, ex: &Exchange) -> Halt {
    if is_failure_rule(e.rule) {
        ctx.fail(
            format!("{e} (DECISIONS D-TASK-11, D-TASK-12)"),
            spec,
            Some(ex),
        )
    } else {
        ctx.deviate(row, e.to_string(), spec, Some(ex))
    }
}

async fn unified_envelope(ctx: &CheckCtx) -> Outcome {
    let (spec, ex, _) = create_json(ctx, GENERATIONS, "a harbour at dusk (gatecheck)").await?;
    let (id, _) = created_id(ctx, id::D_TASK_1, &spec, &ex)?;
    let auth = ctx.model_auth()?;
    follow(ctx, id::D_TASK_2, &id, &|id| {
        RequestSpec::get(format!("{GENERATIONS}/{id}")).auth(auth.clone())
    })
    .await
}

/// Fetches task `id` with `fetch` until it ends (and once more) or the video deadline passes,
/// judging each envelope and each pair of successive ones: identity, transitions and the
/// result fail, anything else deviates citing `row`.
pub(crate) async fn follow(
    ctx: &CheckCtx,
    row: Id,
    id: &str,
    fetch: &(dyn Fn(&str) -> RequestSpec + Sync),
) -> Outcome {
    follow_with(ctx, row, id, fetch, &|_, _, _, _| Ok(())).await
}

/// A judge of one fetched record beyond the envelope's rules (a video platform's status map:
/// `platforms.rs`), run before the transition between fetches is judged.
/// The judge gets the record, the time waited before its fetch, and the exchange.
pub(crate) type RecordJudge<'a> =
    dyn Fn(&TaskDto, Duration, &RequestSpec, &Exchange) -> Result<(), Halt> + Sync + 'a;

/// [`follow`], with `judge` run on every record.
pub(crate) async fn follow_with(
    ctx: &CheckCtx,
    row: Id,
    id: &str,
    fetch: &(dyn Fn(&str) -> RequestSpec + Sync),
    judge: &RecordJudge<'_>,
) -> Outcome {
    let mut pace = super::pacing::Pacer::new(ctx, interval(ctx));
    let mut prev: Option<TaskDto> = None;
    let (mut cases, mut after_terminal) = (0u32, 0);
    loop {
        let spec = fetch(id);
        let ex = ctx.send(&spec, 0).await?;
        cases += 1;
        let t = judge_fetch(ctx, row, &spec, &ex, id)?;
        judge(&t, pace.waited, &spec, &ex)?;
        if let Some(p) = &prev {
            check_envelope_transition(p, &t).map_err(|e| judged(ctx, row, e, &spec, &ex))?;
        }
        if t.status.is_terminal() {
            after_terminal += 1;
        }
        prev = Some(t);
        if after_terminal >= 2 || pace.waited >= ctx.cfg.limits.video_deadline {
            break;
        }
        pace.wait(ctx, after_terminal > 0, "a video task").await?;
    }
    let note = (after_terminal == 0).then(|| {
        "the task did not end within the video deadline: the terminal fields were not seen"
            .to_owned()
    });
    Ok(Pass { cases, note })
}

async fn unknown_id(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let spec = RequestSpec::get(format!(
        "{GENERATIONS}/task_00000000000000000000000000000000"
    ))
    .auth(auth);
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    if ex.status.as_u16() != TASK_REFUSAL_STATUS {
        return Err(ctx.deviate(
            id::D_TASK_3,
            format!(
                "expected 400 task_not_exist, got {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    check_task_error(&v, TASK_NOT_EXIST)
        .map_err(|e| ctx.deviate(id::D_TASK_3, e.to_string(), &spec, Some(&ex)))?;
    super::pass1()
}
