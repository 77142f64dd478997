//! `POST /v1/videos/{video_id}/remix` (DECISIONS D-TASK-4, D-TASK-5): a remix of a completed
//! task is a new task with the source's model and `remixed_from_video_id`; an unknown source
//! is 400 `task_not_exist`; a source that is not completed is refused (`fail_to_fetch_task`).
//! The forms are new-api's (deviations); a remix that answers the source task instead of a
//! new one, a new task that its poll does not answer, or a remix accepted for a source the
//! target's own fetch says it has no record of, fails (DECISIONS D-TASK-10).

use super::video_run::video_model;
use super::video_unified::{created_id, interval};
use super::Kind::{Deviation, Failure};
use super::{Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, Part, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::task::{
    check_task_error, says_no_such_task, FAIL_TO_FETCH_TASK, INVALID_REQUEST,
    REMIX_PROMPT_REQUIRED, TASK_NOT_EXIST, TASK_ORIGIN_NOT_EXIST, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::is_task_id;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "task.remix.completed",
        kind: Failure,
        route: "POST /v1/videos/{video_id}/remix, GET /v1/videos/{task_id}",
        spec: "DECISIONS: Provider and unified task routes D-TASK-4; failures D-TASK-10",
        title: "Remixing a completed task answers a new video task (`task_` id, `queued`) with the source's model and `remixed_from_video_id`, and polling the new id answers that task.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll, RouteFamily::VideoRemix]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(completed(c)),
    },
    Check {
        id: "task.remix.unknown-source",
        kind: Failure,
        route: "POST /v1/videos/{video_id}/remix, GET /v1/videos/{task_id}",
        spec: "DECISIONS: Provider and unified task routes D-TASK-4; failures D-TASK-10",
        title: "Remixing an unknown task answers 400 `{code:\"task_not_exist\", message:\"task_origin_not_exist\", data:null}` (another refusal deviates); a remix accepted while the target's own fetch of the source says there is no such task fails.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll, RouteFamily::VideoRemix]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unknown_source(c)),
    },
    Check {
        id: "task.remix.blank-prompt",
        kind: Deviation,
        route: "POST /v1/videos/{video_id}/remix",
        spec: "DECISIONS: Provider and unified task routes D-TASK-4",
        title: "A remix without a prompt answers 400 `{code:\"invalid_request\", message:\"field prompt is required\", data:null}`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoRemix]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(blank_prompt(c)),
    },
    Check {
        id: "task.remix.not-completed",
        kind: Deviation,
        route: "POST /v1/videos/{video_id}/remix",
        spec: "DECISIONS: Provider and unified task routes D-TASK-5",
        title: "Remixing a task that is not completed is refused with new-api's `fail_to_fetch_task` task error.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoRemix]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(not_completed(c)),
    },
];

/// A source task made on `POST /v1/videos`: its id and model.
async fn source(ctx: &CheckCtx, prompt: &str) -> Result<(String, String), Halt> {
    let (_, _, id, model) = create_video_task(ctx, prompt, "the source task").await?;
    Ok((id, model))
}

/// A task of the run's video model made on `POST /v1/videos` with `prompt`: the request, its
/// answer, the task's id and model. Not observed (naming `what`) when no task was made.
pub(super) async fn create_video_task(
    ctx: &CheckCtx,
    prompt: &str,
    what: &str,
) -> Result<(RequestSpec, Exchange, String, String), Halt> {
    let (model, seconds, size) = video_model(ctx)?;
    let usage = Usage {
        seconds: seconds as f64,
        ..Usage::one_request()
    };
    let spec = RequestSpec::post("/v1/videos")
        .auth(ctx.model_auth()?)
        .multipart(vec![
            Part::text("model", model.clone()),
            Part::text("prompt", prompt.to_owned()),
            Part::text("seconds", seconds.to_string()),
            Part::text("size", size),
        ]);
    let ex = ctx.send(&spec, ctx.price(&model, usage)).await?;
    let id = ex
        .json()
        .filter(|_| ex.status.is_success())
        .and_then(|v| v["id"].as_str().map(str::to_owned))
        .ok_or_else(|| {
            Halt::not_observed(format!(
                "{what} was not made: {}",
                super::answer_summary(&ex)
            ))
        })?;
    Ok((spec, ex, id, model))
}

