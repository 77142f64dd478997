//! The HTTP client of the runner: one request, one [`Exchange`], pinned to the target's host.
//!
//! Built on hyper-util's legacy client with rustls (`ring`, roots from webpki-roots and the
//! platform store). It honours `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (CONNECT
//! tunnels for https; absolute-form requests for http). Loopback hosts never go through a proxy.
//! Redirects are never followed: a 3xx is returned as is, and one whose `Location` names another
//! host is refused with [`ClientError::OffHostRedirect`]. Retries, budgets and pacing live one
//! layer up, in [`crate::internals::Transport`].

use crate::http::client_error::ClientError;
use crate::http::connector::{is_loopback, tls_config, ProxyConnector};
use crate::http::memory::BodyError;
pub use crate::http::request::{Auth, Body, Part, RequestSpec};
use crate::http::sse::{SseLimits, SseRead};
use crate::http::target::{authority_of, Target};
use bytes::Bytes;
use gatecheck_schemas::rules::auth::NEW_API_USER_HEADER;
use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, LOCATION};
use http::{StatusCode, Uri};
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

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

    /// The `error.code` of a JSON error body, when it is a string.
    pub fn error_code(&self) -> Option<String> {
        self.json().and_then(|v| {
            v.pointer("/error/code")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    pub fn content_type(&self) -> Option<String> {
        media_type(&self.headers)
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
/// Client settings.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The target.
    pub target: Target,
    /// Per-request timeout (sending through the end of the body).
    pub timeout: Duration,
    /// Largest accepted response body.
    pub max_body_bytes: usize,
    /// The budget of response bytes buffered at once over all requests (shared by clones).
    pub memory_budget: crate::http::memory::MemoryBudget,
    /// Read proxies from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
    /// `NO_PROXY`).
    pub use_env_proxy: bool,
    /// A proxy for every request (overrides the environment), e.g. `http://proxy:3128`.
    pub proxy: Option<String>,
    /// `User-Agent`.
    pub user_agent: String,
}

impl ClientConfig {
    /// Defaults for `target`: 30 s timeout, 64 MiB bodies, 256 MiB of bodies at once,
    /// proxies from the environment.
    pub fn new(target: Target) -> Self {
        Self {
            target,
            timeout: Duration::from_secs(30),
            max_body_bytes: 64 << 20,
            memory_budget: crate::http::memory::MemoryBudget::default(),
            use_env_proxy: true,
            proxy: None,
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
        let matcher = if let Some(p) = &config.proxy {
            Matcher::builder().all(p.clone()).build()
        } else if config.use_env_proxy {
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

    /// The settings it was built with.
    pub(crate) fn config(&self) -> &ClientConfig {
        &self.config
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
        let (url, request) = self.prepare(spec)?;
        let start = Instant::now();
        let timeout = self.config.timeout;
        let max = self.config.max_body_bytes;
        let fut = async {
            let response = self
                .inner
                .request(request)
                .await
                .map_err(|e| request_error(&e))?;
            let (parts, body) = response.into_parts();
            let bytes = self.read_whole(body, max).await?;
            Ok::<_, ClientError>((parts, bytes))
        };
        let (parts, body) = tokio::time::timeout(timeout, fut)
            .await
            .map_err(|_| ClientError::Timeout(timeout))??;
        self.check_redirect(&url, &parts)?;
        Ok(Exchange {
            status: parts.status,
            headers: parts.headers,
            body,
            elapsed: start.elapsed(),
        })
    }

    /// Sends one request whose answer may be an event stream, and reads it event by event
    /// under `limits` (the bounded SSE reader, `sse.rs`): the head within the client's timeout, the whole answer
    /// within `limits.deadline`. An answer that is not a 2xx `text/event-stream` is read whole,
    /// as [`Client::send`] reads it, and its [`StreamExchange::events`] is `None`.
    ///
    /// ```no_run
    /// use gatecheck_conformance::internals::SseLimits;
    /// use gatecheck_conformance::{Client, ClientConfig, RequestSpec, Target};
    /// # async fn demo() -> Result<(), gatecheck_conformance::ClientError> {
    /// let client = Client::new(ClientConfig::new(Target::new("http://127.0.0.1:8080".parse().unwrap())))?;
    /// let spec = RequestSpec::post("/v1/audio/speech")
    ///     .json(serde_json::json!({"model": "gpt-4o-mini-tts", "input": "hi", "voice": "alloy", "stream_format": "sse"}));
    /// let answer = client.send_stream(&spec, SseLimits::default()).await?;
    /// if let Some(read) = &answer.events {
    ///     println!("{} events, {}", read.events.len(), read.end);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn send_stream(
        &self,
        spec: &RequestSpec,
        limits: SseLimits,
    ) -> Result<StreamExchange, ClientError> {
        let (url, request) = self.prepare(spec)?;
        let start = Instant::now();
        let timeout = self.config.timeout;
        let response = tokio::time::timeout(timeout, self.inner.request(request))
            .await
            .map_err(|_| ClientError::Timeout(timeout))?
            .map_err(|e| request_error(&e))?;
        let (parts, body) = response.into_parts();
        self.check_redirect(&url, &parts)?;
        let is_sse = parts.status.is_success()
            && media_type(&parts.headers).as_deref() == Some("text/event-stream");
        if !is_sse {
            let max = self.config.max_body_bytes;
            let body = tokio::time::timeout(timeout, self.read_whole(body, max))
                .await
                .map_err(|_| ClientError::Timeout(timeout))??;
            let exchange = Exchange {
                status: parts.status,
                headers: parts.headers,
                body,
                elapsed: start.elapsed(),
            };
            return Ok(StreamExchange {
                exchange,
                events: None,
            });
        }
        let budget = &self.config.memory_budget;
        let mut prefix = PrefixBody::new(body, STREAM_EVIDENCE_BYTES);
        let read = crate::http::sse::read_events(&mut prefix, limits, start.into(), budget)
            .await
            .map_err(|e| body_error(e, 0, budget))?;
        let exchange = Exchange {
            status: parts.status,
            headers: parts.headers,
            body: prefix.into_prefix(),
            elapsed: start.elapsed(),
        };
        Ok(StreamExchange {
            exchange,
            events: Some(read),
        })
    }

    /// Reads a whole body under the per-request cap `max` and the memory budget.
    async fn read_whole(
        &self,
        body: hyper::body::Incoming,
        max: usize,
    ) -> Result<Bytes, ClientError> {
        let budget = &self.config.memory_budget;
        let (bytes, _held) = budget
            .read(body, max)
            .await
            .map_err(|e| body_error(e, max, budget))?;
        Ok(bytes)
    }

    /// Refuses a redirect to another host.
    fn check_redirect(&self, url: &Url, parts: &http::response::Parts) -> Result<(), ClientError> {
        if parts.status.is_redirection()
            && let Some(loc) = parts.headers.get(LOCATION).and_then(|v| v.to_str().ok())
        {
            let joined = url.join(loc).map(|u| authority_of(&u));
            if joined.as_deref().ok() != Some(self.config.target.authority().as_str()) {
                return Err(ClientError::OffHostRedirect {
                    location: loc.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The URL and the HTTP request of `spec`, with its auth and headers.
    fn prepare(
        &self,
        spec: &RequestSpec,
    ) -> Result<(Url, http::Request<Full<Bytes>>), ClientError> {
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
        if matches!(spec.auth, Auth::AccessToken | Auth::Raw(_))
            && let Some(u) = target.user_id
        {
            headers.insert(NEW_API_USER_HEADER, header_value(&u.to_string())?);
        }
        for (k, v) in &spec.headers {
            headers.append(header_name(k)?, header_value(v)?);
        }
        for (k, v) in &target.headers {
            let name = header_name(k)?;
            if !headers.contains_key(&name) {
                let mut hv = header_value(v.expose())?;
                hv.set_sensitive(true);
                headers.insert(name, hv);
            }
        }
        if uri.scheme_str() == Some("http")
            && let Some(Some(auth)) = self.proxy_for(&uri)
        {
            headers.insert(http::header::PROXY_AUTHORIZATION, auth);
        }
        let request = builder
            .body(Full::new(bytes))
            .map_err(|e| ClientError::InvalidHeader(e.to_string()))?;
        Ok((url, request))
    }

    /// `Some(proxy auth)` when a plain-http request goes through a proxy.
    fn proxy_for(&self, uri: &Uri) -> Option<Option<HeaderValue>> {
        if is_loopback(uri) {
            return None;
        }
        self.proxy.intercept(uri).map(|i| i.basic_auth().cloned())
    }
}

/// The bytes of a streamed answer kept for evidence (its first bytes, not the whole stream).
const STREAM_EVIDENCE_BYTES: usize = 4096;

/// A response to a request that asked for a stream: the head, and the events when the answer
/// is a 2xx `text/event-stream`.
#[derive(Debug, Clone)]
pub struct StreamExchange {
    /// The answer: status and headers; the whole body when it is not an event stream, its
    /// first 4 KiB (for evidence) when it is.
    pub exchange: Exchange,
    /// The events, when the answer is an event stream.
    pub events: Option<SseRead>,
}

/// The media type of `Content-Type`, lowercased, without parameters.
fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
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

fn body_error(e: BodyError, max: usize, budget: &crate::http::memory::MemoryBudget) -> ClientError {
    match e {
        BodyError::TooLarge => ClientError::BodyTooLarge(max),
        BodyError::OverBudget => ClientError::MemoryBudget(budget.total()),
        // The head came: the target was reached, and broke its answer.
        BodyError::Read(e) => ClientError::Malformed(e),
    }
}

/// A request that got no usable answer: [`ClientError::Malformed`] when the target answered
/// with a head hyper could not parse (too large, too many headers, not HTTP), else
/// [`ClientError::Connect`] (refused, reset, closed before answering).
fn request_error(e: &(dyn std::error::Error + 'static)) -> ClientError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(h) = s.downcast_ref::<hyper::Error>()
            && h.is_parse()
        {
            return ClientError::Malformed(error_chain(e));
        }
        source = s.source();
    }
    ClientError::Connect(error_chain(e))
}

/// A body that keeps a copy of its first `keep` bytes as they pass.
struct PrefixBody<B> {
    inner: B,
    keep: usize,
    prefix: bytes::BytesMut,
}

impl<B> PrefixBody<B> {
    fn new(inner: B, keep: usize) -> Self {
        Self {
            inner,
            keep,
            prefix: bytes::BytesMut::new(),
        }
    }

    fn into_prefix(self) -> Bytes {
        self.prefix.freeze()
    }
}

impl<B: hyper::body::Body<Data = Bytes> + Unpin> hyper::body::Body for &mut PrefixBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        let polled = std::pin::Pin::new(&mut this.inner).poll_frame(cx);
        if let std::task::Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            let room = this.keep.saturating_sub(this.prefix.len());
            this.prefix.extend_from_slice(&data[..room.min(data.len())]);
        }
        polled
    }
}

fn header_name(k: &str) -> Result<HeaderName, ClientError> {
    HeaderName::from_bytes(k.as_bytes()).map_err(|_| ClientError::InvalidHeader(k.to_owned()))
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
