//! `POST /v1/images/edits` (multipart) and `GET /media/edits/{id}.png` (no auth), DECISIONS
//! D-EDIT.
//!
//! The form: `image` (also `image[]` and `image[<i>]`, up to 16 PNGs; the first is edited),
//! an optional `mask` (a PNG whose fully transparent pixels mark where to edit), `prompt`
//! (required), `model` (an image model that edits), `n` (1 to 10), `size` (one of the
//! model's sizes or `auto`; default its first) and `response_format` (`b64_json` or `url`;
//! default the model's output). The answer is an image-generation result whose images are the
//! upload resized to `size` and changed inside the mask ([`media::edit_png`]); a `url` points
//! at `/media/edits/{id}.png`, served from a small bounded store of the latest edits.
//!
//! In the `new-api` profile the price is reserved before the images are read, as new-api's
//! relay does: a request without an image is answered 500 `convert_request_failed` (the
//! OpenAI adaptor's conversion fails) and the reservation is given back. Validation failures
//! are [`response::validation`] (400, or 500 `invalid_request` in `new-api`).

use super::ctx::Ctx;
use super::form;
use crate::media::{self, Cache, Rgba};
use crate::response::{self, MockResponse};
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_codecs::multipart::Rope;
use gatecheck_schemas::rules::image_edit::{
    edit_usage, edits_supported, is_image_part, missing_image, MASK_PART, MAX_EDIT_IMAGES,
    MSG_IMAGE_REQUIRED,
};
use gatecheck_schemas::rules::media::{parse_size, IMAGE_COUNT, MAX_PROMPT_CHARS};
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::Profile;
use http::Request;
use hyper::body::Incoming;
use serde_json::json;

/// The latest edited PNGs served by URL, by id (bounded: the oldest is evicted first).
static EDITS: Cache<u64> = Cache::new(32);

/// The fields of an edit request.
#[derive(Debug, Default)]
struct Form {
    model: Option<String>,
    prompt: Option<String>,
    n: Option<String>,
    size: Option<String>,
    response_format: Option<String>,
    images: Vec<Bytes>,
    mask: Option<Bytes>,
}

impl Form {
    /// Keeps a part the route reads; any other is ignored.
    fn set(&mut self, name: &str, data: Rope) {
        let text = || form::text(&data);
        match name {
            // Decoded whole: the pieces joined.
            n if is_image_part(n) => self.images.push(data.to_bytes()),
            MASK_PART => self.mask = Some(data.to_bytes()),
            "model" => self.model = Some(text()),
            "prompt" => self.prompt = Some(text()),
            "n" => self.n = Some(text()),
            "size" => self.size = Some(text()),
            "response_format" => self.response_format = Some(text()),
            _ => {}
        }
    }
}

async fn read_form(cx: &Ctx, req: Request<Incoming>) -> Result<Form, MockResponse> {
    let mut form = Form::default();
    form::read_form(cx, req, |name, _, data| form.set(name, data)).await?;
    Ok(form)
}

/// What the request asks for, validated.
struct Ask {
    model: String,
    prompt: String,
    n: i64,
    size: String,
    w: u32,
    h: u32,
    url: bool,
}

fn validate(cx: &Ctx, form: &mut Form) -> Result<Ask, MockResponse> {
    let invalid = |msg: &str, param: &str| response::validation(cx.profile(), msg, Some(param));
    let model = cx.required_model(form.model.as_deref())?;
    let Some(cap) = cx
        .catalog()
        .capabilities(&model)
        .and_then(|c| c.image.as_ref())
    else {
        return Err(invalid(
            &format!("model {model} is not an image model"),
            "model",
        ));
    };
    if !edits_supported(&model) {
        return Err(invalid(
            &format!("model {model} does not support image edits"),
            "model",
        ));
    }
    let prompt = form.prompt.take().unwrap_or_default();
    if prompt.trim().is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(invalid(
            &format!("prompt must be 1 to {MAX_PROMPT_CHARS} characters"),
            "prompt",
        ));
    }
    // ASCII white space around the number, as the OpenAPI document's pattern allows.
    let n = match form
        .n
        .as_deref()
        .map(|n| n.trim_matches(|c: char| c.is_ascii_whitespace()))
    {
        None | Some("") => 1,
        Some(s) => match s.parse::<i64>() {
            Ok(n) if IMAGE_COUNT.contains(&n) => n,
            _ => {
                let (lo, hi) = (IMAGE_COUNT.start(), IMAGE_COUNT.end());
                return Err(invalid(
                    &format!("n must be an integer from {lo} to {hi}"),
                    "n",
                ));
            }
        },
    };
    let size = match form.size.as_deref().map(str::trim) {
        None | Some("" | "auto") => cap.sizes.first().cloned().unwrap_or_default(),
        Some(s) if cap.sizes.iter().any(|x| x == s) => s.to_owned(),
        Some(s) => {
            return Err(invalid(
                &format!("size {s:?} is not one of auto, {}", cap.sizes.join(", ")),
                "size",
            ))
        }
    };
    let Some((w, h)) = parse_size(&size) else {
        return Err(invalid(&format!("size {size:?} is not <w>x<h>"), "size"));
    };
    let url = match form.response_format.as_deref().map(str::trim) {
        None | Some("") => cap.output == "url",
        Some("url") => true,
        Some("b64_json") => false,
        Some(_) => {
            return Err(invalid(
                "response_format must be b64_json or url",
                "response_format",
            ))
        }
    };
    if form.images.len() > MAX_EDIT_IMAGES {
        return Err(invalid(
            &format!("at most {MAX_EDIT_IMAGES} images can be edited at once"),
            "image",
        ));
    }
    Ok(Ask {
        model,
        prompt,
        n,
        size,
        w,
        h,
        url,
    })
}