/// The remix request of `id`, priced as a create of the run's video model.
async fn remix(ctx: &CheckCtx, id: &str, prompt: &str) -> Result<(RequestSpec, Exchange), Halt> {
    let (model, seconds, _) = video_model(ctx)?;
    let usage = Usage {
        seconds: seconds as f64,
        ..Usage::one_request()
    };
    let spec = RequestSpec::post(format!("/v1/videos/{id}/remix"))
        .auth(ctx.model_auth()?)
        .json(json!({ "prompt": prompt }));
    let ex = ctx.send(&spec, ctx.price(&model, usage)).await?;
    Ok((spec, ex))
}

/// Polls `GET /v1/videos/{id}` until the task ends: whether it completed.
async fn wait_completed(ctx: &CheckCtx, id: &str) -> Result<bool, Halt> {
    let mut pace = super::pacing::Pacer::new(ctx, interval(ctx));
    while pace.waited < ctx.cfg.limits.video_deadline {
        pace.wait(ctx, false, "a video task").await?;
        let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
        let ex = ctx.send(&spec, 0).await?;
        match ex.json().as_ref().and_then(|v| v["status"].as_str()) {
            Some("completed") => return Ok(true),
            Some("failed" | "error") => return Ok(false),
            _ => {}
        }
    }
    Ok(false)
}

/// Whether task `id` is completed now.
async fn source_completed(ctx: &CheckCtx, id: &str) -> Result<bool, Halt> {
    let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    Ok(ex.json().as_ref().and_then(|v| v["status"].as_str()) == Some("completed"))
}

async fn completed(ctx: &CheckCtx) -> Outcome {
    let (sid, model) = source(ctx, "a quiet forest (gatecheck)").await?;
    if !wait_completed(ctx, &sid).await? {
        return Err(Halt::not_observed(format!(
            "the source task {sid} did not complete within the video deadline"
        )));
    }
    let (spec, ex) = remix(ctx, &sid, "the same forest in snow (gatecheck)").await?;
    let (id, v) = created_id(ctx, id::D_TASK_4, &spec, &ex)?;
    let from = v
        .get("remixed_from_video_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    if id == sid {
        return Err(ctx.fail(
            format!(
                "the remix answered the source task {sid}, not a new task (DECISIONS D-TASK-10)"
            ),
            &spec,
            Some(&ex),
        ));
    }
    let problem = if !is_task_id(&id) {
        Some(format!(
            "the remix's id {id:?} is not a new task_ id (source {sid})"
        ))
    } else if from.is_empty() {
        Some("no remixed_from_video_id".to_owned())
    } else if v["model"] != model.as_str() {
        Some(format!("model {}, the source's is {model:?}", v["model"]))
    } else if v["status"] != "queued" {
        Some(format!("status {}, not queued", v["status"]))
    } else {
        None
    };
    if let Some(p) = problem {
        return Err(ctx.deviate(id::D_TASK_4, p, &spec, Some(&ex)));
    }
    let polled = poll_answers(ctx, &id).await?;
    Ok(Pass {
        cases: 1 + u32::from(polled),
        note: None,
    })
}

/// Polls the new task `id` once: a 404, or another task's object, fails (D-TASK-10). Whether
/// the poll was judged (a transient 5xx is not).
async fn poll_answers(ctx: &CheckCtx, id: &str) -> Result<bool, Halt> {
    let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let got = ex.json().filter(|_| ex.status.is_success());
    let answered = got.as_ref().and_then(|v| v["id"].as_str());
    let problem = match answered {
        _ if ex.status.as_u16() == Rejection::TaskNotFound.http_status(Profile::Documented) => {
            Some(format!("polling the new task {id} answered 404"))
        }
        Some(other) if other != id => {
            Some(format!("polling the new task {id} answered task {other}"))
        }
        _ => None,
    };
    if let Some(p) = problem {
        return Err(ctx.fail(format!("{p} (DECISIONS D-TASK-10)"), &spec, Some(&ex)));
    }
    Ok(answered.is_some())
}

/// A source id of the decided form that no task has.
const UNKNOWN_SOURCE: &str = "task_00000000000000000000000000000000";

