//! `POST /v1/images/generations`: results, media bytes, sizes and validation.

use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{is_validation_rejection, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::http::elsewhere;
use crate::http::transport::is_new_api_unknown_model;
use crate::vocab::discovery::RouteFamily;
use base64::Engine;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::media::{default_image_size, distributor_model, parse_size};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::types::{ImageItem, ImageResult};
use gatecheck_schemas::Profile;
use proptest::prelude::*;
use serde_json::json;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "images.result",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "spec: Image generation result; POST /v1/images/generations (Response 200)",
        title: "A valid request with a size the model accepts answers 200 JSON valid against image-result, each item with `b64_json` or `url`, and `size` as requested.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(result(c)),
    },
    Check {
        id: "images.png-matches-size",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "spec: Image generation result (b64_json: a base64 PNG); DECISIONS: Images, audio (the requested size)",
        title: "Each result image (base64, or fetched from its URL: on the target, or on another host without the target's credentials; a URL that cannot be fetched is not observed) is a PNG (a failure otherwise); its pixel size is the requested one (a deviation, D-MEDIA: a model may round it).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(png_size(c)),
    },
    Check {
        id: "images.usage-consistent",
        kind: Deviation,
        route: "POST /v1/images/generations",
        spec: "spec: Image generation result (usage)",
        title: "`usage.total_tokens` is `input_tokens + output_tokens`, and each details sum matches.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: Some(id::D_MEDIA),
        run: |c| Box::pin(usage(c)),
    },
    Check {
        id: "images.size-must-match-model",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "spec: POST /v1/images/generations (size must be accepted by the selected model); Errors (400)",
        title: "A size the model does not accept is refused as a bad request.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(bad_size(c)),
    },
    Check {
        id: "images.missing-field-rejected",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "spec: POST /v1/images/generations (model, prompt, size); Errors (400)",
        title: "A request missing `model`, `prompt` or `size`, or with an empty prompt, is refused as a bad request.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(missing_field(c)),
    },
];

fn image_models(ctx: &CheckCtx) -> Vec<(String, Vec<String>, String)> {
    ctx.models_with(|c| c.image.is_some())
        .into_iter()
        .filter_map(|(m, c)| {
            c.image
                .as_ref()
                .map(|i| (m.id.clone(), i.sizes.clone(), i.output.clone()))
        })
        .collect()
}

/// One valid request per image model (first size), sent once per run and shared.
async fn results(ctx: &CheckCtx) -> Result<Vec<(RequestSpec, Exchange, String)>, Halt> {
    let auth = ctx.model_auth()?;
    let models = image_models(ctx);
    if models.is_empty() {
        return Err(Halt::no_model("no image model: give --model image=ID"));
    }
    let cell = &ctx.env.images;
    let r = cell
        .get_or_init(|| async {
            let mut out = Vec::new();
            for (model, sizes, _) in &models {
                let size = sizes.first().cloned().unwrap_or_default();
                let spec = RequestSpec::post("/v1/images/generations")
                    .auth(auth.clone())
                    .json(json!({"model": model, "prompt": "a blue circle on white (gatecheck)", "size": size}));
                let price = ctx.price(model, Usage::one_request());
                let ex = ctx.send(&spec, price).await?;
                out.push((spec, ex, size));
            }
            Ok(out)
        })
        .await;
    r.clone()
}

async fn result(ctx: &CheckCtx) -> Outcome {
    let rs = results(ctx).await?;
    for (spec, ex, size) in &rs {
        let v = ctx.json_200(spec, ex)?;
        if let Err(e) = gatecheck_schemas::validate_pinned("image-result", &v) {
            return Err(ctx.fail(format!("schema image-result: {e}"), spec, Some(ex)));
        }
        let r: ImageResult = serde_json::from_value(v)
            .map_err(|e| ctx.fail(format!("not an image result: {e}"), spec, Some(ex)))?;
        if r.data.is_empty()
            || r.data
                .iter()
                .any(|i| i.b64_json.is_none() && i.url.is_none())
        {
            return Err(ctx.fail("every item needs b64_json or url", spec, Some(ex)));
        }
        if &r.size != size {
            return Err(ctx.fail(
                format!("size {:?}, requested {size:?}", r.size),
                spec,
                Some(ex),
            ));
        }
    }
    Ok(Pass {
        cases: rs.len() as u32,
        note: None,
    })
}

