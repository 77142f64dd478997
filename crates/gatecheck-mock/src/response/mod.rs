//! Response builders: the `/v1` error body, the `/api` envelope, JSON answers.
//!
//! - `/v1/*` errors: `{"error":{"message","type":"new_api_error","param","code"}}`.
//! - `/api/*` logical failures: HTTP 200 `{"success":false,"message"}`.

pub(crate) mod headers;
pub(crate) mod render;
pub(crate) mod script;
pub(crate) mod sse;

use bytes::Bytes;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::{ApiEnvelope, KeyRecord};
use gatecheck_schemas::Profile;
use http::{header, HeaderValue, StatusCode};
use http_body_util::Full;
use serde::Serialize;

/// The body of every answer: whole bytes, or (for a streamed answer) events produced one by
/// one. The enum costs the whole-bytes answers nothing (no allocation, no lock).
#[derive(Debug)]
pub enum Body {
    /// The whole body at once.
    Full(Full<Bytes>),
    /// A `text/event-stream` body (boxed: the common answers stay small).
    Stream(Box<crate::response::sse::SseBody>),
}

impl Body {
    /// A body of these bytes.
    pub fn full(bytes: Bytes) -> Self {
        Self::Full(Full::new(bytes))
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = crate::response::sse::StreamCut;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            Self::Full(full) => std::pin::Pin::new(full)
                .poll_frame(cx)
                .map_err(|never| match never {}),
            Self::Stream(stream) => std::pin::Pin::new(stream.as_mut()).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Self::Full(full) => full.is_end_stream(),
            Self::Stream(stream) => stream.is_end_stream(),
        }
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match self {
            Self::Full(full) => full.size_hint(),
            Self::Stream(stream) => stream.size_hint(),
        }
    }
}
/// An answer of the mock.
pub type MockResponse = http::Response<Body>;

static JSON: HeaderValue = HeaderValue::from_static("application/json");

