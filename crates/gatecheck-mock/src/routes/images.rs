//! `/v1/images/*` and the public `/media/*` result files (stub until the media routes land).

use super::Ctx;
use crate::error::{self, MockResponse};
use http::Request;
use hyper::body::Incoming;

/// Serves `/v1/images/*` (authenticated).
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

/// Serves `/media/*` (no auth): files behind result URLs.
pub(crate) async fn public(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    cx.not_found(req.method(), req.uri().path())
}