/// The bytes of one result image: its base64, or the file of its `url` (on the target's host
/// with the run's key, on another host without any credential: [`elsewhere::result`]).
/// `Ok(None)`: an item with neither; `Err(Ok(why))`: a URL on another host that was not fetched.
async fn item_bytes(
    ctx: &CheckCtx,
    item: &ImageItem,
    (spec, ex): (&RequestSpec, &Exchange),
) -> Result<Option<Vec<u8>>, Result<String, Halt>> {
    if let Some(b) = &item.b64_json {
        return base64::engine::general_purpose::STANDARD
            .decode(b)
            .map(Some)
            .map_err(|e| Err(ctx.fail(format!("b64_json is not base64: {e}"), spec, Some(ex))));
    }
    let Some(url) = &item.url else {
        return Ok(None);
    };
    let auth = ctx.model_auth().map_err(Err)?;
    let fetch = RequestSpec::get(url.clone()).auth(auth);
    match elsewhere::result(&ctx.t, &fetch).await {
        Ok(Ok(img)) if img.status.is_success() => Ok(Some(img.body.to_vec())),
        Ok(Ok(img)) => Err(Err(ctx.fail(
            format!("the image URL answered {}", img.status),
            &fetch,
            Some(&img),
        ))),
        Ok(Err(elsewhere::NotFetched(why))) => Err(Ok(why)),
        Err(e) => Err(Err(e.into())),
    }
}

