//! The accept loop: hyper-util's auto (HTTP/1 and HTTP/2) server over tokio, with the TCP peer
//! address, a header-read timeout, an idle timeout and graceful shutdown.
//!
//! Both timeouts are kept here rather than by hyper, whose header-read timer also runs while a
//! keep-alive connection waits for its next request (it would act as a second idle timeout).
//! The socket wrapper notes when the first byte of a new request arrives and counts its
//! traffic (the idle clock advances in ticks, so reads and writes cost no clock read); the
//! service marks requests in flight. An HTTP/1 connection whose request head
//! has not reached the service within the header timeout is closed; any connection with nothing
//! in flight and no traffic for the idle timeout is shut down gracefully. The request body has
//! its own deadline ([`crate::config::MockConfig::body_timeout`], in `Ctx::read_body`).
//!
//! At most `max_connections` connections are served at once: the accept loop takes a permit
//! before accepting, so further clients wait in the kernel's accept queue. HTTP/1 half-closed
//! requests (the client shut its write side after a whole request) are answered. IPv4-mapped
//! IPv6 peers (`::ffff:127.0.0.1`, seen when bound to `::`) are handled as their IPv4 address,
//! so loopback checks and IP allowlists see what the client is. With a state file, the answer
//! to a state-changing request is held until the state is on disk (see `crate::state::persist`).

pub(crate) mod delivery;
pub(crate) mod listen;
pub mod replay;

use crate::app::App;
use crate::shutdown::wait_down;
use crate::{routes, state::persist};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, Semaphore};

