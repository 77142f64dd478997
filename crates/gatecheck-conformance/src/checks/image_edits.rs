//! `POST /v1/images/edits` (DECISIONS D-EDIT): the spec names the route without its payload,
//! so the status, the body's shape and the refusals are deviations citing the row the target
//! differs from; what a client depends on whatever the shape fails (D-EDIT-6): `n` images,
//! each a PNG that decodes whole, and an edit with a mask that keeps the image outside it. A
//! target without the route skips (`route-not-served`, discovery's `ImageEdits` family).

use super::pixels::{decoded_png, judge_mask, KEPT_SHARE, KEPT_TOLERANCE};
use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{def, status_and_type, Check, CheckCtx, Halt, Outcome, Phase};
use crate::generators::media::png;
use crate::http::client::{Exchange, Part, RequestSpec};
use base64::Engine;
use gatecheck_schemas::png::Rgba;
use gatecheck_schemas::rules::image_edit::{
    edit_usage, edits_supported, missing_image, EDITS_PATH, MASK_PART,
};
use gatecheck_schemas::rules::media::parse_size;
use gatecheck_schemas::rules::rejection::is_admitted;
use gatecheck_schemas::types::ImageResult;
use gatecheck_schemas::Profile;
use proptest::prelude::*;

pub(crate) const CHECKS: &[Check] = &[
    def("images.edits.result", Failure, "POST /v1/images/edits", "spec: Other routes (an image edit route exists; payload not shown); DECISIONS D-EDIT-1, D-EDIT-3, D-EDIT-6",
        "A generated PNG (with or without a mask; a run whose drawn cases have none adds a masked one) edited by each image model that edits answers 200 JSON valid against image-result (else a deviation), with `n` items whose images (base64, or fetched from their URL on the target) decode whole as PNGs; with a mask, what it keeps (its opaque pixels, away from its edges) is the source's: 90% of those pixels within 24 of 255 per channel. An image of another size than requested is a deviation (D-MEDIA).",
        Phase::Shared, |c| Box::pin(result(c))),
    def("images.edits.missing-image", Deviation, "POST /v1/images/edits", "spec: Other routes (an image edit route exists; payload not shown); DECISIONS D-EDIT-2",
        "An edit without an image part is refused: 400 (documented), or new-api's 500 `convert_request_failed` (a known difference under the documented expectation).",
        Phase::Shared, |c| Box::pin(missing(c))),
];

