//! Healthy-but-different targets: a proxy in front of the embedded mock that differs from it
//! only where a correct deployment may. Each run of the runner against it has 0 failures.
//!
//! - `/v1` error bodies in new-api's own shape (`new_api_error`, request id in the message),
//!   with the status kept;
//! - a transient `503` on every 3rd `GET /v1/videos/{id}` poll;
//! - a `429` with `Retry-After: 1` on every 11th `/v1` request (not forwarded);
//! - an extra unknown field in every JSON object of every answer;
//! - no control API at all (the mock with `/__mock/*` turned off, polled in real time).
//!
//! A dashboard answering every unknown path with 200 text/html is in `targets.rs`.

use super::support::config;
use super::targets::{forward, serve};
use bytes::Bytes;
use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Which differences the proxy plants.
#[derive(Clone, Copy)]
struct Quirks {
    new_api_errors: bool,
    poll_503: bool,
    rate_429: bool,
    extra_fields: bool,
}

struct Proxy {
    upstream: String,
    client: Client<HttpConnector, Full<Bytes>>,
    quirks: Quirks,
    polls: AtomicU64,
    requests: AtomicU64,
    planted: AtomicU64,
}

fn add_unknown_fields(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for child in map.values_mut() {
                add_unknown_fields(child);
            }
            map.insert("x_gateway_extra".into(), json!({"unknown": true}));
        }
        Value::Array(items) => items.iter_mut().for_each(add_unknown_fields),
        _ => {}
    }
}

fn plain(status: StatusCode, retry_after: Option<&str>, body: Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("ct"));
    if let Some(s) = retry_after {
        r.headers_mut()
            .insert("retry-after", s.parse().expect("retry-after"));
    }
    r
}

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let path = req.uri().path().to_owned();
        let is_v1 = path.starts_with("/v1/");
        // Every 29th `/v1` request: each 429 costs the run its one-second `Retry-After`, and a
        // few of them show the runner waits and retries as well as many do (every 11th made
        // this test 9.4 s of CI's test run).
        if self.quirks.rate_429 && is_v1 && self.requests.fetch_add(1, Ordering::SeqCst) % 29 == 28
        {
            self.planted.fetch_add(1, Ordering::SeqCst);
            return plain(
                StatusCode::TOO_MANY_REQUESTS,
                Some("1"),
                json!({"error": {"message": "rate limited (request id: proxy429)",
                    "type": "new_api_error", "param": "", "code": ""}}),
            );
        }
        let is_poll = req.method() == http::Method::GET
            && path
                .strip_prefix("/v1/videos/")
                .is_some_and(|id| !id.contains('/'));
        if self.quirks.poll_503 && is_poll && self.polls.fetch_add(1, Ordering::SeqCst) % 3 == 2 {
            self.planted.fetch_add(1, Ordering::SeqCst);
            return plain(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                json!({"error": {"message": "upstream busy (request id: proxy503)",
                    "type": "new_api_error", "param": "", "code": ""}}),
            );
        }
        let (mut parts, body) = forward(&self.client, &self.upstream, req).await;
        let is_json = parts
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("application/json"));
        let Some(mut value) = is_json
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
        else {
            return Response::from_parts(parts, Full::new(body));
        };
        // new-api's task routes answer their own `{code, message, data}` errors (D-TASK-3).
        let v1_error_body = value.get("error").is_some();
        if self.quirks.new_api_errors && is_v1 && v1_error_body && parts.status.as_u16() >= 400 {
            let message = value
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("error")
                .to_owned();
            value = json!({"error": {"message": format!("{message} (request id: 20261123X)"),
                "type": "new_api_error", "param": "", "code": ""}});
            self.planted.fetch_add(1, Ordering::SeqCst);
        }
        if self.quirks.extra_fields {
            add_unknown_fields(&mut value);
            self.planted.fetch_add(1, Ordering::SeqCst);
        }
        let out = Bytes::from(value.to_string());
        parts.headers.remove("content-length");
        Response::from_parts(parts, Full::new(out))
    }
}

