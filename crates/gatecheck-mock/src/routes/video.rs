//! `/v1/videos*` and `/__mock/videos/*` (stub until the media routes land).

use super::Ctx;
use crate::error::{self, MockResponse};
use http::Request;
use hyper::body::Incoming;

/// Serves `/v1/videos` and `/v1/videos/*` (authenticated).
pub(crate) async fn handle(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let _ = cx;
    error::v1_error(
        501,
        &format!(
            "{} {} is not implemented yet",
            req.method(),
            req.uri().path()
        ),
        Some("not_implemented"),
        None,
    )
}

/// Serves `/__mock/videos/*` (control API, access already checked).
pub(crate) async fn control(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let _ = cx;
    error::json(
        404,
        &serde_json::json!({"success": false, "message": format!("unknown control route {}", req.uri().path())}),
    )
}
