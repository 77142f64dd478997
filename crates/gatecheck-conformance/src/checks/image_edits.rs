//! `POST /v1/images/edits` (DECISIONS D-EDIT): the spec names the route without its payload,
//! so the status, the body's shape and the refusals are deviations citing the row the target
//! differs from; what a client depends on whatever the shape fails (D-EDIT-6): `n` images,
//! each a PNG that decodes whole, and an edit with a mask that keeps the image outside it. A
//! target without the route skips (`route-not-served`, discovery's `ImageEdits` family).

use super::pixels::{decoded_png, judge_mask, KEPT_SHARE, KEPT_TOLERANCE};
use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{status_and_type, Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::generators::media::png;
use crate::http::client::{Exchange, Part, RequestSpec};
use crate::http::elsewhere;
use crate::vocab::discovery::RouteFamily;
use base64::Engine;
use gatecheck_codecs::png::Rgba;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::image_edit::{
    edit_usage, edits_supported, missing_image, EDITS_PATH, MASK_PART,
};
use gatecheck_schemas::rules::media::parse_size;
use gatecheck_schemas::rules::rejection::is_admitted;
use gatecheck_schemas::types::ImageResult;
use gatecheck_schemas::Profile;
use proptest::prelude::*;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "images.edits.result",
        kind: Failure,
        route: "POST /v1/images/edits",
        spec: "spec: Other routes (an image edit route exists; payload not shown); DECISIONS D-EDIT-1, D-EDIT-3, D-EDIT-6",
        title: "A generated PNG (with or without a mask) edited by each image model that edits answers 200 JSON valid against image-result (else a deviation), with `n` items whose images (base64, or fetched from their URL: on the target, or on another host without the target's credentials; a URL that cannot be fetched is not observed) decode whole as PNGs and are not the upload unchanged; with a mask, something changed where it is transparent, and what it keeps (its opaque pixels, away from its edges) is the source's: 90% of those pixels within 24 of 255 per channel. Every run sends `n` 1 and 2, a mask and none, `image` and `image[]`, and each edit model (each default output), drawn cases on top. An image of another size than requested is a deviation (D-MEDIA).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageEdits]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(result(c)),
    },
    Check {
        id: "images.edits.missing-image",
        kind: Deviation,
        route: "POST /v1/images/edits",
        spec: "spec: Other routes (an image edit route exists; payload not shown); DECISIONS D-EDIT-2",
        title: "An edit without an image part is refused: 400 (documented), or new-api's 500 `convert_request_failed` (a known difference under the documented expectation).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageEdits]),
        mock_only: None,
        decision: Some(id::D_EDIT),
        run: |c| Box::pin(missing(c)),
    },
];

/// An image model that edits: its id, sizes and default output (`b64_json` or `url`).
pub(crate) type EditModel = (String, Vec<String>, String);

/// The catalog's image models that edit, with their sizes and output.
fn edit_models(ctx: &CheckCtx) -> Result<Vec<EditModel>, Halt> {
    let models: Vec<EditModel> = ctx
        .models_with(|c| c.image.is_some())
        .into_iter()
        .filter(|(m, _)| edits_supported(&m.id))
        .filter_map(|(m, c)| {
            let i = c.image.as_ref()?;
            Some((m.id.clone(), i.sizes.clone(), i.output.clone()))
        })
        .filter(|(_, sizes, _)| !sizes.is_empty())
        .collect();
    if models.is_empty() {
        return Err(Halt::no_model(
            "no image model that edits: give --model image=ID",
        ));
    }
    Ok(models)
}

/// One generated edit request.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    model: usize,
    size: usize,
    n: u8,
    /// Source width and height.
    source: (u32, u32),
    mask: bool,
    /// Sent as `image[]` rather than `image`.
    array: bool,
}

pub(crate) fn cases() -> impl Strategy<Value = Case> {
    (
        0usize..8,
        0usize..8,
        1u8..=2,
        (8u32..=48, 8u32..=48),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(model, size, n, source, mask, array)| Case {
            model,
            size,
            n,
            source,
            mask,
            array,
        })
}

/// The cases sent on every run, whatever the seed: one per edit model (so each default
/// output, `b64_json` and `url`, is judged), and at least two, so that `n` 1 and 2, a mask and
/// none, `image` and `image[]` are each sent (the classes [`classes_of`] names). The drawn
/// cases come on top.
pub(crate) fn forced(models: usize) -> Vec<Case> {
    (0..models.max(2))
        .map(|i| Case {
            model: i,
            size: 0,
            n: if i % 2 == 0 { 1 } else { 2 },
            source: (16, 16),
            mask: i % 2 == 0,
            array: i % 2 == 1,
        })
        .collect()
}

/// The classes `case` exercises on `models` (what `images.edits.result` claims to send on
/// every run: each `n`, with and without a mask, both part names, each default output).
#[cfg_attr(not(test), allow(dead_code))] // read by `classes.rs`'s test
pub(crate) fn classes_of(case: &Case, models: &[EditModel]) -> Vec<String> {
    let output = models
        .get(case.model % models.len().max(1))
        .map(|m| m.2.clone())
        .unwrap_or_default();
    vec![
        format!("n={}", case.n),
        if case.mask { "mask" } else { "no mask" }.to_owned(),
        if case.array { "image[]" } else { "image" }.to_owned(),
        format!("output {output}"),
    ]
}

