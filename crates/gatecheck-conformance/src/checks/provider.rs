//! new-api's provider task routes (DECISIONS D-TASK-6, D-TASK-7): Kling
//! (`/kling/v1/videos/*`) and Jimeng (`/jimeng/?Action=...`). new-api converts their bodies
//! and answers its own objects: the create object with a public `task_` id, and its task
//! envelope on fetch. The spec names these routes without describing them: a target that
//! lacks them skips (`route-not-served`), one that answers in another form deviates; a fetch
//! that answers another task in whatever form (a `CVSync2AsyncGetResult` run as a submit
//! answers a new task, made and charged), a state that goes back or a `SUCCESS` without its
//! result fails (DECISIONS D-TASK-10 to D-TASK-12, judged in `video_unified::follow`).

use super::video_unified::{created_id, follow};
use super::Kind::{Deviation, Failure};
use super::{Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::platforms;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::task::{
    other_task_named, JIMENG_GET_RESULT, JIMENG_SUBMIT, MSG_ACTION_REQUIRED, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::is_task_id;
use gatecheck_schemas::types::Endpoints;
use serde_json::{json, Value};

/// The Kling create route the checks use.
const KLING: &str = "/kling/v1/videos/text2video";

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "task.kling.create",
        kind: Deviation,
        route: "POST /kling/v1/videos/text2video",
        spec: "DECISIONS: Provider and unified task routes D-TASK-6",
        title: "A Kling task answers new-api's create object (`task_` id as `id` and `task_id`, `queued`), not Kling's `{code, data}` envelope.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Kling]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(kling_create(c)),
    },
    Check {
        id: "task.kling.envelope",
        kind: Failure,
        route: "POST /kling/v1/videos/text2video, GET /kling/v1/videos/text2video/{task_id}",
        spec: "DECISIONS: Provider and unified task routes D-TASK-6; failures D-TASK-10 to D-TASK-12",
        title: "Fetching a Kling task answers new-api's task envelope, followed to a terminal state. Another form deviates; a fetch answering another task, a state or progress going back (SUCCESS then IN_PROGRESS), or SUCCESS without `100%` and `result_url` fails.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Kling]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(kling_envelope(c)),
    },
    Check {
        id: "task.jimeng.submit-and-fetch",
        kind: Failure,
        route: "POST /jimeng/",
        spec: "DECISIONS: Provider and unified task routes D-TASK-7; failures D-TASK-10 to D-TASK-12",
        title: "`CVSync2AsyncSubmitTask` answers new-api's create object; `CVSync2AsyncGetResult` the task envelope, followed to a terminal state. Another form deviates; a fetch answering another task in any form (a new task made by the fetch included, after a submit whose own form deviates too), a state or progress going back, or SUCCESS without `100%` and `result_url` fails.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Jimeng]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(jimeng(c)),
    },
    Check {
        id: "task.jimeng.action-required",
        kind: Deviation,
        route: "POST /jimeng/",
        spec: "DECISIONS: Provider and unified task routes D-TASK-7",
        title: "A Jimeng request without `?Action=` is answered 400 `Action query parameter is required`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Jimeng]),
        mock_only: None,
        decision: Some(id::D_TASK),
        run: |c| Box::pin(jimeng_action_required(c)),
    },
];

/// The first video model of the run whose id or endpoints name `provider`, with its default
/// duration.
fn provider_model(ctx: &CheckCtx, provider: &str) -> Result<(String, i64), Halt> {
    let names = |e: &Endpoints| match e {
        Endpoints::Formats(list) => list.iter().any(|f| f.contains(provider)),
        other => serde_json::to_string(other).is_ok_and(|s| s.contains(provider)),
    };
    ctx.env
        .models
        .iter()
        .filter(|m| m.id.contains(provider) || names(&m.endpoints))
        .find_map(|m| {
            let video = ctx.env.caps.get(&m.id)?.video.as_ref()?;
            Some((m.id.clone(), video.default_seconds))
        })
        .ok_or_else(|| Halt::no_model(format!("no {provider} video model in the catalog")))
}

async fn send_priced(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    model: &str,
    seconds: i64,
) -> Result<Exchange, Halt> {
    let usage = Usage {
        seconds: seconds as f64,
        ..Usage::one_request()
    };
    ctx.send(spec, ctx.price(model, usage)).await
}

