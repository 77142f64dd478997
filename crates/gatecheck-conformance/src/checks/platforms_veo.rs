//! Gemini (24) and Vertex (41) Veo behind the unified route (DECISIONS D-PLAT-20..22): one
//! check each, run when discovery finds a model of the platform in the target's catalog.
//!
//! new-api asks their upstream in real time on every fetch (`tryRealtimeFetch`) and answers
//! `GET /v1/video/generations/{task_id}` with `{"code":"success","data":{"error","format",
//! "metadata","status","task_id","url"}}` instead of the record. The check follows that answer
//! on the target's clock: another task, a status going back or a `succeeded` task whose
//! content is no MP4 fails; another form deviates. A record instead (a deployment answering
//! what its polling loop stored, as new-api does when the real-time fetch fails) is judged by
//! the platform's status map like the other platforms (a contradiction fails), then deviates
//! citing D-PLAT-22. Then `GET /v1/videos/{id}` answers the same task, ended as it ended.
//! A content route failed by the upstream (new-api's 502s) is not observed, with its cause.
//!
//! Billing (D-PLAT-9): the submit's `X-New-Api-Other-Ratios` must be there (D-PLAT-1) and is
//! judged against the adaptor's `{"seconds": N}` at the first answer (other ratios deviate).
//! The charge is not judged: the real-time answer shows no `quota`.

use super::platforms::{judge, judge_ratios, model_of, submit, video, Billing};
use super::video_unified::{interval, GENERATIONS};
use super::{accepted, CheckCtx, Halt, Outcome, Pass};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::artifacts::{TaskTimeline, TimelinePoint};
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::names::TASK_REALTIME_ENVELOPE;
use gatecheck_schemas::rules::platforms::veo::{
    upstream_content_failure, NO_KEY_MESSAGE, REALTIME_STATUSES,
};
use gatecheck_schemas::rules::platforms::{is_realtime, Platform};
use gatecheck_schemas::rules::task::check_envelope;
use serde_json::Value;

/// The route of the check of a platform asked in real time.
pub(crate) const ROUTE: &str = "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}, GET /v1/videos/{id}/content";

/// The order of a real-time `status` (`succeeded` and `failed` are both last).
fn rank(status: &str) -> usize {
    match status {
        "queued" => 0,
        "processing" => 1,
        _ => 2,
    }
}

/// One real-time answer judged: the task asked about, a known status not going back from
/// `prev`; the status it shows.
fn judge_realtime(
    ctx: &CheckCtx,
    prev: Option<&str>,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<String, Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    let d = &v["data"];
    let status = d["status"].as_str().unwrap_or("").to_owned();
    if let Err(e) = gatecheck_schemas::validate(TASK_REALTIME_ENVELOPE, &v) {
        let m = format!("not new-api's real-time answer: schema {TASK_REALTIME_ENVELOPE}: {e}");
        return Err(ctx.deviate(id::D_PLAT_22, m, spec, Some(ex)));
    }
    if !REALTIME_STATUSES.contains(&status.as_str()) || !d.is_object() {
        let m = format!("not new-api's real-time answer (status {})", d["status"]);
        return Err(ctx.deviate(id::D_PLAT_22, m, spec, Some(ex)));
    }
    let back = prev.filter(|q| rank(q) > rank(&status) || (rank(q) == 2 && *q != status));
    if let Some(q) = back {
        let m = format!("the status went from {q} back to {status} (DECISIONS D-TASK-11)");
        return Err(ctx.fail(m, spec, Some(ex)));
    }
    Ok(status)
}

/// The record a target answered instead of the real-time answer: the platform's rules on it
/// (a status its `data` contradicts fails), then a deviation citing D-PLAT-22.
fn judge_stored(
    ctx: &CheckCtx,
    p: &'static Platform,
    v: &Value,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Halt {
    let t = match check_envelope(v) {
        Ok(t) => t,
        Err(e) => return ctx.deviate(p.decision, e.to_string(), spec, Some(ex)),
    };
    if let Err(h) = judge(ctx, p, &t, spec, ex) {
        return h;
    }
    let schema = operation_schema(p);
    if let Err(e) = gatecheck_schemas::validate(schema, &t.data) {
        return ctx.deviate(
            p.decision,
            format!("data: schema {schema}: {e}"),
            spec,
            Some(ex),
        );
    }
    let m = format!(
        "answered the stored record ({} {}), not the real-time answer new-api gives while its {} upstream answers (a deployment updating only on its polling loop)",
        t.status.as_str(),
        t.progress,
        p.name
    );
    ctx.deviate(id::D_PLAT_22, m, spec, Some(ex))
}

/// The schema of platform `p`'s `data` (the operation).
pub(crate) fn operation_schema(p: &Platform) -> &'static str {
    p.data_schema
}

