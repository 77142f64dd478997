//! `usage.charged`: the usage a route reports is the usage the key is charged for (DECISIONS
//! D-STREAM-7). Every route that reports usage is asked once, alone on the working key (the
//! exclusive phase: no other check charges it meanwhile), with the key read before and after,
//! and so is one image generation priced per request (an anchor that reports no usage). new-api
//! charges `price x model ratio x group ratio` (relay/helper/price.go): each growth of
//! `used_quota` must be the catalog price of what the request reported times the key's group
//! ratio (within rounding), the ratio learnt from `--group-ratio` or `GET /api/pricing`, else
//! one ratio inferred from these charges (`rules::quota::one_ratio`). A ratio that is not 1 is
//! the deployment's published rule, never a finding; charges that no one ratio explains (a
//! stream charged twice, a charge that drifts) are. Usage is compared only on models priced by
//! tokens alone; a route that does not answer (or does not stream) is left out and noted.

use super::pixels::half_mask;
use super::stream::{images_ask, speech_ask};
use super::Kind::Failure;
use super::{accepted, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::generators::media;
use crate::http::client::{Exchange, Part, RequestSpec};
use crate::http::key_api::get_key;
use crate::http::sse::SseLimits;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::rules::image_edit::{edits_supported, EDITS_PATH, MASK_PART};
use gatecheck_schemas::rules::media::transcription_streams;
use gatecheck_schemas::rules::quota::{self as rules_quota, Usage};
use serde_json::Value;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "usage.charged",
        kind: Failure,
        route: "GET /api/token/{id} around each route that reports usage",
        spec: "DECISIONS: Streaming (SSE) D-STREAM-7",
        title: "The usage each route reports (the speech stream's `speech.audio.done`, the transcription stream's `transcript.text.done`, the image stream's `image_generation.completed`, an image edit's `usage`) is what the key is charged: its catalog price times the key's group ratio (`--group-ratio`, `GET /api/pricing`, else one ratio inferred from the run's charges, an image generation's included) is the growth of `used_quota` (within rounding), on models priced by tokens alone.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(charged(c)),
    },
];

/// One route that reports usage (or the anchor, priced per request): its name, model, request
/// and price.
struct Probe {
    what: &'static str,
    model: String,
    spec: RequestSpec,
    quota: i64,
    streamed: bool,
    /// Priced per request: the charge is judged without a reported usage.
    per_request: bool,
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
            per_request: false,
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
                per_request: false,
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
            per_request: false,
        });
    }
    if let Some(p) = edit_probe(ctx) {
        out.push(p);
    }
    out.retain(|p| token_priced(ctx, &p.model));
    out.extend(anchor(ctx));
    out
}

/// The anchor: one image generation on the cheapest image model priced per request alone (its
/// charge is its price times the group ratio, whatever a route reports).
fn anchor(ctx: &CheckCtx) -> Option<Probe> {
    let per_request = |id: &str| {
        ctx.env.models.iter().any(|m| {
            m.id == id
                && m.pricing.per_request.unwrap_or(0.0) > 0.0
                && m.pricing.per_second.unwrap_or(0.0) == 0.0
                && m.pricing.input.unwrap_or(0.0) == 0.0
                && m.pricing.output.unwrap_or(0.0) == 0.0
        })
    };
    let (model, size) = ctx
        .models_with(|c| c.image.is_some())
        .into_iter()
        .filter(|(m, _)| per_request(&m.id))
        .filter_map(|(m, c)| Some((m.id.clone(), c.image.as_ref()?.sizes.first()?.clone())))
        .min_by_key(|(m, _)| ctx.price_at(m, Usage::one_request(), 1.0))?;
    let spec = RequestSpec::post("/v1/images/generations")
        .auth(ctx.model_auth().ok()?)
        .json(serde_json::json!({"model": model, "prompt": "a small grey pebble", "size": size}));
    Some(Probe {
        what: "image generation (priced per request)",
        quota: ctx.price(&model, Usage::one_request()),
        model,
        spec,
        streamed: false,
        per_request: true,
    })
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
        per_request: false,
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
    /// What was priced: the reported usage (one request and its tokens), or one request for
    /// the anchor; `None` when nothing was reported (or the anchor was not accepted).
    fn usage(&self, p: &Probe) -> Option<Usage> {
        if p.per_request {
            return accepted(&self.ex).then(Usage::one_request);
        }
        let (input, output) = self.usage?;
        Some(Usage {
            requests: 1,
            seconds: 0.0,
            input_tokens: input,
            output_tokens: output,
        })
    }

    fn charged(&self) -> i64 {
        self.after - self.before
    }
}

/// Every probe measured once, in turn: the judged ones (probe index, measure, its usage) and
/// the notes of those that reported none.
async fn measure_all(
    ctx: &CheckCtx,
    key: i64,
    probes: &[Probe],
) -> Result<(Vec<(usize, Measured, Usage)>, Vec<String>), Halt> {
    let mut judged = Vec::new();
    let mut notes = Vec::new();
    for (i, p) in probes.iter().enumerate() {
        let m = measure(ctx, key, p).await?;
        match m.usage(p) {
            Some(u) => judged.push((i, m, u)),
            None => notes.push(format!("{}: no usage reported ({})", p.what, m.ex.status)),
        }
    }
    Ok((judged, notes))
}

