//! The connector under the client: direct, through a CONNECT tunnel (https via a proxy), or to
//! an http proxy; and the TLS roots.

use crate::http::client_error::ClientError;
use http::Uri;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::net::TcpStream;

/// Whether the URI names a loopback host (never proxied).
pub(crate) fn is_loopback(uri: &Uri) -> bool {
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

/// rustls with `ring`, trusting webpki-roots and the platform store. Built once per process
/// and cloned (the clone shares the verifier): reading and parsing the platform's certificates
/// costs milliseconds, and a test suite builds many clients.
pub(crate) fn tls_config() -> Result<rustls::ClientConfig, ClientError> {
    static CONFIG: std::sync::OnceLock<Result<rustls::ClientConfig, String>> =
        std::sync::OnceLock::new();
    CONFIG
        .get_or_init(|| build_tls_config().map_err(|e| e.to_string()))
        .clone()
        .map_err(ClientError::Tls)
}

fn build_tls_config() -> Result<rustls::ClientConfig, ClientError> {
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
pub(crate) struct ProxyConnector {
    pub(crate) http: HttpConnector,
    pub(crate) matcher: Arc<Matcher>,
}

/// A TCP stream, marked when it leads to an http proxy (so requests use the absolute form).
pub(crate) struct ProxyStream {
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
