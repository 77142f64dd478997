//! The HTTP client of the runner: one request, one [`Exchange`], pinned to the target's host.
//!
//! Built on hyper-util's legacy client with rustls (`ring`, roots from webpki-roots and the
//! platform store). It honours `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (CONNECT
//! tunnels for https; absolute-form requests for http). Loopback hosts never go through a proxy.
//! Redirects are never followed: a 3xx is returned as is, and one whose `Location` names another
//! host is refused with [`ClientError::OffHostRedirect`]. Retries, budgets and pacing live one
//! layer up, in [`crate::Transport`].

use crate::redact::{Redactor, Secret};
use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, LOCATION};
use http::{Method, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use url::Url;

/// The deployment under test, and the credentials the runner may use on it.
#[derive(Debug, Clone)]
pub struct Target {
    /// Base URL; every request goes to its host and under its path.
    pub base_url: Url,
    /// An API key for the model routes (`Authorization: Bearer <key>`).
    pub api_key: Option<Secret>,
    /// A personal access token for `/api/token/` (sent raw).
    pub access_token: Option<Secret>,
    /// The account id, sent as `New-Api-User` with the access token.
    pub user_id: Option<i64>,
    /// The id of the key `api_key` belongs to (snapshotted and restored around a run).
    pub key_id: Option<i64>,
}

impl Target {
    /// A target with no credentials.
    pub fn new(base_url: Url) -> Self {
        Self {
            base_url,
            api_key: None,
            access_token: None,
            user_id: None,
            key_id: None,
        }
    }

    /// The URL of `path_and_query` under the base URL (the base URL's own path is kept as a
    /// prefix).
    pub fn url(&self, path_and_query: &str) -> String {
        let base = self.base_url.as_str().trim_end_matches('/');
        if path_and_query.starts_with('/') {
            format!("{base}{path_and_query}")
        } else {
            format!("{base}/{path_and_query}")
        }
    }

    /// `host:port` of the base URL, the only authority requests may go to.
    pub fn authority(&self) -> String {
        authority_of(&self.base_url)
    }
}

fn authority_of(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default().to_ascii_lowercase(),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// How a request authenticates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Auth {
    /// No `Authorization` header.
    #[default]
    None,
    /// `Authorization: Bearer <the target's API key>`.
    ApiKey,
    /// `Authorization: Bearer <this key>` (a scratch or fixture key).
    Key(Secret),
    /// `Authorization: <the target's access token>` (raw) and `New-Api-User` when known.
    AccessToken,
    /// This exact `Authorization` value (wrong schemes, wrong keys); `None` value omits the
    /// header but still sends `New-Api-User` for access-token routes.
    Raw(Secret),
}

/// One part of a multipart body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Field name.
    pub name: String,
    /// File name, for file parts.
    pub filename: Option<String>,
    /// Content type, for file parts.
    pub content_type: Option<String>,
    /// The bytes.
    pub data: Bytes,
}

impl Part {
    /// A text field.
    pub fn text(name: &str, value: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            filename: None,
            content_type: None,
            data: Bytes::from(value.into()),
        }
    }

    /// A file field.
    pub fn file(name: &str, filename: &str, content_type: &str, data: impl Into<Bytes>) -> Self {
        Self {
            name: name.to_owned(),
            filename: Some(filename.to_owned()),
            content_type: Some(content_type.to_owned()),
            data: data.into(),
        }
    }
}

/// A request body.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Body {
    /// No body.
    #[default]
    Empty,
    /// `application/json`.
    Json(Value),
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
    /// `multipart/form-data`.
    Multipart(Vec<Part>),
    /// Any bytes with a content type.
    Raw {
        /// The `Content-Type` header.
        content_type: String,
        /// The bytes.
        bytes: Bytes,
    },
}

/// The boundary of generated multipart bodies.
pub const MULTIPART_BOUNDARY: &str = "gatecheck-boundary-7f3a9c2e1b";

