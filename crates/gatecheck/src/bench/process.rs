//! The memory of a mock running in its own process (`gatecheck serve`): the bench's client
//! does not count, so the figures are the mock's alone.

use super::load::{self, Until};
use super::memory::{rss_of, settle};
use super::{routes, runtime, BenchError, RSS_LIMIT};
use serde::Serialize;
use std::net::SocketAddr;
use std::time::Duration;

/// What to do to the process.
#[derive(Debug, Clone)]
pub struct ProcessLoad {
    /// Catalog requests to send before the burst (keep-alive, `connections` at a time).
    pub requests: u64,
    /// Keep-alive client connections for those requests.
    pub connections: usize,
    /// Connections opened at once in the burst (0: no burst).
    pub burst_connections: usize,
    /// How long to wait for the RSS to fall under [`RSS_LIMIT`] after the burst.
    pub settle: Duration,
    /// Client threads.
    pub client_threads: usize,
}

/// The process's resident memory before and after the load.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessMemoryReport {
    /// RSS once it answered its first request, bytes.
    pub rss_start: Option<u64>,
    /// Requests answered 200.
    pub requests_answered: u64,
    /// Requests that failed.
    pub request_errors: u64,
    /// RSS after them, bytes.
    pub rss_after_requests: Option<u64>,
    /// Connections opened at once in the burst.
    pub burst_connections: usize,
    /// Burst connections answered 200.
    pub burst_answered: u64,
    /// RSS right after the burst's connections closed, bytes.
    pub rss_after_burst: Option<u64>,
    /// RSS at the end of the settle wait, bytes.
    pub rss_settled: Option<u64>,
    /// How long after the burst the RSS was under 30 MB (`None`: not within the wait).
    pub settled_in_ms: Option<u64>,
}

/// Loads the mock listening on `addr`, whose process id is `pid`, with `load` (catalog
/// requests, then a burst) and reads that process's RSS at each step.
///
/// ```text
/// let load = ProcessLoad {
///     requests: 100_000,
///     connections: 32,
///     burst_connections: 2000,
///     settle: std::time::Duration::from_secs(10),
///     client_threads: 1,
/// };
/// let report = process_memory(addr, pid, &load)?;
/// println!("{:?}", report.rss_after_requests);
/// ```
pub fn process_memory(
    addr: SocketAddr,
    pid: u32,
    load: &ProcessLoad,
) -> Result<ProcessMemoryReport, BenchError> {
    let client = runtime(load.client_threads, "bench-client")?;
    let spec = routes::catalog().spec;
    client.block_on(load::once(addr, (spec.make)(0)))?;
    let rss_start = rss_of(pid);
    let out = client.block_on(load::run(
        addr,
        &spec,
        load.connections.max(1),
        Until::Count(load.requests),
    ));
    let rss_after_requests = rss_of(pid);
    let (mut burst_answered, mut rss_after_burst, mut rss_settled, mut settled_in) =
        (0, None, None, None);
    if load.burst_connections > 0 {
        burst_answered = client.block_on(load::burst(addr, &spec, load.burst_connections));
        rss_after_burst = rss_of(pid);
        let (rss, took) = settle(|| rss_of(pid), RSS_LIMIT, load.settle);
        rss_settled = rss;
        settled_in = took;
    }
    Ok(ProcessMemoryReport {
        rss_start,
        requests_answered: out.ok,
        request_errors: out.errors,
        rss_after_requests,
        burst_connections: load.burst_connections,
        burst_answered,
        rss_after_burst,
        rss_settled,
        settled_in_ms: settled_in.map(|d| d.as_millis() as u64),
    })
}
