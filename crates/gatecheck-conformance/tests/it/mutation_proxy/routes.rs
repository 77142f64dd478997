//! The route bugs: unknown `/v1` paths and the request id header (`planted_routes.rs`).
use super::*;

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
#[allow(unused_variables)]
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
        auth,
        status,
        message,
        code,
        api_message,
        is_poll,
        asks_stream,
        upload,
    } = *a;
    let body0 = rbody.clone();
    let rjson = || serde_json::from_slice::<Value>(&body0).ok();
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