impl Body {
    /// The content type and encoded bytes of the body.
    pub fn encode(&self) -> (Option<String>, Bytes) {
        match self {
            Body::Empty => (None, Bytes::new()),
            Body::Json(v) => (
                Some("application/json".into()),
                Bytes::from(serde_json::to_vec(v).unwrap_or_default()),
            ),
            Body::Form(fields) => {
                let mut ser = url::form_urlencoded::Serializer::new(String::new());
                for (k, v) in fields {
                    ser.append_pair(k, v);
                }
                (
                    Some("application/x-www-form-urlencoded".into()),
                    Bytes::from(ser.finish()),
                )
            }
            Body::Multipart(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}\r\n").as_bytes());
                    let name = p.name.replace('"', "%22");
                    match &p.filename {
                        Some(f) => out.extend_from_slice(
                            format!(
                                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{}\"\r\n",
                                f.replace('"', "%22")
                            )
                            .as_bytes(),
                        ),
                        None => out.extend_from_slice(
                            format!("Content-Disposition: form-data; name=\"{name}\"\r\n")
                                .as_bytes(),
                        ),
                    }
                    if let Some(ct) = &p.content_type {
                        out.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
                    }
                    out.extend_from_slice(b"\r\n");
                    out.extend_from_slice(&p.data);
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}--\r\n").as_bytes());
                (
                    Some(format!(
                        "multipart/form-data; boundary={MULTIPART_BOUNDARY}"
                    )),
                    Bytes::from(out),
                )
            }
            Body::Raw {
                content_type,
                bytes,
            } => (Some(content_type.clone()), bytes.clone()),
        }
    }
}

/// One request the runner means to send.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpec {
    /// Method.
    pub method: Method,
    /// Path and query, relative to the base URL (`/v1/videos?x=1`), or an absolute URL on the
    /// target's host.
    pub path: String,
    /// How it authenticates.
    pub auth: Auth,
    /// Extra headers (non-secret).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl RequestSpec {
    /// A request with no body and no auth.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Self {
            method,
            path: path.into(),
            auth: Auth::None,
            headers: Vec::new(),
            body: Body::Empty,
        }
    }

    /// `GET path`.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new(Method::GET, path)
    }

    /// `POST path`.
    pub fn post(path: impl Into<String>) -> Self {
        Self::new(Method::POST, path)
    }

    /// `PUT path`.
    pub fn put(path: impl Into<String>) -> Self {
        Self::new(Method::PUT, path)
    }

    /// `DELETE path`.
    pub fn delete(path: impl Into<String>) -> Self {
        Self::new(Method::DELETE, path)
    }

    /// Sets the auth.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Sets a JSON body.
    pub fn json(mut self, value: Value) -> Self {
        self.body = Body::Json(value);
        self
    }

    /// Sets a urlencoded form body.
    pub fn form(mut self, fields: Vec<(String, String)>) -> Self {
        self.body = Body::Form(fields);
        self
    }

    /// Sets a multipart body.
    pub fn multipart(mut self, parts: Vec<Part>) -> Self {
        self.body = Body::Multipart(parts);
        self
    }

    /// A one-line summary: `PUT /api/token/`.
    pub fn summary(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// A curl command that reproduces the request, with secrets shown as shell variables
    /// (`$GATECHECK_API_KEY`, `$GATECHECK_ACCESS_TOKEN`) or redacted.
    pub fn to_curl(&self, target: &Target, redactor: &Redactor) -> String {
        let url = if self.path.starts_with("http://") || self.path.starts_with("https://") {
            self.path.clone()
        } else {
            target.url(&self.path)
        };
        let mut cmd = format!("curl -sS -X {} {}", self.method, shell_quote(&url));
        match &self.auth {
            Auth::None => {}
            Auth::ApiKey => cmd.push_str(" -H \"Authorization: Bearer $GATECHECK_API_KEY\""),
            Auth::Key(_) => cmd.push_str(" -H \"Authorization: Bearer $GATECHECK_SCRATCH_KEY\""),
            Auth::AccessToken => {
                cmd.push_str(" -H \"Authorization: $GATECHECK_ACCESS_TOKEN\"");
                if let Some(u) = target.user_id {
                    cmd.push_str(&format!(" -H 'New-Api-User: {u}'"));
                }
            }
            Auth::Raw(v) => {
                cmd.push_str(&format!(
                    " -H {}",
                    shell_quote(&redactor.text(&format!("Authorization: {}", v.expose())))
                ));
                if let Some(u) = target.user_id {
                    cmd.push_str(&format!(" -H 'New-Api-User: {u}'"));
                }
            }
        }
        for (k, v) in &self.headers {
            cmd.push_str(&format!(
                " -H {}",
                shell_quote(&redactor.text(&format!("{k}: {v}")))
            ));
        }
        match &self.body {
            Body::Empty => {}
            Body::Json(v) => {
                cmd.push_str(" -H 'Content-Type: application/json' --data-binary ");
                cmd.push_str(&shell_quote(&redactor.json(v).to_string()));
            }
            Body::Form(fields) => {
                for (k, v) in fields {
                    cmd.push_str(" --data-urlencode ");
                    cmd.push_str(&shell_quote(&redactor.text(&format!("{k}={v}"))));
                }
            }
            Body::Multipart(parts) => {
                for p in parts {
                    let arg = match (&p.filename, &p.content_type) {
                        (Some(f), ct) => format!(
                            "{}=@{}{}",
                            p.name,
                            f,
                            ct.as_ref()
                                .map(|c| format!(";type={c}"))
                                .unwrap_or_default()
                        ),
                        (None, _) => {
                            format!("{}={}", p.name, String::from_utf8_lossy(&p.data))
                        }
                    };
                    cmd.push_str(" -F ");
                    cmd.push_str(&shell_quote(&redactor.text(&arg)));
                }
            }
            Body::Raw {
                content_type,
                bytes,
            } => {
                cmd.push_str(&format!(
                    " -H {} --data-binary ",
                    shell_quote(&format!("Content-Type: {content_type}"))
                ));
                match std::str::from_utf8(bytes) {
                    Ok(s) if bytes.len() <= 4096 => cmd.push_str(&shell_quote(&redactor.text(s))),
                    _ => cmd.push_str(&format!("@body.bin  # {} bytes", bytes.len())),
                }
            }
        }
        cmd
    }
}