/// Judges the charges: each at the known ratio (within one unit), or all against one inferred
/// ratio. `Ok` the ratio judged at; `Err` the index of the measure that disagrees and why.
fn judge(
    ctx: &CheckCtx,
    probes: &[Probe],
    judged: &[(usize, Measured, Usage)],
) -> Result<f64, (usize, String)> {
    let catalog = |i: usize, u: Usage| ctx.price_at(&probes[i].model, u, 1.0);
    if let Some(r) = ctx.env.group_ratio.ratio {
        for (n, (i, m, u)) in judged.iter().enumerate() {
            let want = ctx.price_at(&probes[*i].model, *u, r);
            if (m.charged() - want).abs() > 1 {
                let why = format!(
                    "which {} prices at {} (catalog) x {r} (group ratio of {:?}, {}) = {want}",
                    probes[*i].model,
                    catalog(*i, *u),
                    ctx.env.group_ratio.group,
                    ctx.env.group_ratio.source
                );
                return Err((n, why));
            }
        }
        return Ok(r);
    }
    let pairs: Vec<(i64, i64)> = judged
        .iter()
        .map(|(i, m, u)| (catalog(*i, *u), m.charged()))
        .collect();
    rules_quota::one_ratio(&pairs).map_err(|(n, why)| {
        (
            n,
            format!(
                "and no one group ratio explains the run's charges: {why} (no ratio \
                 published: GET /api/pricing, --group-ratio)"
            ),
        )
    })
}

/// Every charge judged was 0: at a ratio of 0 that is known (`--group-ratio`, `GET
/// /api/pricing`), a free group, charged nothing whatever it uses: not observed, since no usage
/// is compared. Inferred (no ratio known), the dearest request is asked once more on a key
/// holding one unit ([`super::quota::zero_charge`]): a free group serves it (not observed);
/// a refusal for want of quota says the service prices what it charged nothing for (a
/// failure).
async fn free_or_uncharged(
    ctx: &CheckCtx,
    probes: &[Probe],
    judged: &[(usize, Measured, Usage)],
) -> Halt {
    let catalog = |i: usize, u: Usage| ctx.price_at(&probes[i].model, u, 1.0);
    if let Some(r) = ctx.env.group_ratio.ratio {
        return Halt::not_observed(format!(
            "group ratio {r} ({}) for group {:?}: a free group is charged nothing whatever \
             it uses, so no usage can be compared ({} requests charged 0)",
            ctx.env.group_ratio.source,
            ctx.env.group_ratio.group,
            judged.len()
        ));
    }
    let Some((i, _, u)) = judged.iter().max_by_key(|(i, _, u)| catalog(*i, *u)) else {
        return Halt::not_observed("no charge was measured");
    };
    let p = &probes[*i];
    let what = format!(
        "every one of the {} requests measured was charged 0 (the {} has catalog price {})",
        judged.len(),
        p.what,
        catalog(*i, *u)
    );
    super::quota::zero_charge(ctx, &p.spec, catalog(*i, *u), &what, true).await
}

async fn charged(ctx: &CheckCtx) -> Outcome {
    let key = ctx.work_key()?.id;
    let probes = probes(ctx);
    if probes.iter().all(|p| p.per_request) {
        return Err(Halt::no_model(
            "no model priced by tokens on a route that reports usage (speech, transcription \
             or image streams, image edits)",
        ));
    }
    let (mut judged, mut notes) = measure_all(ctx, key, &probes).await?;
    // A disagreement is measured again once: a refund or charge of another request that
    // settles between two reads (a video task failing) moves one measure, not two runs.
    if judge(ctx, &probes, &judged).is_err() {
        (judged, notes) = measure_all(ctx, key, &probes).await?;
    }
    if judged.iter().all(|(i, _, _)| probes[*i].per_request) {
        return Err(Halt::not_observed(format!(
            "no route reported usage: {}",
            notes.join("; ")
        )));
    }
    match judge(ctx, &probes, &judged) {
        Ok(ratio) if ratio <= 0.0 => Err(free_or_uncharged(ctx, &probes, &judged).await),
        Ok(ratio) => {
            let cases = judged.len() as u32;
            notes.extend(
                judged
                    .iter()
                    .map(|(i, m, _)| format!("{}: {}", probes[*i].what, m.charged())),
            );
            let source = match ctx.env.group_ratio.ratio {
                Some(_) => ctx.env.group_ratio.source.clone(),
                None => "inferred from these charges".into(),
            };
            notes.push(format!("group ratio {ratio:.3} ({source})"));
            Ok(Pass {
                cases,
                note: Some(notes.join("; ")),
            })
        }
        Err((n, why)) => {
            let (i, m, _) = &judged[n];
            let p = &probes[*i];
            let (input, output) = m.usage.unwrap_or_default();
            let reported = if p.per_request {
                "is priced per request".to_owned()
            } else {
                format!("reports usage {input} tokens in, {output} out")
            };
            Err(ctx.fail(
                format!(
                    "the {} {reported}, {why}, but the key was charged {} (used_quota {} -> \
                     {}; the same twice): the usage a client is shown is not what it pays \
                     for (D-STREAM-7)",
                    p.what,
                    m.charged(),
                    m.before,
                    m.after
                ),
                &p.spec,
                Some(&m.ex),
            ))
        }
    }
}
