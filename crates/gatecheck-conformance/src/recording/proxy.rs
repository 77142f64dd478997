//! The recording reverse proxy: listens on loopback, forwards every request to an upstream
//! base URL (http or https), and writes each exchange, normalized, to the recording directory.

use super::format::{
    exchange_file_name, io_error, normalize_request, records_response_header, rfc3339_now,
    sent_upstream, write_json, Manifest, RecordedExchange, RecordedResponse, RecordingError,
    Substitutions, TargetInfo, BASE_URL_PLACEHOLDER, DEFAULT_BODY_LIMIT, FORMAT_VERSION,
};
use bytes::Bytes;
use gatecheck_schemas::rules::forwarding::is_passed_on;
use http::{HeaderMap, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use url::Url;

/// Largest request or response body the proxy relays.
const MAX_BODY: usize = 64 << 20;
/// How long the upstream may take to answer one request.
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(120);

/// What the recorder needs.
#[derive(Debug, Clone)]
pub struct RecorderConfig {
    /// The upstream base URL (`http://127.0.0.1:4000`, or https); its path is a prefix of
    /// every request.
    pub upstream: Url,
    /// Where to listen (`127.0.0.1:0` picks a port).
    pub listen: SocketAddr,
    /// The recording directory; its `exchanges/` must be empty or absent.
    pub out: PathBuf,
    /// Secrets as `(NAME, value)`: stored as `{{NAME}}` placeholders, in every form.
    pub secrets: Vec<(String, String)>,
    /// The recorded target, for the manifest.
    pub target: TargetInfo,
    /// What the client runs (seed, flags), for the manifest.
    pub run: Value,
    /// Request bodies over this are stored as a digest.
    pub body_limit: usize,
    /// The profile of the recording, for the manifest (`documented`, `new-api`), when known.
    pub profile: Option<String>,
    /// How it records, for the manifest: `proxy` (a client's traffic) or `drive`
    /// (`gatecheck record` driving the target).
    pub mode: String,
    /// Learn the keys the target hands out (string `key` fields of JSON answers, such as
    /// `POST /api/token/`'s) as secrets `KEY_1`, `KEY_2`, ...: stored as placeholders from
    /// that answer on.
    pub learn_keys: bool,
}

impl RecorderConfig {
    /// A recorder of `upstream` into `out`, on a free loopback port, with no secrets.
    pub fn new(upstream: Url, out: impl Into<PathBuf>) -> Self {
        Self {
            upstream,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            out: out.into(),
            secrets: Vec::new(),
            target: TargetInfo {
                kind: "unknown".into(),
                name: "unknown".into(),
            },
            run: Value::Null,
            body_limit: DEFAULT_BODY_LIMIT,
            profile: None,
            mode: "proxy".into(),
            learn_keys: false,
        }
    }
}

struct Shared {
    upstream: Url,
    subs: parking_lot::RwLock<Substitutions>,
    learn_keys: bool,
    base_url: String,
    dir: PathBuf,
    seq: AtomicU64,
    written: AtomicU64,
    body_limit: usize,
    client: HyperClient<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>,
    started: Instant,
}

/// A running recorder. [`Recorder::finish`] stops it and completes the manifest.
pub struct Recorder {
    addr: SocketAddr,
    shared: Arc<Shared>,
    manifest: Manifest,
    out: PathBuf,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("addr", &self.addr)
            .field("out", &self.out)
            .finish()
    }
}

