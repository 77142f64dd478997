//! Target discovery that cannot be fooled, and a report in every case.
//!
//! - A dashboard that answers `/__mock/*` with `200 text/html` (as new-api's web UI does for
//!   every unknown path) in front of the mock is a deployment: after the health probe, no
//!   `/__mock/*` request is sent, and the run has 0 failures and 0 deviations.
//! - `--target deployment` never sends `/__mock/*`, not even the probe.
//! - A target that resets every connection gives a report naming the failure, a JUnit case
//!   `target.setup`, and an exit code other than 0 and 2.

use super::support::config;
use bytes::Bytes;
use gatecheck_conformance::report::{to_junit, SetupFailureKind, TargetKind};
use gatecheck_conformance::{exit, Runner, Status, TargetMode};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;

const ACCESS_TOKEN: &str = "8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf";
const API_KEY: &str = "B7LQ4DBqHboMSp4DTHEzEDh2QFLVxZXSezhDvt2gl8t7mqaK";

/// A dashboard in front of the mock: `/__mock/*` is its web UI (`200 text/html`), the rest is
/// forwarded. Counts the `/__mock/*` requests it sees.
struct Dashboard {
    upstream: String,
    client: Client<HttpConnector, Full<Bytes>>,
    mock_hits: AtomicU64,
}

impl Dashboard {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        if req.uri().path().starts_with("/__mock") {
            self.mock_hits.fetch_add(1, Ordering::SeqCst);
            let mut r = Response::new(Full::new(Bytes::from_static(
                b"<!doctype html><html><head><title>New API</title></head><body></body></html>",
            )));
            r.headers_mut().insert(
                "content-type",
                "text/html; charset=utf-8".parse().expect("ct"),
            );
            return r;
        }
        let (parts, body) = forward(&self.client, &self.upstream, req).await;
        Response::from_parts(parts, Full::new(body))
    }
}

/// Sends `req` on to `upstream` (same path and query) and returns the answer's head and its
/// whole body: the forwarding step every test proxy in front of the mock shares.
pub(crate) async fn forward(
    client: &Client<HttpConnector, Full<Bytes>>,
    upstream: &str,
    req: Request<Incoming>,
) -> (http::response::Parts, Bytes) {
    let (mut parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let pq = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("{upstream}{pq}").parse().expect("uri");
    let resp = client
        .request(Request::from_parts(parts, Full::new(body)))
        .await
        .expect("upstream");
    let (parts, body) = resp.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    (parts, body)
}

pub(crate) async fn serve<F, Fut>(handle: F) -> String
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let handle = handle.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let fut = handle(req);
                    async move { Ok::<_, std::convert::Infallible>(fut.await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

async fn dashboard_run(mode: TargetMode) -> (gatecheck_conformance::Report, u64) {
    // A deployment keeps wall time; its tasks end within a second or two.
    let server = super::support::fast_real_clock(gatecheck_schemas::Profile::Documented)
        .start()
        .await;
    let dash = Arc::new(Dashboard {
        upstream: server.uri().trim_end_matches('/').to_owned(),
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        mock_hits: AtomicU64::new(0),
    });
    let d = dash.clone();
    let uri = serve(move |req| {
        let d = d.clone();
        async move { d.handle(req).await }
    })
    .await;
    let mut cfg = config(&uri);
    cfg.known.target_mode = mode;
    cfg.target.access_token = Some(ACCESS_TOKEN.into());
    cfg.target.user_id = Some(1);
    cfg.target.api_key = Some(API_KEY.into());
    cfg.target.key_id = Some(1);
    cfg.limits.poll_interval = Some(super::support::DEPLOYMENT_POLL);
    let report = Runner::new(cfg).run().await.expect("run");
    server.shutdown().await;
    let hits = dash.mock_hits.load(Ordering::SeqCst);
    (report, hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dashboard_on_the_health_path_is_a_deployment() {
    let (report, hits) = dashboard_run(TargetMode::Auto).await;
    let show = gatecheck_conformance::report::summary_table(&report);
    assert_eq!(report.target_kind, TargetKind::Deployment, "{show}");
    assert_eq!(hits, 1, "only the health probe may reach /__mock/*");
    assert!(
        report.notes.iter().any(|n| n.contains("no control API")),
        "{show}"
    );
    assert_eq!(report.summary.failed, 0, "{show}");
    assert_eq!(report.summary.deviations, 0, "{show}");
    assert_eq!(report.summary.errors, 0, "{show}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn target_deployment_never_sends_mock_requests() {
    let (report, hits) = dashboard_run(TargetMode::Deployment).await;
    assert_eq!(report.target_kind, TargetKind::Deployment);
    assert_eq!(hits, 0, "--target deployment sent /__mock/* requests");
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("--target deployment")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mock_is_recognised_by_its_signature() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let mut c = config(&server.uri());
    c.scope.only = vec!["auth.*".into()];
    let report = Runner::new(c).run().await.expect("run");
    server.shutdown().await;
    assert_eq!(report.target_kind, TargetKind::Mock);
    assert_eq!(report.mock_profile.as_deref(), Some("documented"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resetting_target_is_reported_not_a_config_error() {
    // Accepts, then closes with SO_LINGER 0: every connection is reset.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let resets = tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            let _ = s.set_zero_linger();
            drop(s);
        }
    });
    let mut cfg = config(&format!("http://{addr}"));
    cfg.target.api_key = Some("sk-none".into());
    cfg.limits.deadline = std::time::Duration::from_secs(30);
    let report = Runner::new(cfg)
        .run()
        .await
        .expect("a report, not an error");
    resets.abort();
    let code = report.exit_code();
    assert_ne!(code, exit::USAGE);
    assert_ne!(code, exit::PASSED);
    let failure = report.setup_failure.as_ref().expect("setup failure");
    assert_eq!(failure.kind, SetupFailureKind::Unreachable);
    assert_eq!(failure.stage, "health probe");
    assert!(report.checks.iter().all(|c| c.status == Status::Skipped));
    let junit = to_junit(&report);
    assert!(junit.contains("name=\"target.setup\""), "{junit}");
    assert!(junit.contains("<failure"), "{junit}");
}
