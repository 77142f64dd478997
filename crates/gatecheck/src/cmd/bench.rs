//! `gatecheck bench`: the mock against a bare hyper baseline serving the same bytes, plus
//! memory, start-up and runner figures (see BENCHMARKS.md and [`crate::bench`]).

use crate::bench::{self, BenchConfig};
use anyhow::{anyhow, Context as _};
use gatecheck_conformance::{Runner, RunnerConfig};
use gatecheck_mock::{ClockMode, MockServer};
use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Arguments of `gatecheck bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Seconds of load per server per round.
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    pub duration: f64,
    /// Seconds of warm-up per server before a route's first round.
    #[arg(long, default_value_t = 0.5, value_name = "SECS")]
    pub warmup: f64,
    /// Seconds of one slice: a round loads the two servers in turn, slice by slice, and takes
    /// each server's median slice (a stall of the machine spoils a slice, not the round).
    #[arg(long, default_value_t = 0.25, value_name = "SECS")]
    pub slice: f64,
    /// Rounds per route (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Keep-alive client connections.
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// Client threads (1 or 2).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub client_threads: u8,
    /// Server threads (mock and baseline share them).
    #[arg(long, default_value_t = 1)]
    pub server_threads: usize,
    /// Live video tasks for the poll route.
    #[arg(long, default_value_t = 10_000)]
    pub video_tasks: usize,
    /// Keys of the "many keys" `PUT /api/token/` route.
    #[arg(long, default_value_t = 1000)]
    pub many_keys: usize,
    /// Size of the translation upload, KiB.
    #[arg(long, default_value_t = 1024)]
    pub upload_kib: usize,
    /// Connections opened at once in the burst (0: no burst).
    #[arg(long, default_value_t = 2000)]
    pub burst: usize,
    /// Seconds to wait for the RSS to fall under 30 MB after the burst.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub settle: f64,
    /// Largest spread of the rounds' paired ratios that still gives a ratio, percent.
    #[arg(long, default_value_t = 15.0, value_name = "PCT")]
    pub max_spread: f64,
    /// Only these routes (repeatable): catalog, model-get, token-put-one, token-put-many,
    /// image-generation, video-poll, translation-upload.
    #[arg(long = "only", value_name = "ROUTE")]
    pub only: Vec<String>,
    /// Skip the conformance runner's requests/s.
    #[arg(long)]
    pub no_runner: bool,
    /// Skip timing `gatecheck serve` to its first 200.
    #[arg(long)]
    pub no_serve: bool,
    /// Catalog requests sent to a `gatecheck serve` child process (then the burst) to measure
    /// the mock's own memory, without the bench's client in the figure (0: skip).
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    pub serve_requests: u64,
    /// Also write the report as JSON to this file (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Runs the subcommand and returns the exit code.
pub fn run(args: BenchArgs) -> u8 {
    match bench(&args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("gatecheck bench: {e:#}");
            2
        }
    }
}

fn secs(s: f64, name: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(s).map_err(|_| anyhow!("invalid --{name} {s}"))
}

fn bench(args: &BenchArgs) -> anyhow::Result<()> {
    let config = BenchConfig {
        duration: secs(args.duration, "duration")?,
        slice: secs(args.slice, "slice")?,
        warmup: secs(args.warmup, "warmup")?,
        rounds: args.rounds.max(1),
        connections: args.connections.max(1),
        client_threads: usize::from(args.client_threads),
        server_threads: args.server_threads.max(1),
        video_tasks: args.video_tasks,
        many_keys: args.many_keys,
        upload_bytes: args.upload_kib.saturating_mul(1024),
        burst_connections: args.burst,
        settle: secs(args.settle, "settle")?,
        max_spread: args.max_spread / 100.0,
        only: args.only.clone(),
        starts: 20,
    };
    // Timed before any load: right after one, the child shares the two cores with this
    // process, most likely its allocator handing the load's memory back (BENCHMARKS.md,
    // "Ninth session").
    let serve_first_200_ms = if args.no_serve {
        None
    } else {
        Some(serve_first_200()?)
    };
    let mut report = bench::run(&config)?;
    report.serve_first_200_ms = serve_first_200_ms;
    if !args.no_runner {
        report.runner_rps = Some(runner_rps()?);
    }
    if args.serve_requests > 0 {
        let load = bench::ProcessLoad {
            requests: args.serve_requests,
            connections: config.connections,
            burst_connections: config.burst_connections,
            settle: config.settle,
            client_threads: config.client_threads,
        };
        report.serve_memory = Some(serve_memory(&load)?);
    }
    match &args.json {
        Some(p) if p.as_os_str() == "-" => println!("{}", report.to_json()),
        Some(p) => {
            std::fs::write(p, report.to_json() + "\n")
                .with_context(|| format!("writing {}", p.display()))?;
            print!("{}", report.table());
        }
        None => print!("{}", report.table()),
    }
    Ok(())
}

/// The conformance runner (defaults, seed 1) against a fresh embedded mock with a virtual
/// clock, as `gatecheck check` without `--base-url`: requests sent per second.
fn runner_rps() -> anyhow::Result<f64> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let server = MockServer::builder()
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let mut config = RunnerConfig::new(server.uri().parse()?);
        config.scope.seed = Some(1);
        let started = Instant::now();
        let report = Runner::new(config)
            .run()
            .await
            .map_err(|e| anyhow!("{e}"))?;
        let secs = started.elapsed().as_secs_f64();
        server.shutdown().await;
        Ok(report.requests_sent as f64 / secs.max(1e-9))
    })
}

/// This binary's `serve` on a free port, in its own process, loaded by
/// [`bench::process_memory`]; the child is killed afterwards.
fn serve_memory(load: &bench::ProcessLoad) -> anyhow::Result<bench::ProcessMemoryReport> {
    let serve = ServeChild::spawn()?;
    serve.wait_healthy(Instant::now())?;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], serve.port));
    Ok(bench::process_memory(addr, serve.child.id(), load)?)
}

/// Spawns of `serve` timed by [`serve_first_200`]: one spawn takes a few milliseconds, and
/// this VM moves a single one by ±30%.
const SERVE_SPAWNS: usize = 11;

/// Median of [`SERVE_SPAWNS`] runs of this binary's `serve` on a free port: spawn to the first
/// 200 of `GET /health`, milliseconds.
fn serve_first_200() -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for _ in 0..SERVE_SPAWNS {
        let started = Instant::now();
        let took = ServeChild::spawn()?.wait_healthy(started)?;
        times.push(took.as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// This binary's `serve` on a free port (output discarded), killed when dropped.
struct ServeChild {
    child: std::process::Child,
    port: u16,
}

impl ServeChild {
    fn spawn() -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("finding this binary")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new(&exe)
            .args(["serve", "--port", &port.to_string()])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting gatecheck serve")?;
        Ok(Self { child, port })
    }

    /// Polls `GET /health` until it answers 200: the time since `started`, or an error after
    /// 10 s.
    fn wait_healthy(&self, started: Instant) -> anyhow::Result<Duration> {
        while !health_ok(self.port) {
            if started.elapsed() > Duration::from_secs(10) {
                return Err(anyhow!("gatecheck serve did not answer within 10 s"));
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        Ok(started.elapsed())
    }
}

impl Drop for ServeChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn health_ok(port: u16) -> bool {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nhost: bench\r\nconnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}
