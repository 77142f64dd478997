//! The throughput and memory bench behind `gatecheck bench`: the mock against a bare hyper
//! baseline serving the same bytes, loaded alternately by the same in-process hyper client.
//!
//! For each route the mock's answer is captured once and the baseline is set to answer the
//! same status, content type and body. Then, `rounds` times, the baseline and the mock are
//! each loaded for `duration` (after one warm-up of each), in alternating slices of `slice`;
//! a round's figure for each server is the median of its slices. The ratio is paired by
//! slice: a round's ratio is the median of each mock slice over the baseline slice beside it
//! (the two saw the same machine state), and the route's ratio the median of the rounds'. A
//! route whose rounds' ratios spread more than `max_spread` (max − min over the median) gets
//! no ratio: the machine was too noisy to say.
//!
//! The servers run on one runtime (`server_threads` workers) and the client on another
//! (`client_threads` workers), in this process; memory figures are this process's RSS.
//!
//! ```text
//! let config = bench::BenchConfig::quick();
//! let report = bench::run(&config)?;
//! print!("{}", report.table());
//! ```

mod baseline;
mod load;
mod memory;
mod process;
mod report;
mod routes;

use memory::rss_bytes;
pub use process::{process_memory, ProcessLoad, ProcessMemoryReport};
pub use report::{BenchReport, MemoryReport, RouteResult, StartupReport};
pub use routes::ROUTE_NAMES;

use gatecheck_mock::MockServer;
use load::Until;
use std::time::{Duration, Instant};

/// The RSS limit of the issue's memory targets, bytes.
pub const RSS_LIMIT: u64 = 30 * 1024 * 1024;

/// What to run and for how long.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Load time of each server in each round.
    pub duration: Duration,
    /// A round loads the two servers in turn in slices this long (their order alternating
    /// from slice to slice), and its requests/s for each server is the median of that
    /// server's slices: a stall of the machine spoils a slice or two, not the round.
    pub slice: Duration,
    /// Warm-up load of each server before the first round of a route.
    pub warmup: Duration,
    /// Rounds per route (the median is reported).
    pub rounds: usize,
    /// Keep-alive client connections.
    pub connections: usize,
    /// Worker threads of the client runtime.
    pub client_threads: usize,
    /// Worker threads of the server runtime (mock and baseline).
    pub server_threads: usize,
    /// Live video tasks created before the poll route.
    pub video_tasks: usize,
    /// Keys of the "many keys" `PUT /api/token/` route.
    pub many_keys: usize,
    /// Size of the translation upload, bytes.
    pub upload_bytes: usize,
    /// Connections opened at once in the burst.
    pub burst_connections: usize,
    /// How long to wait for the RSS to fall under [`RSS_LIMIT`] after the burst.
    pub settle: Duration,
    /// Largest spread of the rounds' paired ratios (max − min over the median) that still
    /// gives a ratio.
    pub max_spread: f64,
    /// Only these routes (names of [`ROUTE_NAMES`]); all when empty.
    pub only: Vec<String>,
    /// `MockServer::start()` repetitions for the warm start time.
    pub starts: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            duration: Duration::from_secs(2),
            slice: Duration::from_millis(250),
            warmup: Duration::from_millis(500),
            rounds: 3,
            connections: 32,
            client_threads: 1,
            server_threads: 1,
            video_tasks: 10_000,
            many_keys: 1000,
            upload_bytes: 1024 * 1024,
            burst_connections: 2000,
            settle: Duration::from_secs(10),
            max_spread: 0.15,
            only: Vec::new(),
            starts: 20,
        }
    }
}

impl BenchConfig {
    /// A tiny run that exercises every part in well under a second of load (for tests).
    #[cfg(test)]
    pub fn quick() -> Self {
        Self {
            duration: Duration::from_millis(30),
            slice: Duration::from_millis(10),
            warmup: Duration::from_millis(10),
            rounds: 3,
            connections: 2,
            video_tasks: 20,
            many_keys: 5,
            upload_bytes: 16 * 1024,
            burst_connections: 20,
            settle: Duration::from_millis(200),
            starts: 2,
            ..Self::default()
        }
    }
}

/// Why the bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A runtime or socket could not be set up.
    #[error("bench setup failed")]
    Setup(#[from] std::io::Error),
    /// The mock did not answer a setup request as expected.
    #[error("bench setup: {0}")]
    Mock(String),
    /// An unknown route name in `only`.
    #[error("unknown route `{0}`; routes: {names}", names = ROUTE_NAMES.join(", "))]
    UnknownRoute(String),
}

fn runtime(threads: usize, name: &str) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name(name)
        .enable_all()
        .build()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Max − min over the median.
fn spread(v: &[f64]) -> f64 {
    let m = median(v);
    if m <= 0.0 {
        return f64::INFINITY;
    }
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (hi - lo) / m
}

