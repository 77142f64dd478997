//! The in-process load client: N keep-alive HTTP/1.1 connections on hyper's client, each
//! sending requests back to back for a fixed time (or a fixed count).

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// Builds request number `i` (0, 1, 2, ... over all connections).
pub(crate) type MakeRequest = Arc<dyn Fn(u64) -> Request<Full<Bytes>> + Send + Sync>;

/// What one route sends and expects.
#[derive(Clone)]
pub(crate) struct Spec {
    /// Request `i`.
    pub(crate) make: MakeRequest,
    /// The status every answer must have (others count as errors).
    pub(crate) expect: StatusCode,
}

/// How long, or how many requests.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Until {
    /// Until this much time has passed.
    Elapsed(Duration),
    /// Until this many requests were sent in all.
    Count(u64),
}

/// The outcome of one load run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Outcome {
    /// Answers with the expected status.
    pub(crate) ok: u64,
    /// Answers with another status, and failed exchanges.
    pub(crate) errors: u64,
    /// Seconds the run took.
    pub(crate) secs: f64,
}

impl Outcome {
    /// Good answers per second.
    pub(crate) fn rps(&self) -> f64 {
        if self.secs > 0.0 {
            self.ok as f64 / self.secs
        } else {
            0.0
        }
    }
}

/// One exchange: the status, with the whole body read.
async fn exchange(
    sender: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    req: Request<Full<Bytes>>,
) -> Result<StatusCode, hyper::Error> {
    let resp = sender.send_request(req).await?;
    let status = resp.status();
    resp.into_body().collect().await?;
    Ok(status)
}

async fn connect(
    addr: SocketAddr,
) -> std::io::Result<hyper::client::conn::http1::SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(addr).await?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(conn);
    Ok(sender)
}

/// Loads `addr` with `spec` over `conns` connections; runs on the current runtime.
pub(crate) async fn run(addr: SocketAddr, spec: &Spec, conns: usize, until: Until) -> Outcome {
    let conns = conns.max(1) as u64;
    let started = Instant::now();
    let deadline = match until {
        Until::Elapsed(d) => Some(started + d),
        Until::Count(_) => None,
    };
    let limit = match until {
        Until::Count(n) => n,
        Until::Elapsed(_) => u64::MAX,
    };
    let mut tasks = Vec::with_capacity(conns as usize);
    for c in 0..conns {
        let spec = spec.clone();
        tasks.push(tokio::spawn(async move {
            let mut out = Outcome::default();
            let Ok(mut sender) = connect(addr).await else {
                out.errors += 1;
                return out;
            };
            let mut i = c;
            while i < limit && deadline.is_none_or(|d| Instant::now() < d) {
                match exchange(&mut sender, (spec.make)(i)).await {
                    Ok(s) if s == spec.expect => out.ok += 1,
                    Ok(_) => out.errors += 1,
                    Err(_) => {
                        out.errors += 1;
                        match connect(addr).await {
                            Ok(s) => sender = s,
                            Err(_) => return out,
                        }
                    }
                }
                i += conns;
            }
            out
        }));
    }
    let mut total = Outcome::default();
    for t in tasks {
        if let Ok(o) = t.await {
            total.ok += o.ok;
            total.errors += o.errors;
        }
    }
    total.secs = started.elapsed().as_secs_f64();
    total
}

/// One request on a fresh connection: status, content type and body.
pub(crate) async fn once(
    addr: SocketAddr,
    req: Request<Full<Bytes>>,
) -> std::io::Result<(StatusCode, Option<http::HeaderValue>, Bytes)> {
    let mut sender = connect(addr).await?;
    let resp = sender
        .send_request(req)
        .await
        .map_err(std::io::Error::other)?;
    let status = resp.status();
    let ct = resp.headers().get(http::header::CONTENT_TYPE).cloned();
    let body = resp
        .into_body()
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    Ok((status, ct, body))
}

/// Opens `n` connections at once, sends one request on each, holds them all open until every
/// one has answered, then closes them. Returns how many answered with `spec.expect`.
pub(crate) async fn burst(addr: SocketAddr, spec: &Spec, n: usize) -> u64 {
    let barrier = Arc::new(tokio::sync::Barrier::new(n.max(1)));
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let (spec, barrier) = (spec.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            let ok = match connect(addr).await {
                Ok(mut sender) => {
                    let ok = matches!(exchange(&mut sender, (spec.make)(i as u64)).await,
                        Ok(s) if s == spec.expect);
                    barrier.wait().await;
                    ok
                }
                Err(_) => {
                    barrier.wait().await;
                    false
                }
            };
            u64::from(ok)
        }));
    }
    let mut ok = 0;
    for t in tasks {
        ok += t.await.unwrap_or(0);
    }
    ok
}
