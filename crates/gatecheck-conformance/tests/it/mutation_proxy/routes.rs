//! The route bugs: unknown `/v1` paths and the request id header (`planted_routes.rs`).
use super::*;

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    _rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer {
        path,
        status,
        method,
        code,
        ..
    } = *a;
    match p.bug {
        // The plugin era's bugs (`planted_plugins.rs`).
        Bug::HeadContentNotRouted
            if *method == http::Method::HEAD && path.ends_with("/content") =>
        {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::NOT_FOUND;
            r.headers_mut()
                .insert("content-type", "application/json".parse().expect("ct"));
            return Some(r);
        }
        Bug::NotFoundCacheable if status == 404 && path.starts_with("/v1/gatecheck-") => {
            for name in ["cache-control", "pragma", "expires"] {
                rparts.headers.remove(name);
            }
        }
        Bug::PluginRefusalCodeLost
            if status == 400
                && path == "/v1/videos"
                && code == gatecheck_schemas::rules::era::PLUGIN_REQUEST_INVALID =>
        {
            if let Ok(mut v) = serde_json::from_slice::<Value>(_rbody) {
                match v.get_mut("error").filter(|e| e.is_object()) {
                    Some(e) => e["code"] = json!("invalid_request"),
                    None => v["code"] = json!("invalid_request"),
                }
                *_rbody = Bytes::from(v.to_string());
            }
        }
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
