//! The baseline: a bare hyper HTTP/1.1 server that answers each route with the bytes the mock
//! answered it (status, content type, body), after reading the whole request body.

use bytes::Bytes;
use http::{HeaderValue, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// One canned answer.
#[derive(Debug, Clone)]
pub(crate) struct Canned {
    /// Requests whose path starts with this get this answer (the first match wins).
    pub(crate) prefix: String,
    /// The status.
    pub(crate) status: StatusCode,
    /// The `Content-Type`, if the mock sent one.
    pub(crate) content_type: Option<HeaderValue>,
    /// The body.
    pub(crate) body: Bytes,
}

/// A running baseline; stops when dropped.
pub(crate) struct Baseline {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Baseline {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the baseline on 127.0.0.1 (on the current runtime).
pub(crate) async fn start(routes: Vec<Canned>) -> std::io::Result<Baseline> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let routes = Arc::new(routes);
    let task = tokio::spawn(async move {
        let mut conns = tokio::task::JoinSet::new();
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let routes = routes.clone();
            // Reap finished connections so the set stays bounded.
            while conns.try_join_next().is_some() {}
            conns.spawn(async move {
                let svc = service_fn(move |req: hyper::Request<Incoming>| {
                    let routes = routes.clone();
                    async move { Ok::<_, Infallible>(answer(&routes, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    Ok(Baseline { addr, task })
}

async fn answer(routes: &[Canned], req: hyper::Request<Incoming>) -> hyper::Response<Full<Bytes>> {
    let route = routes
        .iter()
        .find(|c| req.uri().path().starts_with(&c.prefix));
    // Read the body as the mock does, so uploads cost the baseline their transfer too.
    let _ = req.into_body().collect().await;
    let Some(c) = route else {
        let mut resp = hyper::Response::new(Full::new(Bytes::new()));
        *resp.status_mut() = StatusCode::NOT_FOUND;
        return resp;
    };
    let mut resp = hyper::Response::new(Full::new(c.body.clone()));
    *resp.status_mut() = c.status;
    if let Some(ct) = &c.content_type {
        resp.headers_mut()
            .insert(http::header::CONTENT_TYPE, ct.clone());
    }
    resp
}
