//! `key.routes.*`: each key rule (disabled, expired, exhausted, model limits, IP allowlist)
//! judged on every route family the target serves, not only on `POST /v1/videos` (the
//! `key.*` checks of `key/mod.rs`). One check per family, so that a family the target does not
//! serve is skipped with its cause (`route-not-served`), never counted as passed.
//!
//! Each probe is one request per rule and route, cheap and safe on production: a body that is
//! invalid past the key checks (an empty prompt, no file, an unknown task), so a target that
//! admits the key refuses it as invalid before any upstream work, and charges nothing; the key
//! is the run's own working key, put back after the last rule. A refusal is 401 or 403; an
//! answer past the key checks (a 400, a 404, a 2xx) served a key the rule refuses: a failure.

use super::{baseline, catalog_ids, set_key};
use crate::checks::auth::refused;
use crate::checks::Kind::Failure;
use crate::checks::{answer_summary, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Auth, Exchange, Part, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::rules::midjourney::{model_for, ACTION_UPLOAD};
use gatecheck_schemas::rules::platforms;
use gatecheck_schemas::rules::task::{JIMENG_GET_RESULT, JIMENG_SUBMIT};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::{KeyRecord, ModelCapabilities};
use serde_json::json;

/// The spec reference every family's check shares.
const SPEC: &str = "spec: States (API key status), rules 1-3; API key record (model_limits, allow_ips); Authentication, rule 2";

/// A task id no target holds: the fetch probes ask for it (404 or 400 past the key checks).
const NO_TASK: &str = "task_00000000000000000000000000000000";

macro_rules! family {
    ($id:literal, $route:literal, [$($needs:ident),*], $what:literal, $probes:path) => {
        Check { id: $id, kind: Failure, route: $route, spec: SPEC,
            needs: Needs::All(&[$(RouteFamily::$needs),*]), mock_only: None, decision: None,
            title: concat!("Each key rule holds on ", $what, ": a disabled key, a key past its `expired_time`, a key with no quota left, a model outside enabled `model_limits` (where the request names a model) and a client outside `allow_ips` are refused (401 or 403) by one cheap probe each; a target that does not serve the family skips."),
            phase: Phase::Exclusive, run: |c| Box::pin(family(c, $probes)) }
    };
}

pub(crate) const CHECKS: &[Check] = &[
    family!("key.routes.audio", "POST /v1/audio/translations", [AudioTranslations, KeyUpdate], "the audio translation route (multipart, no file)", audio),
    family!("key.routes.audio-speech", "POST /v1/audio/speech", [AudioSpeech, KeyUpdate], "the speech route (empty input)", speech),
    family!("key.routes.audio-stream", "POST /v1/audio/speech", [AudioSpeech, KeyUpdate], "the speech route asked to stream (`stream_format: sse`, empty input)", speech_stream),
    family!("key.routes.images", "POST /v1/images/generations", [ImageGenerations, KeyUpdate], "the image generation route (empty prompt)", images),
    family!("key.routes.images-stream", "POST /v1/images/generations", [ImageGenerations, KeyUpdate], "the image generation route asked to stream (`stream: true`, empty prompt)", images_stream),
    family!("key.routes.images-edits", "POST /v1/images/edits", [KeyUpdate, ImageEdits], "the image edit route (no image)", edits),
    family!("key.routes.videos", "GET /v1/videos/{task_id}", [VideoCreate, VideoPoll, KeyUpdate], "the OpenAI video task routes (the poll and `/content` of an unknown task)", videos),
    family!("key.routes.remix", "POST /v1/videos/{video_id}/remix", [VideoCreate, KeyUpdate, VideoRemix], "the remix route (an unknown source)", remix),
    family!("key.routes.unified", "POST /v1/video/generations", [KeyUpdate, VideoGenerations], "the unified video routes (a create with an empty prompt, the fetch of an unknown task)", unified),
    family!("key.routes.kling", "POST /kling/v1/videos/text2video", [KeyUpdate, Kling], "Kling's routes (a create with an empty prompt, the fetch of an unknown task)", kling),
    family!("key.routes.jimeng", "POST /jimeng/", [KeyUpdate, Jimeng], "Jimeng's route (a submit with an empty prompt, the result of an unknown task)", jimeng),
    family!("key.routes.midjourney", "POST /mj/submit/imagine", [KeyUpdate, Midjourney], "Midjourney's routes (an imagine with an empty prompt, an upload of no image, the fetch of an unknown task)", midjourney),
    family!("key.routes.models", "GET /v1/models", [KeyUpdate], "the key's model list (`GET /v1/models`; model limits filter it rather than refuse it)", models),
];

/// One probe: the request without its key, and the model it names (the model-limits rule is
/// judged only where a request names one).
struct Probe {
    spec: RequestSpec,
    model: Option<String>,
}

fn probe(spec: RequestSpec, model: Option<String>) -> Probe {
    Probe { spec, model }
}

/// The builder of a family's probes.
type Probes = fn(&CheckCtx) -> Result<Vec<Probe>, Halt>;

/// The id of the first model with a capability `f`, else `fallback`.
fn pick(ctx: &CheckCtx, f: impl Fn(&ModelCapabilities) -> bool, fallback: &str) -> String {
    ctx.model_with(f)
        .map(|(m, _)| m.id.clone())
        .unwrap_or_else(|_| fallback.to_owned())
}

fn audio(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let model = pick(ctx, |c| c.transcription.is_some(), "whisper-1");
    let spec = RequestSpec::post("/v1/audio/translations")
        .multipart(vec![Part::text("model", model.clone())]);
    Ok(vec![probe(spec, Some(model))])
}

fn speech_body(ctx: &CheckCtx) -> (String, serde_json::Value) {
    let model = pick(ctx, |c| c.speech.is_some(), "tts-1");
    let body = json!({"model": model, "input": "", "voice": "alloy"});
    (model, body)
}

fn speech(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let (model, body) = speech_body(ctx);
    let spec = RequestSpec::post("/v1/audio/speech").json(body);
    Ok(vec![probe(spec, Some(model))])
}

fn speech_stream(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let (model, mut body) = speech_body(ctx);
    body["stream_format"] = json!("sse");
    let spec = RequestSpec::post("/v1/audio/speech").json(body);
    Ok(vec![probe(spec, Some(model))])
}

fn image_body(ctx: &CheckCtx) -> (String, serde_json::Value) {
    let model = pick(ctx, |c| c.image.is_some(), "gpt-image-1");
    (model.clone(), json!({"model": model, "prompt": ""}))
}

fn images(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let (model, body) = image_body(ctx);
    let spec = RequestSpec::post("/v1/images/generations").json(body);
    Ok(vec![probe(spec, Some(model))])
}

fn images_stream(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let (model, mut body) = image_body(ctx);
    body["stream"] = json!(true);
    body["partial_images"] = json!(1);
    let spec = RequestSpec::post("/v1/images/generations").json(body);
    Ok(vec![probe(spec, Some(model))])
}

fn edits(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let model = pick(ctx, |c| c.image.is_some(), "gpt-image-1");
    let spec = RequestSpec::post(gatecheck_schemas::rules::image_edit::EDITS_PATH).multipart(vec![
        Part::text("prompt", "a hat (gatecheck)"),
        Part::text("model", model.clone()),
    ]);
    Ok(vec![probe(spec, Some(model))])
}

fn videos(_: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    Ok(vec![
        probe(RequestSpec::get(format!("/v1/videos/{NO_TASK}")), None),
        probe(
            RequestSpec::get(format!("/v1/videos/{NO_TASK}/content")),
            None,
        ),
    ])
}

fn remix(_: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let spec = RequestSpec::post(format!("/v1/videos/{NO_TASK}/remix"))
        .json(json!({"prompt": "the same, at dusk (gatecheck)"}));
    Ok(vec![probe(spec, None)])
}

fn video_model(ctx: &CheckCtx) -> String {
    crate::checks::auth::probe_model(ctx)
}

fn unified(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let model = video_model(ctx);
    Ok(vec![
        probe(
            RequestSpec::post("/v1/video/generations").json(json!({"model": model, "prompt": ""})),
            Some(model),
        ),
        probe(
            RequestSpec::get(format!("/v1/video/generations/{NO_TASK}")),
            None,
        ),
    ])
}

/// The first video model whose id names `provider`, else the run's video model.
fn provider_model(ctx: &CheckCtx, provider: &str) -> String {
    ctx.env
        .models
        .iter()
        .find(|m| m.id.contains(provider))
        .map(|m| m.id.clone())
        .unwrap_or_else(|| video_model(ctx))
}

fn kling(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let model = provider_model(ctx, platforms::kling::PLATFORM.name);
    let path = "/kling/v1/videos/text2video";
    Ok(vec![
        probe(
            RequestSpec::post(path).json(json!({"model_name": model, "prompt": ""})),
            Some(model),
        ),
        probe(RequestSpec::get(format!("{path}/{NO_TASK}")), None),
    ])
}

fn jimeng(ctx: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    let model = provider_model(ctx, platforms::jimeng::PLATFORM.name);
    let path = |action: &str| format!("/jimeng/?Action={action}&Version=2022-08-31");
    Ok(vec![
        probe(
            RequestSpec::post(path(JIMENG_SUBMIT)).json(json!({"req_key": model, "prompt": ""})),
            Some(model),
        ),
        probe(
            RequestSpec::post(path(JIMENG_GET_RESULT)).json(json!({"task_id": NO_TASK})),
            None,
        ),
    ])
}

/// new-api refuses an imagine without a prompt while it picks the model (before the model
/// limits), so the model-limits rule is judged on an upload of no image: its model
/// (`mj_upload`) is checked first, and past it the upstream refuses the empty list uncharged.
fn midjourney(_: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    Ok(vec![
        probe(
            RequestSpec::post("/mj/submit/imagine").json(json!({"prompt": ""})),
            None,
        ),
        probe(
            RequestSpec::post("/mj/submit/upload-discord-images").json(json!({"base64Array": []})),
            Some(model_for(ACTION_UPLOAD)),
        ),
        probe(RequestSpec::get("/mj/task/0/fetch"), None),
    ])
}

fn models(_: &CheckCtx) -> Result<Vec<Probe>, Halt> {
    Ok(vec![probe(RequestSpec::get("/v1/models"), None)])
}

/// A key rule and the state of the working key that breaks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Disabled,
    Expired,
    Exhausted,
    ModelLimits,
    IpAllowlist,
}