/// Quotes a string for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A response.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Bytes,
    /// Time from sending to the end of the body.
    pub elapsed: Duration,
}

impl Exchange {
    /// The body as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    pub fn content_type(&self) -> Option<String> {
        self.headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            })
    }

    /// A header as a string.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// What can go wrong sending one request.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The base URL or a request URL is unusable.
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    /// A request would leave the target's host.
    #[error("refused: {url} is not on the target host {allowed}")]
    OffHost {
        /// The refused URL.
        url: String,
        /// The target's `host:port`.
        allowed: String,
    },
    /// The target redirected to another host.
    #[error("refused redirect to another host: {location}")]
    OffHostRedirect {
        /// The `Location` header.
        location: String,
    },
    /// A header could not be built.
    #[error("invalid header {0}")]
    InvalidHeader(String),
    /// TLS setup failed.
    #[error("TLS setup: {0}")]
    Tls(String),
    /// Connecting or exchanging failed.
    #[error("connection to the target failed: {0}")]
    Connect(String),
    /// The request or the body did not finish in time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The body was larger than allowed.
    #[error("response body larger than {0} bytes")]
    BodyTooLarge(usize),
}

impl ClientError {
    /// Whether the target could not be reached at all (as opposed to a refused or bad request).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ClientError::Connect(_) | ClientError::Timeout(_))
    }
}

/// Client settings.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The target.
    pub target: Target,
    /// Per-request timeout (sending through the end of the body).
    pub timeout: Duration,
    /// Largest accepted response body.
    pub max_body_bytes: usize,
    /// Read proxies from the environment.
    pub use_env_proxy: bool,
    /// `User-Agent`.
    pub user_agent: String,
}

