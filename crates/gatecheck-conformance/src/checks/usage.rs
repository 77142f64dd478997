//! `usage.charged`: the usage a route reports is the usage the key is charged for (DECISIONS
//! D-STREAM-7). Every route that reports usage is asked once, alone on the working key (the
//! exclusive phase: no other check charges it meanwhile), with the key read before and after:
//! the catalog price of the reported usage must be what `used_quota` grew by (within one unit
//! of rounding). Compared only on models priced by tokens alone, the only usage a route
//! reports; a route that does not answer (or does not stream) is left out and noted.

use super::pixels::half_mask;
use super::stream::{images_ask, speech_ask};
use super::Kind::Failure;
use super::{accepted, def, Check, CheckCtx, Halt, Outcome, Pass, Phase};
use crate::generators::media;
use crate::http::client::{Exchange, Part, RequestSpec};
use crate::http::key_api::get_key;
use crate::http::sse::SseLimits;
use gatecheck_schemas::rules::image_edit::{edits_supported, EDITS_PATH, MASK_PART};
use gatecheck_schemas::rules::media::transcription_streams;
use gatecheck_schemas::rules::quota::Usage;
use serde_json::Value;

pub(crate) const CHECKS: &[Check] = &[
    def("usage.charged", Failure, "GET /api/token/{id} around each route that reports usage", "DECISIONS: Streaming (SSE) D-STREAM-7",
        "The usage each route reports (the speech stream's `speech.audio.done`, the transcription stream's `transcript.text.done`, the image stream's `image_generation.completed`, an image edit's `usage`) is what the key is charged: its catalog price is the growth of the key's `used_quota` (within 1 unit), on models priced by tokens alone.",
        Phase::Exclusive, |c| Box::pin(charged(c))),
];

/// One route that reports usage: its name, model, request and price.
struct Probe {
    what: &'static str,
    model: String,
    spec: RequestSpec,
    quota: i64,
    streamed: bool,
}

/// Whether `model` is priced by tokens alone (no price per request or second).
fn token_priced(ctx: &CheckCtx, model: &str) -> bool {
    ctx.env.models.iter().any(|m| {
        m.id == model
            && m.pricing.per_request.unwrap_or(0.0) == 0.0
            && m.pricing.per_second.unwrap_or(0.0) == 0.0
            && (m.pricing.input.unwrap_or(0.0) > 0.0 || m.pricing.output.unwrap_or(0.0) > 0.0)
    })
}

/// The routes that report usage, on a model priced by tokens.
fn probes(ctx: &CheckCtx) -> Vec<Probe> {
    let mut out = Vec::new();
    if let Ok(ask) = speech_ask(ctx) {
        out.push(Probe {
            what: "speech stream (speech.audio.done)",
            model: ask.model,
            spec: ask.streamed,
            quota: ask.quota,
            streamed: true,
        });
    }
    let transcriber = ctx
        .models_with(|c| c.transcription.as_ref().is_some_and(|t| t.transcription))
        .into_iter()
        .map(|(m, _)| m.id.clone())
        .find(|m| transcription_streams(m));
    if let Some(model) = transcriber {
        let file = ("speech.wav", media::wav(800));
        let extra = [("stream", "true".to_owned())];
        let route = "/v1/audio/transcriptions";
        if let Ok(spec) = super::audio::upload(ctx, route, Some(&model), Some(file), &extra) {
            out.push(Probe {
                what: "transcription stream (transcript.text.done)",
                quota: super::audio::price(ctx, &model),
                model,
                spec,
                streamed: true,
            });
        }
    }
    if let Ok((model, _, spec, quota)) = images_ask(ctx) {
        out.push(Probe {
            what: "image stream (image_generation.completed)",
            model,
            spec,
            quota,
            streamed: true,
        });
    }
    if let Some(p) = edit_probe(ctx) {
        out.push(p);
    }
    out.retain(|p| token_priced(ctx, &p.model));
    out
}

/// An image edit with a mask, on the first model that edits.
fn edit_probe(ctx: &CheckCtx) -> Option<Probe> {
    let (model, size) = ctx
        .models_with(|c| c.image.is_some())
        .into_iter()
        .filter(|(m, _)| edits_supported(&m.id))
        .find_map(|(m, c)| Some((m.id.clone(), c.image.as_ref()?.sizes.first()?.clone())))?;
    let parts = vec![
        Part::file("image", "source.png", "image/png", media::png(11, 16, 16)),
        Part::file(MASK_PART, "mask.png", "image/png", half_mask(16, 16)),
        Part::text("prompt", "a blue sky (gatecheck)"),
        Part::text("model", model.clone()),
        Part::text("size", size),
    ];
    let spec = RequestSpec::post(EDITS_PATH)
        .auth(ctx.model_auth().ok()?)
        .multipart(parts);
    let quota = ctx.price(&model, Usage::one_request());
    Some(Probe {
        what: "image edit (usage)",
        model,
        spec,
        quota,
        streamed: false,
    })
}