/// An answer with `body` and `content_type`.
pub fn bytes_response(status: u16, content_type: &'static str, body: Bytes) -> MockResponse {
    let mut resp = http::Response::new(Body::full(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

/// A streamed `text/event-stream` answer (200).
pub(crate) fn stream_response(body: crate::response::sse::SseBody) -> MockResponse {
    let mut resp = http::Response::new(Body::Stream(Box::new(body)));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::response::sse::EVENT_STREAM),
    );
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// A JSON answer of pre-serialized bytes.
pub fn json_bytes(status: u16, body: Bytes) -> MockResponse {
    let mut resp = http::Response::new(Body::full(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, JSON.clone());
    resp
}

/// Bigger serialization buffers are not kept for the next answer (memory stays flat).
const KEPT_BUFFER_BYTES: usize = 64 * 1024;

thread_local! {
    /// Each worker thread's serialization buffer, reused from answer to answer.
    static JSON_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `value` as JSON, serialized into this thread's reused buffer and copied out once (one
/// allocation of the exact size, instead of a growing `Vec`).
pub fn to_json_bytes<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Bytes> {
    with_buffer(|buf| serde_json::to_writer(buf, value))
}

/// What `write` appends to this thread's reused buffer (an empty one), copied out once.
fn with_buffer<E>(write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>) -> Result<Bytes, E> {
    JSON_BUFFER.with(|cell| {
        let Ok(mut buf) = cell.try_borrow_mut() else {
            let mut own = Vec::new();
            return write(&mut own).map(|()| Bytes::from(own));
        };
        buf.clear();
        let out = write(&mut buf).map(|()| Bytes::copy_from_slice(&buf));
        if buf.capacity() > KEPT_BUFFER_BYTES {
            *buf = Vec::new();
        }
        out
    })
}

/// A JSON answer.
pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> MockResponse {
    match to_json_bytes(value) {
        Ok(v) => json_bytes(status, v),
        Err(e) => v1_error(
            500,
            &format!("cannot serialize the answer: {e}"),
            None,
            None,
        ),
    }
}

/// The `/v1` error body with `type` `new_api_error`.
pub fn v1_error(
    status: u16,
    message: &str,
    code: Option<&str>,
    param: Option<&str>,
) -> MockResponse {
    json(
        status,
        &serde_json::json!({
            "error": {
                "message": message,
                "type": "new_api_error",
                "param": param,
                "code": code,
            }
        }),
    )
}

/// The codes of the refusals new-api's middleware writes itself (middleware/utils.go
/// abortWithOpenAiMessage: `{message, type, code}`, no `param`): the key refusals (`""`), the
/// IP allowlist (`access_denied`), the distributor's `model_not_found`, the rate limit. Every
/// other `/v1` error is the relay's (relaykit/types/error.go `ToOpenAIError`), with `param: ""`.
const MIDDLEWARE_CODES: [&str; 4] = [
    "",
    "access_denied",
    "model_not_found",
    "rate_limit_exceeded",
];

/// new-api's shape of a `/v1` error body (DECISIONS NA13): the message ends in
/// ` (request id: <id>)`, `code` is `""` when unset, and `param` is `""` on the relay's errors
/// and absent on the middleware's ([`MIDDLEWARE_CODES`]; seen on new-api 823e263 built and
/// run behind the mock, docs/new-api-live.md). Other answers pass through unchanged.
pub async fn new_api_error_shape(resp: MockResponse, request_id: &str) -> MockResponse {
    use http_body_util::BodyExt;
    if resp.status().as_u16() < 400 || resp.headers().get(header::CONTENT_TYPE) != Some(&JSON) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = match body.collect().await {
        Ok(c) => c.to_bytes(),
        // Only whole JSON bodies get here (streams are `text/event-stream`).
        Err(_) => Bytes::new(),
    };
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return http::Response::from_parts(parts, Body::full(bytes));
    };
    let Some(err) = value
        .get_mut("error")
        .and_then(|e| e.as_object_mut())
        .filter(|e| e.get("type").and_then(|t| t.as_str()) == Some("new_api_error"))
    else {
        return http::Response::from_parts(parts, Body::full(bytes));
    };
    if let Some(msg) = err.get("message").and_then(|m| m.as_str()) {
        let msg = format!("{msg} (request id: {request_id})");
        err.insert("message".into(), msg.into());
    }
    if err.get("code").is_none_or(|c| c.is_null()) {
        err.insert("code".into(), "".into());
    }
    if err
        .get("code")
        .and_then(|c| c.as_str())
        .is_some_and(|c| MIDDLEWARE_CODES.contains(&c))
    {
        err.remove("param");
    } else {
        err.insert("param".into(), "".into());
    }
    let bytes = serde_json::to_vec(&value).map(Bytes::from).unwrap_or(bytes);
    http::Response::from_parts(parts, Body::full(bytes))
}

/// The answer to a method and path the service does not route, on a path where that answer
/// is JSON (everything in `documented`; `/v1`, `/api`, `/assets` in `new-api`): 404, the `/v1`
/// error with code `not_found` in `documented`, new-api's `RelayNotFound` body in `new-api`
/// ([`gatecheck_schemas::rules::route`]).
pub fn not_found(profile: Profile, method: &str, path: &str) -> MockResponse {
    use gatecheck_schemas::rules::route;
    let r = Rejection::UnknownPath;
    match profile {
        Profile::Documented => v1_error(
            r.http_status(profile),
            &route::not_found_message(method, path),
            r.code(profile),
            None,
        ),
        Profile::NewApi => json(
            r.http_status(profile),
            &route::new_api_not_found_body(method, path),
        ),
    }
}

/// new-api's answer to any other unrouted path: its dashboard's `index.html` (200
/// `text/html`), here a small stand-in page.
pub fn new_api_index_page() -> MockResponse {
    const PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>New API</title></head><body><div id=\"root\"></div></body></html>";
    let mut resp = bytes_response(
        200,
        "text/html; charset=utf-8",
        Bytes::from_static(PAGE.as_bytes()),
    );
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// The `/v1` error of a [`Rejection`], with its status and code under `profile`.
pub fn rejection(profile: Profile, r: Rejection, message: &str) -> MockResponse {
    if r == Rejection::TaskNotFound {
        return task_not_found(profile);
    }
    v1_error(r.http_status(profile), message, r.code(profile), None)
}

/// A validation failure on an **audio or image** route: 400 in `documented`; 500 with code
/// `invalid_request` in `new-api` (the deployed behaviour).
pub fn validation(profile: Profile, message: &str, param: Option<&str>) -> MockResponse {
    let r = Rejection::MediaValidation;
    v1_error(r.http_status(profile), message, r.code(profile), param)
}

/// A validation failure that is 400 in every profile (video routes).
pub fn invalid(message: &str, param: Option<&str>) -> MockResponse {
    let r = Rejection::Validation;
    v1_error(
        r.http_status(Profile::Documented),
        message,
        r.code(Profile::Documented),
        param,
    )
}

/// An unknown video task: 404 `/v1` error in `documented`; deployed: 400
/// `{"code":"task_not_exist","message":"task_not_exist","data":null}`.
pub fn task_not_found(profile: Profile) -> MockResponse {
    let r = Rejection::TaskNotFound;
    match profile {
        Profile::Documented => v1_error(
            r.http_status(profile),
            "task not found",
            r.code(profile),
            None,
        ),
        Profile::NewApi => json(
            r.http_status(profile),
            &serde_json::json!({"code":"task_not_exist","message":"task_not_exist","data":null}),
        ),
    }
}

/// The `/api` success envelope `{success:true, message:"", data}`.
pub fn api_success<T: Serialize + ?Sized>(data: &T) -> MockResponse {
    json(
        ACCEPTED,
        // Borrowing `data`, and an empty `message` (no allocation): no intermediate `Value`.
        &ApiEnvelope {
            success: true,
            message: String::new(),
            data: Some(data),
        },
    )
}

/// [`api_success`] of a key record, written by the record's own JSON writer
/// ([`KeyRecord::write_json`], byte-identical to its `Serialize`): the answer of every
/// `PUT /api/token/`.
pub fn api_success_key(record: &KeyRecord) -> MockResponse {
    json_written(ACCEPTED, |buf| {
        buf.extend_from_slice(br#"{"success":true,"message":"","data":"#);
        record.write_json(buf);
        buf.push(b'}');
    })
}

/// A JSON answer whose body `write` appends to this thread's reused buffer (for the
/// hand-written writers: the typed records' `write_json`, [`gatecheck_codecs::json`]).
pub fn json_written(status: u16, write: impl FnOnce(&mut Vec<u8>)) -> MockResponse {
    let Ok(body) = with_buffer(|buf| {
        write(buf);
        Ok::<(), std::convert::Infallible>(())
    });
    json_bytes(status, body)
}

/// The `/api` success envelope without data.
pub fn api_ok() -> MockResponse {
    json(
        ACCEPTED,
        &ApiEnvelope::<()> {
            success: true,
            message: String::new(),
            data: None,
        },
    )
}

/// The control API's failure (`/__mock/*`): `{success:false, message}` with `status`.
pub(crate) fn control_failure(status: u16, message: &str) -> MockResponse {
    json(
        status,
        &serde_json::json!({"success": false, "message": message}),
    )
}

/// The `/api` logical failure: HTTP 200 `{success:false, message}`.
pub fn api_failure(message: &str) -> MockResponse {
    api_failure_status(ACCEPTED, message)
}

/// The `/api` failure envelope with another status (401 for auth).
pub fn api_failure_status(status: u16, message: &str) -> MockResponse {
    json(
        status,
        &ApiEnvelope::<()> {
            success: false,
            message: message.to_owned(),
            data: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;

    /// The key answer's hand-written envelope is what `api_success` serializes.
    #[tokio::test]
    async fn the_key_answer_is_the_serialized_envelope() {
        for mut record in crate::Fixtures::embedded().keys {
            record.name = "a \"quoted\" name\n".into();
            let fast = api_success_key(&record).into_body().collect().await;
            let slow = api_success(&record).into_body().collect().await;
            let (fast, slow) = (
                fast.expect("body").to_bytes(),
                slow.expect("body").to_bytes(),
            );
            assert_eq!(fast, slow);
        }
    }
}