/// `POST /v1/images/edits` (admitted).
pub(crate) async fn edit(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    edit_images(cx, req).await.unwrap_or_else(|r| r)
}

async fn edit_images(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let mut form = read_form(cx, req).await?;
    let ask = validate(cx, &mut form)?;
    let chars = ask.prompt.chars().count();
    if form.images.is_empty() {
        let (status, code) = missing_image(cx.profile());
        if cx.profile() == Profile::NewApi {
            // new-api reserves the price, then the adaptor's conversion fails: given back.
            let usage = edit_usage(chars, &[], ask.n, (ask.w, ask.h));
            let charge = cx.charge(cx.price(&ask.model, usage))?;
            cx.refund(&charge);
            return Err(response::v1_error(
                status,
                MSG_IMAGE_REQUIRED,
                Some(code),
                None,
            ));
        }
        return Err(response::validation(
            cx.profile(),
            MSG_IMAGE_REQUIRED,
            Some("image"),
        ));
    }
    let invalid = |e: media::EditError, param: &str| {
        response::validation(cx.profile(), &e.to_string(), Some(param))
    };
    let mut inputs: Vec<Rgba> = Vec::with_capacity(form.images.len());
    for bytes in &form.images {
        inputs.push(media::decode_png(bytes, "image").map_err(|e| invalid(e, "image"))?);
    }
    let mask = match &form.mask {
        Some(b) => Some(media::decode_png(b, "mask").map_err(|e| invalid(e, "mask"))?),
        None => None,
    };
    let dims: Vec<(u32, u32)> = inputs.iter().map(|i| (i.width, i.height)).collect();
    let usage = edit_usage(chars, &dims, ask.n, (ask.w, ask.h));
    let charge = cx.charge(cx.price(&ask.model, usage))?;

    let seed = media::fnv1a(ask.prompt.as_bytes());
    let mut data = Vec::with_capacity(ask.n as usize);
    for i in 0..ask.n as u64 {
        let s = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let png = match media::edit_png(&inputs[0], mask.as_ref(), s, ask.w, ask.h) {
            Ok(png) => png,
            Err(e) => {
                cx.refund(&charge);
                return Err(response::v1_error(
                    500,
                    &e.to_string(),
                    Some("image_failed"),
                    None,
                ));
            }
        };
        if ask.url {
            let id = media::fnv1a(&png);
            EDITS.put(id, png);
            let mut url = cx.base_url();
            url.push_str(&format!("/media/edits/{id:016x}.png"));
            data.push(json!({ "url": url, "revised_prompt": ask.prompt }));
        } else {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
            data.push(json!({ "b64_json": b64 }));
        }
    }
    let text_tokens = (chars as i64 + 3).div_euclid(4).max(1);
    let input_image_tokens = usage.input_tokens - text_tokens;
    Ok(response::json(
        ACCEPTED,
        &json!({
            "created": cx.now(),
            "background": "opaque",
            "data": data,
            "output_format": "png",
            "quality": "low",
            "size": ask.size,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
                "input_tokens_details": { "image_tokens": input_image_tokens, "text_tokens": text_tokens },
                "output_tokens_details": { "image_tokens": usage.output_tokens, "text_tokens": 0 }
            }
        }),
    ))
}

/// `GET /media/edits/{file}.png` (no auth; `path` is the request's): an edited image of a
/// `url` result, while the store still holds it.
pub(crate) fn public(path: &str, file: &str) -> MockResponse {
    let id = Some(file)
        .filter(|n| n.len() == 16)
        .and_then(|n| u64::from_str_radix(n, 16).ok());
    match id.and_then(|id| EDITS.get(&id)) {
        Some(png) => response::bytes_response(ACCEPTED, "image/png", png),
        _ => response::json(
            404,
            &json!({"success": false, "message": format!("no such media file: {path}")}),
        ),
    }
}
