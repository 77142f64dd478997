//! The answer to a request the route table does not serve (DECISIONS D-ROUTE-2), from the
//! miss of the one lookup (`routes::route`), given before any handler reads a key or a body.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use gatecheck_schemas::routes::{Miss, METHOD_NOT_ALLOWED};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use http::{HeaderValue, Method};

/// The answer to a method and path that the route table (the OpenAPI document) lacks, or
/// that the profile does not serve (`miss`: the methods served at the path). `documented`:
/// 405 with `Allow` for a known path, else 404 (the `/v1` error on `/v1/*`, the `/api` failure envelope
/// elsewhere). `new-api`: gin's `NoRoute`, whatever the method: new-api's JSON 404 under
/// `/v1`, `/api` and `/assets`, its dashboard page elsewhere
/// ([`gatecheck_schemas::rules::route`]).
pub(crate) fn answer(cx: &Ctx, method: &Method, path: &str, miss: &Miss) -> MockResponse {
    let profile = cx.profile();
    if profile == Profile::NewApi {
        return if gatecheck_schemas::rules::route::new_api_not_found_is_json(path) {
            cx.not_found(method, path)
        } else {
            response::new_api_index_page()
        };
    }
    let message = gatecheck_schemas::rules::route::not_found_message(method.as_str(), path);
    let allowed = miss.allowed();
    let v1 = path.starts_with("/v1/");
    let mut resp = match (allowed.is_empty(), v1) {
        (false, true) => response::v1_error(
            METHOD_NOT_ALLOWED,
            &message,
            Some("method_not_allowed"),
            None,
        ),
        (false, false) => response::api_failure_status(METHOD_NOT_ALLOWED, &message),
        (true, true) => return cx.not_found(method, path),
        (true, false) => {
            let status = Rejection::UnknownPath.http_status(profile);
            return response::api_failure_status(status, &message);
        }
    };
    if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
        resp.headers_mut().insert(http::header::ALLOW, v);
    }
    resp
}
