//! The accept loop: hyper-util's auto (HTTP/1 and HTTP/2) server over tokio, with the TCP peer
//! address, a header-read timeout, an idle timeout and graceful shutdown.

use crate::app::App;
use crate::routes;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

/// How long shutdown waits for open connections to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Accepts connections until `shutdown` flips, then closes them gracefully.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(app.config.header_timeout)
        .keep_alive(true);
    let builder = Arc::new(builder);
    let (alive_tx, mut alive_rx) = mpsc::channel::<()>(1);
    let conn_shutdown = shutdown.clone();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let app = app.clone();
                let builder = builder.clone();
                let shutdown = conn_shutdown.clone();
                let alive = alive_tx.clone();
                tokio::spawn(async move {
                    connection(stream, peer, app, builder, shutdown).await;
                    drop(alive);
                });
            }
            _ = wait_down(&mut shutdown) => break,
        }
    }
    drop(listener);
    drop(alive_tx);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, alive_rx.recv()).await;
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    app: Arc<App>,
    builder: Arc<auto::Builder<TokioExecutor>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let started = Instant::now();
    let last = Arc::new(AtomicU64::new(0));
    let io = IdleIo {
        inner: stream,
        started,
        last: last.clone(),
    };
    let idle = app.config.idle_timeout;
    let svc_app = app.clone();
    let svc = service_fn(move |req| routes::dispatch(svc_app.clone(), peer, req));
    let conn = builder.serve_connection(TokioIo::new(io), svc);
    let mut conn = std::pin::pin!(conn);
    let tick = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut closing = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            _ = wait_down(&mut shutdown), if !closing => {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = ticker.tick(), if !closing => {
                let since = (started.elapsed().as_millis() as u64)
                    .saturating_sub(last.load(Ordering::Relaxed));
                if since >= idle.as_millis() as u64 {
                    tracing::debug!(%peer, "closing idle connection");
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// A socket that notes the time of its last read or write (for the idle timeout).
struct IdleIo<T> {
    inner: T,
    started: Instant,
    last: Arc<AtomicU64>,
}

impl<T> IdleIo<T> {
    fn touch(&self) {
        self.last
            .store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(res, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        res
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Resolves once `rx` says the server is shutting down (or its sender is gone).
pub(crate) async fn wait_down(rx: &mut watch::Receiver<bool>) {
    loop {
        if *rx.borrow_and_update() {
            return;
        }
        if rx.changed().await.is_err() {
            return;
        }
    }
}