/// The most an HTTP/1 connection buffers each way (hyper's default is about 400 KiB): its
/// read buffer (a request head must fit: Go's own limit is 1 MiB, but no client of the
/// service sends heads of even 128 KiB) and what it queues to write before the client reads.
/// hyper reads a body at most this much per read, and a connection that uploaded a large
/// body keeps a read buffer of up to this size while it lives: 100 stalled streams after an
/// upload add ~44 MB with hyper's default, ~15 MB at 128 KiB, ~9 MB at 64 KiB
/// (tests/stalled_streams.rs, bound 20 MB). 64 KiB cost the 1 MiB upload 42% of its
/// requests/s (16 reads, 16 frames and 16 allocations per megabyte); 128 KiB is the
/// largest that keeps the bound with room. With the upload read in place (no join, its
/// boundaries found frame by frame) the cap is what is left of the gap: 60% of bare hyper
/// here at 128 KiB, 65% at hyper's default, 71% at 256 KiB (~28 MB of stalled streams).
/// Before changing it, run scripts/bench-guard and the stalled-streams test (BENCHMARKS.md,
/// "the upload's 42%").
pub(crate) const CONNECTION_BUFFER: usize = 128 * 1024;

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
        .header_read_timeout(None)
        .half_close(true)
        .keep_alive(true)
        .max_buf_size(CONNECTION_BUFFER);
    let builder = Arc::new(builder);
    let (alive_tx, mut alive_rx) = mpsc::channel::<()>(1);
    let conn_shutdown = shutdown.clone();
    let slots = Arc::new(Semaphore::new(app.config.max_connections.max(1)));
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            _ = wait_down(&mut shutdown) => break,
        };
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
                let peer = SocketAddr::new(peer.ip().to_canonical(), peer.port());
                let app = app.clone();
                let builder = builder.clone();
                let shutdown = conn_shutdown.clone();
                let alive = alive_tx.clone();
                tokio::spawn(async move {
                    connection(stream, peer, app, builder, shutdown).await;
                    drop(slot);
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

/// One request: its answer, written through to the state file first when it changed state.
/// An `async fn` taking the request (not a future built outside and moved in): hyper keeps
/// this future in a box, and the request's dispatch is in it once, not twice.
async fn answer(
    app: Arc<App>,
    peer: SocketAddr,
    req: hyper::Request<hyper::body::Incoming>,
    persist: Option<Arc<persist::Persist>>,
    guard: InFlight,
) -> Result<crate::response::MockResponse, routes::Dropped> {
    let mut resp = routes::dispatch(app, peer, req).await;
    if let (Some(persist), Ok(answer)) = (persist, resp.as_mut())
        && !persist.sync().await
    {
        *answer = not_persisted(answer);
    }
    drop(guard);
    resp
}

/// The answer sent instead when the state could not be written (see `crate::state::persist`).
fn not_persisted(answer: &crate::response::MockResponse) -> crate::response::MockResponse {
    let mut resp = crate::response::json(
        500,
        &serde_json::json!({
            "success": false,
            "message": "the mock could not write its state file; this change is not durable",
        }),
    );
    if let Some(id) = answer
        .headers()
        .get(crate::response::headers::REQUEST_ID_HEADER)
    {
        resp.headers_mut()
            .insert(crate::response::headers::REQUEST_ID_HEADER, id.clone());
    }
    resp
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    app: Arc<App>,
    builder: Arc<auto::Builder<TokioExecutor>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity {
        started: Instant::now(),
        io_events: AtomicU64::new(0),
        head_started_ms: AtomicU64::new(NONE),
        in_flight: AtomicU64::new(0),
        h2: AtomicBool::new(false),
        sniffed: AtomicBool::new(false),
    });
    let io = IdleIo {
        inner: stream,
        activity: activity.clone(),
    };
    let idle_ms = app.config.idle_timeout.as_millis() as u64;
    let header_ms = app.config.header_timeout.as_millis() as u64;
    let svc_app = app.clone();
    let svc_activity = activity.clone();
    let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let guard = InFlight::start(svc_activity.clone());
        let persist = svc_app
            .persist
            .clone()
            .filter(|_| persist::may_write(req.method()));
        answer(svc_app.clone(), peer, req, persist, guard)
    });
    let conn = builder.serve_connection(TokioIo::new(io), svc);
    let mut conn = std::pin::pin!(conn);
    let tick = (app.config.idle_timeout.min(app.config.header_timeout) / 4)
        .clamp(Duration::from_millis(25), Duration::from_secs(5));
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut closing = false;
    // The idle clock: the traffic counter as last seen, and when it last moved (ms).
    let mut seen_events = 0;
    let mut last_active_ms = 0;
    loop {
        tokio::select! {
            // The connection first: the other branches only matter once per tick.
            biased;
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
            _ = ticker.tick() => {
                let now = activity.now_ms();
                let head = activity.head_started_ms.load(Ordering::Acquire);
                if head != NONE && now.saturating_sub(head) >= header_ms {
                    tracing::debug!(%peer, "request head not received in time; closing");
                    return;
                }
                let events = activity.io_events.load(Ordering::Acquire);
                if events != seen_events {
                    seen_events = events;
                    last_active_ms = now;
                }
                let idle = activity.in_flight.load(Ordering::Acquire) == 0
                    && head == NONE
                    && now.saturating_sub(last_active_ms) >= idle_ms;
                if idle && !closing {
                    tracing::debug!(%peer, "closing idle connection");
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// "No time" in the activity fields.
const NONE: u64 = u64::MAX;

/// What the timeouts of one connection look at.
struct Activity {
    started: Instant,
    /// Counts reads, writes and finished requests: the ticker notes when it last moved, so
    /// traffic costs no clock read (the idle timeout is measured in ticks).
    io_events: AtomicU64,
    /// First byte of a request head not yet handed to the service, ms since `started`.
    head_started_ms: AtomicU64,
    /// Requests being served.
    in_flight: AtomicU64,
    /// The connection speaks HTTP/2 (the header timeout is for HTTP/1 request heads).
    h2: AtomicBool,
    /// The first bytes were looked at.
    sniffed: AtomicBool,
}

impl Activity {
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// Marks one request in flight for as long as it lives.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: Arc<Activity>) -> Self {
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        activity.head_started_ms.store(NONE, Ordering::Release);
        Self(activity)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.0.io_events.fetch_add(1, Ordering::Release);
    }
}

/// A socket that notes its traffic for the timeouts.
struct IdleIo<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T> IdleIo<T> {
    fn touch(&self, read: Option<&[u8]>) {
        let a = &self.activity;
        a.io_events.fetch_add(1, Ordering::Release);
        let Some(bytes) = read else { return };
        if !a.sniffed.load(Ordering::Acquire) {
            a.sniffed.store(true, Ordering::Release);
            if bytes.starts_with(b"PRI ") {
                a.h2.store(true, Ordering::Release);
            }
        }
        // The clock is read once per HTTP/1 request head: when its first bytes arrive.
        if !a.h2.load(Ordering::Acquire)
            && a.in_flight.load(Ordering::Acquire) == 0
            && a.head_started_ms.load(Ordering::Acquire) == NONE
        {
            let _ = a.head_started_ms.compare_exchange(
                NONE,
                a.now_ms(),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
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
            self.touch(Some(&buf.filled()[before..]));
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
            self.touch(None);
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
            self.touch(None);
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
