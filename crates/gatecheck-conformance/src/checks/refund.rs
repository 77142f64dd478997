//! The refund of a task that fails (DECISIONS D-ROUTE-5, D-TASK-13): a `/v1/videos` task is
//! charged at submit, and new-api gives the whole charge back to the key when the task fails.
//! Keeping the charge is a billing policy (a deviation); books that do not balance, a part of
//! the charge or one field given back without the other, fail. Only the proven mock can be
//! asked for a task that fails (the fixture rule `[fail]`), so elsewhere the check skips.

use super::key::{baseline, set_key};
use super::video_run::video_model;
use super::video_unified::interval;
use super::Kind::Failure;
use super::{Check, CheckCtx, Halt, MockOnly, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::http::key_api::get_key;
use crate::vocab::discovery::RouteFamily;
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::refund::{judge_refund, RefundSeen};
use gatecheck_schemas::types::KeyRecord;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "task.refund.failed",
        kind: Failure,
        route: "POST /v1/videos, GET /v1/videos/{task_id}, GET /api/token/{id}",
        spec: "DECISIONS: Route table and early errors D-ROUTE-5; D-TASK-13",
        title: "A task that fails gives its whole charge back to the key: `remain_quota` and `used_quota` as before the submit. A charge kept whole deviates (billing policy); books that do not balance fail.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::VideoPoll, RouteFamily::KeyUpdate]),
        mock_only: Some(MockOnly {
            cause: SkipCause::MockOnly,
            why: "only the mock can be asked for a task that fails (the fixture rule [fail])",
        }),
        decision: None,
        run: |c| Box::pin(failed_refunded(c)),
    },
];

/// The key's `(remain_quota, used_quota)`.
async fn books(ctx: &CheckCtx, id: i64) -> Result<(i64, i64), Halt> {
    let k = get_key(&ctx.t, id)
        .await?
        .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))?;
    Ok((k.remain_quota, k.used_quota))
}

/// Submits a task the mock's fixture makes fail: the request, its answer, its id.
async fn submit_failing(ctx: &CheckCtx) -> Result<(RequestSpec, Exchange, String), Halt> {
    let prompt = "a storm at sea [fail] (gatecheck refund)";
    let (spec, ex, id, _) = super::remix::create_video_task(ctx, prompt, "the task").await?;
    Ok((spec, ex, id))
}

/// Polls task `id` until it ends: the last poll, and whether it failed.
async fn wait_end(ctx: &CheckCtx, id: &str) -> Result<(RequestSpec, Exchange, bool), Halt> {
    let mut pace = super::pacing::Pacer::new(ctx, interval(ctx));
    loop {
        pace.wait(ctx, false, "a video task").await?;
        let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
        let ex = ctx.send(&spec, 0).await?;
        let status = ex
            .json()
            .and_then(|v| v["status"].as_str().map(str::to_owned));
        match status.as_deref() {
            Some("failed" | "error") => return Ok((spec, ex, true)),
            Some("completed") => return Ok((spec, ex, false)),
            _ if pace.waited >= ctx.cfg.limits.video_deadline => return Ok((spec, ex, false)),
            _ => {}
        }
    }
}

async fn failed_refunded(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let (model, seconds, _) = video_model(ctx)?;
    let price = ctx.price(
        &model,
        Usage {
            seconds: seconds as f64,
            ..Usage::one_request()
        },
    );
    let rec = KeyRecord {
        unlimited_quota: false,
        remain_quota: base.remain_quota.max(10 * price),
        ..base.clone()
    };
    set_key(ctx, &rec).await?;
    let before = books(ctx, base.id).await?;
    let (spec, ex, id) = submit_failing(ctx).await?;
    let charged = books(ctx, base.id).await?;
    if charged.1 <= before.1 {
        return Err(ctx.not_observed(
            "the task was not charged at submit: no refund to judge (see quota.charged)",
            &spec,
            Some(&ex),
        ));
    }
    let (poll, polled, failed) = wait_end(ctx, &id).await?;
    if !failed {
        return Err(ctx.not_observed(
            format!("task {id} did not fail within the video deadline"),
            &poll,
            Some(&polled),
        ));
    }
    let after = books(ctx, base.id).await?;
    let ev = |message: String| {
        let mut e = ctx.evidence(message, &poll, Some(&polled));
        e.related
            .push(ctx.related("the submit of the task", &spec, &ex));
        e.cases_run = 1;
        Box::new(e)
    };
    match judge_refund(before, charged, after) {
        RefundSeen::Refunded => Ok(Pass {
            cases: 1,
            note: None,
        }),
        RefundSeen::Kept => Err(Halt::OffDecision(
            ev(format!(
                "task {id} failed and its charge of {} stayed on the key (used_quota {} -> {}): \
                 new-api gives it back (DECISIONS D-ROUTE-5)",
                charged.1 - before.1,
                before.1,
                after.1
            )),
            id::D_TASK_13,
        )),
        RefundSeen::Unbalanced(m) => Err(Halt::Finding(ev(format!(
            "task {id} failed: {m} (DECISIONS D-TASK-13)"
        )))),
    }
}
