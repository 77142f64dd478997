//! The task bugs: `/v1/videos` creates, the content route, Midjourney, Jimeng and the platforms
//! (`planted_video.rs`, `planted_tasks.rs`, `planted_platforms.rs`).
use super::*;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    parts: &mut http::request::Parts,
    body: &mut Bytes,
) -> Option<Reply> {
    let Req {
        path,
        query,
        method,
        ..
    } = *r;
    match p.bug {
        Bug::EmptyPromptAccepted if path == "/v1/videos" && method == http::Method::POST => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body)
                && (v.get("prompt").and_then(Value::as_str) == Some("")
                    || v.get("prompt").is_none())
            {
                v["prompt"] = json!("filled in by the proxy");
                *body = Bytes::from(v.to_string());
            }
        }
        Bug::UnknownModelAccepted if path == "/v1/videos" && method == http::Method::POST => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
                let unknown = v
                    .get("model")
                    .and_then(Value::as_str)
                    .is_some_and(|m| m.starts_with("gatecheck-"));
                let known = known_capabilities()
                    .into_iter()
                    .find(|(_, c)| c.video.is_some())
                    .map(|(m, _)| m);
                if let (true, Some(known)) = (unknown, known) {
                    v["model"] = json!(known);
                    *body = Bytes::from(v.to_string());
                }
            }
        }
        Bug::MjSecretIgnored if path.starts_with("/mj/") => {
            parts.headers.remove("mj-api-secret");
        }
        Bug::JimengGetResultSubmits | Bug::JimengNativeSubmitGetResultSubmits => {
            let q = query;
            if let Some((pq, b)) = crate::planted_tasks::get_result_as_submit(p.bug, path, q, body)
            {
                parts.uri = pq.parse().expect("submit path");
                *body = b;
            }
        }
        Bug::SubpathServedAsPoll => {
            if let Some(poll) = crate::planted_tasks::poll_of_subpath(p.bug, method, path) {
                parts.uri = poll.parse().expect("poll path");
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
        method,
        query,
        status,
        is_poll,
        ..
    } = *a;
    let body0 = rbody.clone();
    let rjson = || serde_json::from_slice::<Value>(&body0).ok();
    match p.bug {
        Bug::MjUnknownTask404
            if path.starts_with("/mj/task/") && path.ends_with("/fetch") && status == 400 =>
        {
            rparts.status = StatusCode::NOT_FOUND;
        }
        Bug::MjListRepeats if path == "/mj/task/list-by-condition" && status == 200 => {
            if let Some(mut v) = rjson()
                && let Some(list) = v.as_array_mut()
            {
                let again = list.clone();
                list.extend(again);
                *rbody = Bytes::from(v.to_string());
            }
        }
        Bug::MjUploadNoUrls if path == "/mj/submit/upload-discord-images" && status == 200 => {
            if let Some(mut v) = rjson()
                && v["code"] == 1
            {
                v["result"] = json!([]);
                *rbody = Bytes::from(v.to_string());
            }
        }
        Bug::MjSuccessAt99 if path.starts_with("/mj/task/") && status == 200 => {
            if let Some(mut v) = rjson()
                && v["status"] == "SUCCESS"
            {
                v["progress"] = json!("99%");
                *rbody = Bytes::from(v.to_string());
            }
        }
        Bug::ContentNotMp4 if path.ends_with("/content") && status == 200 => {
            *rbody = Bytes::from_static(b"not an mp4 file");
        }
        Bug::ContentServedEarly if path.ends_with("/content") && status == 400 => {
            rparts.status = StatusCode::OK;
            rparts
                .headers
                .insert("content-type", "video/mp4".parse().expect("ct"));
            *rbody = Bytes::new();
        }
        Bug::UnknownTask400 if status == 404 && is_poll => rparts.status = StatusCode::BAD_REQUEST,
        b if crate::planted_platforms::plants(b) => {
            let headers = &mut rparts.headers;
            crate::planted_platforms::rewrite(b, (method, path), &p.polls, headers, rbody);
        }
        b if crate::planted_tasks::plants(b) => {
            let query = query.unwrap_or("");
            crate::planted_tasks::rewrite(
                b,
                (method, path, query),
                &p.polls,
                &mut rparts.status,
                rbody,
            );
            crate::planted_tasks::books(b, method, path, &p.books, rbody);
        }
        _ => {}
    }
    None
}
