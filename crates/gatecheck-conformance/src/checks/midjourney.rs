//! The Midjourney task routes (`/mj/*`, DECISIONS D-MJ): the spec names provider image task
//! routes without describing them, so a verdict on a form here is a deviation citing the row
//! the target differs from, and a target without the routes skips (`route-not-served`,
//! discovery's `Midjourney` family). What clients depend on with one right answer fails
//! (DECISIONS D-TASK-10 to D-TASK-12): a fetch answers the task asked about, its status and
//! progress never go back, a SUCCESS record is at `100%` with its `imageUrl`.

use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{status_and_type, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::elsewhere;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::media::parse_png;
use gatecheck_schemas::rules::midjourney::{
    check_record, check_result, model_for, parse_progress, status_rank, CODE_REQUEST_ERROR,
    CODE_SUBMITTED, MJ_SECRET_HEADER, REFUSAL_STATUS, TASK_NO_FOUND,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::Rejection;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "mj.submit.imagine",
        kind: Deviation,
        route: "POST /mj/submit/imagine",
        spec: "spec: Other routes (provider image task routes exist; payloads not shown); DECISIONS D-MJ-2",
        title: "An imagine with a generated prompt answers 200 `{code:1, description, result}` valid against mj-submit-answer, with the task id in `result`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: Some(id::D_MJ),
        run: |c| Box::pin(imagine(c)),
    },
    Check {
        id: "mj.auth.mj-api-secret",
        kind: Deviation,
        route: "POST /mj/submit/imagine",
        spec: "spec: Other routes; DECISIONS D-MJ-1",
        title: "The key sent in `mj-api-secret` (no `Authorization`) is accepted as a Bearer key is; no key at all is refused 401.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: Some(id::D_MJ),
        run: |c| Box::pin(secret_header(c)),
    },
    Check {
        id: "mj.task.lifecycle",
        kind: Failure,
        route: "GET /mj/task/{id}/fetch",
        spec: "spec: Other routes; DECISIONS D-MJ-4, D-MJ-5; failures D-TASK-10 to D-TASK-12",
        title: "A submitted imagine, fetched until it ends, answers records valid against mj-task (a deviation otherwise); each is the task asked for, its status never goes back and its progress `NN%` never decreases, SUCCESS has `100%` and an `imageUrl` (failures otherwise); the image is a PNG served without a key (on another host, fetched without any credential; not observed when it cannot be); FAILURE has a `failReason`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(lifecycle(c)),
    },
    Check {
        id: "mj.task.unknown-id",
        kind: Deviation,
        route: "GET /mj/task/{id}/fetch",
        spec: "spec: Other routes; DECISIONS D-MJ-3",
        title: "Fetching a task id that was never submitted answers 400 `{description:\"task_no_found \", type, code:4}`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: Some(id::D_MJ),
        run: |c| Box::pin(unknown_id(c)),
    },
    Check {
        id: "mj.submit.prompt-required",
        kind: Deviation,
        route: "POST /mj/submit/imagine",
        spec: "spec: Other routes; DECISIONS D-MJ-3",
        title: "An imagine without a prompt is refused 400 with code 4 (`prompt_is_required`), and no task is made.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: Some(id::D_MJ),
        run: |c| Box::pin(prompt_required(c)),
    },
];

const IMAGINE: &str = "/mj/submit/imagine";

/// The price of one submit of `action`, when the catalog lists its model; a skip when the
/// run knows models and the action's model (`mj_imagine`...) is not one of them (the target
/// cannot route it).
pub(super) fn action_price(ctx: &CheckCtx, action: &str) -> Result<i64, Halt> {
    let model = model_for(action);
    if !ctx.env.models.is_empty() && !ctx.env.models.iter().any(|m| m.id == model) {
        return Err(Halt::no_model(format!("the catalog has no {model} model")));
    }
    Ok(ctx.price(&model, Usage::one_request()))
}

/// The price of one imagine ([`action_price`]).
fn imagine_price(ctx: &CheckCtx) -> Result<i64, Halt> {
    action_price(ctx, "IMAGINE")
}

/// Submits an imagine of `prompt`; the exchange and, when it was accepted, the task id.
pub(super) async fn submit(
    ctx: &CheckCtx,
    prompt: &str,
) -> Result<(RequestSpec, Exchange, Option<String>), Halt> {
    let spec = RequestSpec::post(IMAGINE)
        .auth(ctx.model_auth()?)
        .json(json!({ "prompt": prompt }));
    let ex = ctx.send(&spec, imagine_price(ctx)?).await?;
    let id = accepted_id(&ex);
    Ok((spec, ex, id))
}

