//! The route-table gate: the mock serves exactly the operations of the OpenAPI document
//! (`gatecheck_schemas::routes::ROUTES`, from which `schemas/openapi.json` is generated).
//! A handler added without a table entry is answered by the gate (404, or 405 with `Allow`),
//! so its own test fails; a table entry without a handler fails `every_documented_route_is_served`.

use crate::support::*;
use gatecheck_mock::MockServer;
use gatecheck_schemas::routes::{find_route, ROUTES};

/// A request path for an OpenAPI path template, with sample parameter values.
fn concrete(template: &str) -> String {
    template
        .replace("{task_id}", "task_unknown")
        .replace("{model}", "whisper-1")
        .replace("{id}", "1")
        .replace("{file}", "ab_8x8")
}

/// Whether `resp` is the gate's answer (the route is not in the table).
fn gated(resp: &Resp) -> bool {
    matches!(resp.status, 404 | 405) && resp.text().contains("Invalid URL")
}

#[tokio::test]
async fn every_documented_route_is_served() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let key = bearer(KEY_ENABLED);
    for route in ROUTES {
        let path = concrete(route.path);
        let auth = if path.starts_with("/v1/") || path == "/api/usage/token" {
            key.as_str()
        } else {
            ACCESS_TOKEN
        };
        let resp = http
            .send(route.method, &path, &[("authorization", auth)], "")
            .await;
        assert!(
            !gated(&resp),
            "{} {path} ({}) is in the table but not served: {} {}",
            route.method,
            route.operation_id,
            resp.status,
            resp.text()
        );
    }
}

#[tokio::test]
async fn a_route_outside_the_document_is_not_served() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let key = bearer(KEY_ENABLED);
    // Methods and paths next to served ones, each of which some handler would take.
    for (method, path) in [
        ("POST", "/v1/models"),
        ("GET", "/v1/chat/completions"),
        ("PATCH", "/v1/videos"),
        ("GET", "/v1/videos/task_x/content/extra"),
        ("GET", "/v1/audio/speech"),
        ("PUT", "/api/usage/token"),
        ("PATCH", "/api/token/"),
        ("GET", "/api/token/1/key"),
        ("GET", "/media/images/ab_8x8.jpg"),
        ("POST", "/media/images/ab_8x8.png"),
        ("DELETE", "/health"),
    ] {
        assert!(find_route(method, path).is_none(), "{method} {path}");
        let auth = if path.starts_with("/v1/") {
            key.as_str()
        } else {
            ACCESS_TOKEN
        };
        let resp = http
            .send(method, path, &[("authorization", auth)], "")
            .await;
        assert!(
            gated(&resp),
            "{method} {path} is not documented but served: {} {}",
            resp.status,
            resp.text()
        );
    }
}

/// A route is admitted as its row of the table says, whatever spelling of the path matched
/// it: the one lookup ignores empty segments, so `//v1/...` and `/v1//...` are the `/v1`
/// routes, and they refuse a request without a key as `/v1/...` does.
#[tokio::test]
async fn a_route_reached_through_empty_segments_is_admitted_as_its_row() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    for (method, path) in [
        ("GET", "//v1/models"),
        ("GET", "/v1//models/"),
        ("POST", "//v1/audio/speech"),
        ("GET", "/v1/videos//task_x"),
    ] {
        assert!(find_route(method, path).is_some(), "{method} {path}");
        let resp = http.send(method, path, &[], "").await;
        assert_eq!(resp.status, 401, "{method} {path}: {}", resp.text());
    }
    let key = bearer(KEY_ENABLED);
    let resp = http
        .send("GET", "//v1/models", &[("authorization", key.as_str())], "")
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    assert!(
        resp.text().contains("\"object\":\"list\""),
        "{}",
        resp.text()
    );
}