/// The token usage in `v` (`usage` of an event or an answer): input and output tokens.
fn tokens(v: &Value) -> Option<(i64, i64)> {
    let u = v.get("usage")?;
    if u.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "tokens")
    {
        return None;
    }
    let n = |k: &str| u.get(k).and_then(Value::as_i64);
    Some((
        n("input_tokens").unwrap_or(0),
        n("output_tokens").unwrap_or(0),
    ))
}

/// Sends the probe; its answer and the usage it reports (`None`: it reported none, or did not
/// answer as the route does).
async fn send(ctx: &CheckCtx, p: &Probe) -> Result<(Exchange, Option<(i64, i64)>), Halt> {
    if !p.streamed {
        let ex = ctx.send(&p.spec, p.quota).await?;
        let usage = accepted(&ex)
            .then(|| ex.json().and_then(|v| tokens(&v)))
            .flatten();
        return Ok((ex, usage));
    }
    let limits = SseLimits {
        deadline: ctx
            .cfg
            .limits
            .stream_deadline
            .unwrap_or(ctx.cfg.limits.request_timeout),
        ..SseLimits::default()
    };
    let answer = ctx.t.send_stream(&p.spec, p.quota, limits).await?;
    let usage = answer.events.as_ref().and_then(|read| {
        read.events
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .find_map(|v| tokens(&v))
    });
    Ok((answer.exchange, usage))
}

/// One probe, alone on the key: what `used_quota` grew by around it, the usage it reported
/// and the answer (`None` for the usage when it reported none).
struct Measured {
    ex: Exchange,
    usage: Option<(i64, i64)>,
    before: i64,
    after: i64,
}

async fn measure(ctx: &CheckCtx, key: i64, p: &Probe) -> Result<Measured, Halt> {
    let read = || async {
        get_key(&ctx.t, key)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))
    };
    let before = read().await?.used_quota;
    let (ex, usage) = send(ctx, p).await?;
    let after = read().await?.used_quota;
    let usage = usage.filter(|_| accepted(&ex));
    Ok(Measured {
        ex,
        usage,
        before,
        after,
    })
}

impl Measured {
    /// The catalog price of the reported usage, and whether the charge agrees with it.
    fn agrees(&self, ctx: &CheckCtx, model: &str) -> Option<(i64, bool)> {
        let (input, output) = self.usage?;
        let usage = Usage {
            requests: 1,
            seconds: 0.0,
            input_tokens: input,
            output_tokens: output,
        };
        let priced = ctx.price(model, usage);
        Some((priced, (self.after - self.before - priced).abs() <= 1))
    }
}

async fn charged(ctx: &CheckCtx) -> Outcome {
    let key = ctx.work_key()?.id;
    let probes = probes(ctx);
    if probes.is_empty() {
        return Err(Halt::no_model(
            "no model priced by tokens on a route that reports usage (speech, transcription \
             or image streams, image edits)",
        ));
    }
    let mut cases = 0;
    let mut notes = Vec::new();
    for p in &probes {
        let mut m = measure(ctx, key, p).await?;
        // A disagreement is measured again once: a refund or charge of another request that
        // settles between the two reads (a video task failing) moves one measure, not two.
        if m.agrees(ctx, &p.model).is_some_and(|(_, ok)| !ok) {
            m = measure(ctx, key, p).await?;
        }
        let Some((priced, ok)) = m.agrees(ctx, &p.model) else {
            notes.push(format!("{}: no usage reported ({})", p.what, m.ex.status));
            continue;
        };
        let charged = m.after - m.before;
        if !ok {
            let (input, output) = m.usage.unwrap_or_default();
            return Err(ctx.fail(
                format!(
                    "the {} reports usage {input} tokens in, {output} out, which {} prices at \
                     {priced}, but the key was charged {charged} (used_quota {} -> {}; the \
                     same twice): the usage a client is shown is not what it pays for \
                     (D-STREAM-7)",
                    p.what, p.model, m.before, m.after
                ),
                &p.spec,
                Some(&m.ex),
            ));
        }
        cases += 1;
        notes.push(format!("{}: {charged}", p.what));
    }
    Ok(Pass {
        cases,
        note: Some(notes.join("; ")),
    })
}
