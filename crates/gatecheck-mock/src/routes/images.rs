//! `POST /v1/images/generations` and the public `/media/images/*` result files.
//!
//! The output mode (`b64_json` or `url`) is the model's fixture capability. A `url` is
//! `{base}/media/images/{seed}_{w}x{h}.png`: the name encodes everything needed to draw the
//! image again, so nothing is stored and the route needs no auth.
//!
//! With `"stream": true` (DECISIONS D-STREAM-3), a `b64_json` model answers
//! `partial_images` (0 to 3) `image_generation.partial_image` events, then one
//! `image_generation.completed` with the PNG of the non-streamed answer and its usage; the
//! `new-api` profile ends the stream with `data: [DONE]`, as new-api's image stream relay does.

use super::ctx::Ctx;
use super::fields::{Field, Fields};
use crate::media::{self, fnv1a};
use crate::response::{self, MockResponse};
use base64::Engine as _;
use gatecheck_schemas::rules::media::{
    default_image_quality, default_image_size, distributor_model, parse_size,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::types::{ImageUsage, TokenDetails};
use http::Request;
use hyper::body::Incoming;
use serde::Serialize;
use serde_json::json;

use crate::response::sse::{Event, Framing};
use gatecheck_schemas::rules::media::{
    IMAGE_COUNT, MAX_PARTIAL_IMAGES, MAX_PROMPT_CHARS, STREAMED_IMAGE_COUNT,
};
use gatecheck_schemas::Profile;

const GENERATIONS_PATH: &str = "/v1/images/generations";

/// `POST /v1/images/generations` (admitted).
pub(crate) async fn generate(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    generate_images(cx, req).await.unwrap_or_else(|r| r)
}

/// Output image tokens of one image: OpenAI's 272 / 1056 / 4160 for a 1024×1024 image at
/// low / medium / high quality, scaled by area.
fn image_tokens(quality: &str, w: u32, h: u32) -> i64 {
    let base = match quality {
        "medium" | "standard" => 1056,
        "high" | "hd" => 4160,
        _ => 272,
    };
    (base * i64::from(w) * i64::from(h)).div_euclid(1024 * 1024)
}

/// A validation refusal of field `param`.
fn refused(profile: Profile, message: &str, param: &str) -> MockResponse {
    response::validation(profile, message, Some(param))
}

/// The requested size, with its width and height. `size` is required (the spec lists it with
/// model and prompt, and the schema requires it); it must be `<w>x<h>` and one of the
/// model's `sizes`, so "auto" is refused too. new-api fills in a DALL·E model's size
/// (DECISIONS NA9).
fn requested_size<'v>(
    profile: Profile,
    v: &'v Fields<'_>,
    model: &str,
    sizes: &[String],
) -> Result<(&'v str, u32, u32), MockResponse> {
    // new-api decodes into a Go struct: an empty `size` is no size (seen on 823e263).
    let given = v
        .get("size")
        .filter(|s| !(profile == Profile::NewApi && s.as_str() == Some("")));
    let size = match (given, default_image_size(profile, model)) {
        (None | Some(Field::Null), Some(default)) => default,
        (None | Some(Field::Null), None) => {
            return Err(refused(
                profile,
                &format!("size is required, one of {}", sizes.join(", ")),
                "size",
            ))
        }
        (Some(s), _) => match s.as_str() {
            Some(s) => s,
            None => {
                return Err(refused(
                    profile,
                    "size must be a string <width>x<height>",
                    "size",
                ))
            }
        },
    };
    match parse_size(size) {
        Some((w, h)) if sizes.iter().any(|s| s == size) => Ok((size, w, h)),
        _ => Err(refused(
            profile,
            &format!("size {size:?} is not one of {}", sizes.join(", ")),
            "size",
        )),
    }
}

