//! `gatecheck diff` follows the target rules of `check`:
//!
//! - a side that has not proven it is the mock gets no mock-only request: under `auto` only the
//!   health probe reaches its `/__mock/*`, under `deployment` not even that, and `--confirm`
//!   refuses without resetting anything;
//! - a step after a precondition that did not take effect on a side is skipped on both sides,
//!   with the cause, instead of being reported as `401 → 200`;
//! - a side that acknowledges a write and does not apply it is a finding on that write.

use super::targets::{forward, serve};
use bytes::Bytes;
use gatecheck_conformance::diff::{render_text, to_junit, DiffReport, DiffRun, Style};
use gatecheck_conformance::normalize::Normalizer;
use gatecheck_conformance::sequence::{
    OpenSide, PollSettings, Sequence, SequenceOptions, SideKind, SideSpec,
};
use gatecheck_conformance::{Redactor, TargetMode};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ACCESS_TOKEN: &str = "8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf";
const API_KEY: &str = "sk-B7LQ4DBqHboMSp4DTHEzEDh2QFLVxZXSezhDvt2gl8t7mqaK";

/// What the gateway in front of the mock does besides forwarding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gateway {
    /// Answers 404 to `/__mock/*`, forwards the rest.
    Plain,
    /// Also drops `status` from `PUT /api/token/` bodies, and answers
    /// `PUT /api/token/?status_only=1` with `{"success": true}` without passing it on: the
    /// key's status never changes, and every write is acknowledged.
    AcksStatusWrites,
    /// Also answers 404 to every `/api/token/` request (a gateway without key management).
    NoKeyRoutes,
}

/// A gateway in front of a mock that records every path it receives.
struct Proxy {
    upstream: String,
    client: Client<HttpConnector, Full<Bytes>>,
    kind: Gateway,
    paths: Mutex<Vec<String>>,
}

