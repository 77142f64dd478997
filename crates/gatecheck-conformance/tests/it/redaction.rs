//! A target that accepts the key under the `Basic` scheme (`Basic base64("KEY:")`), and echoes
//! it back in several encodings: `auth.v1.wrong-scheme-401` fails with evidence, and no form of
//! the key reaches the JSON report, the JUnit file or the human summary.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_conformance::report::{summary_table, to_junit};
use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::net::TcpListener;

type Upstream = Client<HttpConnector, Full<Bytes>>;

/// Forwards everything to the mock, except a `Basic` request: that one is admitted (200) and
/// its key, decoded, is kept in `seen` and echoed in the body raw, percent-encoded,
/// JSON-escaped and as the header itself.
async fn start_basic_accepting_proxy(upstream: String, seen: Arc<Mutex<Option<String>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let client: Upstream = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (client, upstream, seen) = (client.clone(), upstream.clone(), seen.clone());
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let (client, upstream, seen) = (client.clone(), upstream.clone(), seen.clone());
                    async move {
                        Ok::<_, std::convert::Infallible>(
                            handle(req, &client, &upstream, &seen).await,
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

async fn handle(
    req: Request<Incoming>,
    client: &Upstream,
    upstream: &str,
    seen: &Mutex<Option<String>>,
) -> Response<Full<Bytes>> {
    let (mut parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let auth = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if let Some(encoded) = auth.strip_prefix("Basic ") {
        let decoded = STANDARD.decode(encoded).unwrap_or_default();
        let key = String::from_utf8_lossy(&decoded)
            .trim_end_matches(':')
            .to_owned();
        *seen.lock() = Some(key.clone());
        let body = format!(
            "admitted {auth}; key={}; json=\"{}\"; bare={}\n",
            percent_all(&key, true),
            json_u(&key),
            key.trim_start_matches("sk-"),
        );
        let mut r = Response::new(Full::new(Bytes::from(body)));
        r.headers_mut()
            .insert("content-type", "text/plain".parse().expect("ct"));
        return r;
    }
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("{upstream}{path}").parse().expect("uri");
    parts.headers.remove("host");
    let req = Request::from_parts(parts, Full::new(body));
    match client.request(req).await {
        Ok(resp) => {
            let (parts, body) = resp.into_parts();
            let body = body
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            Response::from_parts(parts, Full::new(body))
        }
        Err(e) => {
            let mut r = Response::new(Full::new(Bytes::from(format!("proxy: {e}"))));
            *r.status_mut() = http::StatusCode::BAD_GATEWAY;
            r
        }
    }
}

/// Every byte percent-encoded, in upper or lower hex.
fn percent_all(text: &str, upper: bool) -> String {
    text.bytes()
        .map(|b| {
            if upper {
                format!("%{b:02X}")
            } else {
                format!("%{b:02x}")
            }
        })
        .collect()
}

/// Every character as a JSON `\uXXXX` escape.
fn json_u(text: &str) -> String {
    text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect()
}

/// The forms of `key` that must not appear in any output: raw, bare, inside base64 (std and
/// URL-safe, padded or not, of `KEY:`, `KEY` and `user:KEY`; the characters that only the key
/// determines), percent-encoded and JSON-escaped.
fn forms(key: &str) -> Vec<String> {
    let bare = key.trim_start_matches("sk-");
    let mut forms = vec![key.to_owned(), bare.to_owned()];
    for plain in [
        format!("{key}:"),
        key.to_owned(),
        format!("user:{key}"),
        bare.to_owned(),
    ] {
        let at: usize = if plain.starts_with("user:") { 5 } else { 0 };
        let n = if plain == bare { bare.len() } else { key.len() };
        for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&plain);
            forms.push(encoded[(8 * at).div_ceil(6)..8 * (at + n) / 6].to_owned());
        }
    }
    forms.push(percent_all(key, true));
    forms.push(percent_all(key, false));
    forms.push(percent_all(bare, true));
    forms.push(json_u(key));
    forms.push(json_u(bare));
    forms.push(json_u(key).to_uppercase().replace("\\U", "\\u"));
    forms
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_accepted_under_basic_never_reaches_the_reports() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let seen = Arc::new(Mutex::new(None));
    let proxy = start_basic_accepting_proxy(server.uri(), seen.clone()).await;
    let mut config = super::support::config(&proxy);
    config.scope.only = vec!["auth.v1.wrong-scheme-401".into()];
    let report = Runner::new(config).run().await.expect("run");
    server.shutdown().await;

    let check = &report.checks[0];
    assert_eq!(check.status, Status::Failed, "{}", summary_table(&report));
    // The mock's keys are stored bare; a client may send them with `sk-` too.
    let sent = seen.lock().clone().expect("the proxy saw a Basic request");
    assert!(sent.len() > 20, "{sent}");
    let key = format!("sk-{}", sent.trim_start_matches("sk-"));

    let json = report.to_json();
    let junit = to_junit(&report);
    let human = summary_table(&report);
    // The evidence is there (the request and the echoing body), only redacted.
    assert!(
        json.contains("Basic ") && json.contains("<redacted>"),
        "{json}"
    );
    assert!(json.contains("admitted Basic"), "{json}");
    for (name, text) in [
        ("JSON report", &json),
        ("JUnit", &junit),
        ("summary", &human),
    ] {
        for form in forms(&key) {
            assert!(!text.contains(&form), "{name} holds {form:?}:\n{text}");
        }
    }
    // The reports stay well-formed.
    serde_json::from_str::<serde_json::Value>(&json).expect("report JSON");
    let mut reader = quick_xml::Reader::from_str(&junit);
    loop {
        match reader.read_event().expect("well-formed JUnit") {
            quick_xml::events::Event::Eof => break,
            _ => continue,
        }
    }
}