/// `n`, 1 when absent: a JSON integer from 1 to 10, also when written with a zero fraction
/// (`2.0`), as JSON Schema's `integer` allows.
fn image_count(profile: Profile, v: &Fields<'_>) -> Result<i64, MockResponse> {
    match v.get("n") {
        None | Some(Field::Null) => Ok(1),
        Some(n) => match n.as_i64().or_else(|| integral(n.as_f64()?)) {
            Some(n) if IMAGE_COUNT.contains(&n) => Ok(n),
            _ => {
                let (lo, hi) = (IMAGE_COUNT.start(), IMAGE_COUNT.end());
                let msg = format!("n must be an integer from {lo} to {hi}");
                Err(refused(profile, &msg, "n"))
            }
        },
    }
}

/// `response_format` (`b64_json` or `url`) and `output_format` (`png`), when given.
fn check_formats(profile: Profile, v: &Fields<'_>) -> Result<(), MockResponse> {
    if let Some(f) = v.get("response_format").filter(|f| !f.is_null())
        && !matches!(f.as_str(), Some("b64_json" | "url"))
    {
        return Err(refused(
            profile,
            "response_format must be b64_json or url",
            "response_format",
        ));
    }
    if let Some(f) = v.get("output_format").filter(|f| !f.is_null())
        && f.as_str() != Some("png")
    {
        return Err(refused(
            profile,
            "output_format must be png (the mock draws PNG only)",
            "output_format",
        ));
    }
    Ok(())
}

/// `quality` and `background`, with their defaults (`low`, `opaque`) for absent, `null` or
/// `auto`; any other non-string is refused.
fn image_style<'v>(
    profile: Profile,
    model: &str,
    v: &'v Fields<'_>,
) -> Result<(&'v str, &'v str), MockResponse> {
    let text = |k: &str| match v.get(k) {
        None | Some(Field::Null) => Ok(None),
        Some(Field::Str(s)) => Ok(Some(s.as_ref())),
        Some(_) => Err(refused(profile, &format!("{k} must be a string"), k)),
    };
    let quality = match text("quality")?.or(default_image_quality(profile, model)) {
        None | Some("auto") => "low",
        Some(q @ ("low" | "medium" | "high" | "standard" | "hd")) => q,
        Some(_) => {
            return Err(refused(
                profile,
                "quality must be low, medium, high, standard, hd or auto",
                "quality",
            ))
        }
    };
    let background = match text("background")? {
        None | Some("auto") => "opaque",
        Some(b @ ("opaque" | "transparent")) => b,
        Some(_) => {
            return Err(refused(
                profile,
                "background must be opaque, transparent or auto",
                "background",
            ))
        }
    };
    Ok((quality, background))
}

/// The `n` images of `seed`: result URLs when `as_url`, else base64 PNGs drawn now (the
/// encoder's error when one cannot be drawn).
fn draw_images<'p>(
    cx: &Ctx,
    as_url: bool,
    prompt: &'p str,
    seed: u64,
    n: i64,
    (w, h): (u32, u32),
) -> Result<Vec<ImageItem<'p>>, String> {
    let mut data = Vec::with_capacity(n as usize);
    for i in 0..n as u64 {
        let s = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if as_url {
            data.push(ImageItem {
                url: Some(image_url(cx, s, w, h)),
                revised_prompt: Some(prompt),
                b64_json: None,
            });
        } else {
            let png = media::png(s, w, h).map_err(|e| e.to_string())?;
            data.push(ImageItem {
                url: None,
                revised_prompt: None,
                b64_json: Some(base64::engine::general_purpose::STANDARD.encode(&png)),
            });
        }
    }
    Ok(data)
}

/// `new-api` only: a request without `model` is routed by the distributor's `dall-e`
/// ([`distributor_model`]): the key's model limits and a channel for it come first (403, or
/// NA5's 503 when the catalog has no such model), then the relay's `model is required`.
fn distribute_without_model(cx: &Ctx, body: &[u8]) -> Result<(), MockResponse> {
    let missing = Fields::parse(body).is_ok_and(|v| {
        v.get("model")
            .and_then(|m| m.as_str())
            .is_none_or(|m| m.trim().is_empty())
    });
    match distributor_model(GENERATIONS_PATH) {
        Some(model) if missing && cx.profile() == Profile::NewApi => {
            cx.check_model(model)?;
            cx.check_channel(model)
        }
        _ => Ok(()),
    }
}