/// The drawn cases of a run on top of [`forced`]: at least one, and the forced and drawn
/// edits together no more than four (each edit is a full-size PNG both ways).
pub(crate) fn drawn(cases: u32) -> u32 {
    cases.clamp(1, 4).saturating_sub(2).max(1)
}

/// One edit request: its model, size, spec, the source image (decoded) and, when a mask was
/// sent, the mask (what the answer is compared with).
type Request = (String, String, RequestSpec, Option<Rgba>, Option<Rgba>);

/// The request of `case` on `models`.
fn request(ctx: &CheckCtx, models: &[EditModel], case: &Case) -> Result<Request, Halt> {
    let (model, sizes, _) = &models[case.model % models.len()];
    let size = sizes[case.size % sizes.len()].clone();
    let (w, h) = case.source;
    let name = if case.array { "image[]" } else { "image" };
    let source = png(u64::from(w ^ h), w, h);
    // The mask: transparent on the left half, opaque on the right, so the edit may repaint the
    // left and must keep the right (D-EDIT-6): a dropped mask, a repaint of everything and an
    // edit on the wrong side all show.
    let mask = super::pixels::half_mask(w, h);
    let decoded = decoded_png(&source).ok();
    let masked = decoded_png(&mask).ok().filter(|_| case.mask);
    let mut parts = vec![
        Part::file(name, "source.png", "image/png", source),
        Part::text("prompt", "paint it blue (gatecheck)"),
        Part::text("model", model.clone()),
        Part::text("n", case.n.to_string()),
        Part::text("size", size.clone()),
    ];
    if case.mask {
        parts.push(Part::file(MASK_PART, "mask.png", "image/png", mask));
    }
    let spec = RequestSpec::post(EDITS_PATH)
        .auth(ctx.model_auth()?)
        .multipart(parts);
    Ok((model.clone(), size, spec, decoded, masked))
}

async fn result(ctx: &CheckCtx) -> Outcome {
    let models = edit_models(ctx)?;
    let forced = forced(models.len());
    let n = forced.len() as u32;
    for case in forced {
        edit_case(ctx, &models, case).await?;
    }
    let mut pass = for_all(ctx, drawn(ctx.cfg.scope.cases), cases(), |case| {
        edit_case(ctx, &models, case)
    })
    .await?;
    pass.cases += n;
    Ok(pass)
}

/// Sends the edit of `case` and judges its answer (and, with a mask, the pixels it kept).
async fn edit_case(ctx: &CheckCtx, models: &[EditModel], case: Case) -> Result<(), Halt> {
    let (model, size, spec, source, masked) = request(ctx, models, &case)?;
    let usage = edit_usage(
        25,
        &[case.source],
        i64::from(case.n),
        parse_size(&size).unwrap_or((0, 0)),
    );
    let ex = ctx.send(&spec, ctx.price(&model, usage)).await?;
    let n = usize::from(case.n);
    let images = judge_result(ctx, (&spec, &ex), &size, n, source.as_ref()).await?;
    match (source, masked) {
        (Some(source), Some(mask)) => judge_masked(ctx, &spec, &ex, &source, &mask, &images),
        _ => Ok(()),
    }
}

/// Judges one edit answer: the status and the body's shape are deviations from D-EDIT-3; the
/// count and every image decoding whole are failures (D-EDIT-6); an image of another size
/// than requested is a deviation (a model may round sizes, D-MEDIA). Returns the images.
async fn judge_result(
    ctx: &CheckCtx,
    (spec, ex): (&RequestSpec, &Exchange),
    size: &str,
    n: usize,
    source: Option<&Rgba>,
) -> Result<Vec<Rgba>, Halt> {
    let row = id::D_EDIT_3;
    let deviate = |message: String| ctx.deviate(row, message, spec, Some(ex));
    let fail = |message: String| ctx.fail(format!("{message} (D-EDIT-6)"), spec, Some(ex));
    if !super::accepted(ex) || ex.content_type().as_deref() != Some("application/json") {
        return Err(deviate(format!(
            "a valid edit was answered {}, not 200 application/json",
            status_and_type(ex)
        )));
    }
    let v = ex.json().unwrap_or_default();
    // `null` members read as absent: a gateway may write `b64_json: null` beside a `url`.
    let schema = gatecheck_schemas::validate_pinned("image-result", &v).err();
    let r: ImageResult =
        serde_json::from_value(v).map_err(|e| deviate(format!("not an image result: {e}")))?;
    if r.data.len() != n {
        return Err(fail(format!("{} images for n={n}", r.data.len())));
    }
    let (w, h) = parse_size(size).unwrap_or((0, 0));
    let mut images = Vec::new();
    for item in &r.data {
        let bytes = match (&item.b64_json, &item.url) {
            (Some(b), _) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| fail(format!("b64_json is not base64: {e}")))?,
            (None, Some(url)) => {
                let fetch = RequestSpec::get(url.clone());
                let img = fetch_result(ctx, url, (spec, ex)).await?;
                if !img.status.is_success() {
                    return Err(ctx.deviate(
                        row,
                        format!("the edited image's URL answered {}", img.status),
                        &fetch,
                        Some(&img),
                    ));
                }
                img.body.to_vec()
            }
            (None, None) => return Err(fail("an item without b64_json or url".into())),
        };
        let img = decoded_png(&bytes).map_err(|e| {
            fail(format!(
                "an edited image that is not a PNG that decodes: {e}"
            ))
        })?;
        if source == Some(&img) {
            return Err(fail(format!(
                "image {} of the edit is the upload unchanged, pixel for pixel at its own \
                 {}x{} size: nothing was edited",
                images.len() + 1,
                img.width,
                img.height
            )));
        }
        images.push(img);
    }
    if let Some(img) = images.iter().find(|i| (i.width, i.height) != (w, h)) {
        return Err(deviate(format!(
            "a {}x{} PNG for size {size}",
            img.width, img.height
        )));
    }
    if let Some(e) = schema {
        return Err(deviate(format!("schema image-result: {e}")));
    }
    Ok(images)
}

