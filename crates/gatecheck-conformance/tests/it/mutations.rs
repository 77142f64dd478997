//! Mutation tests: a proxy in front of the mock plants one bug at a time, and the runner must
//! catch each with the right check. A proxy without a bug must pass everything (no false
//! alarms from the proxy itself).

use bytes::Bytes;
use gatecheck_conformance::{known_capabilities, Report, Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// One planted bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bug {
    /// No bug: the proxy forwards faithfully.
    None,
    /// Key names are limited to 50 bytes instead of 50 characters.
    NameCountedInBytes,
    /// A disabled key is let through.
    DisabledKeyAccepted,
    /// An expired key is let through.
    ExpiredKeyAccepted,
    /// Every 401 on a model route becomes 403.
    Status401To403,
    /// Video progress goes backwards every other poll.
    ProgressRegresses,
    /// A completed task reports progress 99.
    CompletedAt99,
    /// A task never reaches a terminal state.
    NeverTerminal,
    /// Speech in mp3 is served as application/octet-stream.
    WrongSpeechContentType,
    /// The translation result has no `text`.
    MissingText,
    /// Temperatures outside [0, 1] are accepted.
    UncheckedTemperature,
    /// `status` in a key update is dropped (not applied).
    StatusNotApplied,
    /// The catalog envelope has no `total`.
    CatalogWithoutTotal,
    /// Image sizes are not checked against the model.
    ImageSizeUnchecked,
    /// An unknown task id is answered 400.
    UnknownTask400,
    /// The create response's `task_id` differs from `id`.
    TaskIdMismatch,
    /// A wrong access token succeeds.
    WrongTokenSucceeds,
    /// The IP allowlist is ignored.
    IpAllowlistIgnored,
    /// Model limits are ignored.
    ModelLimitsIgnored,
    /// An empty prompt creates a video task.
    EmptyPromptAccepted,
    /// `/v1` errors lose `X-Oneapi-Request-Id` (a deviation).
    NoRequestId,
}

struct Proxy {
    upstream: String,
    bug: Bug,
    client: Client<HttpConnector, Full<Bytes>>,
    polls: AtomicU64,
}