async fn generate_images(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let profile = cx.profile();
    let body = cx.read_body(req).await?;
    distribute_without_model(cx, &body)?;
    let (v, model, cap) = cx.json_model(&body, |c| c.image.as_ref(), "an image model")?;
    let prompt = v.get("prompt").and_then(|x| x.as_str()).unwrap_or("");
    let chars = prompt.chars().count();
    if prompt.trim().is_empty() || chars > MAX_PROMPT_CHARS {
        return Err(refused(
            profile,
            &format!("prompt must be 1 to {MAX_PROMPT_CHARS} characters"),
            "prompt",
        ));
    }
    let (size, w, h) = requested_size(profile, &v, &model, &cap.sizes)?;
    let n = image_count(profile, &v)?;
    check_formats(profile, &v)?;
    let (quality, background) = image_style(profile, &model, &v)?;
    let stream = stream_request(&v, n, cap.output == "b64_json")
        .map_err(|(m, p)| refused(profile, &m, p))?;

    let text_tokens = (chars as i64 + 3).div_euclid(4).max(1);
    let out_tokens = n * image_tokens(quality, w, h);
    let usage = Usage {
        requests: n,
        seconds: 0.0,
        input_tokens: text_tokens,
        output_tokens: out_tokens,
    };
    let charge = cx.charge(cx.price(&model, usage))?;

    let seed = fnv1a(prompt.as_bytes());
    if let Some(partials) = stream {
        let usage = image_usage(text_tokens, out_tokens);
        let shape = Shape {
            created_at: cx.now(),
            size: size.to_owned(),
            quality: quality.to_owned(),
            background: background.to_owned(),
            w,
            h,
        };
        return Ok(stream_images(cx, &model, seed, partials, shape, usage));
    }
    let data = match draw_images(cx, cap.output == "url", prompt, seed, n, (w, h)) {
        Ok(data) => data,
        Err(e) => {
            cx.refund(&charge);
            return Err(response::v1_error(500, &e, Some("image_failed"), None));
        }
    };
    let answer = ImagesAnswer {
        created: cx.now(),
        background,
        data,
        output_format: "png",
        quality,
        size,
        usage: image_usage(text_tokens, out_tokens),
    };
    Ok(response::json_written(200, |buf| answer.write_json(buf)))
}

/// The usage of an image generation.
fn image_usage(text_tokens: i64, out_tokens: i64) -> ImageUsage {
    ImageUsage {
        input_tokens: text_tokens,
        output_tokens: out_tokens,
        total_tokens: text_tokens + out_tokens,
        input_tokens_details: TokenDetails {
            image_tokens: 0,
            text_tokens,
        },
        output_tokens_details: TokenDetails {
            image_tokens: out_tokens,
            text_tokens: 0,
        },
    }
}

/// `Some(partial_images)` when the request streams, `None` when it does not; the message and
/// parameter of a refused streaming request. `partial_images` is checked in any case.
fn stream_request(
    v: &Fields<'_>,
    n: i64,
    b64_model: bool,
) -> Result<Option<i64>, (String, &'static str)> {
    let partials = match v.get("partial_images") {
        None | Some(Field::Null) => 0,
        Some(p) => match p.as_i64().or_else(|| integral(p.as_f64()?)) {
            Some(p @ 0..=MAX_PARTIAL_IMAGES) => p,
            _ => {
                let msg =
                    format!("partial_images must be an integer from 0 to {MAX_PARTIAL_IMAGES}");
                return Err((msg, "partial_images"));
            }
        },
    };
    let stream = match v.get("stream") {
        None | Some(Field::Null) => false,
        Some(s) => s
            .as_bool()
            .ok_or_else(|| ("stream must be a boolean".to_owned(), "stream"))?,
    };
    if !stream {
        return Ok(None);
    }
    if !b64_model {
        let msg = "streaming is only supported for models that answer b64_json (gpt-image-1)";
        return Err((msg.to_owned(), "stream"));
    }
    if n != STREAMED_IMAGE_COUNT {
        let msg = format!("n must be {STREAMED_IMAGE_COUNT} when streaming");
        return Err((msg, "n"));
    }
    Ok(Some(partials))
}

