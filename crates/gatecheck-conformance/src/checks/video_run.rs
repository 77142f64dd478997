//! The observed video run the lifecycle checks of `video.rs` share: tasks created on
//! `POST /v1/videos` once per run and polled to a terminal state, and the model they use.

use super::{CheckCtx, Halt, Outcome, Pass};
use crate::http::client::{Exchange, Part, RequestSpec};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::types::{VideoStatus, VideoTask};
use std::sync::Arc;
use std::time::Duration;

/// One polled observation.
#[derive(Debug, Clone)]
pub(crate) struct Obs {
    pub(crate) spec: RequestSpec,
    pub(crate) ex: Exchange,
    pub(crate) task: Option<VideoTask>,
    /// Time since the task's creation (the mock's clock, or real waits).
    pub(crate) at: Duration,
}

/// One task followed from creation.
#[derive(Debug, Clone)]
pub(crate) struct Trace {
    pub(crate) create: Obs,
    pub(crate) content_early: Option<Obs>,
    pub(crate) polls: Vec<Obs>,
    pub(crate) terminal: bool,
    pub(crate) waited: Duration,
}

/// The observed run shared by the lifecycle checks.
#[derive(Debug, Clone)]
pub(crate) struct VideoRun {
    pub(crate) traces: Vec<Trace>,
    pub(crate) model: String,
}

impl VideoRun {
    /// Each task's states against time, for the HTML report.
    pub(crate) fn timelines(&self) -> Vec<crate::vocab::artifacts::TaskTimeline> {
        use crate::vocab::artifacts::{TaskTimeline, TimelinePoint};
        self.traces
            .iter()
            .filter_map(|t| {
                let created = t.create.task.as_ref()?;
                let points = all_obs(t)
                    .map(|o| TimelinePoint {
                        at_ms: u64::try_from(o.at.as_millis()).unwrap_or(u64::MAX),
                        state: o.task.as_ref().map_or_else(
                            || format!("HTTP {}", o.ex.status.as_u16()),
                            |task| task.status.as_str().to_owned(),
                        ),
                        progress: o.task.as_ref().map(|task| task.progress),
                    })
                    .collect();
                Some(TaskTimeline {
                    kind: "video".into(),
                    id: created.id.clone(),
                    model: created.model.clone(),
                    platform: String::new(),
                    points,
                })
            })
            .collect()
    }
}

pub(crate) fn parse_task(ex: &Exchange) -> Option<VideoTask> {
    serde_json::from_slice(&ex.body).ok()
}

/// Whether the catalog lists `m` for `POST /v1/videos` (`openai-video`).
fn serves_openai_video(m: &gatecheck_schemas::types::ModelRecord) -> bool {
    use gatecheck_schemas::types::Endpoints;
    const FORMAT: &str = "openai-video";
    match &m.endpoints {
        Endpoints::Formats(f) => f.iter().any(|e| e == FORMAT),
        Endpoints::Encoded(_) => m.endpoints.decode().is_some_and(|e| e.contains_key(FORMAT)),
    }
}

/// The model of the `/v1/videos` checks: the first video model the catalog lists for
/// `openai-video`, else the first video model (a model list from `GET /v1/models` puts
/// new-api's models in its own order: a Jimeng model first sent its OpenAI-route checks to a
/// Jimeng channel, seen on 823e263, docs/new-api-live.md).
pub(crate) fn video_model(ctx: &CheckCtx) -> Result<(String, i64, String), Halt> {
    let models = ctx.models_with(|c| c.video.is_some());
    // A bare record (from the model list) is judged by the fixtures' record of its id; only
    // its endpoints are read, never its price.
    let known = crate::vocab::fixture_catalog::fixture_models();
    let openai = |m: &gatecheck_schemas::types::ModelRecord| {
        serves_openai_video(m) || known.iter().any(|k| k.id == m.id && serves_openai_video(k))
    };
    let chosen = models
        .iter()
        .find(|(m, _)| openai(m))
        .or(models.first())
        .copied();
    let (m, c) = match chosen {
        Some(found) => found,
        None => ctx.model_with(|c| c.video.is_some())?,
    };
    let v = c
        .video
        .as_ref()
        .ok_or_else(|| Halt::no_model("no video model: give --model video=ID"))?;
    Ok((m.id.clone(), v.default_seconds, v.default_size.clone()))
}

/// The observed run (made once per run; later checks reuse it).
/// The ids of the observed run's tasks that completed (the plugin era's content checks,
/// `video_era.rs`).
pub(crate) async fn completed_ids(ctx: &CheckCtx) -> Result<Vec<String>, Halt> {
    let r = run(ctx).await?;
    Ok(r.traces
        .iter()
        .filter_map(|t| {
            t.polls.iter().rev().find_map(|o| {
                o.task
                    .as_ref()
                    .filter(|t| t.status == VideoStatus::Completed)
                    .map(|t| t.id.clone())
            })
        })
        .collect())
}

/// The observed run's create requests and answers, with the seconds each asked (the plugin
/// era's ratios check, `video_era.rs`).
pub(crate) async fn creates(ctx: &CheckCtx) -> Result<Vec<(RequestSpec, Exchange, i64)>, Halt> {
    let r = run(ctx).await?;
    let (_, seconds, _) = video_model(ctx)?;
    Ok(r.traces
        .iter()
        .map(|t| (t.create.spec.clone(), t.create.ex.clone(), seconds))
        .collect())
}

