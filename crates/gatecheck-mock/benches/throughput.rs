//! Throughput of the mock against a bare hyper hello-world server, driven by the same
//! in-process load generator (N keep-alive HTTP/1.1 connections for a fixed time).
//!
//! `cargo bench -p gatecheck-mock --bench throughput`
//! (`GATECHECK_BENCH_SECS`, default 3; `GATECHECK_BENCH_CONNS`, default 32).
//!
//! With `GATECHECK_BENCH_BARE_PORT=<port>` it only serves the bare hyper hello-world on that
//! port until killed, as a baseline for an external load generator such as `wrk`.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A bare hyper server: `GET /` answers "Hello, world!", any other path answers `catalog`
/// (the same bytes the mock's `GET /api/models` answers, for a same-size baseline).
async fn bare_hyper(port: u16, catalog: Bytes) -> SocketAddr {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let catalog = catalog.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let body = if req.uri().path() == "/" {
                        Bytes::from_static(b"Hello, world!")
                    } else {
                        catalog.clone()
                    };
                    async move { Ok::<_, Infallible>(hyper::Response::new(Full::new(body))) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    addr
}

/// Requests per second of `GET path` over `conns` connections for `secs` seconds.
async fn load(addr: SocketAddr, path: &str, auth: Option<String>, conns: u64, secs: u64) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for _ in 0..conns {
        let (done, stop, path, auth) = (done.clone(), stop.clone(), path.to_owned(), auth.clone());
        tasks.push(tokio::spawn(async move {
            let stream = TcpStream::connect(addr).await.expect("connect");
            let _ = stream.set_nodelay(true);
            let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .expect("handshake");
            tokio::spawn(conn);
            while !stop.load(Ordering::Relaxed) {
                let mut req = hyper::Request::get(&path).header("host", "bench");
                if let Some(a) = &auth {
                    req = req.header("authorization", a);
                }
                let req = req.body(Empty::<Bytes>::new()).expect("request");
                let resp = sender.send_request(req).await.expect("send");
                assert!(resp.status().is_success(), "status {}", resp.status());
                let _ = resp.into_body().collect().await.expect("body");
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let count = done.load(Ordering::Relaxed);
    for t in tasks {
        let _ = t.await;
    }
    count as f64 / elapsed
}

/// One `GET` on a fresh connection; the body.
async fn fetch(addr: SocketAddr, path: &str) -> Bytes {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let req = hyper::Request::get(path)
        .header("host", "bench")
        .body(Empty::<Bytes>::new())
        .expect("request");
    let resp = sender.send_request(req).await.expect("send");
    resp.into_body().collect().await.expect("body").to_bytes()
}

fn main() {
    let secs = env_or("GATECHECK_BENCH_SECS", 3);
    let conns = env_or("GATECHECK_BENCH_CONNS", 32);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    if let Some(port) = std::env::var("GATECHECK_BENCH_BARE_PORT")
        .ok()
        .and_then(|p| p.parse::<u16>().ok())
    {
        runtime.block_on(async move {
            let addr = bare_hyper(port, Bytes::new()).await;
            println!("bare hyper listening on http://{addr}");
            std::future::pending::<()>().await;
        });
        return;
    }
    runtime.block_on(async move {
        let mock = gatecheck_mock::MockServer::builder()
            .journal_capacity(1000)
            .start()
            .await;
        let mock_addr = mock.address();
        let catalog = fetch(mock_addr, "/api/models").await;
        let bare = bare_hyper(0, catalog.clone()).await;
        let key = format!("Bearer {}", mock.demo_key());
        // Warm up both servers.
        load(bare, "/", None, conns, 1).await;
        load(mock_addr, "/api/models", None, conns, 1).await;

        let bare_rps = load(bare, "/", None, conns, secs).await;
        let bare_catalog_rps = load(bare, "/catalog", None, conns, secs).await;
        let catalog_rps = load(mock_addr, "/api/models", None, conns, secs).await;
        let authed_rps = load(mock_addr, "/v1/models/tts-1", Some(key), conns, secs).await;
        println!("throughput ({conns} keep-alive connections, {secs} s each, same process):");
        println!("  bare hyper GET /                       {bare_rps:>10.0} req/s");
        println!(
            "  bare hyper, the catalog's {:>5} bytes   {bare_catalog_rps:>10.0} req/s",
            catalog.len()
        );
        println!(
            "  mock GET /api/models                   {catalog_rps:>10.0} req/s  ({:.0}% of bare, {:.0}% of bare with the same body)",
            100.0 * catalog_rps / bare_rps,
            100.0 * catalog_rps / bare_catalog_rps
        );
        println!(
            "  mock GET /v1/models/tts-1 (authed)     {authed_rps:>10.0} req/s  ({:.0}% of bare)",
            100.0 * authed_rps / bare_rps
        );
    });
}