async fn start_proxy(upstream: String, bug: Bug) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let proxy = Arc::new(Proxy {
        upstream,
        bug,
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        polls: AtomicU64::new(0),
    });
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                break;
            };
            let proxy = proxy.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let proxy = proxy.clone();
                    async move { Ok::<_, std::convert::Infallible>(proxy.handle(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

fn json_response(status: u16, v: &Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("ct"));
    r.headers_mut()
        .insert("x-oneapi-request-id", "proxy".parse().expect("id"));
    r
}

fn admitted_400() -> Response<Full<Bytes>> {
    json_response(
        400,
        &json!({"error": {"message": "invalid request", "type": "new_api_error", "param": null, "code": "invalid_request"}}),
    )
}

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let (mut parts, body) = req.into_parts();
        let mut body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let path = parts.uri.path().to_string();
        let query = parts.uri.query().map(str::to_owned);
        let auth = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let method = parts.method.clone();
        // Request-side bugs.
        match self.bug {
            Bug::NameCountedInBytes if path == "/api/token/" && method == http::Method::PUT => {
                let name = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default();
                if name.len() > 50 {
                    return json_response(
                        200,
                        &json!({"success": false, "message": "token name is too long"}),
                    );
                }
            }
            Bug::StatusNotApplied if path == "/api/token/" && query.is_none() => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    if let Some(o) = v.as_object_mut() {
                        o.remove("status");
                    }
                    body = Bytes::from(v.to_string());
                }
            }
            Bug::UncheckedTemperature if path.starts_with("/v1/audio/") => {
                let text = String::from_utf8_lossy(&body).into_owned();
                let re =
                    regex::Regex::new(r#"name="temperature"\r\n\r\n([^\r]*)\r\n"#).expect("re");
                if let Some(c) = re.captures(&text) {
                    let t: f64 = c[1].parse().unwrap_or(0.0);
                    if !(0.0..=1.0).contains(&t) {
                        let fixed = text.replace(&c[0], "name=\"temperature\"\r\n\r\n0.5\r\n");
                        body = Bytes::from(fixed.into_bytes());
                    }
                }
            }
            Bug::ImageSizeUnchecked if path == "/v1/images/generations" => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    let model = v
                        .get("model")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    let sizes = known_capabilities()
                        .get(&model)
                        .and_then(|c| c.image.clone())
                        .map(|i| i.sizes)
                        .unwrap_or_default();
                    let size = v
                        .get("size")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    if !sizes.is_empty() && !sizes.contains(&size) && v.get("prompt").is_some() {
                        v["size"] = json!(sizes[0]);
                        body = Bytes::from(v.to_string());
                    }
                }
            }
            Bug::WrongTokenSucceeds
                if path.starts_with("/api/token") && auth.starts_with("wrong") =>
            {
                return json_response(200, &json!({"success": true, "message": "", "data": {}}));
            }
            Bug::EmptyPromptAccepted if path == "/v1/videos" && method == http::Method::POST => {
                if let Ok(mut v) = serde_json::from_slice::<Value>(&body) {
                    if v.get("prompt").and_then(Value::as_str) == Some("")
                        || v.get("prompt").is_none()
                    {
                        v["prompt"] = json!("filled in by the proxy");
                        body = Bytes::from(v.to_string());
                    }
                }
            }
            _ => {}
        }
        // Forward.
        parts.headers.remove("content-length");
        parts.headers.remove("transfer-encoding");
        let uri = format!(
            "{}{}",
            self.upstream,
            parts
                .uri
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or("/")
        );
        parts.uri = uri.parse().expect("uri");
        let upstream = Request::from_parts(parts, Full::new(body));
        let Ok(resp) = self.client.request(upstream).await else {
            return json_response(
                502,
                &json!({"error": {"message": "proxy: upstream failed", "type": "proxy", "param": null, "code": null}}),
            );
        };
        let (mut rparts, rbody) = resp.into_parts();
        let mut rbody = rbody
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        rparts.headers.remove("content-length");
        rparts.headers.remove("transfer-encoding");
        let status = rparts.status.as_u16();
        let rjson = || serde_json::from_slice::<Value>(&rbody).ok();
        let message = rjson()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let code = rjson()
            .and_then(|v| {
                v.pointer("/error/code")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let is_poll = method == http::Method::GET
            && path.starts_with("/v1/videos/task_")
            && !path.ends_with("/content");
        // Response-side bugs.
        match self.bug {
            Bug::DisabledKeyAccepted
                if status == 401 && message.contains("status is unavailable") =>
            {
                return admitted_400();
            }
            Bug::ExpiredKeyAccepted if status == 401 && message.contains("expired") => {
                return admitted_400()
            }
            Bug::IpAllowlistIgnored if status == 403 && code == "access_denied" => {
                return admitted_400()
            }
            Bug::ModelLimitsIgnored if status == 403 && code == "model_not_allowed" => {
                return admitted_400()
            }
            Bug::Status401To403 if status == 401 && path.starts_with("/v1/") => {
                rparts.status = StatusCode::FORBIDDEN;
            }
            Bug::UnknownTask400 if status == 404 && is_poll => {
                rparts.status = StatusCode::BAD_REQUEST
            }
            Bug::NoRequestId if path.starts_with("/v1/") && status >= 400 => {
                rparts.headers.remove("x-oneapi-request-id");
            }
            Bug::WrongSpeechContentType if path == "/v1/audio/speech" && status == 200 => {
                rparts.headers.insert(
                    "content-type",
                    "application/octet-stream".parse().expect("ct"),
                );
            }
            Bug::MissingText
            | Bug::CatalogWithoutTotal
            | Bug::ProgressRegresses
            | Bug::CompletedAt99
            | Bug::NeverTerminal
            | Bug::TaskIdMismatch => {
                if let Some(mut v) = rjson() {
                    let changed = self.rewrite(&mut v, &path, &method, is_poll);
                    if changed {
                        rbody = Bytes::from(v.to_string());
                    }
                }
            }
            _ => {}
        }
        Response::from_parts(rparts, Full::new(rbody))
    }

    fn rewrite(&self, v: &mut Value, path: &str, method: &http::Method, is_poll: bool) -> bool {
        let Some(o) = v.as_object_mut() else {
            return false;
        };
        match self.bug {
            Bug::MissingText if path == "/v1/audio/translations" => o.remove("text").is_some(),
            Bug::CatalogWithoutTotal if path == "/api/models" => o.remove("total").is_some(),
            Bug::TaskIdMismatch if path == "/v1/videos" && method == http::Method::POST => {
                o.insert("task_id".into(), json!("task_mismatched"));
                true
            }
            Bug::ProgressRegresses if is_poll => {
                let n = self.polls.fetch_add(1, Ordering::SeqCst);
                let running = o.get("status").and_then(Value::as_str) == Some("in_progress");
                let p = o.get("progress").and_then(Value::as_i64).unwrap_or(0);
                if running && n % 2 == 1 && p >= 25 {
                    o.insert("progress".into(), json!(p - 25));
                    return true;
                }
                false
            }
            Bug::CompletedAt99
                if is_poll && o.get("status").and_then(Value::as_str) == Some("completed") =>
            {
                o.insert("progress".into(), json!(99));
                true
            }
            Bug::NeverTerminal if is_poll => {
                let terminal = matches!(
                    o.get("status").and_then(Value::as_str),
                    Some("completed" | "failed" | "error")
                );
                if terminal {
                    o.insert("status".into(), json!("in_progress"));
                    o.insert("progress".into(), json!(50));
                    o.remove("completed_at");
                    o.remove("video_url");
                    o.remove("error");
                    o.remove("metadata");
                }
                terminal
            }
            _ => false,
        }
    }
}

