//! No false alarm on the stream and media surface: a proxy in front of the
//! mock that re-frames every event stream as a correct deployment may (keep-alive comments,
//! `id:` and `retry:` fields, CRLF line ends, no `event:` lines with a closing `data: [DONE]`,
//! unknown fields in every event and usage, the body in 7-byte writes) leaves the stream,
//! usage and edit checks passed, with no failure and no deviation.

use super::support::config;
use bytes::Bytes;
use futures_util::stream;
use gatecheck_conformance::{Report, Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response};
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::TcpListener;

/// How the proxy re-frames an event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// A `: keep-alive` comment before every event, and one at the start.
    KeepAlive,
    /// `id: <n>` and `retry: 3000` fields in every event.
    IdAndRetry,
    /// Every line ended with CRLF.
    Crlf,
    /// No `event:` lines, and `data: [DONE]` after the last event (new-api's speech relay).
    DataOnly,
    /// An unknown field in every event's JSON and in every usage object.
    ExtraFields,
    /// The whole body in 7-byte writes.
    TinyWrites,
}

/// `body`, an event stream, re-framed.
fn reframe(framing: Framing, body: &str) -> String {
    let blocks: Vec<&str> = body.split_terminator("\n\n").collect();
    let mut out = String::new();
    if framing == Framing::KeepAlive {
        out.push_str(": keep-alive\n\n");
    }
    for (i, block) in blocks.iter().enumerate() {
        let mut lines: Vec<String> = Vec::new();
        for line in block.lines() {
            match (framing, line.strip_prefix("data: ")) {
                (Framing::DataOnly, _) if line.starts_with("event:") => continue,
                (Framing::ExtraFields, Some(data)) => {
                    let Ok(mut v) = serde_json::from_str::<Value>(data) else {
                        lines.push(line.to_owned());
                        continue;
                    };
                    v["x_gateway"] = json!({"region": "eu"});
                    if let Some(u) = v.get_mut("usage").and_then(Value::as_object_mut) {
                        u.insert("x_cached_tokens".into(), json!(0));
                    }
                    lines.push(format!("data: {v}"));
                }
                _ => lines.push(line.to_owned()),
            }
        }
        if framing == Framing::IdAndRetry {
            lines.insert(0, format!("id: {}", i + 1));
            lines.push("retry: 3000".to_owned());
        }
        if framing == Framing::KeepAlive {
            out.push_str(": keep-alive\n\n");
        }
        out.push_str(&lines.join("\n"));
        out.push_str("\n\n");
    }
    if framing == Framing::DataOnly && !body.contains("data: [DONE]") {
        out.push_str("data: [DONE]\n\n");
    }
    if framing == Framing::Crlf {
        out = out.replace('\n', "\r\n");
    }
    out
}

struct Proxy {
    upstream: String,
    framing: Framing,
    client: Client<HttpConnector, Full<Bytes>>,
}

type Body = BoxBody<Bytes, Infallible>;

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Body> {
        let (mut parts, body) = req.into_parts();
        let body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let pq = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        parts.uri = format!("{}{pq}", self.upstream).parse().expect("uri");
        parts.headers.remove("content-length");
        let resp = self
            .client
            .request(Request::from_parts(parts, Full::new(body)))
            .await
            .expect("upstream");
        let (mut parts, body) = resp.into_parts();
        let body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let sse = parts
            .headers
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        if !sse {
            return Response::from_parts(parts, Full::new(body).boxed());
        }
        parts.headers.remove("content-length");
        let text = reframe(self.framing, &String::from_utf8_lossy(&body));
        if self.framing != Framing::TinyWrites {
            return Response::from_parts(parts, Full::new(Bytes::from(text)).boxed());
        }
        let chunks: Vec<Result<Frame<Bytes>, Infallible>> = text
            .as_bytes()
            .chunks(7)
            .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
            .collect();
        Response::from_parts(parts, StreamBody::new(stream::iter(chunks)).boxed())
    }
}

async fn start(upstream: String, framing: Framing) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let proxy = Arc::new(Proxy {
        upstream: upstream.trim_end_matches('/').to_owned(),
        framing,
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
    });
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let proxy = proxy.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let proxy = proxy.clone();
                    async move { Ok::<_, Infallible>(proxy.handle(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

async fn run(framing: Framing) -> Report {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let uri = start(server.uri(), framing).await;
    let mut cfg = config(&uri);
    cfg.scope.only = vec!["stream.*".into(), "usage.*".into(), "images.edits.*".into()];
    let report = Runner::new(cfg).run().await.expect("run");
    server.shutdown().await;
    report
}

/// Every framing of `framings` passes the stream, usage and edit checks.
async fn healthy_framings_pass(framings: &[Framing]) {
    for &framing in framings {
        let report = run(framing).await;
        let show = gatecheck_conformance::report::summary_table(&report);
        for c in &report.checks {
            assert_eq!(c.status, Status::Passed, "{framing:?}: {}\n{show}", c.id);
        }
        for id in ["stream.speech", "stream.transcription", "stream.images"] {
            assert!(
                report.checks.iter().any(|c| c.id == id),
                "{framing:?}: {id}"
            );
        }
        let usage = report.checks.iter().find(|c| c.id == "usage.charged");
        // Four routes that report usage and the anchor priced per request (D-STREAM-7).
        assert_eq!(usage.map(|c| c.cases), Some(5), "{framing:?}\n{show}");
    }
}

// The six framings in two tests of three (one loop of six was among the conformance binary's
// longest tests; apart, the halves run side by side).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthy_framings_pass_the_stream_usage_and_edit_checks() {
    healthy_framings_pass(&[Framing::KeepAlive, Framing::IdAndRetry, Framing::Crlf]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_healthy_framings_pass_the_stream_usage_and_edit_checks() {
    healthy_framings_pass(&[Framing::DataOnly, Framing::ExtraFields, Framing::TinyWrites]).await;
}
