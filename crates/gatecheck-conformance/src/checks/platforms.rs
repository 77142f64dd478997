//! The video platforms new-api serves behind its unified route (DECISIONS D-PLAT): Vidu,
//! MiniMax/Hailuo, Doubao Seedance and Ali Wan, one check each, run when discovery finds a model of
//! the platform in the target's catalog (a skip with the cause otherwise).
//!
//! Each submits on `POST /v1/video/generations` and follows `GET
//! /v1/video/generations/{task_id}` on the target's clock, with the line of the other task
//! routes (D-TASK-10 to D-TASK-12): a fetch answering another task, a state going back or a
//! `SUCCESS` without its result fails, as does a status or a shape its own `data` contradicts
//! (the platform's status map, D-PLAT-7; its schema, D-PLAT-10) and a record charged otherwise
//! than the `X-New-Api-Other-Ratios` its submit announced (D-PLAT-9); the create object's and
//! the record's forms, `platform`, the adaptor's progress, a missing ratios header and ratios
//! other than the adaptor's deviate, citing their rows. Then `GET /v1/videos/{id}`
//! is judged against the adaptor's conversion (D-PLAT-5).

use super::video_unified::{created_id, follow_with, GENERATIONS};
use super::{accepted, CheckCtx, Halt, Outcome};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::artifacts::{TaskTimeline, TimelinePoint};
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::platform_record::check_record_in;
use gatecheck_schemas::rules::platforms::{
    by_default_model_in, is_failure_rule, Era, Platform, OTHER_RATIOS_HEADER,
};
use gatecheck_schemas::rules::quota::{task_quota, Usage};
use gatecheck_schemas::rules::task::TaskDto;
use gatecheck_schemas::rules::video::is_task_id;
use serde_json::{json, Map, Value};

/// The first catalog model of platform `p`: one of its adaptor's default models.
pub(crate) fn model_of(ctx: &CheckCtx, p: &Platform) -> Result<String, Halt> {
    ctx.env
        .models
        .iter()
        .find(|m| {
            by_default_model_in(ctx.env.era(), &m.id)
                .is_some_and(|q| q.channel_type == p.channel_type)
        })
        .map(|m| m.id.clone())
        .ok_or_else(|| {
            Halt::no_model(format!(
                "no {} model ({}) in the catalog",
                p.name,
                p.models_in(ctx.env.era()).join(", ")
            ))
        })
}

/// The body the check submits (5 seconds, no image: every platform's text-to-video).
pub(crate) fn submit_body(p: &Platform, era: Era, model: &str, refused: bool) -> Option<Value> {
    let body = |d: i64| json!({"model": model, "prompt": "a paper kite over dunes (gatecheck)", "duration": d});
    // 5 seconds, or the first duration the platform's plugin accepts (Veo's 4, 6 or 8); or,
    // `refused`, the first it refuses.
    [5, 8, 6, 4].into_iter().map(body).find(|b| {
        p.refusal_in(era, b.as_object().unwrap_or(&Map::new()))
            .is_err()
            == refused
    })
}

/// In the plugin era, a body the platform's plugin refuses (Veo's 5 seconds; DECISIONS
/// D-PLAT-23) is answered 400 with a plugin's refusal; an accepted one deviates citing the
/// row (the plugin's `decodeRequest` runs before any upstream).
async fn judge_refusal(ctx: &CheckCtx, p: &Platform, model: &str, price: i64) -> Result<(), Halt> {
    let Some(body) = submit_body(p, ctx.env.era(), model, true) else {
        return Ok(());
    };
    let spec = RequestSpec::post(GENERATIONS)
        .auth(ctx.model_auth()?)
        .json(body);
    let ex = ctx.send(&spec, price).await?;
    let v = ex.json().unwrap_or(Value::Null);
    use gatecheck_schemas::rules::era::{is_plugin_refusal, PLUGIN_REFUSAL_STATUS};
    if ex.status.as_u16() == PLUGIN_REFUSAL_STATUS && is_plugin_refusal(&v) {
        return Ok(());
    }
    Err(ctx.deviate(
        id::D_PLAT_23,
        format!(
            "a request {}'s plugin refuses (the plugin era) was answered {}, not 400 \
             plugin_request_invalid",
            p.title,
            ex.status.as_u16()
        ),
        &spec,
        Some(&ex),
    ))
}

