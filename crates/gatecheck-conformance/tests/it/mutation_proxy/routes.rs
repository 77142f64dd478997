//! The route bugs: unknown `/v1` paths and the request id header (`planted_routes.rs`).
use super::*;

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    _rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer { path, status, .. } = *a;
    match p.bug {
        Bug::UnknownPathDashboard if status == 404 && path.starts_with("/v1/gatecheck-") => {
            let mut r = Response::new(Full::new(Bytes::from_static(
                b"<!doctype html><title>dashboard</title>",
            )));
            r.headers_mut()
                .insert("content-type", "text/html".parse().expect("ct"));
            return Some(r);
        }
        Bug::NoRequestId if path.starts_with("/v1/") && status >= 400 => {
            rparts.headers.remove("x-oneapi-request-id");
        }
        _ => {}
    }
    None
}