/// The task id of an accepted submit answer.
fn accepted_id(ex: &Exchange) -> Option<String> {
    let v = ex.json()?;
    (ex.status.as_u16() == ACCEPTED
        && v.get("code").and_then(Value::as_i64) == Some(CODE_SUBMITTED))
    .then(|| v.get("result").and_then(Value::as_str).map(str::to_owned))
    .flatten()
    .filter(|id| !id.is_empty())
}

async fn imagine(ctx: &CheckCtx) -> Outcome {
    let words = prop::collection::vec("[a-z]{1,8}", 1..6).prop_map(|w| w.join(" "));
    for_all(
        ctx,
        ctx.cfg.scope.cases.clamp(1, 3),
        words,
        |prompt| async move {
            let (spec, ex, id) = submit(ctx, &format!("{prompt} (gatecheck)")).await?;
            let v = ex.json().unwrap_or_default();
            if let Err(e) = gatecheck_schemas::validate("mj-submit-answer", &v) {
                return Err(ctx.deviate(
                    id::D_MJ_2,
                    format!("{}: schema mj-submit-answer: {e}", status_and_type(&ex)),
                    &spec,
                    Some(&ex),
                ));
            }
            if id.is_none() {
                return Err(ctx.deviate(
                    id::D_MJ_2,
                    format!(
                        "an imagine was answered {} without code 1 and a task id",
                        status_and_type(&ex)
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        },
    )
    .await
}

async fn secret_header(ctx: &CheckCtx) -> Outcome {
    let secret = match ctx.model_auth()? {
        Auth::Key(k) => k.expose().to_owned(),
        _ => match &ctx.t.client().target().api_key {
            Some(k) => k.expose().to_owned(),
            None => return Err(Halt::no_credentials("no API key to send in mj-api-secret")),
        },
    };
    let price = imagine_price(ctx)?;
    let spec = RequestSpec::post(IMAGINE)
        .header(MJ_SECRET_HEADER, secret)
        .json(json!({ "prompt": "a lighthouse (gatecheck)" }));
    let ex = ctx.send(&spec, price).await?;
    if accepted_id(&ex).is_none() {
        return Err(ctx.deviate(
            id::D_MJ_1,
            format!(
                "an imagine with the key in mj-api-secret was answered {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    let anon = RequestSpec::post(IMAGINE).json(json!({ "prompt": "no key (gatecheck)" }));
    let ex = ctx.send(&anon, 0).await?;
    if !ctx.rejected_as(Rejection::MissingKey, ex.status.as_u16()) {
        return Err(ctx.deviate(
            id::D_MJ_1,
            format!(
                "an imagine without a key was answered {}",
                super::answer_summary(&ex)
            ),
            &anon,
            Some(&ex),
        ));
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}

async fn lifecycle(ctx: &CheckCtx) -> Outcome {
    let (spec, ex, id) = submit(ctx, "a quiet harbor at dawn (gatecheck)").await?;
    let Some(id) = id else {
        return Err(Halt::not_observed(format!(
            "the imagine was not accepted ({}); see mj.submit.imagine",
            status_and_type(&ex)
        )));
    };
    let _ = spec;
    let auth = ctx.model_auth()?;
    let interval = ctx
        .cfg
        .limits
        .poll_interval
        .unwrap_or(if ctx.env.mock.is_some() {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(5)
        });
    let mut pace = super::pacing::Pacer::new(ctx, interval);
    let (mut rank, mut progress, mut polls) = (0u8, 0i64, 0u32);
    let row = id::D_MJ_4;
    loop {
        let fetch = RequestSpec::get(format!("/mj/task/{id}/fetch")).auth(auth.clone());
        let ex = ctx.send(&fetch, 0).await?;
        polls += 1;
        let v = ex.json().unwrap_or_default();
        if ex.status.as_u16() != ACCEPTED {
            return Err(ctx.deviate(
                row,
                format!(
                    "fetching a submitted task was answered {}",
                    super::answer_summary(&ex)
                ),
                &fetch,
                Some(&ex),
            ));
        }
        if let Err(e) = gatecheck_schemas::validate("mj-task", &v) {
            return Err(ctx.deviate(row, format!("schema mj-task: {e}"), &fetch, Some(&ex)));
        }
        judge_record(ctx, row, &id, &v, (rank, progress), &fetch, &ex)?;
        let status = v["status"].as_str().unwrap_or("");
        let now = parse_progress(v["progress"].as_str().unwrap_or("")).unwrap_or(0);
        (rank, progress) = (status_rank(status), now);
        match status {
            "SUCCESS" => return image_served(ctx, &v, polls, (&fetch, &ex)).await,
            "FAILURE" => {
                return Err(Halt::not_observed(format!(
                    "the task ended FAILURE ({}): no image to judge",
                    v["failReason"]
                )))
            }
            _ => {}
        }
        if pace.waited >= ctx.cfg.limits.video_deadline {
            return Err(Halt::not_observed(format!(
                "the task did not end within {} s",
                pace.waited.as_secs()
            )));
        }
        pace.wait(ctx, false, "a Midjourney task").await?;
    }
}

/// One fetched record of task `id`, after `(rank, progress)` were seen: another task's record,
/// a status or progress that goes back, or a SUCCESS without its result fails (D-TASK-10 to
/// D-TASK-12); any other broken rule of the record deviates citing `row`.
fn judge_record(
    ctx: &CheckCtx,
    row: Id,
    id: &str,
    v: &Value,
    (rank, progress): (u8, i64),
    fetch: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    if v["id"].as_str() != Some(id) {
        return Err(ctx.fail(
            format!(
                "fetched task {id}, answered the record of {} (DECISIONS D-TASK-10)",
                v["id"]
            ),
            fetch,
            Some(ex),
        ));
    }
    let status = v["status"].as_str().unwrap_or("");
    let now = parse_progress(v["progress"].as_str().unwrap_or("")).unwrap_or(0);
    if status_rank(status) < rank || now < progress {
        return Err(ctx.fail(
            format!(
                "the task went back to {status} at {now}% after rank {rank} at {progress}% (DECISIONS D-TASK-11)"
            ),
            fetch,
            Some(ex),
        ));
    }
    if let Err(e) = check_result(v) {
        return Err(ctx.fail(format!("{e} (DECISIONS D-TASK-12)"), fetch, Some(ex)));
    }
    if let Err(e) = check_record(v) {
        return Err(ctx.deviate(row, e, fetch, Some(ex)));
    }
    Ok(())
}

/// The `imageUrl` of a SUCCESS record (`record`, answered by `at`) serves a PNG without a key
/// (D-MJ-5): on the target's host through the transport, on another host fetched without any
/// credential ([`elsewhere::result`]); an image that cannot be fetched is not observed (the
/// check judged no image, so it does not pass).
async fn image_served(
    ctx: &CheckCtx,
    record: &Value,
    polls: u32,
    at: (&RequestSpec, &Exchange),
) -> Outcome {
    let url = record["imageUrl"].as_str().unwrap_or("").to_owned();
    let fetch = RequestSpec::get(url);
    let img = match elsewhere::result(&ctx.t, &fetch).await? {
        Ok(img) => img,
        Err(elsewhere::NotFetched(why)) => {
            return Err(ctx.not_observed(
                format!(
                    "the task's imageUrl on another host was not fetched ({polls} records \
                     judged): {why}"
                ),
                at.0,
                Some(at.1),
            ))
        }
    };
    match parse_png(&img.body) {
        Ok(_) if img.status.is_success() => Ok(Pass {
            cases: polls + 1,
            note: None,
        }),
        Ok(_) => Err(ctx.deviate(
            id::D_MJ_5,
            format!("the image URL answered {}", img.status),
            &fetch,
            Some(&img),
        )),
        Err(e) => Err(ctx.deviate(
            id::D_MJ_5,
            format!(
                "the image URL answered {}, not a PNG: {e}",
                status_and_type(&img)
            ),
            &fetch,
            Some(&img),
        )),
    }
}

/// Whether `ex` is new-api's Midjourney refusal with `reason`.
pub(super) fn is_refusal(ex: &Exchange, reason: &str) -> bool {
    let v = ex.json().unwrap_or_default();
    ex.status.as_u16() == REFUSAL_STATUS
        && v.get("code").and_then(Value::as_i64) == Some(CODE_REQUEST_ERROR)
        && v.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.trim() == reason)
}

async fn unknown_id(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let ids = "[1-9][0-9]{15}";
    for_all(ctx, ctx.cfg.scope.cases.clamp(1, 3), ids, |id: String| {
        let spec = RequestSpec::get(format!("/mj/task/{id}0/fetch")).auth(auth.clone());
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if !is_refusal(&ex, TASK_NO_FOUND) {
                return Err(ctx.deviate(
                    id::D_MJ_3,
                    format!(
                        "an unknown task was answered {}, not 400 task_no_found",
                        super::answer_summary(&ex)
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

async fn prompt_required(ctx: &CheckCtx) -> Outcome {
    imagine_price(ctx)?;
    let spec = RequestSpec::post(IMAGINE)
        .auth(ctx.model_auth()?)
        .json(json!({ "prompt": "" }));
    let ex = ctx.send(&spec, 0).await?;
    if is_refusal(&ex, "prompt_is_required") {
        return super::pass1();
    }
    Err(ctx.deviate(
        id::D_MJ_3,
        format!(
            "an imagine without a prompt was answered {}",
            super::answer_summary(&ex)
        ),
        &spec,
        Some(&ex),
    ))
}
