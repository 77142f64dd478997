//! Response builders: the `/v1` error body, the `/api` envelope, JSON answers.
//!
//! - `/v1/*` errors: `{"error":{"message","type":"new_api_error","param","code"}}`.
//! - `/api/*` logical failures: HTTP 200 `{"success":false,"message"}`.

use bytes::Bytes;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use http::{header, HeaderValue, StatusCode};
use http_body_util::Full;
use serde::Serialize;

/// The body type of every answer.
pub type Body = Full<Bytes>;
/// An answer of the mock.
pub type MockResponse = http::Response<Body>;

static JSON: HeaderValue = HeaderValue::from_static("application/json");

/// An answer with `body` and `content_type`.
pub fn bytes_response(status: u16, content_type: &'static str, body: Bytes) -> MockResponse {
    let mut resp = http::Response::new(Full::new(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

/// A JSON answer of pre-serialized bytes.
pub fn json_bytes(status: u16, body: Bytes) -> MockResponse {
    let mut resp = http::Response::new(Full::new(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, JSON.clone());
    resp
}

/// A JSON answer.
pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> MockResponse {
    match serde_json::to_vec(value) {
        Ok(v) => json_bytes(status, Bytes::from(v)),
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
    v1_error(400, message, r.code(Profile::Documented), param)
}

/// An unknown video task: 404 `/v1` error in `documented`; deployed: 400
/// `{"code":"task_not_exist","message":"task_not_exist","data":null}`.
pub fn task_not_found(profile: Profile) -> MockResponse {
    match profile {
        Profile::Documented => v1_error(404, "task not found", Some("task_not_found"), None),
        Profile::NewApi => json(
            400,
            &serde_json::json!({"code":"task_not_exist","message":"task_not_exist","data":null}),
        ),
    }
}

/// The `/api` success envelope `{success:true, message:"", data}`.
pub fn api_success<T: Serialize>(data: &T) -> MockResponse {
    json(
        200,
        &serde_json::json!({"success": true, "message": "", "data": data}),
    )
}

/// The `/api` success envelope without data.
pub fn api_ok() -> MockResponse {
    json(200, &serde_json::json!({"success": true, "message": ""}))
}

/// The `/api` logical failure: HTTP 200 `{success:false, message}`.
pub fn api_failure(message: &str) -> MockResponse {
    api_failure_status(200, message)
}

/// The `/api` failure envelope with another status (401 for auth).
pub fn api_failure_status(status: u16, message: &str) -> MockResponse {
    json(
        status,
        &serde_json::json!({"success": false, "message": message}),
    )
}