/// The submit: new-api's create object with a public `task_` id, queued, the model asked, and
/// `X-New-Api-Other-Ratios` (D-PLAT-1, D-PLAT-9). Gives the id and the header's ratios.
pub(crate) async fn submit(
    ctx: &CheckCtx,
    p: &'static Platform,
    model: &str,
) -> Result<(String, Billing), Halt> {
    let price = ctx.price(
        model,
        Usage {
            seconds: 5.0,
            ..Usage::one_request()
        },
    );
    judge_refusal(ctx, p, model, price).await?;
    let body = submit_body(p, ctx.env.era(), model, false).unwrap_or_default();
    let spec = RequestSpec::post(GENERATIONS)
        .auth(ctx.model_auth()?)
        .json(body.clone());
    let ex = ctx.send(&spec, price).await?;
    upstream_refused_submit(ctx, p, &spec, &ex)?;
    let (id, v) = created_id(ctx, p.decision, &spec, &ex)?;
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
    if let Some(m) = problem {
        return Err(ctx.deviate(p.decision, m, &spec, Some(&ex)));
    }
    let ratios =
        announced_ratios(&ex).map_err(|m| ctx.deviate(id::D_PLAT_1, m, &spec, Some(&ex)))?;
    let expected = (p.ratios_in(ctx.env.era()))(body.as_object().unwrap_or(&Map::new()), model);
    Ok((id, Billing { ratios, expected }))
}

/// An Ali submit DashScope refused, relayed as new-api relays it (DECISIONS D-PLAT-11): the
/// upstream's refusal, not the deployment's bug, and nothing made to follow: a skip with the
/// cause and the exchange.
fn upstream_refused_submit(
    ctx: &CheckCtx,
    p: &Platform,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    let Some(refusals) = p.refusals else {
        return Ok(());
    };
    if !(refusals.relayed)(ex.status.as_u16(), &v) {
        return Ok(());
    }
    Err(ctx.not_observed(
        format!(
            "DashScope refused the submit and the deployment relayed it as new-api does \
             ({} {}: {}; DECISIONS D-PLAT-11): no task to follow",
            ex.status.as_u16(),
            v["code"].as_str().unwrap_or(""),
            v["message"].as_str().unwrap_or("")
        ),
        spec,
        Some(ex),
    ))
}

/// An Ali record showing DashScope's error answer to new-api's poll as new-api stores it
/// (`data` the error body, QUEUED 20%; DECISIONS D-PLAT-11): the upstream's failure, not the
/// deployment's bug (the record may even step back from IN_PROGRESS); the task is not followed
/// further (a skip with the cause and the exchange).
fn upstream_refused_poll(
    ctx: &CheckCtx,
    p: &Platform,
    t: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    let Some((code, message)) = p.refusals.and_then(|r| (r.poll)(&t.data)) else {
        return Ok(());
    };
    let stored = p.map_in(ctx.env.era(), "").is_some_and(|(s, progress)| {
        s == t.status
            && gatecheck_schemas::rules::task::parse_progress(&t.progress) == Some(progress)
    });
    if !stored {
        return Ok(()); // judged by `judge` (a record its own data contradicts)
    }
    Err(ctx.not_observed(
        format!(
            "DashScope answered new-api's poll with an error ({code}: {message}), which new-api \
             stores as data with the task QUEUED 20% until DashScope answers again (DECISIONS \
             D-PLAT-11): the upstream's failure, not the deployment's; the task was not followed \
             to its end"
        ),
        spec,
        Some(ex),
    ))
}

/// What a submit announced of its billing, and what new-api's adaptor would.
pub(crate) struct Billing {
    /// The ratios of its `X-New-Api-Other-Ratios`.
    ratios: Map<String, Value>,
    /// The adaptor's (`Platform::ratios` of the request the check sent).
    expected: Map<String, Value>,
}

/// The first record's billing (DECISIONS D-PLAT-9): its quota against the announced ratios
/// (a failure, [`judge_quota`]), then the announced ratios against the adaptor's (a deviation:
/// a deployment may configure other ratio tables, or map the model to another upstream).
fn judge_billing(
    ctx: &CheckCtx,
    p: &Platform,
    model: &str,
    b: &Billing,
    t: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    judge_quota(ctx, model, &b.ratios, t, spec, ex)?;
    judge_ratios(ctx, p, b, spec, ex)
}

/// The announced ratios against the adaptor's for the request the check sent (DECISIONS
/// D-PLAT-9): other ratios deviate (a deployment may configure other ratio tables, or map the
/// model to another upstream).
pub(crate) fn judge_ratios(
    ctx: &CheckCtx,
    p: &Platform,
    b: &Billing,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    if b.ratios != b.expected {
        let m = format!(
            "the submit announced {OTHER_RATIOS_HEADER} {}, new-api's {} adaptor announces {} \
             for this request (a deployment may configure other ratio tables or map the model: \
             DECISIONS D-PLAT-9)",
            Value::Object(b.ratios.clone()),
            p.name,
            Value::Object(b.expected.clone())
        );
        return Err(ctx.deviate(id::D_PLAT_9, m, spec, Some(ex)));
    }
    Ok(())
}

