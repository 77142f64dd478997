//! The image bugs: sizes, generation and edit answers, the files an edit points at
//! (`planted_images.rs`, `planted_image_results.rs`).
use super::*;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    _parts: &mut http::request::Parts,
    body: &mut Bytes,
) -> Option<Reply> {
    let Req { path, .. } = *r;
    match p.bug {
        Bug::ImageSizeUnchecked if path == "/v1/images/generations" => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
                let model = v
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let sizes = known_capabilities()
                    .get(&model)
                    .and_then(|c| c.image.clone())
                    .map(|i| i.sizes)
                    .unwrap_or_default();
                let size = v
                    .get("size")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if !sizes.is_empty() && !sizes.contains(&size) && v.get("prompt").is_some() {
                    v["size"] = json!(sizes[0]);
                    *body = Bytes::from(v.to_string());
                }
            }
        }
        _ => {}
    }
    None
}

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer {
        path,
        status,
        code,
        upload,
        ..
    } = *a;
    let body0 = rbody.clone();
    let rjson = || serde_json::from_slice::<Value>(&body0).ok();
    match p.bug {
        b if crate::planted_image_results::plants(b) => {
            let at = (path, status);
            let up = &p.upstream;
            if let Some(new) = crate::planted_image_results::rewrite(b, at, upload, up, rbody) {
                *rbody = new;
            }
        }
        Bug::EditNotPng if path.starts_with("/media/edits/") && status == 200 => {
            *rbody = Bytes::from_static(b"GIF89a not a png");
        }
        Bug::EditNotPng if path == "/v1/images/edits" && status == 200 => {
            if let Some(mut v) = rjson() {
                let items = v.get_mut("data").and_then(Value::as_array_mut);
                for item in items.into_iter().flatten() {
                    if item.get("b64_json").is_some() {
                        item["b64_json"] = json!(STANDARD.encode(b"GIF89a not a png"));
                    }
                }
                *rbody = Bytes::from(v.to_string());
            }
        }
        Bug::EditMissingImageAccepted
            if path == "/v1/images/edits"
                && matches!(code, "invalid_request" | "convert_request_failed") =>
        {
            return Some(json_response(200, &json!({"created": 0, "data": []})));
        }
        Bug::ImageAs201 if path == "/v1/images/generations" && status == 200 => {
            rparts.status = StatusCode::CREATED;
        }
        _ => {}
    }
    None
}
