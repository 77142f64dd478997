//! The era of new-api's task layer (DECISIONS D-ERA-*): how a target shows it, and the
//! host-level behaviour of the plugin era (QuantumNous/new-api PR #7076, merged 2026-08-29)
//! that the mock plays and the runner judges in it. Per-platform plugin behaviour is in
//! `rules::platforms`.
//!
//! - The version `GET /api/status` reports ([`era_of_version`]): `v1.0.0-rc.21` and before
//!   run the Go adaptors (issue #6358, 2026-07-20, main at e0d51561); `v1.0.0-rc.24` still did
//!   (issue #7194: "rc.24" answered `/v1/videos/{id}` with the URL); `v1.0.0-rc.30` runs the
//!   plugins (issue #7194, 2026-09-03: the artifacts route `/v1/tasks/{id}/artifacts/…`), as
//!   does `v1.0.0-rc.34` (issue #7251, 2026-09-07). rc.25 to rc.29 are not told by the version.
//! - The routes only the plugins serve ([`PLUGIN_ROUTE_PROBE`]) and the no-store headers of
//!   the plugin era's not-found answer ([`NOT_FOUND_NO_STORE`]).

use crate::Era;
use serde_json::{json, Value};

/// The last release candidate known to run the Go adaptors (issue #7194: rc.24).
pub const LAST_ADAPTORS_RC: u32 = 24;
/// The first release candidate known to run the plugins (issue #7194: rc.30).
pub const FIRST_PLUGINS_RC: u32 = 30;

/// The era a new-api version string tells (`v1.0.0-rc.34`, `v1.0.0-rc.34-3-gbfe718e4`,
/// `v0.9.1`, `v1.0.1`), or `None`: not a new-api release version (a dev build's `v0.0.0`,
/// the mock's `gatecheck-mock-…`), or a release candidate between the last known adaptor one
/// and the first known plugin one.
///
/// ```
/// use gatecheck_schemas::rules::era::era_of_version;
/// use gatecheck_schemas::Era;
/// assert_eq!(era_of_version("v1.0.0-rc.34"), Some(Era::Plugins));
/// assert_eq!(era_of_version("v1.0.0-rc.34-3-gbfe718e4"), Some(Era::Plugins));
/// assert_eq!(era_of_version("v1.0.0-rc.21"), Some(Era::Adaptors));
/// assert_eq!(era_of_version("v0.9.27"), Some(Era::Adaptors));
/// assert_eq!(era_of_version("v1.0.0-rc.27"), None);
/// assert_eq!(era_of_version("v1.0.0"), Some(Era::Plugins));
/// assert_eq!(era_of_version("v0.0.0"), None);
/// assert_eq!(era_of_version("gatecheck-mock-0.1.0"), None);
/// ```
pub fn era_of_version(version: &str) -> Option<Era> {
    let v = version.trim().strip_prefix('v')?;
    let (core, pre) = match v.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (v, None),
    };
    let parts: Vec<u32> = core
        .split('.')
        .map(|p| p.parse::<u32>().ok())
        .collect::<Option<_>>()?;
    let (major, minor) = (*parts.first()?, parts.get(1).copied().unwrap_or(0));
    if parts.iter().all(|p| *p == 0) {
        return None;
    }
    if major == 0 {
        return Some(Era::Adaptors);
    }
    if (major, minor, parts.get(2).copied().unwrap_or(0)) != (1, 0, 0) {
        return Some(Era::Plugins);
    }
    let Some(pre) = pre else {
        // v1.0.0 itself: released after every rc.
        return Some(Era::Plugins);
    };
    let rc: u32 = pre.strip_prefix("rc.")?.split('-').next()?.parse().ok()?;
    if rc <= LAST_ADAPTORS_RC {
        Some(Era::Adaptors)
    } else if rc >= FIRST_PLUGINS_RC {
        Some(Era::Plugins)
    } else {
        None
    }
}

/// A route only the plugin era serves (the doubao plugin's declared submit route,
/// plugins/builtin_plugins_test.go@2f6bf06b): asked without a key, the plugin era refuses it
/// as any relay route (401 JSON, before a plugin runs); the adaptor era has no such route and
/// answers its dashboard page (200 `text/html`, router/web-router.go) or a 404.
pub const PLUGIN_ROUTE_PROBE: &str = "/doubao/api/v3/contents/generations/tasks";