const RULES: [Rule; 5] = [
    Rule::Disabled,
    Rule::Expired,
    Rule::Exhausted,
    Rule::ModelLimits,
    Rule::IpAllowlist,
];

impl Rule {
    fn describe(self) -> &'static str {
        match self {
            Rule::Disabled => "a disabled key (status 2)",
            Rule::Expired => "a key whose expired_time is an hour past",
            Rule::Exhausted => "a key with remain_quota 0 (not unlimited)",
            Rule::ModelLimits => "a model outside the key's enabled model_limits",
            Rule::IpAllowlist => "a client outside the key's allow_ips (a TEST-NET address)",
        }
    }

    /// The working key in the state that breaks the rule; `other` is a model no probe names.
    fn state(self, base: &KeyRecord, now: i64, other: &str) -> KeyRecord {
        let mut rec = base.clone();
        match self {
            Rule::Disabled => rec.status = 2,
            Rule::Expired => rec.expired_time = now - 3600,
            Rule::Exhausted => {
                rec.remain_quota = 0;
                rec.unlimited_quota = false;
            }
            Rule::ModelLimits => {
                rec.model_limits_enabled = true;
                rec.model_limits = other.to_owned();
            }
            Rule::IpAllowlist => rec.allow_ips = Some("203.0.113.7".to_owned()),
        }
        rec
    }
}