impl Recorder {
    /// Binds, writes the manifest (`exchanges: null` until [`Recorder::finish`]) and starts
    /// relaying.
    pub async fn start(config: RecorderConfig) -> Result<Self, RecordingError> {
        if !matches!(config.upstream.scheme(), "http" | "https") {
            return Err(RecordingError::Start(format!(
                "{}: the recorder forwards to http or https only",
                config.upstream
            )));
        }
        let tls = crate::http::connector::tls_config()
            .map_err(|e| RecordingError::Start(format!("TLS: {e}")))?;
        let mut connector = HttpConnector::new();
        connector.enforce_http(false);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(connector);
        let ex_dir = config.out.join("exchanges");
        prepare_dir(&ex_dir)?;
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| {
                RecordingError::Start(format!("cannot listen on {}: {e}", config.listen))
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| RecordingError::Start(e.to_string()))?;
        let mut subs = Substitutions::default();
        for (name, value) in &config.secrets {
            subs.add_secret(name, value);
        }
        subs.add_literal(&format!("http://{addr}"), BASE_URL_PLACEHOLDER);
        subs.add_literal(
            config.upstream.as_str().trim_end_matches('/'),
            "{{UPSTREAM_URL}}",
        );
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            target: config.target.clone(),
            recorded_at: rfc3339_now(),
            gatecheck_version: env!("CARGO_PKG_VERSION").into(),
            mode: config.mode.clone(),
            secrets: subs.secret_names().to_vec(),
            run: config.run.clone(),
            profile: config.profile.clone(),
            exchanges: None,
        };
        write_json(&config.out.join("manifest.json"), &manifest)?;
        let shared = Arc::new(Shared {
            upstream: config.upstream.clone(),
            subs: parking_lot::RwLock::new(subs),
            learn_keys: config.learn_keys,
            base_url: format!("http://{addr}"),
            dir: ex_dir,
            seq: AtomicU64::new(0),
            written: AtomicU64::new(0),
            body_limit: config.body_limit,
            client: HyperClient::builder(TokioExecutor::new()).build(https),
            started: Instant::now(),
        });
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(super::serve::accept_loop(
            listener,
            shared.clone(),
            stopped,
            |s, req| async move { relay(&s, req).await },
        ));
        Ok(Self {
            addr,
            shared,
            manifest,
            out: config.out,
            stop,
            task,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`, the base URL to give the client.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Exchanges written so far.
    pub fn exchanges(&self) -> u64 {
        self.shared.written.load(Ordering::SeqCst)
    }

    /// Stops accepting, waits up to `grace` for exchanges in flight, and writes the manifest
    /// with the number of exchanges.
    pub async fn finish(self, grace: Duration) -> Result<Manifest, RecordingError> {
        let _ = self.stop.send(true);
        let _ = self.task.await;
        let deadline = Instant::now() + grace;
        while self.shared.written.load(Ordering::SeqCst) < self.shared.seq.load(Ordering::SeqCst)
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut manifest = self.manifest;
        manifest.exchanges = Some(self.shared.written.load(Ordering::SeqCst));
        manifest.secrets = self.shared.subs.read().secret_names().to_vec();
        write_json(&self.out.join("manifest.json"), &manifest)?;
        Ok(manifest)
    }
}

/// Creates `dir`, refusing one that already holds exchanges.
fn prepare_dir(dir: &Path) -> Result<(), RecordingError> {
    // A symlinked `exchanges/` would write the recording outside the folder the user named.
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(RecordingError::Start(format!(
            "{} is a symlink: the recording is written only inside the folder given",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let used = std::fs::read_dir(dir)
        .map_err(|e| io_error(dir, e))?
        .any(|e| e.is_ok());
    if used {
        return Err(RecordingError::Start(format!(
            "{} is not empty: remove the old recording first",
            dir.display()
        )));
    }
    Ok(())
}

fn plain(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({"error": {"message": message, "type": "gatecheck_recorder"}});
    let mut res = Response::new(Full::new(Bytes::from(body.to_string())));
    *res.status_mut() = status;
    res.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    res
}

/// Forwards one request, records the exchange, and answers what the upstream answered.
async fn relay(shared: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let seq = shared.seq.fetch_add(1, Ordering::SeqCst) + 1;
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            shared.written.fetch_add(1, Ordering::SeqCst);
            return plain(
                StatusCode::BAD_GATEWAY,
                &format!("reading the request: {e}"),
            );
        }
    };
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "/".into());
    let start = Instant::now();
    let at_ms = start.duration_since(shared.started).as_millis() as u64;
    let answer = forward(shared, &parts.method, &path, &parts.headers, body.clone()).await;
    let elapsed_ms = start.elapsed().as_millis() as u64;
    let (status, mut headers, mut res_body) = match answer {
        Ok(a) => a,
        Err(message) => {
            shared.written.fetch_add(1, Ordering::SeqCst);
            return plain(StatusCode::BAD_GATEWAY, &message);
        }
    };
    // URLs the upstream gives to itself (media, content) lead back through the recorder, so
    // that what the client fetches there is recorded too.
    let upstream = shared.upstream.as_str().trim_end_matches('/').as_bytes();
    if super::format::replace(&res_body, upstream, b"").len() != res_body.len() {
        res_body = super::format::replace(&res_body, upstream, shared.base_url.as_bytes()).into();
    }
    for value in headers.values_mut() {
        let bytes = value.as_bytes();
        if super::format::replace(bytes, upstream, b"").len() != bytes.len() {
            let rewritten = super::format::replace(bytes, upstream, shared.base_url.as_bytes());
            if let Ok(v) = http::HeaderValue::from_bytes(&rewritten) {
                *value = v;
            }
        }
    }
    if shared.learn_keys {
        learn_keys(shared, &res_body);
    }
    let subs = shared.subs.read().clone();
    let exchange = RecordedExchange {
        seq,
        request: normalize_request(
            parts.method.as_str(),
            &path,
            &parts.headers,
            &body,
            &subs,
            shared.body_limit,
        ),
        response: record_response(&subs, status, &headers, &res_body),
        elapsed_ms,
        at_ms: Some(at_ms),
    };
    let file = shared
        .dir
        .join(exchange_file_name(seq, parts.method.as_str(), &path));
    if let Err(e) = write_json(&file, &exchange) {
        eprintln!("gatecheck record: {e}");
    }
    shared.written.fetch_add(1, Ordering::SeqCst);
    let mut res = Response::new(Full::new(res_body));
    *res.status_mut() = status;
    for (name, value) in &headers {
        if is_passed_on(name.as_str()) {
            res.headers_mut().append(name, value.clone());
        }
    }
    res
}

/// Adds the keys an answer hands out (string `key` fields, at any depth) as secrets.
fn learn_keys(shared: &Shared, body: &[u8]) {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match v.as_str() {
                        // A masked key (new-api's `abcd**********wxyz`) is no
                        // secret: learning it would put a placeholder where the replay
                        // answers it.
                        Some(s)
                            if k == "key"
                                && s.len() >= 16
                                && !s.contains("{{")
                                && !crate::http::key_api::is_masked(s) =>
                        {
                            out.push(s.to_owned());
                        }
                        _ => walk(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let mut found = Vec::new();
    walk(&json, &mut found);
    if found.is_empty() {
        return;
    }
    let mut subs = shared.subs.write();
    for key in found {
        let raw = key.strip_prefix("sk-").unwrap_or(&key).to_owned();
        if subs.apply_str(&raw) == raw {
            let name = format!("KEY_{}", subs.secret_names().len() + 1);
            subs.add_secret(&name, &raw);
        }
    }
}

/// The recorded form of a response: secrets and URLs replaced, volatile headers left out.
pub(crate) fn record_response(
    subs: &Substitutions,
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
) -> RecordedResponse {
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    RecordedResponse {
        status: status.as_u16(),
        headers: headers
            .iter()
            .filter(|(n, _)| records_response_header(n.as_str()))
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    subs.apply_str(&String::from_utf8_lossy(
                        &super::format::redact_signed_urls(v.as_bytes()),
                    )),
                )
            })
            .collect(),
        body: super::format::encode_body(
            content_type,
            &super::format::redact_signed_urls(body),
            None,
            false,
            subs,
        ),
    }
}

type Answer = (StatusCode, HeaderMap, Bytes);

async fn forward(
    shared: &Shared,
    method: &http::Method,
    path: &str,
    headers: &HeaderMap,
    body: Bytes,
) -> Result<Answer, String> {
    let base = shared.upstream.as_str().trim_end_matches('/');
    let uri: Uri = format!("{base}{path}")
        .parse()
        .map_err(|e| format!("bad upstream URL: {e}"))?;
    let mut builder = Request::builder().method(method.clone()).uri(uri);
    for (name, value) in headers {
        if sent_upstream(name.as_str()) {
            builder = builder.header(name, value);
        }
    }
    let request = builder
        .body(Full::new(body))
        .map_err(|e| format!("cannot build the upstream request: {e}"))?;
    let fut = async {
        let res = shared
            .client
            .request(request)
            .await
            .map_err(|e| format!("upstream {base}: {e}"))?;
        let (parts, body) = res.into_parts();
        let bytes = Limited::new(body, MAX_BODY)
            .collect()
            .await
            .map_err(|e| format!("upstream body: {e}"))?
            .to_bytes();
        Ok::<_, String>((parts.status, parts.headers, bytes))
    };
    tokio::time::timeout(UPSTREAM_TIMEOUT, fut)
        .await
        .map_err(|_| format!("upstream {base} did not answer in {UPSTREAM_TIMEOUT:?}"))?
}