/// A remix of `source` was accepted (`ex`): the target's own fetch of `source` is asked
/// whether it has such a task. It says it has none: a failure, a task made (and charged) from
/// a source the service's own records do not hold (DECISIONS D-TASK-4, D-TASK-10). It shows
/// one: not this rule's case (the refusal's form is judged next).
async fn made_from_nothing(
    ctx: &CheckCtx,
    source: &str,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    let fetch = RequestSpec::get(format!("/v1/videos/{source}")).auth(ctx.model_auth()?);
    let asked = ctx.send(&fetch, 0).await?;
    let says = asked.json().unwrap_or(Value::Null);
    if !says_no_such_task(asked.status.as_u16(), &says) {
        return Ok(());
    }
    let made = ex.json().and_then(|v| v["id"].as_str().map(str::to_owned));
    Err(ctx.fail(
        format!(
            "a remix of {source} was accepted ({}{}) while GET /v1/videos/{source} answers {}: \
             the service's own records say there is no such source (DECISIONS D-TASK-4, D-TASK-10)",
            ex.status,
            made.map(|m| format!(", task {m} made")).unwrap_or_default(),
            asked.status
        ),
        spec,
        Some(ex),
    ))
}

async fn unknown_source(ctx: &CheckCtx) -> Outcome {
    let (spec, ex) = remix(ctx, UNKNOWN_SOURCE, "anything (gatecheck)").await?;
    let v = ex.json().unwrap_or(Value::Null);
    if ex.status.is_success() {
        made_from_nothing(ctx, UNKNOWN_SOURCE, &spec, &ex).await?;
    }
    if ex.status.as_u16() != TASK_REFUSAL_STATUS {
        return Err(ctx.deviate(
            id::D_TASK_4,
            format!(
                "expected 400 task_not_exist, got {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    check_task_error(&v, TASK_NOT_EXIST)
        .map_err(|e| ctx.deviate(id::D_TASK_4, e.to_string(), &spec, Some(&ex)))?;
    if v["message"] != TASK_ORIGIN_NOT_EXIST {
        return Err(ctx.deviate(
            id::D_TASK_4,
            format!(
                "message {}, decided {TASK_ORIGIN_NOT_EXIST:?}",
                v["message"]
            ),
            &spec,
            Some(&ex),
        ));
    }
    super::pass1()
}

async fn blank_prompt(ctx: &CheckCtx) -> Outcome {
    let (sid, _) = source(ctx, "a red kite (gatecheck)").await?;
    let (spec, ex) = remix(ctx, &sid, " ").await?;
    let v = ex.json().unwrap_or(Value::Null);
    let ok = ex.status.as_u16() == TASK_REFUSAL_STATUS
        && check_task_error(&v, INVALID_REQUEST).is_ok()
        && v["message"] == REMIX_PROMPT_REQUIRED;
    if !ok {
        return Err(ctx.deviate(
            id::D_TASK_4,
            format!(
                "expected 400 {{code:{INVALID_REQUEST:?}, message:{REMIX_PROMPT_REQUIRED:?}}}, got {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    super::pass1()
}

/// A source that is not completed, remixed at once. Other checks move the mock's shared clock
/// while this one runs, so a running source may complete before its remix arrives (then it is
/// not judged); on the proven mock a second source made to fail (the fixture rule `[fail]`)
/// never completes, whatever the clock does, so the check always judges a case there.
async fn not_completed(ctx: &CheckCtx) -> Outcome {
    let mut prompts = vec!["a slow river (gatecheck)"];
    if ctx.env.mock.is_some() {
        prompts.push("a slow river [fail] (gatecheck)");
    }
    let (mut judged, mut raced) = (0, None);
    for prompt in prompts {
        let (sid, _) = source(ctx, prompt).await?;
        let (spec, ex) = remix(ctx, &sid, "the river at night (gatecheck)").await?;
        if ex.status.is_success() && source_completed(ctx, &sid).await? {
            raced = Some(format!(
                "source {sid} completed before its remix arrived (not judged)"
            ));
            continue;
        }
        judge_not_completed(ctx, &spec, &ex)?;
        judged += 1;
    }
    if judged == 0 {
        return Err(Halt::not_observed(
            "the source task completed before the remix arrived (a retried request?)",
        ));
    }
    Ok(Pass {
        cases: judged,
        note: raced,
    })
}

/// The refusal of a remix of a source that is not completed (D-TASK-5).
fn judge_not_completed(ctx: &CheckCtx, spec: &RequestSpec, ex: &Exchange) -> Result<(), Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    if !ex.status.is_client_error() {
        return Err(ctx.deviate(
            id::D_TASK_5,
            format!(
                "a remix of a task that is not completed answered {}",
                super::answer_summary(ex)
            ),
            spec,
            Some(ex),
        ));
    }
    check_task_error(&v, FAIL_TO_FETCH_TASK)
        .map_err(|e| ctx.deviate(id::D_TASK_5, e.to_string(), spec, Some(ex)))
}