/// Runs the bench.
pub fn run(config: &BenchConfig) -> Result<BenchReport, BenchError> {
    for name in &config.only {
        if !ROUTE_NAMES.contains(&name.as_str()) {
            return Err(BenchError::UnknownRoute(name.clone()));
        }
    }
    let servers = runtime(config.server_threads, "bench-server")?;
    let client = runtime(config.client_threads, "bench-client")?;

    // Start-up first, while nothing of the mock has run in this process yet; but after both
    // runtimes' worker threads are up (a task has run on each), so that their own start does
    // not share the cores with the timed one.
    for rt in [&servers, &client] {
        let _ = rt.block_on(rt.spawn(async {}));
    }
    let startup = servers.block_on(start_times(config.starts));
    let rss_start = rss_bytes();

    let mock = servers.block_on(MockServer::builder().try_start())?;
    let addr = mock.address();
    let key = routes::bench_key(&mock);
    let (task_ids, per_task) = live_tasks(&client, &mock, &key, config)?;
    let list = route_list(config, &mock, &key, task_ids);

    // The baseline answers each route with the mock's own answer.
    let canned = canned_answers(&client, addr, &list)?;
    let base = servers.block_on(baseline::start(canned))?;

    let mut results = Vec::new();
    let mut requests = 0u64;
    for r in &list {
        results.push(measure(&client, base.addr, addr, r, config, &mut requests));
    }
    let rss_after_run = rss_bytes();

    // The burst: many connections at once, then all closed.
    let mut burst_ok = 0;
    let (mut rss_after_burst, mut rss_settled, mut settled_in) = (None, None, None);
    if config.burst_connections > 0 {
        let spec = routes::catalog().spec;
        burst_ok = client.block_on(load::burst(addr, &spec, config.burst_connections));
        rss_after_burst = rss_bytes();
        let (rss, took) = memory::settle(rss_bytes, RSS_LIMIT, config.settle);
        rss_settled = rss;
        settled_in = took;
    }
    drop(base);
    servers.block_on(mock.shutdown());

    Ok(BenchReport {
        config: report::ConfigEcho::from(config),
        routes: results,
        memory: MemoryReport {
            rss_start,
            rss_after_run,
            mock_requests: requests,
            burst_connections: config.burst_connections,
            burst_answered: burst_ok,
            rss_after_burst,
            rss_settled,
            settled_in_ms: settled_in.map(|d| d.as_millis() as u64),
            video_tasks: config.video_tasks,
            bytes_per_video_task: per_task,
        },
        startup,
        runner_rps: None,
        serve_first_200_ms: None,
        serve_memory: None,
    })
}

/// Whether route `name` is measured (`config.only` empty: every route).
fn wanted(config: &BenchConfig, name: &str) -> bool {
    config.only.is_empty() || config.only.iter().any(|n| n == name)
}

/// Creates the live video tasks the poll route reads: their ids, and the memory each takes
/// (bytes, when the RSS can be read).
fn live_tasks(
    client: &tokio::runtime::Runtime,
    mock: &MockServer,
    key: &str,
    config: &BenchConfig,
) -> Result<(Vec<String>, Option<u64>), BenchError> {
    if !wanted(config, "video-poll") || config.video_tasks == 0 {
        return Ok((Vec::new(), None));
    }
    let before = rss_bytes();
    let spec = routes::video_create(key);
    let out = client.block_on(load::run(
        mock.address(),
        &spec,
        config.connections,
        Until::Count(config.video_tasks as u64),
    ));
    if out.errors > 0 {
        return Err(BenchError::Mock(format!(
            "{} of {} video task creations failed",
            out.errors, config.video_tasks
        )));
    }
    let after = rss_bytes();
    let per_task = match (before, after) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b) / config.video_tasks as u64),
        _ => None,
    };
    let ids = mock
        .state()
        .videos
        .tasks
        .into_iter()
        .map(|t| t.id)
        .collect();
    Ok((ids, per_task))
}

/// The routes to measure, in the report's order.
fn route_list(
    config: &BenchConfig,
    mock: &MockServer,
    key: &str,
    task_ids: Vec<String>,
) -> Vec<routes::Route> {
    let wanted = |name: &str| wanted(config, name);
    let mut list = Vec::new();
    if wanted("catalog") {
        list.push(routes::catalog());
    }
    if wanted("model-get") {
        list.push(routes::model_get(key));
    }
    if wanted("token-put-one") {
        list.push(routes::token_put(mock, 1));
    }
    if wanted("token-put-many") {
        list.push(routes::token_put(mock, config.many_keys.max(2)));
    }
    if wanted("image-generation") {
        list.push(routes::image_generation(key));
    }
    if wanted("video-poll") && !task_ids.is_empty() {
        list.push(routes::video_poll(key, task_ids));
    }
    if wanted("translation-upload") {
        list.push(routes::translation_upload(key, config.upload_bytes));
    }
    list
}

