//! The mutation proxy: it stands in front of the mock and plants one bug (`planted::Bug`) in
//! what passes through, for the mutation tests (`mutations.rs`) and the stream tests.

use super::planted::Bug;
use super::support::with_data;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_conformance::internals::known_capabilities;
use gatecheck_schemas::rules::token::{self, MSG_NAME_TOO_LONG_NEW_API};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;

struct Proxy {
    upstream: String,
    bug: Bug,
    client: Client<HttpConnector, Full<Bytes>>,
    polls: AtomicU64,
    /// What the refund bugs keep of the key's books (`planted_tasks::books`).
    books: std::sync::Mutex<Option<(i64, i64)>>,
    /// What the billing bugs charge on top of the mock (`planted_billing::book`).
    billing: std::sync::Mutex<super::planted_billing::Books>,
}

pub(crate) async fn start_proxy(upstream: String, bug: Bug) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let proxy = Arc::new(Proxy {
        upstream,
        bug,
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        polls: AtomicU64::new(0),
        books: std::sync::Mutex::new(None),
        billing: Default::default(),
    });
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                break;
            };
            let proxy = proxy.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let proxy = proxy.clone();
                    async move { Ok::<_, std::convert::Infallible>(proxy.handle(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

fn json_response(status: u16, v: &Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("ct"));
    r.headers_mut()
        .insert("x-oneapi-request-id", "proxy".parse().expect("id"));
    r
}

/// `body` without what asks for a stream: the JSON fields `stream`, `stream_format` and
/// `partial_images`, and a multipart `stream=true` (made `false`).
fn without_stream(body: &Bytes) -> Bytes {
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        if let Some(o) = v.as_object_mut() {
            for field in ["stream", "stream_format", "partial_images"] {
                o.remove(field);
            }
        }
        return Bytes::from(v.to_string());
    }
    let on: &[u8] = b"name=\"stream\"\r\n\r\ntrue\r\n";
    let Some(at) = body.windows(on.len()).position(|w| w == on) else {
        return body.clone();
    };
    let mut off = body[..at].to_vec();
    off.extend_from_slice(b"name=\"stream\"\r\n\r\nfalse\r\n");
    off.extend_from_slice(&body[at + on.len()..]);
    Bytes::from(off)
}

/// Whether an answer is an event stream.
fn is_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// The JSON `data:` of one event block.
fn event_data(block: &str) -> Option<Value> {
    let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
    serde_json::from_str(data).ok()
}

fn admitted_400() -> Response<Full<Bytes>> {
    json_response(
        400,
        &json!({"error": {"message": "invalid request", "type": "new_api_error", "param": null, "code": "invalid_request"}}),
    )
}

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let (mut parts, body) = req.into_parts();
        let mut body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let path = parts.uri.path().to_string();
        let query = parts.uri.query().map(str::to_owned);
        let auth = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let method = parts.method.clone();
        // What `StatusIgnoredClaimed` claims applied.
        let claimed = (self.bug == Bug::StatusIgnoredClaimed && path == "/api/token/")
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .and_then(|v| v.get("status").cloned());
        if self.bug == Bug::PricingNotServed && path == "/api/pricing" {
            return json_response(404, &json!({"success": false, "message": "not found"}));
        }
        // Request-side bugs.
        match self.bug {
            Bug::NameCountedInBytes if path == "/api/token/" && method == http::Method::PUT => {
                let name = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default();
                if name.len() > 50 {
                    return json_response(
                        200,
                        &json!({"success": false, "message": "token name is too long"}),
                    );
                }
            }
            Bug::StatusNotApplied if path == "/api/token/" && query.is_none() => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    if let Some(o) = v.as_object_mut() {
                        o.remove("status");
                    }
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::StatusDroppedEverywhere | Bug::StatusIgnoredClaimed if path == "/api/token/" => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    if let Some(o) = v.as_object_mut() {
                        o.remove("status");
                    }
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::UncheckedTemperature if path.starts_with("/v1/audio/") => {
                let text = String::from_utf8_lossy(&body).into_owned();
                let re =
                    regex::Regex::new(r#"name="temperature"\r\n\r\n([^\r]*)\r\n"#).expect("re");
                if let Some(c) = re.captures(&text) {
                    let t: f64 = c[1].parse().unwrap_or(0.0);
                    if !(0.0..=1.0).contains(&t) {
                        let fixed = text.replace(&c[0], "name=\"temperature\"\r\n\r\n0.5\r\n");
                        body = Bytes::from(fixed.into_bytes());
                    }
                }
            }
            Bug::ImageSizeUnchecked if path == "/v1/images/generations" => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
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
                        body = Bytes::from(v.to_string());
                    }
                }
            }
            Bug::WrongTokenSucceeds
                if path.starts_with("/api/token") && auth.starts_with("wrong") =>
            {
                return json_response(200, &json!({"success": true, "message": "", "data": {}}));
            }
            Bug::EmptyPromptAccepted if path == "/v1/videos" && method == http::Method::POST => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body)
                    && (v.get("prompt").and_then(Value::as_str) == Some("")
                        || v.get("prompt").is_none())
                {
                    v["prompt"] = json!("filled in by the proxy");
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::UnknownModelAccepted if path == "/v1/videos" && method == http::Method::POST => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
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
                        body = Bytes::from(v.to_string());
                    }
                }
            }
            Bug::NegativeQuotaStored if path == "/api/token/" && method == http::Method::PUT => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body)
                    && v.get("remain_quota")
                        .and_then(Value::as_i64)
                        .is_some_and(|q| q < 0)
                {
                    v["remain_quota"] = json!(0);
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::StatusOutOfEnumStored | Bug::ExpiredTimeOutOfRangeStored
                if path == "/api/token/" && method == http::Method::PUT =>
            {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    let (field, valid, stored): (_, fn(i64) -> bool, _) =
                        if self.bug == Bug::StatusOutOfEnumStored {
                            ("status", token::is_valid_status, 1)
                        } else {
                            ("expired_time", token::is_valid_expired_time, -1)
                        };
                    if v.get(field)
                        .and_then(Value::as_i64)
                        .is_some_and(|x| !valid(x))
                    {
                        v[field] = json!(stored);
                        body = Bytes::from(v.to_string());
                    }
                }
            }
            Bug::StreamIgnored if path.starts_with("/v1/") => body = without_stream(&body),
            Bug::SseOnTts1 if path == "/v1/audio/speech" => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body)
                    && v["model"] == "tts-1"
                    && v["stream_format"] == "sse"
                {
                    v["model"] = json!("gpt-4o-mini-tts");
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::MjSecretIgnored if path.starts_with("/mj/") => {
                parts.headers.remove("mj-api-secret");
            }
            b if super::planted_streams::plants(b) => {
                if let Some(new) = super::planted_streams::request(b, &path, &body) {
                    body = new;
                }
            }
            Bug::JimengGetResultSubmits => {
                let q = query.as_deref();
                if let Some((pq, b)) =
                    super::planted_tasks::get_result_as_submit(self.bug, &path, q, &body)
                {
                    parts.uri = pq.parse().expect("submit path");
                    body = b;
                }
            }
            Bug::SubpathServedAsPoll => {
                if let Some(poll) = super::planted_tasks::poll_of_subpath(self.bug, &method, &path)
                {
                    parts.uri = poll.parse().expect("poll path");
                }
            }
            _ => {}
        }
        let asks_stream = super::planted_key_routes::asks_stream(&body);
        let upload = (self.bug == Bug::EditReturnsUpload && path == "/v1/images/edits")
            .then(|| super::planted_image_results::upload(&body))
            .flatten();
        // Forward.
        parts.headers.remove("content-length");
        parts.headers.remove("transfer-encoding");
        let (sent_headers, sent_body) = (parts.headers.clone(), body.clone());
        let uri = format!(
            "{}{}",
            self.upstream,
            parts
                .uri
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or("/")
        );
        parts.uri = uri.parse().expect("uri");
        if super::planted_billing::sends_twice(self.bug, &path, &body) {
            let mut copy = Request::new(Full::new(body.clone()));
            *copy.method_mut() = parts.method.clone();
            *copy.uri_mut() = parts.uri.clone();
            *copy.headers_mut() = parts.headers.clone();
            if let Ok(r) = self.client.request(copy).await {
                let _ = r.into_body().collect().await;
            }
        }
        let upstream = Request::from_parts(parts, Full::new(body));
        let Ok(resp) = self.client.request(upstream).await else {
            return json_response(
                502,
                &json!({"error": {"message": "proxy: upstream failed", "type": "proxy", "param": null, "code": null}}),
            );
        };
        let (mut rparts, rbody) = resp.into_parts();
        let mut rbody = rbody
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        rparts.headers.remove("content-length");
        rparts.headers.remove("transfer-encoding");
        let status = rparts.status.as_u16();
        if let (Some(status), Some(mut v)) =
            (&claimed, serde_json::from_slice::<Value>(&rbody).ok())
            && v["success"] == true
            && v["data"].is_object()
        {
            v["data"]["status"] = status.clone();
            rbody = Bytes::from(serde_json::to_string_pretty(&v).expect("json"));
        }
        if super::planted_billing::plants(self.bug) {
            let seen = (&method, path.as_str(), status);
            super::planted_billing::book(self.bug, seen, &self.billing, &mut rbody);
        }
        let rjson = || serde_json::from_slice::<Value>(&rbody).ok();
        let message = rjson()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let code = rjson()
            .and_then(|v| {
                v.pointer("/error/code")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        // The message of an `/api/token/` failure (`{success:false, message}`).
        let api_message = rjson()
            .filter(|_| path.starts_with("/api/token"))
            .filter(|v| v.get("success") == Some(&json!(false)))
            .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        let is_poll = method == http::Method::GET
            && path.starts_with("/v1/videos/task_")
            && !path.ends_with("/content");
        if super::planted_tasks::remix_refused_unknown(self.bug, &method, &path, &rbody)
            && let Some((create, b)) = super::planted_tasks::plain_create(&sent_body)
        {
            return self.send_instead(create, sent_headers, b).await;
        }
        // Response-side bugs.
        match self.bug {
            b if super::planted_key_routes::plants(b)
                && super::planted_key_routes::lets_through(
                    b,
                    &path,
                    (status, &message, &code),
                    asks_stream,
                ) =>
            {
                return admitted_400();
            }
            b if super::planted_image_results::plants(b) => {
                let at = (path.as_str(), status);
                let up = &self.upstream;
                if let Some(new) =
                    super::planted_image_results::rewrite(b, at, upload.as_ref(), up, &rbody)
                {
                    rbody = new;
                }
            }
            Bug::DisabledKeyAccepted
                if status == 401 && message.contains("status is unavailable") =>
            {
                return admitted_400();
            }
            Bug::ExpiredKeyAccepted if status == 401 && message.contains("expired") => {
                return admitted_400()
            }
            Bug::IpAllowlistIgnored if status == 403 && code == "access_denied" => {
                return admitted_400()
            }
            Bug::ModelLimitsIgnored if status == 403 && code == "model_not_allowed" => {
                return admitted_400()
            }
            Bug::ZeroQuotaAccepted if status == 401 && message.contains("quota is exhausted") => {
                return admitted_400()
            }
            Bug::InsufficientAs402 if status == 403 && code == "pre_consume_token_quota_failed" => {
                rparts.status = StatusCode::PAYMENT_REQUIRED;
            }
            Bug::UnknownPathDashboard if status == 404 && path.starts_with("/v1/gatecheck-") => {
                let mut r = Response::new(Full::new(Bytes::from_static(
                    b"<!doctype html><title>dashboard</title>",
                )));
                r.headers_mut()
                    .insert("content-type", "text/html".parse().expect("ct"));
                return r;
            }
            Bug::MediaValidation422
                if status == 400
                    && (path.starts_with("/v1/audio/") || path.starts_with("/v1/images/")) =>
            {
                rparts.status = StatusCode::UNPROCESSABLE_ENTITY;
            }
            Bug::Mp3Garbage if path == "/v1/audio/speech" && status == 200 => {
                let mp3 = rparts
                    .headers
                    .get("content-type")
                    .is_some_and(|v| v.as_bytes() == b"audio/mpeg");
                if mp3 {
                    rbody = Bytes::from(vec![0u8; 1024]);
                }
            }
            Bug::EditNotPng if path.starts_with("/media/edits/") && status == 200 => {
                rbody = Bytes::from_static(b"GIF89a not a png");
            }
            Bug::EditNotPng if path == "/v1/images/edits" && status == 200 => {
                if let Some(mut v) = rjson() {
                    let items = v.get_mut("data").and_then(Value::as_array_mut);
                    for item in items.into_iter().flatten() {
                        if item.get("b64_json").is_some() {
                            item["b64_json"] = json!(STANDARD.encode(b"GIF89a not a png"));
                        }
                    }
                    rbody = Bytes::from(v.to_string());
                }
            }
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
                    rbody = Bytes::from(v.to_string());
                }
            }
            Bug::MjUploadNoUrls if path == "/mj/submit/upload-discord-images" && status == 200 => {
                if let Some(mut v) = rjson()
                    && v["code"] == 1
                {
                    v["result"] = json!([]);
                    rbody = Bytes::from(v.to_string());
                }
            }
            Bug::MjSuccessAt99 if path.starts_with("/mj/task/") && status == 200 => {
                if let Some(mut v) = rjson()
                    && v["status"] == "SUCCESS"
                {
                    v["progress"] = json!("99%");
                    rbody = Bytes::from(v.to_string());
                }
            }
            Bug::EditMissingImageAccepted
                if path == "/v1/images/edits"
                    && matches!(code.as_str(), "invalid_request" | "convert_request_failed") =>
            {
                return json_response(200, &json!({"created": 0, "data": []}));
            }
            Bug::ContentNotMp4 if path.ends_with("/content") && status == 200 => {
                rbody = Bytes::from_static(b"not an mp4 file");
            }
            Bug::ContentServedEarly if path.ends_with("/content") && status == 400 => {
                rparts.status = StatusCode::OK;
                rparts
                    .headers
                    .insert("content-type", "video/mp4".parse().expect("ct"));
                rbody = Bytes::new();
            }
            Bug::IpRefusal401 if status == 403 && code == "access_denied" => {
                rparts.status = StatusCode::UNAUTHORIZED;
            }
            Bug::UploadLimit400 if status == 413 => {
                rparts.status = StatusCode::BAD_REQUEST;
            }
            Bug::MissingTokenAs200
                if status == 401 && path.starts_with("/api/token") && auth.is_empty() =>
            {
                rparts.status = StatusCode::OK;
            }
            Bug::NameTooLongMessageChanged if api_message.contains(token::MSG_NAME_TOO_LONG) => {
                return json_response(200, &json!({"success": false, "message": "invalid name"}));
            }
            Bug::GroupNoAccessAccepted if api_message.contains(token::MSG_NO_ACCESS_TO_GROUP) => {
                return json_response(200, &json!({"success": true, "message": ""}));
            }
            Bug::EnableExpiredAccepted
                if api_message.contains(token::MSG_EXPIRED_CANNOT_ENABLE) =>
            {
                return json_response(200, &json!({"success": true, "message": ""}));
            }
            Bug::UnknownIdAccepted if api_message.contains(token::MSG_NOT_FOUND) => {
                return json_response(200, &json!({"success": true, "message": ""}));
            }
            Bug::WavGarbage if path == "/v1/audio/speech" && status == 200 => {
                let wav = rparts
                    .headers
                    .get("content-type")
                    .is_some_and(|v| v.as_bytes() == b"audio/wav");
                if wav {
                    rbody = Bytes::from(vec![0u8; 1024]);
                }
            }
            Bug::NewApiNameMessage if api_message.contains(token::MSG_NAME_TOO_LONG) => {
                let msg = api_message.replace(token::MSG_NAME_TOO_LONG, MSG_NAME_TOO_LONG_NEW_API);
                return json_response(200, &json!({"success": false, "message": msg}));
            }
            Bug::ImageAs201 if path == "/v1/images/generations" && status == 200 => {
                rparts.status = StatusCode::CREATED;
            }
            Bug::KeyRefusalsAre502 if (status == 401 || status == 403) && path == "/v1/videos" => {
                rparts.status = StatusCode::BAD_GATEWAY;
            }
            Bug::Status401To403 if status == 401 && path.starts_with("/v1/") => {
                rparts.status = StatusCode::FORBIDDEN;
            }
            Bug::UnknownTask400 if status == 404 && is_poll => {
                rparts.status = StatusCode::BAD_REQUEST
            }
            Bug::NoRequestId if path.starts_with("/v1/") && status >= 400 => {
                rparts.headers.remove("x-oneapi-request-id");
            }
            Bug::WrongSpeechContentType if path == "/v1/audio/speech" && status == 200 => {
                rparts.headers.insert(
                    "content-type",
                    "application/octet-stream".parse().expect("ct"),
                );
            }
            Bug::TextIsJson | Bug::BrokenSrtCue | Bug::NoVttHeader
                if path == "/v1/audio/translations" && status == 200 =>
            {
                let text = String::from_utf8_lossy(&rbody).into_owned();
                let is_json = serde_json::from_slice::<Value>(&rbody).is_ok();
                let out = match self.bug {
                    Bug::TextIsJson if !is_json && !text.contains("-->") => {
                        Some(json!({ "text": text }).to_string())
                    }
                    Bug::BrokenSrtCue if !text.starts_with("WEBVTT") && text.contains("-->") => {
                        Some(text.replace("-->", "->"))
                    }
                    Bug::NoVttHeader if text.starts_with("WEBVTT") => {
                        Some(text.replacen("WEBVTT", "", 1))
                    }
                    _ => None,
                };
                if let Some(out) = out {
                    rbody = Bytes::from(out);
                }
            }
            Bug::StreamNoTerminal
            | Bug::StreamDeltaAfterDone
            | Bug::DoneTextDiffers
            | Bug::PartialNotPng
                if is_event_stream(&rparts.headers) =>
            {
                if let Some(new) = self.rewrite_stream(&path, &rbody) {
                    rbody = new;
                }
            }
            Bug::MissingText
            | Bug::B64NotPng
            | Bug::PngOffByOne
            | Bug::CatalogWithoutTotal
            | Bug::ProgressRegresses
            | Bug::CompletedAt99
            | Bug::NeverTerminal
            | Bug::TaskIdMismatch
            | Bug::UsedQuotaNotCharged
            | Bug::DoubleCharged
            | Bug::CatalogTotalOffByOne
            | Bug::CreatedInProgress
            | Bug::CompletedBeforeCreated
            | Bug::ProgressOver100
            | Bug::CompletedWithoutUrl => {
                if let Some(mut v) = rjson() {
                    let changed = self.rewrite(&mut v, &path, &method, is_poll);
                    if changed {
                        rbody = Bytes::from(v.to_string());
                    }
                }
            }
            b if super::planted_keysurface::plants(b) => {
                super::planted_keysurface::rewrite(b, &path, &mut rbody);
            }
            b if super::planted_streams::plants(b) => {
                super::planted_streams::rewrite(b, &path, &mut rparts.headers, &mut rbody);
            }
            b if super::planted_platforms::plants(b) => {
                let at = (&method, path.as_str());
                super::planted_platforms::rewrite(
                    b,
                    at,
                    &self.polls,
                    &mut rparts.headers,
                    &mut rbody,
                );
            }
            b if super::planted_tasks::plants(b) => {
                let query = query.as_deref().unwrap_or("");
                super::planted_tasks::rewrite(
                    b,
                    (&method, &path, query),
                    &self.polls,
                    &mut rparts.status,
                    &mut rbody,
                );
                super::planted_tasks::books(b, &method, &path, &self.books, &mut rbody);
            }
            _ => {}
        }
        Response::from_parts(rparts, Full::new(rbody))
    }

    /// `POST path` with `headers` and `body` sent upstream in place of the client's request,
    /// its answer relayed as it came.
    async fn send_instead(
        &self,
        path: &str,
        headers: http::HeaderMap,
        body: Bytes,
    ) -> Response<Full<Bytes>> {
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = http::Method::POST;
        *req.uri_mut() = format!("{}{path}", self.upstream).parse().expect("uri");
        *req.headers_mut() = headers;
        req.headers_mut()
            .insert("content-type", "application/json".parse().expect("ct"));
        let Ok(resp) = self.client.request(req).await else {
            return json_response(
                502,
                &json!({"error": {"message": "proxy: upstream failed"}}),
            );
        };
        let (mut rparts, rbody) = resp.into_parts();
        let rbody = rbody
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        rparts.headers.remove("content-length");
        rparts.headers.remove("transfer-encoding");
        Response::from_parts(rparts, Full::new(rbody))
    }

    /// The stream bugs: `body`, an event stream, with one event dropped, added or changed.
    fn rewrite_stream(&self, path: &str, body: &Bytes) -> Option<Bytes> {
        let text = std::str::from_utf8(body).ok()?;
        let mut blocks: Vec<String> = text.split_terminator("\n\n").map(str::to_owned).collect();
        let ty = |b: &str| event_data(b).and_then(|v| v["type"].as_str().map(str::to_owned));
        match self.bug {
            Bug::StreamNoTerminal if path == "/v1/audio/speech" => {
                blocks.retain(|b| ty(b).as_deref() != Some("speech.audio.done"));
            }
            Bug::StreamDeltaAfterDone if path == "/v1/audio/transcriptions" => {
                let delta = json!({"type": "transcript.text.delta", "delta": " again"});
                blocks.push(format!("event: transcript.text.delta\ndata: {delta}"));
            }
            Bug::DoneTextDiffers if path == "/v1/audio/transcriptions" => {
                let done = blocks
                    .iter_mut()
                    .find(|b| ty(b).as_deref() == Some("transcript.text.done"))?;
                let mut v = event_data(done)?;
                v["text"] = json!(format!("{} (edited)", v["text"].as_str().unwrap_or("")));
                *done = with_data(done, &v);
            }
            Bug::PartialNotPng if path == "/v1/images/generations" => {
                let partial = blocks
                    .iter_mut()
                    .find(|b| ty(b).as_deref() == Some("image_generation.partial_image"))?;
                let mut v = event_data(partial)?;
                v["b64_json"] = json!(STANDARD.encode(b"GIF89a not a png"));
                *partial = with_data(partial, &v);
            }
            _ => return None,
        }
        Some(Bytes::from(
            blocks
                .iter()
                .map(|b| format!("{b}\n\n"))
                .collect::<String>(),
        ))
    }

    fn rewrite(&self, v: &mut Value, path: &str, method: &http::Method, is_poll: bool) -> bool {
        let Some(o) = v.as_object_mut() else {
            return false;
        };
        match self.bug {
            Bug::MissingText if path == "/v1/audio/translations" => o.remove("text").is_some(),
            Bug::CatalogWithoutTotal if path == "/api/models" => o.remove("total").is_some(),
            Bug::B64NotPng | Bug::PngOffByOne if path == "/v1/images/generations" => {
                let Some(items) = o.get_mut("data").and_then(Value::as_array_mut) else {
                    return false;
                };
                let mut changed = false;
                for item in items {
                    let Some(b64) = item.get("b64_json").and_then(Value::as_str) else {
                        continue;
                    };
                    let new = if self.bug == Bug::B64NotPng {
                        b"GIF89a not a png".to_vec()
                    } else {
                        let Ok(png) = STANDARD.decode(b64) else {
                            continue;
                        };
                        // IHDR: width at bytes 16..20, height at 20..24. A whole PNG one
                        // pixel wider (the runner decodes every pixel: a patched header over
                        // the old image data would be a broken PNG, not a rounded size).
                        if png.len() < 33 {
                            continue;
                        }
                        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]) + 1;
                        let h = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
                        let Ok(wider) = gatecheck_mock::internals::media::png(9, w, h) else {
                            continue;
                        };
                        wider.to_vec()
                    };
                    item["b64_json"] = json!(STANDARD.encode(new));
                    changed = true;
                }
                changed
            }
            Bug::UsedQuotaNotCharged
                if method == http::Method::GET && path.starts_with("/api/token/") =>
            {
                match o.get_mut("data").and_then(Value::as_object_mut) {
                    Some(d) if d.contains_key("used_quota") => {
                        d.insert("used_quota".into(), json!(0));
                        true
                    }
                    _ => false,
                }
            }
            Bug::DoubleCharged
                if method == http::Method::GET && path.starts_with("/api/token/") =>
            {
                let Some(d) = o.get_mut("data").and_then(Value::as_object_mut) else {
                    return false;
                };
                let Some(used) = d.get("used_quota").and_then(Value::as_i64) else {
                    return false;
                };
                d.insert("used_quota".into(), json!(used * 2));
                true
            }
            Bug::CatalogTotalOffByOne if path == "/api/models" => {
                let Some(total) = o.get("total").and_then(Value::as_i64) else {
                    return false;
                };
                o.insert("total".into(), json!(total + 1));
                true
            }
            Bug::CreatedInProgress if path == "/v1/videos" && method == http::Method::POST => {
                o.insert("status".into(), json!("in_progress"));
                true
            }
            Bug::CompletedBeforeCreated if is_poll && o.get("completed_at").is_some() => {
                let created = o.get("created_at").and_then(Value::as_i64).unwrap_or(0);
                o.insert("completed_at".into(), json!(created - 10));
                true
            }
            Bug::ProgressOver100
                if is_poll && o.get("status").and_then(Value::as_str) == Some("in_progress") =>
            {
                o.insert("progress".into(), json!(150));
                true
            }
            Bug::CompletedWithoutUrl
                if is_poll && o.get("status").and_then(Value::as_str) == Some("completed") =>
            {
                o.remove("video_url");
                o.remove("metadata");
                true
            }
            Bug::TaskIdMismatch if path == "/v1/videos" && method == http::Method::POST => {
                o.insert("task_id".into(), json!("task_mismatched"));
                true
            }
            Bug::ProgressRegresses if is_poll => {
                let n = self.polls.fetch_add(1, Ordering::SeqCst);
                let running = o.get("status").and_then(Value::as_str) == Some("in_progress");
                let p = o.get("progress").and_then(Value::as_i64).unwrap_or(0);
                if running && n % 2 == 1 && p >= 25 {
                    o.insert("progress".into(), json!(p - 25));
                    return true;
                }
                false
            }
            Bug::CompletedAt99
                if is_poll && o.get("status").and_then(Value::as_str) == Some("completed") =>
            {
                o.insert("progress".into(), json!(99));
                true
            }
            Bug::NeverTerminal if is_poll => {
                let terminal = matches!(
                    o.get("status").and_then(Value::as_str),
                    Some("completed" | "failed" | "error")
                );
                if terminal {
                    o.insert("status".into(), json!("in_progress"));
                    o.insert("progress".into(), json!(50));
                    o.remove("completed_at");
                    o.remove("video_url");
                    o.remove("error");
                    o.remove("metadata");
                }
                terminal
            }
            _ => false,
        }
    }
}