async fn png_size(ctx: &CheckCtx) -> Outcome {
    let rs = results(ctx).await?;
    let mut n = 0;
    let mut deviation = None;
    // The first image on another host that could not be fetched, with its generation's exchange.
    let mut unfetched: Option<(String, &RequestSpec, &Exchange)> = None;
    let mut missed = 0;
    for (spec, ex, size) in &rs {
        let Some(r) = ex
            .json()
            .and_then(|v| serde_json::from_value::<ImageResult>(v).ok())
        else {
            return Err(ctx.not_observed(
                "no image result to inspect (see images.result)",
                spec,
                Some(ex),
            ));
        };
        let (w, h) = parse_size(size).unwrap_or((0, 0));
        for item in &r.data {
            let bytes = match item_bytes(ctx, item, (spec, ex)).await {
                Ok(Some(b)) => b,
                Ok(None) => continue,
                Err(Ok(why)) => {
                    missed += 1;
                    unfetched.get_or_insert((why, spec, ex));
                    continue;
                }
                Err(Err(halt)) => return Err(halt),
            };
            let label = format!("{}, {size}", super::artifacts::json_model(spec));
            ctx.keep_media("images.png-matches-size", label, "image/png", &bytes);
            // Decoded whole: a PNG whose chunks are well formed but whose image data is cut
            // short or corrupt is not a PNG a client can show (D-STREAM-6's media rule).
            match super::pixels::decoded_png(&bytes).map(|i| (i.width, i.height)) {
                Ok(got) if got == (w, h) => n += 1,
                Ok(got) => {
                    n += 1;
                    deviation.get_or_insert_with(|| {
                        ctx.deviate(
                            id::D_MEDIA,
                            format!("a {}x{} PNG for size {size}", got.0, got.1),
                            spec,
                            Some(ex),
                        )
                    });
                }
                Err(e) => return Err(ctx.fail(format!("not a valid PNG: {e}"), spec, Some(ex))),
            }
        }
    }
    if let Some(d) = deviation {
        return Err(d);
    }
    // Every image is judged, or the check did not pass: an image on another host that could
    // not be fetched is not observed (with its generation's exchange).
    if let Some((why, spec, ex)) = unfetched {
        return Err(ctx.not_observed(
            format!("{missed} result image(s) on another host not fetched ({n} judged): {why}"),
            spec,
            Some(ex),
        ));
    }
    if n == 0 {
        return Err(Halt::not_observed("no result image to inspect"));
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

async fn usage(ctx: &CheckCtx) -> Outcome {
    let rs = results(ctx).await?;
    for (spec, ex, _) in &rs {
        let Some(r) = ex
            .json()
            .and_then(|v| serde_json::from_value::<ImageResult>(v).ok())
        else {
            return Err(ctx.not_observed(
                "no image result to inspect (see images.result)",
                spec,
                Some(ex),
            ));
        };
        let u = r.usage;
        let ok = u.total_tokens == u.input_tokens + u.output_tokens
            && u.input_tokens_details.image_tokens + u.input_tokens_details.text_tokens
                == u.input_tokens
            && u.output_tokens_details.image_tokens + u.output_tokens_details.text_tokens
                == u.output_tokens;
        if !ok {
            return Err(ctx.fail(format!("inconsistent usage {u:?}"), spec, Some(ex)));
        }
    }
    Ok(Pass {
        cases: rs.len() as u32,
        note: None,
    })
}

async fn bad_size(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let models = image_models(ctx);
    if models.is_empty() {
        return Err(Halt::no_model("no image model: give --model image=ID"));
    }
    let strat = (
        0..models.len(),
        (1u32..=4096, 1u32..=4096),
        prop_oneof![
            Just(None),
            Just(Some("huge".to_string())),
            Just(Some("1024*1024".to_string())),
            Just(Some(String::new()))
        ],
    );
    for_all(ctx, ctx.cfg.scope.cases, strat, |(i, (w, h), odd)| {
        let (model, sizes, _) = models[i].clone();
        let size = odd.unwrap_or_else(|| format!("{w}x{h}"));
        let spec = RequestSpec::post("/v1/images/generations")
            .auth(auth.clone())
            .json(json!({"model": model, "prompt": "a green square", "size": size}));
        let accepted = sizes.contains(&size);
        // new-api decodes into a Go struct, so an empty size is no size: NA9's default.
        let defaulted = size.is_empty() && default_image_size(Profile::NewApi, &model).is_some();
        async move {
            if accepted {
                return Ok(());
            }
            let ex = ctx.send(&spec, 0).await?;
            if defaulted && ex.status.is_success() {
                return ctx.known_difference(
                    id::NA9,
                    format!(
                        "a {model} request with an empty size was answered {} (new-api fills \
                         in 1024x1024): a client that sends no size gets an image it did not size",
                        ex.status
                    ),
                    &spec,
                    Some(&ex),
                );
            }
            if !is_validation_rejection(&ex) {
                return Err(ctx.fail(
                    format!(
                        "size {size:?} is not accepted by {model}, but the answer was {}",
                        ex.status
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

async fn missing_field(ctx: &CheckCtx) -> Outcome {
    let auth = ctx.model_auth()?;
    let models = image_models(ctx);
    let Some((model, sizes, _)) = models.first().cloned() else {
        return Err(Halt::no_model("no image model: give --model image=ID"));
    };
    let size = sizes.first().cloned().unwrap_or_default();
    let strat = prop::sample::select(vec![
        "model".to_string(),
        "prompt".into(),
        "size".into(),
        "empty-prompt".into(),
    ]);
    for_all(ctx, ctx.cfg.scope.cases.min(8), strat, |which: String| {
        let mut body = json!({"model": model, "prompt": "a yellow star", "size": size});
        if which == "empty-prompt" {
            body["prompt"] = json!("");
        } else if let Some(o) = body.as_object_mut() {
            o.remove(&which);
        }
        let spec = RequestSpec::post("/v1/images/generations")
            .auth(auth.clone())
            .json(body);
        let defaulted = which == "size" && default_image_size(Profile::NewApi, &model).is_some();
        let model = model.clone();
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if defaulted && ex.status.is_success() {
                return ctx.known_difference(
                    id::NA9,
                    format!(
                        "a {model} request without size was answered {} (new-api fills in \
                         1024x1024): a client that forgets size gets an image it did not size",
                        ex.status
                    ),
                    &spec,
                    Some(&ex),
                );
            }
            if which == "model" && is_new_api_unknown_model(&ex) {
                let routed = distributor_model("/v1/images/generations").unwrap_or_default();
                return ctx.known_difference(
                    id::NA5,
                    format!(
                        "a request without model was answered {} model_not_found: new-api's \
                         distributor routes it by {routed}, which no channel serves here, and \
                         the spec tells clients to retry 503",
                        ex.status
                    ),
                    &spec,
                    Some(&ex),
                );
            }
            if !is_validation_rejection(&ex) {
                return Err(ctx.fail(
                    format!("a request without {which} was answered {}", ex.status),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}