async fn run(quirks: Quirks) -> (gatecheck_conformance::Report, u64) {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = Arc::new(Proxy {
        upstream: server.uri().trim_end_matches('/').to_owned(),
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        quirks,
        polls: AtomicU64::new(0),
        requests: AtomicU64::new(0),
        planted: AtomicU64::new(0),
    });
    let p = proxy.clone();
    let uri = serve(move |req| {
        let p = p.clone();
        async move { p.handle(req).await }
    })
    .await;
    let report = Runner::new(config(&uri)).run().await.expect("run");
    server.shutdown().await;
    (report, proxy.planted.load(Ordering::SeqCst))
}

const NONE: Quirks = Quirks {
    new_api_errors: false,
    poll_503: false,
    rate_429: false,
    extra_fields: false,
};

/// Runs the runner through a proxy with `quirks`: 0 failures, 0 errors, and deviations only
/// under the DECISIONS rows in `allowed`.
async fn assert_healthy(name: &str, quirks: Quirks, allowed: &[&str]) {
    let (report, planted) = run(quirks).await;
    let show = gatecheck_conformance::report::summary_table(&report);
    let s = &report.summary;
    println!(
        "healthy target {name}: planted {planted}, passed {}, failed {}, deviations {}, errors {}, skipped {}",
        s.passed, s.failed, s.deviations, s.errors, s.skipped
    );
    for c in report
        .checks
        .iter()
        .filter(|c| c.status == Status::Deviation)
    {
        let decision = c.evidence.as_ref().and_then(|e| e.decision.as_deref());
        println!("  deviation {} ({decision:?})", c.id);
        assert!(
            decision.is_some_and(|d| allowed.contains(&d)),
            "{name}: deviation {} not allowed by DECISIONS: {:?}",
            c.id,
            c.evidence
        );
    }
    assert!(planted > 0, "{name}: the proxy planted nothing");
    assert_eq!(s.failed, 0, "{name}\n{show}");
    assert_eq!(s.errors, 0, "{name}\n{show}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_api_error_bodies() {
    let q = Quirks {
        new_api_errors: true,
        ..NONE
    };
    // new-api's own body has an empty `code`: the error codes are decided (D-AUTH), not
    // pinned, so a check that expects one may report a deviation, never a failure.
    assert_healthy("new-api error bodies", q, &["D-AUTH"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_503_on_video_polls() {
    let q = Quirks {
        poll_503: true,
        ..NONE
    };
    assert_healthy("503 on polls", q, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_with_retry_after() {
    let q = Quirks {
        rate_429: true,
        ..NONE
    };
    assert_healthy("429 Retry-After", q, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_unknown_fields() {
    let q = Quirks {
        extra_fields: true,
        ..NONE
    };
    assert_healthy("extra fields", q, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_with_no_control_api() {
    // The mock with its control API turned off is a deployment: `/__mock/health` is a 404, the
    // clock is real, and video tasks are polled to their end in real time.
    let server = super::support::fast_real_clock(gatecheck_schemas::Profile::Documented)
        .no_control()
        .start()
        .await;
    let mut cfg = super::support::with_account(&server, gatecheck_schemas::Profile::Documented);
    cfg.target.key_id = Some(1);
    cfg.target.api_key = Some(server.demo_key().into());
    cfg.limits.poll_interval = Some(super::support::DEPLOYMENT_POLL);
    let report = Runner::new(cfg).run().await.expect("run");
    let show = gatecheck_conformance::report::summary_table(&report);
    super::acceptance::assert_clean("no control API", &report);
    assert!(
        report.notes.iter().any(|n| n.contains("no control API")),
        "{show}"
    );
    let terminal = report
        .checks
        .iter()
        .find(|c| c.id == "video.reaches-terminal");
    assert_eq!(terminal.map(|c| c.status), Some(Status::Passed), "{show}");
    server.shutdown().await;
}