/// The catalog's image models that edit, with their sizes.
fn edit_models(ctx: &CheckCtx) -> Result<Vec<(String, Vec<String>)>, Halt> {
    let models: Vec<(String, Vec<String>)> = ctx
        .models_with(|c| c.image.is_some())
        .into_iter()
        .filter(|(m, _)| edits_supported(&m.id))
        .filter_map(|(m, c)| c.image.as_ref().map(|i| (m.id.clone(), i.sizes.clone())))
        .filter(|(_, sizes)| !sizes.is_empty())
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
struct Case {
    model: usize,
    size: usize,
    n: u8,
    /// Source width and height.
    source: (u32, u32),
    mask: bool,
    /// Sent as `image[]` rather than `image`.
    array: bool,
}

fn cases() -> impl Strategy<Value = Case> {
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

/// One edit request: its model, size, spec, and the source image and mask when a mask was
/// sent (what the answer is compared with).
type Request = (String, String, RequestSpec, Option<(Rgba, Rgba)>);

/// The request of `case` on `models`.
fn request(ctx: &CheckCtx, models: &[(String, Vec<String>)], case: &Case) -> Result<Request, Halt> {
    let (model, sizes) = &models[case.model % models.len()];
    let size = sizes[case.size % sizes.len()].clone();
    let (w, h) = case.source;
    let name = if case.array { "image[]" } else { "image" };
    let source = png(u64::from(w ^ h), w, h);
    // The mask: transparent on the left half, opaque on the right, so the edit may repaint the
    // left and must keep the right (D-EDIT-6): a dropped mask, a repaint of everything and an
    // edit on the wrong side all show.
    let mask = super::pixels::half_mask(w, h);
    let masked = match (case.mask, decoded_png(&source), decoded_png(&mask)) {
        (true, Ok(s), Ok(m)) => Some((s, m)),
        _ => None,
    };
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
    Ok((model.clone(), size, spec, masked))
}

async fn result(ctx: &CheckCtx) -> Outcome {
    let models = edit_models(ctx)?;
    let masked = std::sync::atomic::AtomicBool::new(false);
    let mut pass = for_all(ctx, ctx.cfg.scope.cases.clamp(1, 4), cases(), |case| {
        masked.fetch_or(case.mask, std::sync::atomic::Ordering::Relaxed);
        edit_case(ctx, &models, case)
    })
    .await?;
    // The mask is judged on every run: drawn cases without one get a masked case of their own.
    if !masked.into_inner() {
        let case = Case {
            model: 0,
            size: 0,
            n: 1,
            source: (16, 16),
            mask: true,
            array: false,
        };
        edit_case(ctx, &models, case).await?;
        pass.cases += 1;
    }
    Ok(pass)
}

/// Sends the edit of `case` and judges its answer (and, with a mask, the pixels it kept).
async fn edit_case(
    ctx: &CheckCtx,
    models: &[(String, Vec<String>)],
    case: Case,
) -> Result<(), Halt> {
    let (model, size, spec, masked) = request(ctx, models, &case)?;
    let usage = edit_usage(
        25,
        &[case.source],
        i64::from(case.n),
        parse_size(&size).unwrap_or((0, 0)),
    );
    let ex = ctx.send(&spec, ctx.price(&model, usage)).await?;
    let images = judge_result(ctx, &spec, &ex, &size, usize::from(case.n)).await?;
    match masked {
        Some((source, mask)) => judge_masked(ctx, &spec, &ex, &source, &mask, &images),
        None => Ok(()),
    }
}

/// Judges one edit answer: the status and the body's shape are deviations from D-EDIT-3; the
/// count and every image decoding whole are failures (D-EDIT-6); an image of another size
/// than requested is a deviation (a model may round sizes, D-MEDIA). Returns the images.
async fn judge_result(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    ex: &Exchange,
    size: &str,
    n: usize,
) -> Result<Vec<Rgba>, Halt> {
    let row = "D-EDIT-3";
    let deviate = |message: String| ctx.deviate(row, message, spec, Some(ex));
    let fail = |message: String| ctx.fail(format!("{message} (D-EDIT-6)"), spec, Some(ex));
    if ex.status.as_u16() != 200 || ex.content_type().as_deref() != Some("application/json") {
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
                match ctx.t.send(&fetch, 0).await {
                    Ok(img) if img.status.is_success() => img.body.to_vec(),
                    Ok(img) => {
                        return Err(ctx.deviate(
                            row,
                            format!("the edited image's URL answered {}", img.status),
                            &fetch,
                            Some(&img),
                        ))
                    }
                    Err(crate::http::transport::TransportError::Client(
                        crate::http::client_error::ClientError::OffHost { .. },
                    )) => continue,
                    Err(e) => return Err(e.into()),
                }
            }
            (None, None) => return Err(fail("an item without b64_json or url".into())),
        };
        let img = decoded_png(&bytes).map_err(|e| {
            fail(format!(
                "an edited image that is not a PNG that decodes: {e}"
            ))
        })?;
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
    let (model, sizes) = &models[0];
    let spec = RequestSpec::post(EDITS_PATH)
        .auth(ctx.model_auth()?)
        .multipart(vec![
            Part::text("prompt", "a hat (gatecheck)"),
            Part::text("model", model.clone()),
            Part::text("size", sizes[0].clone()),
        ]);
    let ex = ctx.send(&spec, 0).await?;
    let status = ex.status.as_u16();
    let row = "D-EDIT-2";
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