pub(crate) async fn run(ctx: &CheckCtx) -> Result<Arc<VideoRun>, Halt> {
    let cell = &ctx.env.video;
    let result = cell
        .get_or_init(|| async { Arc::new(observe(ctx).await) })
        .await;
    match result.as_ref() {
        Ok(r) => Ok(Arc::new(r.clone())),
        Err(h) => Err(h.clone()),
    }
}

async fn observe(ctx: &CheckCtx) -> Result<VideoRun, Halt> {
    let auth = ctx.model_auth()?;
    let (model, seconds, size) = video_model(ctx)?;
    let price = ctx.price(
        &model,
        Usage {
            seconds: seconds as f64,
            ..Usage::one_request()
        },
    );
    let mut prompts = vec!["a lighthouse at dawn (gatecheck)".to_string()];
    if ctx.env.mock.is_some() {
        prompts.push("a storm at sea [fail] (gatecheck)".to_string());
    }
    let mut traces = Vec::new();
    for prompt in prompts {
        let spec = RequestSpec::post("/v1/videos")
            .auth(auth.clone())
            .multipart(vec![
                Part::text("model", model.clone()),
                Part::text("prompt", prompt),
                Part::text("seconds", seconds.to_string()),
                Part::text("size", size.clone()),
            ]);
        let ex = ctx.send(&spec, price).await?;
        let task = parse_task(&ex);
        let create = Obs {
            spec,
            ex: ex.clone(),
            task: task.clone(),
            at: Duration::ZERO,
        };
        let Some(task) = task.filter(|_| ex.status.is_success()) else {
            traces.push(Trace {
                create,
                content_early: None,
                polls: vec![],
                terminal: false,
                waited: Duration::ZERO,
            });
            continue;
        };
        let early_spec =
            RequestSpec::get(format!("/v1/videos/{}/content", task.id)).auth(auth.clone());
        let early_ex = ctx.send(&early_spec, 0).await?;
        let content_early = Some(Obs {
            spec: early_spec,
            ex: early_ex,
            task: None,
            at: Duration::ZERO,
        });
        let interval = ctx
            .cfg
            .limits
            .poll_interval
            .or_else(|| {
                ex.header(gatecheck_schemas::rules::video::POLL_AFTER_HEADER)
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_millis)
            })
            .unwrap_or(Duration::from_secs(10))
            .max(Duration::from_millis(100));
        // On the mock's clock time is free: look five times as often, to see more states.
        let interval = if ctx.env.mock.is_some() && ctx.cfg.limits.poll_interval.is_none() {
            interval / 5
        } else {
            interval
        };
        let mut pace = super::pacing::Pacer::new(ctx, interval);
        let mut polls = Vec::new();
        let mut terminal = false;
        let mut after_terminal = 0;
        while pace.waited < ctx.cfg.limits.video_deadline && after_terminal < 2 {
            pace.wait(ctx, terminal, "a video task").await?;
            let waited = pace.waited;
            let spec = RequestSpec::get(format!("/v1/videos/{}", task.id)).auth(auth.clone());
            let ex = ctx.send(&spec, 0).await?;
            let t = parse_task(&ex);
            let is_terminal = t.as_ref().is_some_and(|t| t.status.is_terminal());
            polls.push(Obs {
                spec,
                ex,
                task: t,
                at: waited,
            });
            if terminal || is_terminal {
                terminal = true;
                after_terminal += 1;
            }
        }
        traces.push(Trace {
            create,
            content_early,
            polls,
            terminal,
            waited: pace.waited,
        });
    }
    Ok(VideoRun { traces, model })
}

/// The id of a task the observed run created (made once per run, shared with the lifecycle
/// checks): a task that exists, for the probes of paths under it.
pub(crate) async fn observed_task_id(ctx: &CheckCtx) -> Result<String, Halt> {
    let r = run(ctx).await?;
    r.traces
        .iter()
        .find_map(|t| {
            t.create
                .task
                .as_ref()
                .filter(|_| t.create.ex.status.is_success())
        })
        .map(|t| t.id.clone())
        .ok_or_else(|| Halt::not_observed("no video task was created; see video.create.queued"))
}

fn all_obs(t: &Trace) -> impl Iterator<Item = &Obs> {
    std::iter::once(&t.create).chain(t.polls.iter())
}

fn cases(r: &VideoRun) -> u32 {
    r.traces.iter().map(|t| 1 + t.polls.len() as u32).sum()
}

pub(crate) fn verdict(
    ctx: &CheckCtx,
    r: &VideoRun,
    mut bad: impl FnMut(&Trace, &Obs, Option<&Obs>) -> Option<String>,
) -> Outcome {
    for t in &r.traces {
        let mut prev: Option<&Obs> = None;
        for o in all_obs(t) {
            if let Some(msg) = bad(t, o, prev) {
                return Err(ctx.fail(msg, &o.spec, Some(&o.ex)));
            }
            if o.task.is_some() {
                prev = Some(o);
            }
        }
    }
    Ok(Pass {
        cases: cases(r),
        note: None,
    })
}