impl ClientConfig {
    /// Defaults for `target`: 30 s timeout, 64 MiB bodies, proxies from the environment.
    pub fn new(target: Target) -> Self {
        Self {
            target,
            timeout: Duration::from_secs(30),
            max_body_bytes: 64 << 20,
            use_env_proxy: true,
            user_agent: format!("gatecheck/{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

type Inner = HyperClient<hyper_rustls::HttpsConnector<ProxyConnector>, Full<Bytes>>;

/// The HTTP client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Inner,
    config: Arc<ClientConfig>,
    proxy: Arc<Matcher>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.config.target.base_url.as_str())
            .finish()
    }
}

impl Client {
    /// Builds a client for the target.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let scheme = config.target.base_url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(ClientError::InvalidUrl(format!(
                "{}: the scheme must be http or https",
                config.target.base_url
            )));
        }
        if config.target.base_url.host_str().is_none() {
            return Err(ClientError::InvalidUrl(format!(
                "{}: no host",
                config.target.base_url
            )));
        }
        let tls = tls_config()?;
        let matcher = if config.use_env_proxy {
            Matcher::from_env()
        } else {
            Matcher::builder().build()
        };
        let matcher = Arc::new(matcher);
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(config.timeout));
        let connector = ProxyConnector {
            http,
            matcher: matcher.clone(),
        };
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(connector);
        let inner = HyperClient::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(https);
        Ok(Self {
            inner,
            config: Arc::new(config),
            proxy: matcher,
        })
    }

    /// The target.
    pub fn target(&self) -> &Target {
        &self.config.target
    }

    /// The full URL of a request, refused when it is not on the target's host.
    pub fn resolve(&self, spec: &RequestSpec) -> Result<Url, ClientError> {
        let target = &self.config.target;
        let raw = if spec.path.starts_with("http://") || spec.path.starts_with("https://") {
            spec.path.clone()
        } else {
            target.url(&spec.path)
        };
        let url = Url::parse(&raw).map_err(|e| ClientError::InvalidUrl(format!("{raw}: {e}")))?;
        if authority_of(&url) != target.authority() || url.scheme() != target.base_url.scheme() {
            return Err(ClientError::OffHost {
                url: url.to_string(),
                allowed: target.authority(),
            });
        }
        Ok(url)
    }

    /// Sends one request and reads the whole response. Never follows redirects.
    pub async fn send(&self, spec: &RequestSpec) -> Result<Exchange, ClientError> {
        let url = self.resolve(spec)?;
        let uri: Uri = url
            .as_str()
            .parse()
            .map_err(|e| ClientError::InvalidUrl(format!("{url}: {e}")))?;
        let (content_type, bytes) = spec.body.encode();
        let mut builder = http::Request::builder()
            .method(spec.method.clone())
            .uri(uri.clone());
        let headers = builder
            .headers_mut()
            .ok_or_else(|| ClientError::InvalidHeader("request".into()))?;
        headers.insert(
            http::header::USER_AGENT,
            header_value(&self.config.user_agent)?,
        );
        if let Some(ct) = content_type {
            headers.insert(CONTENT_TYPE, header_value(&ct)?);
        }
        let target = &self.config.target;
        let auth_value = match &spec.auth {
            Auth::None => None,
            Auth::ApiKey => target
                .api_key
                .as_ref()
                .map(|k| format!("Bearer {}", k.expose())),
            Auth::Key(k) => Some(format!("Bearer {}", k.expose())),
            Auth::AccessToken => target.access_token.as_ref().map(|t| t.expose().to_owned()),
            Auth::Raw(v) => Some(v.expose().to_owned()),
        };
        if let Some(v) = auth_value {
            let mut hv = header_value(&v)?;
            hv.set_sensitive(true);
            headers.insert(http::header::AUTHORIZATION, hv);
        }
        if matches!(spec.auth, Auth::AccessToken | Auth::Raw(_)) {
            if let Some(u) = target.user_id {
                headers.insert("new-api-user", header_value(&u.to_string())?);
            }
        }
        for (k, v) in &spec.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| ClientError::InvalidHeader(k.clone()))?;
            headers.append(name, header_value(v)?);
        }
        if uri.scheme_str() == Some("http") {
            if let Some(Some(auth)) = self.proxy_for(&uri) {
                headers.insert(http::header::PROXY_AUTHORIZATION, auth);
            }
        }
        let request = builder
            .body(Full::new(bytes))
            .map_err(|e| ClientError::InvalidHeader(e.to_string()))?;
        let start = Instant::now();
        let timeout = self.config.timeout;
        let max = self.config.max_body_bytes;
        let fut = async {
            let response = self
                .inner
                .request(request)
                .await
                .map_err(|e| ClientError::Connect(error_chain(&e)))?;
            let (parts, body) = response.into_parts();
            let collected = Limited::new(body, max).collect().await.map_err(|e| {
                if e.downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some()
                {
                    ClientError::BodyTooLarge(max)
                } else {
                    ClientError::Connect(e.to_string())
                }
            })?;
            Ok::<_, ClientError>((parts, collected.to_bytes()))
        };
        let (parts, body) = tokio::time::timeout(timeout, fut)
            .await
            .map_err(|_| ClientError::Timeout(timeout))??;
        if parts.status.is_redirection() {
            if let Some(loc) = parts.headers.get(LOCATION).and_then(|v| v.to_str().ok()) {
                let joined = url.join(loc).map(|u| authority_of(&u));
                if joined.as_deref().ok() != Some(target.authority().as_str()) {
                    return Err(ClientError::OffHostRedirect {
                        location: loc.to_owned(),
                    });
                }
            }
        }
        Ok(Exchange {
            status: parts.status,
            headers: parts.headers,
            body,
            elapsed: start.elapsed(),
        })
    }

    /// `Some(proxy auth)` when a plain-http request goes through a proxy.
    fn proxy_for(&self, uri: &Uri) -> Option<Option<HeaderValue>> {
        if is_loopback(uri) {
            return None;
        }
        self.proxy.intercept(uri).map(|i| i.basic_auth().cloned())
    }
}

