//! The answer to a method and path the service does not route.
//!
//! - `documented`: 404 with the `/v1` error `{message: "Invalid URL (METHOD PATH)", type:
//!   new_api_error, code: not_found}` under `/v1`, the `/api` failure envelope elsewhere; a
//!   known path asked with another method is 405 with `Allow`.
//! - `new-api`: gin's `NoRoute` (QuantumNous/new-api router/web-router.go), reached before any
//!   route group's middleware (so before the key is checked), and for a wrong method too
//!   (gin's `HandleMethodNotAllowed` is off): a path whose request URI starts with `/v1`,
//!   `/api` or `/assets` gets controller/relay.go `RelayNotFound`, 404
//!   `{"error":{"message":"Invalid URL (METHOD PATH)","type":"invalid_request_error",
//!   "param":"","code":""}}` (PATH is `URL.Path`: no query string); any other path gets the
//!   dashboard's `index.html`, 200 `text/html` (DECISIONS D-ROUTE-2, D-ROUTE-3).

use serde_json::{json, Value};

/// The `error.type` of new-api's not-found answer.
pub const NEW_API_NOT_FOUND_TYPE: &str = "invalid_request_error";

/// The message of a not-found answer, in both profiles: `Invalid URL (METHOD PATH)`, `path`
/// without its query string.
///
/// ```
/// use gatecheck_schemas::rules::route::not_found_message;
/// assert_eq!(not_found_message("GET", "/v1/videos"), "Invalid URL (GET /v1/videos)");
/// ```
pub fn not_found_message(method: &str, path: &str) -> String {
    format!("Invalid URL ({method} {path})")
}

/// Whether new-api answers an unrouted `path` with its JSON not-found (`/v1`, `/api` and
/// `/assets` prefixes, compared as strings: `/v1beta` too), rather than its dashboard page.
///
/// ```
/// use gatecheck_schemas::rules::route::new_api_not_found_is_json;
/// assert!(new_api_not_found_is_json("/v1/videos"));
/// assert!(new_api_not_found_is_json("/api/nothing"));
/// assert!(!new_api_not_found_is_json("/nothing"));
/// ```
pub fn new_api_not_found_is_json(path: &str) -> bool {
    ["/v1", "/api", "/assets"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
}

/// new-api's not-found body (controller/relay.go `RelayNotFound`).
///
/// ```
/// use gatecheck_schemas::rules::route::{is_new_api_not_found, new_api_not_found_body};
/// let body = new_api_not_found_body("DELETE", "/v1/videos/task_1");
/// assert_eq!(body["error"]["message"], "Invalid URL (DELETE /v1/videos/task_1)");
/// assert!(is_new_api_not_found(&body));
/// ```
pub fn new_api_not_found_body(method: &str, path: &str) -> Value {
    json!({
        "error": {
            "message": not_found_message(method, path),
            "type": NEW_API_NOT_FOUND_TYPE,
            "param": "",
            "code": "",
        }
    })
}

/// Whether `body` is new-api's not-found answer (its type, empty `code` and `param`, and an
/// `Invalid URL (…)` message).
pub fn is_new_api_not_found(body: &Value) -> bool {
    let Some(e) = body.get("error") else {
        return false;
    };
    e.get("type").and_then(Value::as_str) == Some(NEW_API_NOT_FOUND_TYPE)
        && e.get("code").and_then(Value::as_str) == Some("")
        && e.get("param").and_then(Value::as_str) == Some("")
        && e.get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.starts_with("Invalid URL (") && m.ends_with(')'))
}