/// The mock's own answer to each route, for the baseline to send back (an error when one is
/// not the status the route expects).
fn canned_answers(
    client: &tokio::runtime::Runtime,
    addr: std::net::SocketAddr,
    list: &[routes::Route],
) -> Result<Vec<baseline::Canned>, BenchError> {
    let mut canned = Vec::new();
    for r in list {
        let (status, content_type, body) = client.block_on(load::once(addr, (r.spec.make)(0)))?;
        if status != r.spec.expect {
            return Err(BenchError::Mock(format!(
                "{} answered {status}: {}",
                r.what,
                String::from_utf8_lossy(&body[..body.len().min(300)])
            )));
        }
        canned.push(baseline::Canned {
            prefix: r.prefix.clone(),
            status,
            content_type,
            body,
        });
    }
    Ok(canned)
}

/// Measures one route on the baseline (`base`) and on the mock (`addr`): a warm-up of each,
/// then `rounds` of interleaved slices. Adds the mock's answered requests to `requests`.
fn measure(
    client: &tokio::runtime::Runtime,
    base: std::net::SocketAddr,
    addr: std::net::SocketAddr,
    r: &routes::Route,
    config: &BenchConfig,
    requests: &mut u64,
) -> RouteResult {
    let conns = config.connections;
    client.block_on(load::run(
        base,
        &r.spec,
        conns,
        Until::Elapsed(config.warmup),
    ));
    client.block_on(load::run(
        addr,
        &r.spec,
        conns,
        Until::Elapsed(config.warmup),
    ));
    let (mut b, mut m, mut ratios, mut errors) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let slice = config
        .slice
        .min(config.duration)
        .max(Duration::from_millis(1));
    let slices = (config.duration.as_secs_f64() / slice.as_secs_f64())
        .round()
        .max(1.0) as usize;
    for _ in 0..config.rounds.max(1) {
        let (mut sb, mut sm, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..slices {
            let load = |at| client.block_on(load::run(at, &r.spec, conns, Until::Elapsed(slice)));
            // Each server goes first in every other slice.
            let (ob, om) = if i % 2 == 0 {
                let ob = load(base);
                (ob, load(addr))
            } else {
                let om = load(addr);
                (load(base), om)
            };
            errors += ob.errors + om.errors;
            *requests += om.ok;
            sb.push(ob.rps());
            sm.push(om.rps());
            if ob.rps() > 0.0 {
                pairs.push(om.rps() / ob.rps());
            }
        }
        b.push(median(&sb));
        m.push(median(&sm));
        ratios.push(median(&pairs));
    }
    RouteResult::new(
        r,
        report::Rounds { b, m, ratios },
        errors,
        config.max_spread,
    )
}

/// `MockServer::start()`: the first in this process (cold), then the median of `n` more.
async fn start_times(n: usize) -> StartupReport {
    let t = Instant::now();
    let first = MockServer::start().await;
    let cold = t.elapsed();
    first.shutdown().await;
    let mut warm = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let s = MockServer::start().await;
        warm.push(t.elapsed().as_secs_f64() * 1e6);
        s.shutdown().await;
    }
    StartupReport {
        cold_us: cold.as_secs_f64() * 1e6,
        warm_us: (!warm.is_empty()).then(|| median(&warm)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_and_median() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert!((spread(&[90.0, 100.0, 110.0]) - 0.2).abs() < 1e-9);
        assert!(spread(&[0.0, 0.0]).is_infinite());
    }

    /// A tiny run of the whole machinery: every route answers as expected on both servers.
    #[test]
    fn quick_run_measures_every_route_without_errors() {
        let report = run(&BenchConfig::quick()).expect("bench runs");
        let names: Vec<&str> = report.routes.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ROUTE_NAMES);
        for r in &report.routes {
            assert_eq!(r.errors, 0, "{}: {:?}", r.name, r.refused);
            assert_eq!(r.mock_rps.len(), 3);
            assert!(r.mock_median > 0.0 && r.baseline_median > 0.0, "{}", r.name);
        }
        assert_eq!(report.memory.burst_answered, 20);
        assert!(report.table().contains("video-poll"));
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("json");
        assert_eq!(
            json["routes"].as_array().map(Vec::len),
            Some(ROUTE_NAMES.len())
        );
    }

    /// The process-memory load against a mock in this process (its own pid): every request
    /// and burst connection answered, and the RSS read at each step on Linux.
    #[test]
    fn process_memory_loads_a_mock_and_reads_its_rss() {
        let rt = runtime(1, "bench-test-server").expect("runtime");
        let mock = rt.block_on(MockServer::start());
        let load = ProcessLoad {
            requests: 200,
            connections: 4,
            burst_connections: 10,
            settle: Duration::from_millis(100),
            client_threads: 1,
        };
        let report = process_memory(mock.address(), std::process::id(), &load).expect("runs");
        assert_eq!((report.requests_answered, report.request_errors), (200, 0));
        assert_eq!(report.burst_answered, 10);
        if cfg!(target_os = "linux") {
            assert!(report.rss_start.is_some() && report.rss_after_burst.is_some());
        }
        rt.block_on(mock.shutdown());
    }

    #[test]
    fn unknown_routes_are_refused() {
        let config = BenchConfig {
            only: vec!["nope".into()],
            ..BenchConfig::quick()
        };
        assert!(matches!(run(&config), Err(BenchError::UnknownRoute(_))));
    }
}