fn header_value(v: &str) -> Result<HeaderValue, ClientError> {
    HeaderValue::from_str(v).map_err(|_| ClientError::InvalidHeader("value not printable".into()))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

fn is_loopback(uri: &Uri) -> bool {
    match uri.host() {
        Some("localhost") => true,
        Some(h) => h
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false),
        None => false,
    }
}

fn tls_config() -> Result<rustls::ClientConfig, ClientError> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        // A platform certificate rustls cannot parse is skipped, as browsers do.
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}

/// Connects directly, through a CONNECT tunnel (https via a proxy), or to an http proxy.
#[derive(Clone)]
struct ProxyConnector {
    http: HttpConnector,
    matcher: Arc<Matcher>,
}

/// A TCP stream, marked when it leads to an http proxy (so requests use the absolute form).
struct ProxyStream {
    io: TokioIo<TcpStream>,
    via_http_proxy: bool,
}

impl Connection for ProxyStream {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.via_http_proxy)
    }
}

impl hyper::rt::Read for ProxyStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for ProxyStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<Uri> for ProxyConnector {
    type Response = ProxyStream;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<ProxyStream, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        tower_service::Service::<Uri>::poll_ready(&mut self.http, cx).map_err(Into::into)
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let intercept = if is_loopback(&dst) {
            None
        } else {
            self.matcher.intercept(&dst)
        };
        let mut http = self.http.clone();
        Box::pin(async move {
            match intercept {
                None => {
                    let io = tower_service::Service::<Uri>::call(&mut http, dst).await?;
                    Ok(ProxyStream {
                        io,
                        via_http_proxy: false,
                    })
                }
                Some(intercept) if dst.scheme_str() == Some("https") => {
                    let mut tunnel = Tunnel::new(intercept.uri().clone(), http);
                    if let Some(auth) = intercept.basic_auth() {
                        tunnel = tunnel.with_auth(auth.clone());
                    }
                    let io = tower_service::Service::<Uri>::call(&mut tunnel, dst).await?;
                    Ok(ProxyStream {
                        io,
                        via_http_proxy: false,
                    })
                }
                Some(intercept) => {
                    let io =
                        tower_service::Service::<Uri>::call(&mut http, intercept.uri().clone())
                            .await?;
                    Ok(ProxyStream {
                        io,
                        via_http_proxy: true,
                    })
                }
            }
        })
    }
}