/// The created task's id, after the create-object rules (`row` on a deviation).
fn new_api_object(
    ctx: &CheckCtx,
    row: Id,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<String, Halt> {
    let (id, v) = created_id(ctx, row, spec, ex)?;
    let problem = if !is_task_id(&id) || v["task_id"] != id.as_str() {
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
        Some(p) => Err(ctx.deviate(row, p, spec, Some(ex))),
        None => Ok(id),
    }
}

/// The plugin era's Kling and Jimeng routes are judged by `task.platform.<name>`
/// (`platforms_native.rs`, DECISIONS D-ERA-11): these checks are the adaptors era's.
fn adaptors_era_only(ctx: &CheckCtx) -> Result<(), Halt> {
    if ctx.env.era() == gatecheck_schemas::Era::Plugins {
        return Err(Halt::Skip(
            crate::vocab::skip::SkipCause::NoCase,
            "the plugin era renders the vendors' own bodies on these routes: judged by \
             task.platform.<name> (DECISIONS D-ERA-11)"
                .into(),
        ));
    }
    Ok(())
}

async fn kling_submit(ctx: &CheckCtx) -> Result<String, Halt> {
    adaptors_era_only(ctx)?;
    let (model, seconds) = provider_model(ctx, platforms::kling::PLATFORM.name)?;
    let spec = RequestSpec::post(KLING)
        .auth(ctx.model_auth()?)
        .json(json!({
            "model_name": model, "prompt": "a koi pond in the rain (gatecheck)",
            "duration": seconds.to_string(), "aspect_ratio": "16:9",
        }));
    let ex = send_priced(ctx, &spec, &model, seconds).await?;
    new_api_object(ctx, id::D_TASK_6, &spec, &ex)
}

async fn kling_create(ctx: &CheckCtx) -> Outcome {
    kling_submit(ctx).await?;
    super::pass1()
}

async fn kling_envelope(ctx: &CheckCtx) -> Outcome {
    let id = kling_submit(ctx).await?;
    let auth = ctx.model_auth()?;
    follow(ctx, id::D_TASK_6, &id, &|id| {
        RequestSpec::get(format!("{KLING}/{id}")).auth(auth.clone())
    })
    .await
}

fn jimeng_path(action: &str) -> String {
    format!("/jimeng/?Action={action}&Version=2022-08-31")
}

async fn jimeng(ctx: &CheckCtx) -> Outcome {
    adaptors_era_only(ctx)?;
    let (model, seconds) = provider_model(ctx, platforms::jimeng::PLATFORM.name)?;
    let spec = RequestSpec::post(jimeng_path(JIMENG_SUBMIT))
        .auth(ctx.model_auth()?)
        .json(json!({ "req_key": model, "prompt": "a paper boat on a river (gatecheck)" }));
    let ex = send_priced(ctx, &spec, &model, seconds).await?;
    let auth = ctx.model_auth()?;
    let fetch = |id: &str| {
        RequestSpec::post(jimeng_path(JIMENG_GET_RESULT))
            .auth(auth.clone())
            .json(json!({ "task_id": id }))
    };
    match new_api_object(ctx, id::D_TASK_7, &spec, &ex) {
        Ok(id) => follow(ctx, id::D_TASK_7, &id, &fetch).await,
        Err(Halt::OffDecision(deviation, row)) => {
            Err(fetch_after_deviation(ctx, (&spec, &ex), *deviation, row, &fetch).await)
        }
        Err(other) => Err(other),
    }
}

/// A submit whose form deviates (`deviation`) still names its task: one fetch of it is judged
/// for identity, as a fetch answers the task asked about in any form (D-TASK-10, the same rule
/// as [`follow`]: `rules::task::other_task_named`). A fetch that names another task (a fetch
/// run as a submit, a new task made and charged) fails, with the submit as related evidence;
/// otherwise the submit's deviation stands (the envelope's rules cannot be judged past it).
async fn fetch_after_deviation(
    ctx: &CheckCtx,
    (spec, ex): (&RequestSpec, &Exchange),
    deviation: crate::evidence::Evidence,
    row: Id,
    fetch: &(dyn Fn(&str) -> RequestSpec + Sync),
) -> Halt {
    let named = ex.json().and_then(|v| other_task_named(&v, ""));
    let Some(id) = named else {
        return Halt::OffDecision(Box::new(deviation), row);
    };
    let probe = fetch(&id);
    let fx = match ctx.send(&probe, 0).await {
        Ok(fx) => fx,
        Err(halt) => return halt,
    };
    let Some(other) = fx.json().and_then(|v| other_task_named(&v, &id)) else {
        return Halt::OffDecision(Box::new(deviation), row);
    };
    let message = format!(
        "fetched {id}, answered task_id {other:?} (DECISIONS D-TASK-10: a fetch answers the task asked about); the submit's own answer also deviates ({row}): {}",
        deviation.message
    );
    let mut ev = ctx.evidence(message, &probe, Some(&fx));
    ev.related
        .push(ctx.related("the submit that named the task", spec, ex));
    Halt::Finding(Box::new(ev))
}

async fn jimeng_action_required(ctx: &CheckCtx) -> Outcome {
    adaptors_era_only(ctx)?;
    let spec = RequestSpec::post("/jimeng/")
        .auth(ctx.model_auth()?)
        .json(json!({ "prompt": "no action (gatecheck)" }));
    let ex = ctx.send(&spec, 0).await?;
    let message = ex
        .json()
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    if ex.status.as_u16() != TASK_REFUSAL_STATUS || !message.starts_with(MSG_ACTION_REQUIRED) {
        return Err(ctx.deviate(
            id::D_TASK_7,
            format!(
                "expected 400 {MSG_ACTION_REQUIRED:?}, got {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    super::pass1()
}