/// The content of a `succeeded` task: a valid MP4 with a video track. new-api's own 502 for
/// an upstream that failed it (no URL resolved, the download failed: D-PLAT-20, D-PLAT-21)
/// is not the deployment's answer to judge: not observed, with that cause; its 500 for a task
/// stored without its key deviates (a version that keeps no key on the task).
async fn content(ctx: &CheckCtx, p: &Platform, id: &str) -> Result<(), Halt> {
    let spec = RequestSpec::get(format!("/v1/videos/{id}/content")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let body = ex.json().unwrap_or(Value::Null);
    if let Some(cause) = upstream_content_failure(ex.status.as_u16(), &body) {
        let m = format!("the content of {id} was not served: the {} upstream failed new-api's content route ({cause:?}), which is no answer of the deployment's to judge", p.name);
        return Err(ctx.not_observed(m, &spec, Some(&ex)));
    }
    if body["error"]["message"].as_str() == Some(NO_KEY_MESSAGE) {
        let m = format!("the content of {id} was not served: {NO_KEY_MESSAGE:?} (the deployment keeps no key on its {} tasks)", p.name);
        return Err(ctx.deviate(p.decision, m, &spec, Some(&ex)));
    }
    let problem = if !accepted(&ex) {
        Some(format!("answered {}", super::answer_summary(&ex)))
    } else {
        match gatecheck_schemas::rules::media::parse_mp4(&ex.body) {
            Ok(info) if info.tracks.iter().any(|t| t.handler == "vide") => None,
            Ok(_) => Some("an MP4 without a video track".to_owned()),
            Err(e) => Some(format!("not a valid MP4: {e}")),
        }
    };
    match problem {
        Some(m) => Err(ctx.fail(
            format!("the real-time answer says {id} succeeded, but its content is {m}"),
            &spec,
            Some(&ex),
        )),
        None => Ok(()),
    }
}

/// The OpenAI video state of a real-time `status` (the HTML report's timeline).
fn timeline_state(status: &str) -> &str {
    match status {
        "processing" => "in_progress",
        "succeeded" => "completed",
        other => other,
    }
}

/// Follows the real-time answers of task `id` until it ends (and once more) or the video
/// deadline passes; the last status seen. Each answer is a point of `points`.
async fn follow(
    ctx: &CheckCtx,
    p: &'static Platform,
    id: &str,
    billing: &Billing,
    points: &mut Vec<TimelinePoint>,
) -> Result<(u32, String), Halt> {
    let auth = ctx.model_auth()?;
    let mut pace = super::pacing::Pacer::new(ctx, interval(ctx));
    let (mut cases, mut ended) = (0u32, 0);
    let mut prev: Option<String> = None;
    loop {
        let spec = RequestSpec::get(format!("{GENERATIONS}/{id}")).auth(auth.clone());
        let ex = ctx.send(&spec, 0).await?;
        cases += 1;
        let v = ex.json().unwrap_or(Value::Null);
        if !accepted(&ex) {
            let m = format!("fetching task {id} answered {}", super::answer_summary(&ex));
            return Err(ctx.deviate(p.decision, m, &spec, Some(&ex)));
        }
        let asked = v["data"]["task_id"].as_str().unwrap_or("");
        if asked != id {
            let m = format!("fetched {id}, answered the record of task_id {asked:?} (DECISIONS D-TASK-10: a fetch answers the task asked about)");
            return Err(ctx.fail(m, &spec, Some(&ex)));
        }
        let stored = v["data"].get("platform").is_some() || v["data"].get("format").is_none();
        if stored || !is_realtime(p) {
            return Err(judge_stored(ctx, p, &v, &spec, &ex));
        }
        let status = judge_realtime(ctx, prev.as_deref(), &spec, &ex)?;
        if prev.is_none() {
            judge_ratios(ctx, p, billing, &spec, &ex)?;
        }
        points.push(TimelinePoint {
            at_ms: u64::try_from(pace.waited.as_millis()).unwrap_or(u64::MAX),
            state: timeline_state(&status).to_owned(),
            progress: None,
        });
        if status == "succeeded" && prev.as_deref() != Some("succeeded") {
            content(ctx, p, id).await?;
            cases += 1;
        }
        ended += usize::from(rank(&status) == 2);
        prev = Some(status);
        if ended >= 2 || pace.waited >= ctx.cfg.limits.video_deadline {
            break;
        }
        pace.wait(ctx, ended > 0, "a video task").await?;
    }
    Ok((cases, prev.unwrap_or_default()))
}

/// `GET /v1/videos/{id}` of an ended task: the same task (`video`), ended as the real-time
/// answer said (`completed` for `succeeded`, `failed` for `failed`).
async fn video_ended(ctx: &CheckCtx, id: &str, last: &str) -> Result<u32, Halt> {
    let n = video(ctx, id).await?;
    let want = match last {
        "succeeded" => "completed",
        "failed" => "failed",
        _ => return Ok(n),
    };
    let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let got = ex.json().unwrap_or(Value::Null)["status"].clone();
    if got != want {
        let m = format!("the real-time answer says {last}, /v1/videos/{id} says {got} (DECISIONS D-PLAT-7: one task, one status)");
        return Err(ctx.fail(m, &spec, Some(&ex)));
    }
    Ok(n + 1)
}

pub(crate) async fn veo(ctx: &CheckCtx, p: &'static Platform) -> Outcome {
    let model = model_of(ctx, p)?;
    let (id, billing) = submit(ctx, p, &model).await?;
    let mut points = Vec::new();
    let followed = follow(ctx, p, &id, &billing, &mut points).await;
    // The task in the HTML report's timelines, with its platform, whatever the verdict.
    ctx.env.platform_tasks.lock().push(TaskTimeline {
        kind: "video".into(),
        id: id.clone(),
        model: model.clone(),
        platform: format!("{} ({})", p.channel_type, p.name),
        points,
    });
    let (cases, last) = followed?;
    let ended = video_ended(ctx, &id, &last).await?;
    let note = (rank(&last) < 2).then(|| {
        "the task did not end within the video deadline: the terminal fields were not seen"
            .to_owned()
    });
    Ok(Pass {
        cases: cases + ended,
        note,
    })
}