fn json(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("ct"));
    r
}

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let path = req.uri().path().to_owned();
        let query = req.uri().query().unwrap_or("").to_owned();
        self.paths.lock().expect("paths").push(path.clone());
        if path.starts_with("/__mock") {
            return json(StatusCode::NOT_FOUND, r#"{"error":"not found"}"#);
        }
        let token_route = path.starts_with("/api/token");
        if self.kind == Gateway::NoKeyRoutes && token_route {
            return json(StatusCode::NOT_FOUND, r#"{"detail":"Not Found"}"#);
        }
        if self.kind == Gateway::AcksStatusWrites
            && token_route
            && req.method() == http::Method::PUT
        {
            if query.contains("status_only") {
                return json(StatusCode::OK, r#"{"success":true,"message":""}"#);
            }
            return self.forward_without_status(req).await;
        }
        let (parts, body) = forward(&self.client, &self.upstream, req).await;
        Response::from_parts(parts, Full::new(body))
    }

    /// Forwards a JSON request with its `status` field removed.
    async fn forward_without_status(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let (mut parts, body) = req.into_parts();
        let body = body.collect().await.expect("body").to_bytes();
        let mut value: serde_json::Value = serde_json::from_slice(&body).expect("json body");
        if let Some(o) = value.as_object_mut() {
            o.remove("status");
        }
        let body = Bytes::from(value.to_string());
        let pq = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        parts.uri = format!("{}{pq}", self.upstream).parse().expect("uri");
        parts.headers.remove(http::header::CONTENT_LENGTH);
        let resp = self
            .client
            .request(Request::from_parts(parts, Full::new(body)))
            .await
            .expect("upstream");
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.expect("body").to_bytes();
        Response::from_parts(parts, Full::new(body))
    }

    fn mock_paths(&self) -> Vec<String> {
        let paths = self.paths.lock().expect("paths");
        paths
            .iter()
            .filter(|p| p.starts_with("/__mock"))
            .cloned()
            .collect()
    }
}

/// The mock behind a gateway of `kind`; returns the gateway's URL and its record.
async fn gateway(kind: Gateway) -> (String, Arc<Proxy>, MockServer) {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = Arc::new(Proxy {
        upstream: server.uri().trim_end_matches('/').to_owned(),
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        kind,
        paths: Mutex::new(Vec::new()),
    });
    let p = proxy.clone();
    let uri = serve(move |req| {
        let p = p.clone();
        async move { p.handle(req).await }
    })
    .await;
    (uri, proxy, server)
}

/// Polls on a side without the control API: short, and too few for a task to finish on a
/// mock whose clock nobody advances.
fn quick_polls() -> PollSettings {
    PollSettings {
        advance_seconds: 15,
        interval: Duration::from_millis(10),
        max_polls: 2,
    }
}

/// The embedded mock on the left, the gateway URL on the right under `mode`; runs the standard
/// sequence (seed 5) and tries `--confirm`.
async fn diff_against(url: &str, mode: TargetMode) -> (DiffReport, SideKind, Option<String>) {
    let redactor = Redactor::new();
    let timeout = Duration::from_secs(10);
    let left = SideSpec {
        mock: Some(gatecheck_schemas::NamedProfile::DOCUMENTED),
        mock_seed: 1,
        target: mode,
        ..SideSpec::default()
    };
    let right = SideSpec {
        url: Some(url.to_owned()),
        api_key: Some(API_KEY.into()),
        access_token: Some(ACCESS_TOKEN.into()),
        user_id: Some(1),
        key_id: Some(1),
        target: mode,
        ..SideSpec::default()
    };
    let mut l = OpenSide::open(&left, &redactor, quick_polls(), timeout)
        .await
        .expect("left");
    let mut r = OpenSide::open(&right, &redactor, quick_polls(), timeout)
        .await
        .expect("right");
    assert_eq!(l.kind, SideKind::EmbeddedMock);
    let sequence = Sequence::standard(5, &SequenceOptions::default());
    let normalizer = Normalizer::builtin();
    let run = DiffRun {
        sequence: &sequence,
        left_label: l.label.clone(),
        right_label: r.label.clone(),
        normalizer: &normalizer,
        redactor: &redactor,
    };
    let mut report = run.run(&mut l.runner, &mut r.runner).await;
    let refused = run
        .confirm(&mut report, &mut l.runner, &mut r.runner)
        .await
        .err();
    let kind = r.kind.clone();
    l.shutdown().await;
    r.shutdown().await;
    (report, kind, refused)
}

fn step<'a>(report: &'a DiffReport, id: &str) -> &'a gatecheck_conformance::diff::StepDiff {
    report
        .steps
        .iter()
        .find(|s| s.step == id)
        .unwrap_or_else(|| panic!("no step {id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_sends_only_the_health_probe_to_a_side_that_is_not_the_mock() {
    let (url, proxy, server) = gateway(Gateway::Plain).await;
    let (report, kind, refused) = diff_against(&url, TargetMode::Auto).await;
    let text = render_text(&report, Style::default());
    assert_eq!(kind, SideKind::Unsigned, "{text}");
    assert_eq!(proxy.mock_paths(), ["/__mock/health"], "{text}");
    // --confirm refused, naming the side, and reset nothing.
    let refused = refused.expect("--confirm must refuse");
    assert!(refused.contains("right target is not proven"), "{refused}");
    // The video task never completes on the right (no clock is advanced, the polls are few):
    // its content is skipped on both sides, with the cause.
    let content = step(&report, "video.content");
    let cause = content.skipped.as_deref().expect("video.content skipped");
    assert!(cause.contains("video.poll.terminal"), "{cause}");
    assert!(cause.contains("right side"), "{cause}");
    assert!(!content.differs(), "{text}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployment_sends_not_even_the_probe() {
    let (url, proxy, server) = gateway(Gateway::Plain).await;
    let (report, kind, refused) = diff_against(&url, TargetMode::Deployment).await;
    assert_eq!(kind, SideKind::Deployment);
    assert!(
        proxy.mock_paths().is_empty(),
        "{:?}\n{}",
        proxy.mock_paths(),
        render_text(&report, Style::default())
    );
    assert!(refused.is_some());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_write_acknowledged_and_not_applied_is_a_finding_and_its_dependent_skips() {
    let (url, _proxy, server) = gateway(Gateway::AcksStatusWrites).await;
    let (report, _, _) = diff_against(&url, TargetMode::Auto).await;
    let text = render_text(&report, Style::default());
    println!("{text}");
    // The finding is on the write itself, with the read-back as evidence.
    let disable = step(&report, "token.update.status-only-disable");
    assert_eq!(disable.not_applied.len(), 1, "{text}");
    let finding = &disable.not_applied[0];
    assert!(
        finding.starts_with("right: acknowledged (HTTP 200) but not applied"),
        "{finding}"
    );
    assert!(finding.contains("GET /api/token/1"), "{finding}");
    assert!(
        finding.contains("/data/status = 1, expected 2"),
        "{finding}"
    );
    assert!(disable.differs());
    assert!(
        text.contains("writes acknowledged but not applied:"),
        "{text}"
    );
    // The request with the "disabled" key is skipped on both sides, not "401 → 200".
    let disabled = step(&report, "auth.v1.disabled-key-401");
    let cause = disabled.skipped.as_deref().expect("skipped");
    assert!(
        cause.contains("token.update.status-only-disable (to disable the key)"),
        "{cause}"
    );
    assert!(cause.contains("right side"), "{cause}");
    assert!(!disabled.differs(), "{text}");
    assert!(!text.contains("401 → 200"), "{text}");
    assert!(
        text.contains("skipped (a precondition was not met)"),
        "{text}"
    );
    let junit = to_junit(&report);
    assert!(junit.contains("not-applied"), "{junit}");
    assert!(
        junit.contains("skipped on both sides: runs after step token.update.status-only-disable"),
        "{junit}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steps_after_a_refused_precondition_skip_on_both_sides() {
    let (url, _proxy, server) = gateway(Gateway::NoKeyRoutes).await;
    let (report, _, _) = diff_against(&url, TargetMode::Auto).await;
    let text = render_text(&report, Style::default());
    // The key record was never read on the right: every step that needs it skips on both
    // sides, naming the step and what it answered.
    let rename = step(&report, "token.update.valid");
    let cause = rename.skipped.as_deref().expect("skipped");
    assert!(
        cause.contains("needs `key_before` from step token.get, which did not capture it on the right side (it answered 404)"),
        "{cause}"
    );
    assert!(!rename.differs(), "{text}");
    // The disable was refused: no finding, and the disabled-key request skips.
    let disable = step(&report, "token.update.status-only-disable");
    assert!(disable.not_applied.is_empty(), "{text}");
    let disabled = step(&report, "auth.v1.disabled-key-401");
    let cause = disabled.skipped.as_deref().expect("skipped");
    assert!(cause.contains("right side: answered 404"), "{cause}");
    assert!(!text.contains("Some(") && !text.contains("None"), "{text}");
    server.shutdown().await;
}