/// What every event of an image stream repeats.
struct Shape {
    created_at: i64,
    size: String,
    quality: String,
    background: String,
    w: u32,
    h: u32,
}

/// The streamed generation: `partials` partial images (other PNGs of the same size), then
/// `image_generation.completed` with the PNG of the non-streamed answer; each PNG is drawn
/// when its event is sent.
fn stream_images(
    cx: &Ctx,
    model: &str,
    seed: u64,
    partials: i64,
    shape: Shape,
    usage: ImageUsage,
) -> MockResponse {
    let events = (0..=partials).map(move |i| {
        let last = i == partials;
        let s = if last {
            seed
        } else {
            seed ^ (i as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93)
        };
        let b64 = match media::png(s, shape.w, shape.h) {
            Ok(png) => base64::engine::general_purpose::STANDARD.encode(&png),
            Err(e) => {
                let err = json!({"type": "error", "error": {"message": e.to_string(), "code": "image_failed"}});
                return Event::json("error", &err);
            }
        };
        let name = if last {
            "image_generation.completed"
        } else {
            "image_generation.partial_image"
        };
        let mut event = json!({
            "type": name,
            "b64_json": b64,
            "created_at": shape.created_at,
            "size": shape.size,
            "quality": shape.quality,
            "background": shape.background,
            "output_format": "png",
        });
        if last {
            event["usage"] = json!({
                "total_tokens": usage.total_tokens,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "input_tokens_details": {
                    "text_tokens": usage.input_tokens_details.text_tokens,
                    "image_tokens": usage.input_tokens_details.image_tokens,
                },
            });
        } else {
            event["partial_image_index"] = json!(i);
        }
        Event::json(name, &event)
    });
    let done_marker = cx.profile() == Profile::NewApi;
    cx.stream(
        GENERATIONS_PATH,
        model,
        events,
        Framing::Named,
        done_marker,
        false,
    )
}

/// `{base}/media/images/{seed:016x}_{w}x{h}.png`, written into one buffer.
fn image_url(cx: &Ctx, seed: u64, w: u32, h: u32) -> String {
    let mut url = String::with_capacity(96);
    cx.push_base_url(&mut url);
    push_image_path(&mut url, seed, w, h);
    url
}

/// Appends `/media/images/{seed:016x}_{w}x{h}.png`.
fn push_image_path(url: &mut String, seed: u64, w: u32, h: u32) {
    use std::fmt::Write as _;
    url.push_str("/media/images/");
    for shift in (0..16).rev() {
        url.push(char::from(
            b"0123456789abcdef"[(seed >> (shift * 4)) as usize & 0xf],
        ));
    }
    let _ = write!(url, "_{w}x{h}.png");
}

/// [`gatecheck_schemas::types::ImageResult`] as the mock writes it: the same fields in the same
/// order, borrowing the request's strings so that answering copies none of them (the tests
/// read every answer back as an `ImageResult`).
#[derive(Serialize)]
struct ImagesAnswer<'a> {
    created: i64,
    background: &'a str,
    data: Vec<ImageItem<'a>>,
    output_format: &'a str,
    quality: &'a str,
    size: &'a str,
    usage: ImageUsage,
}

impl ImagesAnswer<'_> {
    /// The bytes `serde_json` writes for this answer (a test compares them), written by
    /// hand: the answer of every image generation.
    fn write_json(&self, out: &mut Vec<u8>) {
        use gatecheck_codecs::json::{push_i64, push_str};
        out.extend_from_slice(b"{\"created\":");
        push_i64(out, self.created);
        out.extend_from_slice(b",\"background\":");
        push_str(out, self.background);
        out.extend_from_slice(b",\"data\":[");
        for (i, item) in self.data.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'{');
            let fields = [
                (&b"\"url\":"[..], item.url.as_deref()),
                (&b"\"revised_prompt\":"[..], item.revised_prompt),
                (&b"\"b64_json\":"[..], item.b64_json.as_deref()),
            ];
            let mut first = true;
            for (name, value) in fields {
                if let Some(value) = value {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    out.extend_from_slice(name);
                    push_str(out, value);
                }
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"output_format\":");
        push_str(out, self.output_format);
        out.extend_from_slice(b",\"quality\":");
        push_str(out, self.quality);
        out.extend_from_slice(b",\"size\":");
        push_str(out, self.size);
        out.extend_from_slice(b",\"usage\":");
        self.usage.write_json(out);
        out.push(b'}');
    }
}