/// The billing ratios a submit answer announces (`X-New-Api-Other-Ratios`, a JSON object), or
/// why there are none (D-PLAT-1: new-api sets it on every task submit).
fn announced_ratios(ex: &Exchange) -> Result<Map<String, Value>, String> {
    let Some(h) = ex.headers.get(OTHER_RATIOS_HEADER) else {
        return Err(format!(
            "no {OTHER_RATIOS_HEADER} header (new-api sets it on every task submit, D-PLAT-1)"
        ));
    };
    match serde_json::from_slice::<Value>(h.as_bytes()) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(format!(
            "{OTHER_RATIOS_HEADER} {:?} is not a JSON object of ratios (D-PLAT-1)",
            String::from_utf8_lossy(h.as_bytes())
        )),
    }
}

/// The record's `quota` against the ratios the submit announced (DECISIONS D-PLAT-9): at the
/// known group ratio, the catalog price times those ratios ([`task_quota`]); a record charged
/// otherwise contradicts the service's own billing statement (a failure). Judged on a record
/// not yet terminal (a success may be settled again, a failure refunded); not judged when the
/// group ratio is unknown.
fn judge_quota(
    ctx: &CheckCtx,
    model: &str,
    ratios: &Map<String, Value>,
    t: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    let (Some(group), Some(m)) = (
        ctx.env.group_ratio.ratio,
        ctx.env.models.iter().find(|m| m.id == model),
    ) else {
        return Ok(());
    };
    if t.status.is_terminal() {
        return Ok(());
    }
    let usage = Usage {
        seconds: 5.0,
        ..Usage::one_request()
    };
    let want = task_quota(&m.pricing, usage, ratios, group);
    if (t.quota - want).abs() > 1 {
        return Err(ctx.fail(
            format!(
                "the record's quota is {}, but the submit announced {OTHER_RATIOS_HEADER} {} on \
                 the catalog price: {want} at group ratio {group} (DECISIONS D-PLAT-9: the charge \
                 contradicts the service's own billing statement)",
                t.quota,
                Value::Object(ratios.clone())
            ),
            spec,
            Some(ex),
        ));
    }
    Ok(())
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
    check_record_in(p, ctx.env.era(), t).map_err(|e| {
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

pub(crate) async fn platform(ctx: &CheckCtx, p: &'static Platform) -> Outcome {
    use super::platforms_plugin as plugin;
    let model = model_of(ctx, p)?;
    let price = ctx.price(
        &model,
        Usage {
            seconds: 5.0,
            ..Usage::one_request()
        },
    );
    let decoded = plugin::decode(ctx, p, &model, price).await?;
    let (id, billing) = submit(ctx, p, &model).await?;
    let early = plugin::early_content(ctx, &id).await?;
    let sent = submit_body(p, ctx.env.era(), &model, false).unwrap_or_default();
    let sent = sent.as_object().cloned().unwrap_or_default();
    let auth = ctx.model_auth()?;
    let fetch = |id: &str| RequestSpec::get(format!("{GENERATIONS}/{id}")).auth(auth.clone());
    let seen = parking_lot::Mutex::new(Vec::new());
    let last = parking_lot::Mutex::new(None);
    let followed = follow_with(ctx, p.decision, &id, &fetch, &|t, at, spec, ex| {
        let mut points = seen.lock();
        let n = points.len();
        points.push(point(t, at));
        drop(points);
        *last.lock() = Some(t.clone());
        upstream_refused_poll(ctx, p, t, spec, ex)?;
        if n == 0 {
            judge_billing(ctx, p, &model, &billing, t, spec, ex)?;
            if let Some(e) = &early {
                plugin::judge_early(ctx, p, e, t)?;
            }
            plugin::judge_action(ctx, p, &sent, t, spec, ex)?;
        }
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
    pass.cases += video(ctx, &id).await? + decoded;
    if let Some(t) = last.into_inner() {
        pass.cases += plugin::after_end(ctx, p, &id, &t).await?;
    }
    Ok(pass)
}

/// An observation of a record, `at` after the first.
fn point(t: &TaskDto, at: std::time::Duration) -> TimelinePoint {
    use gatecheck_schemas::rules::task::{parse_progress, TaskStatus};
    let state = match t.status {
        TaskStatus::Queued | TaskStatus::Submitted => "queued",
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Success => "completed",
        TaskStatus::Failure => "failed",
        other => other.as_str(),
    };
    TimelinePoint {
        at_ms: u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
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
        return Err(ctx.deviate(id::D_PLAT_5, m, &spec, Some(&ex)));
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
