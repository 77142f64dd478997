//! The helpers the mock's test modules share, each written once: a small HTTP client, the
//! fixture secrets, the mocks the tests start and the virtual clock's step.

#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

pub const KEY_ENABLED: &str = "B7LQ4DBqHboMSp4DTHEzEDh2QFLVxZXSezhDvt2gl8t7mqaK";
pub const KEY_DISABLED: &str = "zxEZUtubE7R5IiAWNKTJiHXRQIGEo0Fg0WweytpVLqPb5cMp";
pub const KEY_EXPIRED: &str = "kON74U4YD4MKVhEUFM6TZRtR3VtdPqFe8WctSIOdSmdNHncc";
pub const KEY_EXHAUSTED: &str = "myZonkP5GYIRkt5srlSHfWGX0h9JKN7E28r4unICHo1mYQ9q";
pub const KEY_IP_RESTRICTED: &str = "B24gPNXoaK7lZpZso8urnMWy2xdKbiGpW5B9G0xQLOry7eJZ";
pub const KEY_MODEL_RESTRICTED: &str = "XwoR4JuqsdMfI4BRDcrD77MuBVhexlhHNPZDj004bFx0pOGH";
pub const KEY_UNLIMITED: &str = "g9TBsg3uhZQzsWPdwIaqZsFpJEmNwzsXFL41EwCl5ov9RttY";
pub const KEY_OTHER_USER: &str = "nn1sCIvaUojhbOIDYvGmZ4qTOWIsYy2e2CnjTaDjgzdWu252";
pub const ACCESS_TOKEN: &str = "8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf";
pub const OTHER_ACCESS_TOKEN: &str = "ujfoRnxa6wHW35PBbnm3NliqNT1Nx4xy";

/// An answer, fully read.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

impl Resp {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): status {} body {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A keep-alive HTTP/1 client bound to one base URL.
#[derive(Clone)]
pub struct Http {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

impl Http {
    pub fn new(base: impl Into<String>) -> Self {
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(64)
            .build_http();
        Self {
            client,
            base: base.into(),
        }
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Bytes>,
    ) -> Resp {
        self.try_send(method, path, headers, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path} failed: {e}"))
    }

    pub async fn try_send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Bytes>,
    ) -> Result<Resp, String> {
        let mut req = http::Request::builder()
            .method(method)
            .uri(format!("{}{}", self.base, path));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .body(Full::new(body.into()))
            .map_err(|e| e.to_string())?;
        let resp = self
            .client
            .request(req)
            .await
            .map_err(|e| format!("{e:?}"))?;
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
        Ok(Resp {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body,
        })
    }

    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        self.send("GET", path, headers, Bytes::new()).await
    }

    pub async fn json(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: serde_json::Value,
    ) -> Resp {
        let mut all: Vec<(&str, &str)> = vec![("content-type", "application/json")];
        all.extend_from_slice(headers);
        self.send(method, path, &all, Bytes::from(body.to_string()))
            .await
    }
}

/// `Bearer sk-<key>`.
pub fn bearer(key: &str) -> String {
    format!("Bearer sk-{key}")
}

/// The `/v1` error body's parts: (message, type, code).
pub fn v1_error(resp: &Resp) -> (String, String, Option<String>) {
    let v = resp.json();
    let e = &v["error"];
    assert!(e.is_object(), "not a /v1 error body: {v}");
    // `documented` always sends `param`; new-api sends none, and ends the message in
    // " (request id: …)" (DECISIONS NA13).
    let new_api_shape = e["message"]
        .as_str()
        .is_some_and(|m| m.contains(" (request id: "));
    assert!(
        e.get("param").is_some() || new_api_shape,
        "error.param missing: {v}"
    );
    (
        e["message"].as_str().unwrap_or_default().to_owned(),
        e["type"].as_str().unwrap_or_default().to_owned(),
        e["code"].as_str().map(str::to_owned),
    )
}

/// The demo account's access token and user id: the headers of `/api/token/*` requests.
pub const DEMO: [(&str, &str); 2] = [("authorization", ACCESS_TOKEN), ("new-api-user", "1")];

/// `PUT /api/token/{query}` with `body` as the demo account: asserts 200, returns the JSON.
pub async fn put(
    server: &gatecheck_mock::MockServer,
    query: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    let resp = Http::new(server.uri())
        .json("PUT", &format!("/api/token/{query}"), &DEMO, body)
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    resp.json()
}

/// A full key-update body for key `id`: every editable field, at plain values.
pub fn full(id: i64) -> serde_json::Value {
    serde_json::json!({
        "id": id, "name": "kept", "expired_time": -1, "remain_quota": 1000,
        "unlimited_quota": false, "model_limits_enabled": false, "model_limits": "",
        "allow_ips": "", "group": "", "cross_group_retry": false
    })
}

/// A mock of `profile` in the Go-adaptor era (the `new-api-adaptors` expectations; the plugin
/// era's are [`named_server`]'s) on the virtual clock, with the embedded fixtures.
pub async fn adaptors_server(profile: gatecheck_schemas::Profile) -> gatecheck_mock::MockServer {
    adaptors_server_with(profile, gatecheck_mock::Fixtures::embedded()).await
}

/// [`adaptors_server`] with `fixtures`.
pub async fn adaptors_server_with(
    profile: gatecheck_schemas::Profile,
    fixtures: gatecheck_mock::Fixtures,
) -> gatecheck_mock::MockServer {
    gatecheck_mock::MockServer::builder()
        .profile(profile)
        .era(gatecheck_schemas::Era::Adaptors)
        .fixtures(fixtures)
        .clock(gatecheck_mock::ClockMode::virtual_default())
        .start()
        .await
}

/// A mock of the named profile (its profile and era) on the virtual clock.
pub async fn named_server(named: gatecheck_schemas::NamedProfile) -> gatecheck_mock::MockServer {
    gatecheck_mock::MockServer::builder()
        .named_profile(named)
        .clock(gatecheck_mock::ClockMode::virtual_default())
        .start()
        .await
}

/// A fresh `state.json` path in a new temporary directory of this process, named `name`.
pub fn temp_state(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gatecheck-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("state.json")
}

/// `POST path` of the control API with the JSON `body`.
pub async fn control(
    server: &gatecheck_mock::MockServer,
    path: &str,
    body: serde_json::Value,
) -> Resp {
    Http::new(server.uri()).json("POST", path, &[], body).await
}

/// Moves the mock's virtual clock `seconds` on (`POST /__mock/clock/advance`); asserts 200.
pub async fn advance(server: &gatecheck_mock::MockServer, seconds: f64) {
    let resp = Http::new(server.uri())
        .json(
            "POST",
            "/__mock/clock/advance",
            &[],
            serde_json::json!({ "seconds": seconds }),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
}
