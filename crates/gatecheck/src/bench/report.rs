//! What the bench measured: the JSON shape (`--json`) and the printed table.

use super::routes::Route;
use super::{median, spread, BenchConfig, RSS_LIMIT};
use serde::Serialize;
use std::fmt::Write as _;

/// The settings a report was made with.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigEcho {
    /// Seconds of load per server per round.
    pub duration_secs: f64,
    /// Seconds of one slice (a round alternates the servers slice by slice).
    pub slice_secs: f64,
    /// Rounds per route.
    pub rounds: usize,
    /// Client connections.
    pub connections: usize,
    /// Client runtime threads.
    pub client_threads: usize,
    /// Server runtime threads.
    pub server_threads: usize,
    /// Largest baseline spread that still gives ratios.
    pub max_spread: f64,
}

impl From<&BenchConfig> for ConfigEcho {
    fn from(c: &BenchConfig) -> Self {
        Self {
            duration_secs: c.duration.as_secs_f64(),
            slice_secs: c.slice.min(c.duration).as_secs_f64(),
            rounds: c.rounds,
            connections: c.connections,
            client_threads: c.client_threads,
            server_threads: c.server_threads,
            max_spread: c.max_spread,
        }
    }
}

/// One route: requests per second of each round, medians and the ratio.
#[derive(Debug, Clone, Serialize)]
pub struct RouteResult {
    /// Route name (see [`super::ROUTE_NAMES`]).
    pub name: String,
    /// What was sent.
    pub what: String,
    /// Baseline requests/s, per round.
    pub baseline_rps: Vec<f64>,
    /// Mock requests/s, per round.
    pub mock_rps: Vec<f64>,
    /// Median of `baseline_rps`.
    pub baseline_median: f64,
    /// Median of `mock_rps`.
    pub mock_median: f64,
    /// Spread of the baseline's rounds (max − min over the median).
    pub baseline_spread: f64,
    /// Each round's ratio: the median, over its slices, of a mock slice's requests/s over
    /// the baseline slice run next to it (the two see the same machine state).
    pub round_ratios: Vec<f64>,
    /// Spread of `round_ratios` (max − min over the median): what gates the ratio.
    pub ratio_spread: f64,
    /// The median of `round_ratios`; `None` when refused.
    pub ratio: Option<f64>,
    /// Why no ratio is given.
    pub refused: Option<String>,
    /// Answers with an unexpected status, and failed exchanges (both servers).
    pub errors: u64,
    /// The target ratio, if it sets one.
    pub target: Option<f64>,
    /// Whether the ratio meets the target (`None` without ratio or target).
    pub meets_target: Option<bool>,
}

/// A route's measured rounds: requests/s of each server and the paired ratio, per round.
pub(crate) struct Rounds {
    /// Baseline requests/s (the median slice), per round.
    pub(crate) b: Vec<f64>,
    /// Mock requests/s (the median slice), per round.
    pub(crate) m: Vec<f64>,
    /// The median slice-pair ratio, per round.
    pub(crate) ratios: Vec<f64>,
}

impl RouteResult {
    /// Its row of the table (and why no ratio, if refused).
    fn write_row(&self, out: &mut String) {
        let ratio = self
            .ratio
            .map(|x| format!("{:.0}%", x * 100.0))
            .unwrap_or_else(|| "-".into());
        let missed = if self.meets_target == Some(false) {
            "!"
        } else {
            ""
        };
        let target = self
            .target
            .map(|t| format!("{missed}{:.0}%", t * 100.0))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "{:<20} {:>12.0} {:>12.0} {:>7} {:>7} {:>6.0}%  {}",
            self.name,
            self.baseline_median,
            self.mock_median,
            ratio,
            target,
            self.ratio_spread * 100.0,
            self.what
        );
        if let Some(why) = &self.refused {
            let _ = writeln!(out, "{:<20} no ratio: {why}", "");
        }
    }

    pub(crate) fn new(r: &Route, rounds: Rounds, errors: u64, max_spread: f64) -> Self {
        let Rounds { b, m, ratios } = rounds;
        let (bm, mm, sp) = (median(&b), median(&m), spread(&b));
        let (rm, rsp) = (median(&ratios), spread(&ratios));
        let refused = if errors > 0 {
            Some(format!("{errors} requests failed"))
        } else if rsp > max_spread {
            Some(format!(
                "ratio unstable: its rounds spread {:.0}% (> {:.0}%)",
                rsp * 100.0,
                max_spread * 100.0
            ))
        } else {
            None
        };
        let ratio = (refused.is_none() && rm > 0.0).then_some(rm);
        Self {
            name: r.name.to_owned(),
            what: r.what.clone(),
            baseline_rps: b,
            mock_rps: m,
            baseline_median: bm,
            mock_median: mm,
            baseline_spread: sp,
            round_ratios: ratios,
            ratio_spread: rsp,
            ratio,
            refused,
            errors,
            target: r.target,
            meets_target: ratio.zip(r.target).map(|(x, t)| x >= t),
        }
    }
}

/// Memory of the bench process.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryReport {
    /// RSS after the start-up timings, before any load, bytes.
    pub rss_start: Option<u64>,
    /// RSS after every route's rounds, bytes.
    pub rss_after_run: Option<u64>,
    /// Requests the mock answered in the measured rounds.
    pub mock_requests: u64,
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
    /// Live video tasks created.
    pub video_tasks: usize,
    /// RSS growth over creating them, per task, bytes.
    pub bytes_per_video_task: Option<u64>,
}