/// The answer of an edited image's `url`: on the target's host through the transport; on
/// another host, fetched without the target's credentials ([`elsewhere::fetch`]). A URL that
/// cannot be fetched (refused by the address rules, unreachable, too large, in a replay) is
/// not observed: the check judged no image there, so it does not pass.
async fn fetch_result(
    ctx: &CheckCtx,
    url: &str,
    (spec, ex): (&RequestSpec, &Exchange),
) -> Result<Exchange, Halt> {
    match elsewhere::result(&ctx.t, &RequestSpec::get(url.to_owned())).await? {
        Ok(img) => Ok(img),
        Err(elsewhere::NotFetched(why)) => Err(ctx.not_observed(
            format!("the edited image's URL on another host was not fetched: {why}"),
            spec,
            Some(ex),
        )),
    }
}

/// An edit with a mask keeps what the mask keeps (its opaque pixels): a failure otherwise
/// (D-EDIT-6: the mask's fully transparent pixels are the only place an edit may change).
fn judge_masked(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    ex: &Exchange,
    source: &Rgba,
    mask: &Rgba,
    images: &[Rgba],
) -> Result<(), Halt> {
    for (i, img) in images.iter().enumerate() {
        let j = judge_mask(source, mask, img);
        if j.inside > 0 && j.changed == 0 {
            return Err(ctx.fail(
                format!(
                    "image {} of the edit changed nothing where its mask is transparent (0 of \
                     {} pixels beyond {KEPT_TOLERANCE} of the source per channel): nothing was \
                     edited where the mask asked for it (D-EDIT-6)",
                    i + 1,
                    j.inside
                ),
                spec,
                Some(ex),
            ));
        }
        if !j.kept_outside() {
            return Err(ctx.fail(
                format!(
                    "image {} of the edit changed the area its mask keeps: {} of {} pixels \
                     where the mask is opaque kept (within {KEPT_TOLERANCE} of the source per \
                     channel; at least {:.0}% must be), {} of {} changed where it is \
                     transparent; an edit changes only where the mask is transparent (D-EDIT-6)",
                    i + 1,
                    j.kept,
                    j.outside,
                    KEPT_SHARE * 100.0,
                    j.changed,
                    j.inside
                ),
                spec,
                Some(ex),
            ));
        }
    }
    Ok(())
}

async fn missing(ctx: &CheckCtx) -> Outcome {
    let models = edit_models(ctx)?;
    let (model, sizes, _) = &models[0];
    let spec = RequestSpec::post(EDITS_PATH)
        .auth(ctx.model_auth()?)
        .multipart(vec![
            Part::text("prompt", "a hat (gatecheck)"),
            Part::text("model", model.clone()),
            Part::text("size", sizes[0].clone()),
        ]);
    let ex = ctx.send(&spec, 0).await?;
    let status = ex.status.as_u16();
    let row = id::D_EDIT_2;
    if is_admitted(status) {
        return Err(ctx.deviate(
            row,
            format!(
                "an edit without an image was admitted ({})",
                status_and_type(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    let as_new_api = missing_image(Profile::NewApi);
    let is_new_api = status == as_new_api.0 && ex.error_code().as_deref() == Some(as_new_api.1);
    if is_new_api {
        ctx.known_difference(
            row,
            "an edit without an image was answered 500 convert_request_failed: a client cannot tell its own mistake from a server fault",
            &spec,
            Some(&ex),
        )?;
        return super::pass1();
    }
    if ctx.rejected_as(gatecheck_schemas::rules::Rejection::Validation, status) {
        return super::pass1();
    }
    Err(ctx.deviate(
        row,
        format!(
            "an edit without an image was answered {}, not {} (or new-api's {} {})",
            super::answer_summary(&ex),
            missing_image(Profile::Documented).0,
            as_new_api.0,
            as_new_api.1
        ),
        &spec,
        Some(&ex),
    ))
}