/// Whether an answer to the unauthenticated `POST` [`PLUGIN_ROUTE_PROBE`] shows the route
/// served: a JSON answer that is not a not-found (404, 405, 501).
///
/// ```
/// use gatecheck_schemas::rules::era::plugin_route_served;
/// assert!(plugin_route_served(401, Some("application/json; charset=utf-8")));
/// assert!(!plugin_route_served(200, Some("text/html; charset=utf-8")));
/// assert!(!plugin_route_served(404, Some("application/json")));
/// ```
pub fn plugin_route_served(status: u16, content_type: Option<&str>) -> bool {
    let json = content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|ct| ct.trim().eq_ignore_ascii_case("application/json"));
    json && !matches!(status, 404 | 405 | 501)
}

/// The headers the plugin era's `RelayNotFound` adds (controller/relay.go, plugin-era
/// variants; AUDIT-plugins §1, medium): the adaptor era's not-found carries the web router's
/// `Cache-Control: max-age=604800` instead (middleware/cache.go@823e263).
pub const NOT_FOUND_NO_STORE: [(&str, &str); 3] = [
    (
        "cache-control",
        "no-store, no-cache, must-revalidate, private, max-age=0",
    ),
    ("pragma", "no-cache"),
    ("expires", "0"),
];

/// Whether a `Cache-Control` value forbids storing the answer (`no-store` among its
/// directives): what the plugin era's not-found answer says.
///
/// ```
/// use gatecheck_schemas::rules::era::forbids_store;
/// assert!(forbids_store(Some("no-store, no-cache, must-revalidate, private, max-age=0")));
/// assert!(!forbids_store(Some("max-age=604800")));
/// assert!(!forbids_store(None));
/// ```
pub fn forbids_store(cache_control: Option<&str>) -> bool {
    cache_control.is_some_and(|v| {
        v.split(',')
            .any(|d| d.trim().eq_ignore_ascii_case("no-store"))
    })
}

/// The `code` of a plugin's `decodeRequest` refusal (jsplugin/adaptor.go@60a13c2e).
pub const PLUGIN_REQUEST_INVALID: &str = "plugin_request_invalid";
/// The status of a plugin's refusal (jsplugin/adaptor.go@60a13c2e `ValidateRequestAndSetAction`).
pub const PLUGIN_REFUSAL_STATUS: u16 = 400;
/// The `code` of a plugin's usage refusal (jsplugin/adaptor.go@60a13c2e).
pub const PLUGIN_USAGE_INVALID: &str = "plugin_usage_invalid";
/// The Sora plugin's refusal of an empty or missing prompt (plugins/tasks/sora/plugin.js
/// @2f6bf06b `buildSubmitRequest`): the prompt check moved from the host into the plugins.
pub const MSG_FIELD_PROMPT_REQUIRED: &str = "field prompt is required";

/// A plugin's refusal on `POST /v1/videos`, 400, as new-api writes it: the task error
/// `{code, message, data}` (controller/relay.go `respondTaskSubmissionError`: the plugin's
/// `native.error` renders only a pinned native route, so a protocol endpoint falls through to
/// `respondTaskError`, `c.JSON(status, taskErr)`; DECISIONS D-ERA-4). Shared by every
/// plugin's refusals (per platform: `rules::platforms`).
///
/// ```
/// use gatecheck_schemas::rules::era::{is_plugin_refusal, plugin_refusal_body};
/// let body = plugin_refusal_body("field prompt is required");
/// assert_eq!(body["code"], "plugin_request_invalid");
/// assert_eq!(body["data"], serde_json::Value::Null);
/// assert!(is_plugin_refusal(&body));
/// assert!(!is_plugin_refusal(&serde_json::json!({"error": {"code": "invalid_request"}})));
/// ```
pub fn plugin_refusal_body(message: &str) -> Value {
    json!({
        "code": PLUGIN_REQUEST_INVALID,
        "message": message,
        "data": null,
    })
}

/// Whether `body` is a plugin's refusal (`code` `plugin_request_invalid` or
/// `plugin_usage_invalid`, in the `/v1` envelope or at the top level as a task error).
pub fn is_plugin_refusal(body: &Value) -> bool {
    let code = body
        .pointer("/error/code")
        .or_else(|| body.get("code"))
        .and_then(Value::as_str);
    matches!(code, Some(PLUGIN_REQUEST_INVALID | PLUGIN_USAGE_INVALID))
}
