//! The video platforms new-api serves behind its unified route (DECISIONS D-PLAT): Vidu,
//! MiniMax/Hailuo, Doubao Seedance and Ali Wan, one check each, run when discovery finds a model of
//! the platform in the target's catalog (a skip with the cause otherwise).
//!
//! Each submits on `POST /v1/video/generations` and follows `GET
//! /v1/video/generations/{task_id}` on the target's clock, with the line of the other task
//! routes (D-TASK-10 to D-TASK-12): a fetch answering another task, a state going back or a
//! `SUCCESS` without its result fails, as does a status its own `data` contradicts (the
//! platform's status map, D-PLAT-7); the create object's and the record's forms, `platform`
//! and the adaptor's progress deviate, citing the platform's row. Then `GET /v1/videos/{id}`
//! is judged against the adaptor's conversion (D-PLAT-5).

use super::video_unified::{created_id, follow_with, GENERATIONS};
use super::Kind::Failure;
use super::{accepted, def, Check, CheckCtx, Halt, Outcome, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::artifacts::{TaskTimeline, TimelinePoint};
use gatecheck_schemas::rules::platforms::{
    ali, by_default_model, check_record, doubao, hailuo, is_failure_rule, vidu, Platform,
    OTHER_RATIOS_HEADER,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::task::TaskDto;
use gatecheck_schemas::rules::video::is_task_id;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    def("task.platform.vidu", Failure, "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}",
        "DECISIONS: Video platforms behind the unified route D-PLAT-2; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
        "A Vidu model (channel type 52) found in the catalog: new-api's create object, then its record followed to a terminal state with platform `52`, `data` Vidu's task and the status Vidu's `state` maps to; `/v1/videos/{id}` answers the same task. Another form deviates; another task, a state going back, SUCCESS without its result or a status its own `data` contradicts fails.",
        Phase::Shared, |c| Box::pin(platform(c, &vidu::PLATFORM))),
    def("task.platform.hailuo", Failure, "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}",
        "DECISIONS: Video platforms behind the unified route D-PLAT-3; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
        "A MiniMax/Hailuo model (channel type 35) found in the catalog: as `task.platform.vidu`, with MiniMax's task as `data` and its status map (no queued state: `Queueing` is IN_PROGRESS 30%).",
        Phase::Shared, |c| Box::pin(platform(c, &hailuo::PLATFORM))),
    def("task.platform.doubao", Failure, "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}",
        "DECISIONS: Video platforms behind the unified route D-PLAT-4; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
        "A Doubao Seedance model (channel type 54) found in the catalog: as `task.platform.vidu`, with Volcengine Ark's task as `data` and its status map (`queued` QUEUED 10%, `running` IN_PROGRESS 50%).",
        Phase::Shared, |c| Box::pin(platform(c, &doubao::PLATFORM))),
    def("task.platform.ali", Failure, "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}",
        "DECISIONS: Video platforms behind the unified route D-PLAT-8; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
        "An Ali Wan model (channel type 17) found in the catalog: as `task.platform.vidu`, with DashScope's task as `data` and its status map (`PENDING` QUEUED 20%, `RUNNING` IN_PROGRESS 30%, `FAILED`/`CANCELED`/`UNKNOWN` FAILURE).",
        Phase::Shared, |c| Box::pin(platform(c, &ali::PLATFORM))),
];

/// The first catalog model of platform `p`: one of its adaptor's default models.
pub(crate) fn model_of(ctx: &CheckCtx, p: &Platform) -> Result<String, Halt> {
    ctx.env
        .models
        .iter()
        .find(|m| by_default_model(&m.id).is_some_and(|q| q.channel_type == p.channel_type))
        .map(|m| m.id.clone())
        .ok_or_else(|| {
            Halt::no_model(format!(
                "no {} model ({}) in the catalog",
                p.name,
                p.models.join(", ")
            ))
        })
}

/// The submit: new-api's create object with a public `task_` id, queued, the model asked.
pub(crate) async fn submit(
    ctx: &CheckCtx,
    p: &'static Platform,
    model: &str,
) -> Result<String, Halt> {
    let price = ctx.price(
        model,
        Usage {
            seconds: 5.0,
            ..Usage::one_request()
        },
    );
    let spec = RequestSpec::post(GENERATIONS)
        .auth(ctx.model_auth()?)
        .json(json!({
            "model": model, "prompt": "a paper kite over dunes (gatecheck)", "duration": 5,
        }));
    let ex = ctx.send(&spec, price).await?;
    let (id, v) = created_id(ctx, p.decision, &spec, &ex)?;
    let problem = if !ex.headers.contains_key(OTHER_RATIOS_HEADER) {
        Some(format!(
            "no {OTHER_RATIOS_HEADER} header (new-api sets it on every task submit, D-PLAT-1)"
        ))
    } else if !is_task_id(&id) || v["task_id"] != id.as_str() {
        Some(format!(
            "id {id:?} and task_id {} are not the same task_ id",
            v["task_id"]
        ))
    } else if v["status"] != "queued" || v["progress"] != 0 {
        Some(format!(
            "status {} and progress {}, not queued and 0",
            v["status"], v["progress"]
        ))
    } else {
        None
    };
    match problem {
        Some(m) => Err(ctx.deviate(p.decision, m, &spec, Some(&ex))),
        None => Ok(id),
    }
}

/// The platform's rules on one record: a failure for a status its own `data` contradicts,
/// a deviation citing the platform's row otherwise.
pub(crate) fn judge(
    ctx: &CheckCtx,
    p: &'static Platform,
    t: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    check_record(p, t).map_err(|e| {
        if is_failure_rule(e.rule) {
            ctx.fail(
                format!("{e} (DECISIONS D-PLAT-7: the record contradicts its own data)"),
                spec,
                Some(ex),
            )
        } else {
            ctx.deviate(p.decision, e.to_string(), spec, Some(ex))
        }
    })
}

async fn platform(ctx: &CheckCtx, p: &'static Platform) -> Outcome {
    let model = model_of(ctx, p)?;
    let id = submit(ctx, p, &model).await?;
    let auth = ctx.model_auth()?;
    let fetch = |id: &str| RequestSpec::get(format!("{GENERATIONS}/{id}")).auth(auth.clone());
    let step = super::video_unified::interval(ctx);
    let seen = parking_lot::Mutex::new(Vec::new());
    let followed = follow_with(ctx, p.decision, &id, &fetch, &|t, spec, ex| {
        let mut points = seen.lock();
        let n = points.len();
        points.push(point(t, step.as_millis(), n));
        drop(points);
        judge(ctx, p, t, spec, ex)
    })
    .await;
    // The task in the HTML report's timelines, with its platform, whatever the verdict.
    ctx.env.platform_tasks.lock().push(TaskTimeline {
        kind: "video".into(),
        id: id.clone(),
        model: model.clone(),
        platform: format!("{} ({})", p.channel_type, p.name),
        points: seen.into_inner(),
    });
    let mut pass = followed?;
    pass.cases += video(ctx, &id).await?;
    Ok(pass)
}

/// The `n`th observation of a record, `step_ms` after the one before.
fn point(t: &TaskDto, step_ms: u128, n: usize) -> TimelinePoint {
    use gatecheck_schemas::rules::task::{parse_progress, TaskStatus};
    let state = match t.status {
        TaskStatus::Queued | TaskStatus::Submitted => "queued",
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Success => "completed",
        TaskStatus::Failure => "failed",
        other => other.as_str(),
    };
    TimelinePoint {
        at_ms: u64::try_from(step_ms * n as u128).unwrap_or(u64::MAX),
        state: state.to_owned(),
        progress: parse_progress(&t.progress),
    }
}

/// `GET /v1/videos/{id}` of the task: the task asked for (a failure otherwise; D-PLAT-5). Whether
/// it shows `model` is not judged: new-api's Vidu conversion sets none, the spec's object has one.
pub(crate) async fn video(ctx: &CheckCtx, id: &str) -> Result<u32, Halt> {
    let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    if !accepted(&ex) {
        let m = format!("answered {}", super::answer_summary(&ex));
        return Err(ctx.deviate("D-PLAT-5", m, &spec, Some(&ex)));
    }
    if v["id"] != id {
        return Err(ctx.fail(
            format!(
                "fetched {id}, answered the video {} (DECISIONS D-TASK-10)",
                v["id"]
            ),
            &spec,
            Some(&ex),
        ));
    }
    Ok(1)
}