async fn run_with(bug: Bug) -> (Report, Duration) {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = start_proxy(server.uri(), bug).await;
    let start = Instant::now();
    // The 26 MiB upload of `audio.upload.too-large-413` goes through the proxy too: the mock
    // drains the body it refuses (a lingering close), so the proxy gets the 413, not a reset.
    let config = super::against_mock::config(&proxy).with_deadline(Duration::from_secs(60));
    let report = Runner::new(config).run().await.expect("run");
    let took = start.elapsed();
    server.shutdown().await;
    (report, took)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faithful_proxy_passes_everything() {
    let (report, _) = run_with(Bug::None).await;
    let bad: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Passed)
        .map(|c| c.id.clone())
        .collect();
    assert!(
        bad.is_empty(),
        "{}",
        gatecheck_conformance::report::summary_table(&report)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_planted_bug_is_caught_by_its_check() {
    let bugs: &[(Bug, &str, Status)] = &[
        (
            Bug::NameCountedInBytes,
            "token.update.name-50-chars",
            Status::Failed,
        ),
        (
            Bug::DisabledKeyAccepted,
            "key.disabled-rejected",
            Status::Failed,
        ),
        (
            Bug::ExpiredKeyAccepted,
            "key.expired-time-past-rejected",
            Status::Failed,
        ),
        (
            Bug::Status401To403,
            "auth.v1.missing-key-401",
            Status::Failed,
        ),
        (
            Bug::ProgressRegresses,
            "video.progress.monotone",
            Status::Failed,
        ),
        (
            Bug::CompletedAt99,
            "video.completed.progress-100",
            Status::Failed,
        ),
        (
            Bug::WrongSpeechContentType,
            "audio.speech.mp3",
            Status::Failed,
        ),
        (
            Bug::MissingText,
            "audio.translation.json-text",
            Status::Failed,
        ),
        (
            Bug::UncheckedTemperature,
            "audio.translation.temperature-range",
            Status::Failed,
        ),
        (
            Bug::StatusNotApplied,
            "token.update.status-applied",
            Status::Failed,
        ),
        (
            Bug::CatalogWithoutTotal,
            "catalog.envelope-schema",
            Status::Failed,
        ),
        (
            Bug::ImageSizeUnchecked,
            "images.size-must-match-model",
            Status::Failed,
        ),
        (
            Bug::UnknownTask400,
            "video.poll.unknown-id-404",
            Status::Failed,
        ),
        (Bug::TaskIdMismatch, "video.create.queued", Status::Failed),
        (
            Bug::WrongTokenSucceeds,
            "auth.token.wrong-token-rejected",
            Status::Failed,
        ),
        (Bug::IpAllowlistIgnored, "key.ip-allowlist", Status::Failed),
        (Bug::ModelLimitsIgnored, "key.model-limits", Status::Failed),
        (
            Bug::EmptyPromptAccepted,
            "video.create.empty-prompt-400",
            Status::Failed,
        ),
        (Bug::NoRequestId, "v1.request-id-header", Status::Deviation),
    ];
    let mut missed = Vec::new();
    for (bug, id, status) in bugs {
        let (report, _) = run_with(*bug).await;
        let got = report.checks.iter().find(|c| c.id == *id).map(|c| c.status);
        if got != Some(*status) {
            missed.push(format!(
                "{bug:?}: {id} was {got:?}\n{}",
                gatecheck_conformance::report::summary_table(&report)
            ));
        }
        let evidence = report
            .checks
            .iter()
            .find(|c| c.id == *id)
            .and_then(|c| c.evidence.clone());
        if let Some(e) = evidence {
            assert!(
                e.curl.is_some_and(|c| c.starts_with("curl ")),
                "{bug:?}: no curl reproduction"
            );
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_never_ends_is_reported_at_the_deadline_not_hung() {
    let (report, took) = run_with(Bug::NeverTerminal).await;
    let c = report
        .checks
        .iter()
        .find(|c| c.id == "video.reaches-terminal")
        .expect("check");
    assert_eq!(
        c.status,
        Status::Failed,
        "{}",
        gatecheck_conformance::report::summary_table(&report)
    );
    let msg = &c.evidence.as_ref().expect("evidence").message;
    assert!(msg.contains("no terminal state"), "{msg}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_turns_a_deviation_into_a_failing_run() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = start_proxy(server.uri(), Bug::NoRequestId).await;
    let lenient = super::against_mock::config(&proxy).with_only(["v1.*"]);
    let report = Runner::new(lenient.clone()).run().await.expect("run");
    assert_eq!(
        report.ids_with(Status::Deviation),
        vec!["v1.request-id-header"]
    );
    assert_eq!(report.exit_code(), gatecheck_conformance::exit::PASSED);
    let strict = Runner::new(lenient.with_strict(true))
        .run()
        .await
        .expect("run");
    assert_eq!(
        strict.exit_code(),
        gatecheck_conformance::exit::CONTRACT_FAILURES
    );
    server.shutdown().await;
}