/// One generated image ([`gatecheck_schemas::types::ImageItem`]): a URL with the prompt, or
/// the PNG in base64.
#[derive(Serialize)]
struct ImageItem<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revised_prompt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b64_json: Option<String>,
}

/// `GET`/`HEAD /media/images/{file}.png` (no auth), `file` being `{seed}_{w}x{h}`.
pub(crate) async fn public(cx: &Ctx, req: &Request<Incoming>, file: &str) -> MockResponse {
    let path = req.uri().path();
    let not_found = || {
        response::json(
            404,
            &json!({"success": false, "message": format!("no such media file: {path}")}),
        )
    };
    let Some((seed, size)) = file.split_once('_') else {
        return not_found();
    };
    let (Ok(seed), Some((w, h))) = (u64::from_str_radix(seed, 16), parse_size(size)) else {
        return not_found();
    };
    match cx.app.renderer.public_png(seed, w, h).await {
        Ok(png) => response::bytes_response(ACCEPTED, "image/png", png),
        Err(crate::response::render::RenderError::Busy) => {
            let mut resp = response::json(
                503,
                &json!({"success": false, "message": "too many images being rendered; retry"}),
            );
            resp.headers_mut().insert(
                http::header::RETRY_AFTER,
                http::HeaderValue::from_static("1"),
            );
            resp
        }
        Err(crate::response::render::RenderError::Invalid) => not_found(),
    }
}

/// `f` as an integer when it has no fraction and fits exactly (|f| < 2^53).
fn integral(f: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    (f.fract() == 0.0 && f.abs() < EXACT).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use super::{integral, push_image_path, ImageItem, ImagesAnswer};
    use gatecheck_schemas::types::ImageUsage;
    use proptest::prelude::*;

    proptest! {
        /// The hand-written answer is what serde_json writes for it.
        #[test]
        fn answers_are_written_as_serde_json_writes_them(
            created in any::<i64>(),
            texts in any::<[String; 4]>(),
            items in proptest::collection::vec(
                (proptest::option::of(".*"), proptest::option::of(".*"), proptest::option::of(".*")),
                0..4,
            ),
            n in any::<i64>(),
        ) {
            let data = items
                .iter()
                .map(|(url, prompt, b64)| ImageItem {
                    url: url.clone(),
                    revised_prompt: prompt.as_deref(),
                    b64_json: b64.clone(),
                })
                .collect();
            let answer = ImagesAnswer {
                created,
                background: &texts[0],
                data,
                output_format: &texts[1],
                quality: &texts[2],
                size: &texts[3],
                usage: ImageUsage { input_tokens: n, ..Default::default() },
            };
            let mut out = Vec::new();
            answer.write_json(&mut out);
            prop_assert_eq!(out, serde_json::to_vec(&answer).unwrap());
        }
    }

    #[test]
    fn image_paths_are_the_formatted_name() {
        for (seed, w, h) in [(0, 1, 1), (0xabc, 512, 512), (u64::MAX, 1024, 1792)] {
            let mut url = "http://h".to_owned();
            push_image_path(&mut url, seed, w, h);
            assert_eq!(
                url,
                format!("http://h/media/images/{seed:016x}_{w}x{h}.png")
            );
        }
    }

    #[test]
    fn integral_takes_whole_numbers_only() {
        assert_eq!(integral(9.0), Some(9));
        assert_eq!(integral(-2.0), Some(-2));
        assert_eq!(integral(2.5), None);
        assert_eq!(integral(1e300), None);
        assert_eq!(integral(f64::NAN), None);
    }
}