/// Judges every rule on the family's probes: each rule's key state once, each probe under it
/// once; the working key is put back at the end.
async fn family(ctx: &CheckCtx, probes: Probes) -> Outcome {
    let base = baseline(ctx)?;
    let probes = probes(ctx)?;
    let named: Vec<&str> = probes.iter().filter_map(|p| p.model.as_deref()).collect();
    let other = catalog_ids(ctx)
        .into_iter()
        .find(|m| !named.contains(&m.as_str()))
        .unwrap_or_else(|| "gatecheck-none".into());
    let key = ctx.work_key()?.secret.clone();
    let mut cases = 0;
    let mut unseen: Option<Halt> = None;
    for rule in RULES {
        let applies: Vec<&Probe> = probes
            .iter()
            .filter(|p| rule != Rule::ModelLimits || p.model.is_some())
            .collect();
        if applies.is_empty() {
            continue;
        }
        set_key(ctx, &rule.state(&base, ctx.now().await?, &other)).await?;
        for p in applies {
            let spec = p.spec.clone().auth(Auth::Key(key.clone()));
            let ex = ctx.t.send_probe(&spec).await?;
            match judged(ctx, rule, &spec, &ex) {
                Ok(()) => cases += 1,
                Err(Halt::SkipSeen(cause, ev)) => {
                    unseen.get_or_insert(Halt::SkipSeen(cause, ev));
                }
                Err(e) => return Err(e),
            }
        }
        // Back to the baseline before the next state: a refusal marks an expired or exhausted
        // key 3 or 4, and an update that enables a key whose expiry is past or whose quota is
        // spent is refused (rules::token::apply_update, MSG_EXPIRED_CANNOT_ENABLE and
        // MSG_EXHAUSTED_CANNOT_ENABLE), so each state starts from the enabled baseline.
        set_key(ctx, &base).await?;
    }
    // A failure on any route wins; an answer that said neither refusal nor admission leaves
    // the check not observed (it did not judge that rule there).
    if let Some(halt) = unseen {
        return Err(halt);
    }
    Ok(Pass { cases, note: None })
}

/// A refusal (401 or 403) passes; a 5xx or 429 says neither (not observed, with the
/// exchange); anything else served a key the rule refuses.
fn judged(ctx: &CheckCtx, rule: Rule, spec: &RequestSpec, ex: &Exchange) -> Result<(), Halt> {
    let status = ex.status.as_u16();
    if refused(status) {
        return Ok(());
    }
    if ex.status.is_server_error() || Rejection::RateLimited.answered_by_status(status) {
        return Err(ctx.not_observed(
            format!(
                "{}: {} {} answered {}, neither a refusal nor an admission",
                rule.describe(),
                spec.method,
                spec.path,
                answer_summary(ex)
            ),
            spec,
            Some(ex),
        ));
    }
    Err(ctx.fail(
        format!(
            "{}: {} {} did not refuse the key; it answered {} (a key rule holds on every route)",
            rule.describe(),
            spec.method,
            spec.path,
            answer_summary(ex)
        ),
        spec,
        Some(ex),
    ))
}