/// `MockServer::start()` timings.
#[derive(Debug, Clone, Serialize)]
pub struct StartupReport {
    /// The first start in the process, microseconds.
    pub cold_us: f64,
    /// The median of the following starts, microseconds.
    pub warm_us: Option<f64>,
}

/// Everything one bench run measured.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// The settings.
    pub config: ConfigEcho,
    /// Per route.
    pub routes: Vec<RouteResult>,
    /// Memory.
    pub memory: MemoryReport,
    /// Start-up of the library server.
    pub startup: StartupReport,
    /// The conformance runner's requests/s against the embedded mock (set by the CLI).
    pub runner_rps: Option<f64>,
    /// `gatecheck serve`: process start to its first 200, ms (set by the CLI).
    pub serve_first_200_ms: Option<f64>,
    /// `gatecheck serve` in its own process: its RSS under load and after a burst (set by
    /// the CLI).
    pub serve_memory: Option<super::ProcessMemoryReport>,
}

fn mb(b: Option<u64>) -> String {
    b.map(|b| format!("{:.1} MB", b as f64 / 1_048_576.0))
        .unwrap_or_else(|| "n/a".into())
}

/// How an RSS came down after a burst: under the limit after some ms, or not within the wait.
fn settled(settled_in_ms: Option<u64>) -> String {
    match settled_in_ms {
        Some(ms) => format!("under {} after {ms} ms", mb(Some(RSS_LIMIT))),
        None => "not under 30 MB within the wait".into(),
    }
}

impl BenchReport {
    /// The human table: the settings, a row per route, then memory, start-up and the
    /// CLI's own figures.
    pub fn table(&self) -> String {
        let mut out = String::new();
        self.write_routes(&mut out);
        self.write_memory(&mut out);
        self.write_startup(&mut out);
        self.write_serve(&mut out);
        out
    }

    /// The settings line, the column heads and a row per route.
    fn write_routes(&self, out: &mut String) {
        let c = &self.config;
        let _ = writeln!(
            out,
            "gatecheck bench: {} rounds x {:.1} s per server in alternating {:.2} s slices (a round: the median slice; its ratio: the median of mock slice / the baseline slice beside it), {} connections, {} client / {} server threads; medians of the rounds; spread: of the rounds' ratios",
            c.rounds,
            c.duration_secs,
            c.slice_secs,
            c.connections,
            c.client_threads,
            c.server_threads
        );
        let _ = writeln!(
            out,
            "{:<20} {:>12} {:>12} {:>7} {:>7} {:>7}  route",
            "", "bare req/s", "mock req/s", "ratio", "target", "spread"
        );
        for r in &self.routes {
            r.write_row(out);
        }
    }

    /// The bench process's memory: at start, after the run, the burst, video tasks.
    fn write_memory(&self, out: &mut String) {
        let m = &self.memory;
        let _ = writeln!(
            out,
            "memory: RSS {} at start, {} after {} mock requests",
            mb(m.rss_start),
            mb(m.rss_after_run),
            m.mock_requests
        );
        if m.burst_connections > 0 {
            let _ = writeln!(
                out,
                "burst: {} connections ({} answered): RSS {} right after, {} ({})",
                m.burst_connections,
                m.burst_answered,
                mb(m.rss_after_burst),
                mb(m.rss_settled),
                settled(m.settled_in_ms)
            );
        }
        if let Some(b) = m.bytes_per_video_task {
            let _ = writeln!(
                out,
                "video tasks: {} live, {b} bytes of RSS each",
                m.video_tasks
            );
        }
    }

    /// `MockServer::start()` cold and warm.
    fn write_startup(&self, out: &mut String) {
        let s = &self.startup;
        let warm = s
            .warm_us
            .map(|w| format!("{w:.0} us"))
            .unwrap_or_else(|| "n/a".into());
        let _ = writeln!(
            out,
            "MockServer::start(): {:.0} us cold, {warm} warm (median)",
            s.cold_us
        );
    }

    /// What the CLI measured: the runner, `gatecheck serve`'s first answer and its memory.
    fn write_serve(&self, out: &mut String) {
        if let Some(r) = self.runner_rps {
            let _ = writeln!(out, "runner against the embedded mock: {r:.0} req/s");
        }
        if let Some(ms) = self.serve_first_200_ms {
            let _ = writeln!(out, "gatecheck serve: first 200 after {ms:.2} ms");
        }
        let Some(p) = &self.serve_memory else {
            return;
        };
        let _ = writeln!(
            out,
            "gatecheck serve process: RSS {} at start, {} after {} requests ({} errors)",
            mb(p.rss_start),
            mb(p.rss_after_requests),
            p.requests_answered,
            p.request_errors
        );
        if p.burst_connections > 0 {
            let _ = writeln!(
                out,
                "gatecheck serve process burst: {} connections ({} answered): RSS {} right \
                 after, {} ({})",
                p.burst_connections,
                p.burst_answered,
                mb(p.rss_after_burst),
                mb(p.rss_settled),
                settled(p.settled_in_ms)
            );
        }
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
