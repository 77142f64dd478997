//! `gatecheck serve`: run the stateful mock gateway.

use anyhow::{anyhow, Context as _};
use gatecheck_mock::{
    ClockMode, Fault, Fixtures, MockServer, MockServerBuilder, StateSnapshot,
    DEFAULT_JOURNAL_CAPACITY,
};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::types::KeyRecord;
use gatecheck_schemas::Profile;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `gatecheck serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 3000)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Behaviour profile: `documented` (the spec) or `new-api` (the deployed gateway).
    #[arg(long, default_value = "documented")]
    pub profile: Profile,
    /// Clock: `real`, `virtual` or `virtual:<unix seconds>` (moves only via the control API).
    #[arg(long, default_value = "real")]
    pub clock: String,
    /// Directory with accounts.json, keys.json, catalog.json, capabilities.json, video.json
    /// (missing files fall back to the embedded fixtures).
    #[arg(long, value_name = "DIR")]
    pub fixtures: Option<PathBuf>,
    /// Load the state from this file at start (when it exists), write it back on SIGINT/SIGTERM.
    #[arg(long, value_name = "F")]
    pub state_file: Option<PathBuf>,
    /// Turn the control API (`/__mock/*`) off.
    #[arg(long)]
    pub no_control: bool,
    /// Let non-loopback peers use the control API with this token (`X-Mock-Control-Token`).
    #[arg(long, value_name = "T", env = "GATECHECK_CONTROL_TOKEN")]
    pub control_token: Option<String>,
    /// Upload limit in MiB; bigger bodies get 413.
    #[arg(long, default_value_t = 25)]
    pub max_body_mb: usize,
    /// Seed of request ids, task ids, key secrets and fault probabilities.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Per-key rate limit: requests per window (off by default).
    #[arg(long, value_name = "N")]
    pub rate_limit: Option<u32>,
    /// Window of the per-key rate limit, seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub rate_limit_window: u64,
    /// Entries kept by the request journal.
    #[arg(long, default_value_t = DEFAULT_JOURNAL_CAPACITY)]
    pub journal_size: usize,
    /// Take the client IP from X-Forwarded-For (only behind a trusted proxy).
    #[arg(long)]
    pub trust_forwarded_for: bool,
    /// A fault installed at start, as the control API's JSON (repeatable), e.g.
    /// `{"route":"/v1/*","kind":"status","status":503,"probability":0.1}`.
    #[arg(long = "fault", value_name = "JSON")]
    pub faults: Vec<String>,
}

/// Runs the subcommand and returns the exit code.
pub fn run(args: ServeArgs) -> u8 {
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gatecheck serve: cannot start the runtime: {e}");
            return 2;
        }
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("gatecheck serve: {e:#}");
            2
        }
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let clock = ClockMode::parse(&args.clock)
        .ok_or_else(|| anyhow!("unknown clock `{}`: expected real or virtual", args.clock))?;
    let fixtures = match &args.fixtures {
        Some(dir) => Fixtures::from_dir(dir)?,
        None => Fixtures::embedded(),
    };
    let mut builder: MockServerBuilder = MockServer::builder()
        .bind(SocketAddr::new(args.host, args.port))
        .profile(args.profile)
        .clock(clock)
        .fixtures(fixtures)
        .max_body_bytes(args.max_body_mb.saturating_mul(1024 * 1024))
        .journal_capacity(args.journal_size)
        .trust_forwarded_for(args.trust_forwarded_for);
    if let Some(seed) = args.seed {
        builder = builder.seed(seed);
    }
    if args.no_control {
        builder = builder.no_control();
    }
    if let Some(token) = &args.control_token {
        builder = builder.control_token(token.clone());
    }
    if let Some(n) = args.rate_limit {
        builder = builder.rate_limit(n, Duration::from_secs(args.rate_limit_window.max(1)));
    }
    for raw in &args.faults {
        let fault: Fault =
            serde_json::from_str(raw).with_context(|| format!("invalid --fault `{raw}`"))?;
        let p = fault.probability;
        builder = builder.fault(fault.probability(p));
    }
    if let Some(path) = &args.state_file {
        if let Some(state) = load_state(path)? {
            builder = builder.state(state);
        }
    }
    let server = builder
        .try_start()
        .await
        .with_context(|| format!("cannot listen on {}:{}", args.host, args.port))?;
    print_banner(&server, &args);
    wait_for_signal().await;
    tracing::info!("shutting down");
    if let Some(path) = &args.state_file {
        save_state(path, &server.state())?;
        tracing::info!(path = %path.display(), "state written");
    }
    server.shutdown().await;
    Ok(())
}

fn load_state(path: &Path) -> anyhow::Result<Option<StateSnapshot>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("invalid state file {}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read state file {}", path.display())),
    }
}

fn save_state(path: &Path, state: &StateSnapshot) -> anyhow::Result<()> {
    let json = serde_json::to_vec_pretty(state)?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, json).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn key_state(k: &KeyRecord) -> String {
    let mut parts = vec![match k.status {
        1 => "enabled",
        2 => "disabled",
        3 => "expired",
        4 => "exhausted",
        _ => "unknown status",
    }
    .to_owned()];
    if ip::is_restricted(k.allow_ips.as_deref()) {
        parts.push(format!(
            "IP-restricted to {}",
            ip::entries(k.allow_ips.as_deref()).join(", ")
        ));
    }
    if k.model_limits_enabled {
        parts.push(format!("models: {}", k.model_limits));
    }
    if k.unlimited_quota {
        parts.push("unlimited quota".into());
    } else {
        parts.push(format!("quota {}", k.remain_quota));
    }
    parts.join(", ")
}

fn print_banner(server: &MockServer, args: &ServeArgs) {
    let uri = server.uri();
    let account = server.demo_account();
    let state = server.state();
    let mut out = String::new();
    out.push_str(&format!(
        "gatecheck mock listening on {uri} (profile {}, clock {})\n\n",
        server.profile(),
        args.clock
    ));
    out.push_str(&format!("  Base URL       {uri}\n"));
    out.push_str(&format!(
        "  User id        {} ({})\n",
        account.id, account.username
    ));
    out.push_str(&format!(
        "  Access token   {}   (Authorization header of /api/token/, with New-Api-User: {})\n",
        account.access_token, account.id
    ));
    out.push_str(&format!("  Demo key       {}\n\n", server.demo_key()));
    out.push_str("  API keys (Authorization: Bearer <key>):\n");
    for k in state.keys.iter().filter(|k| k.user_id == account.id) {
        out.push_str(&format!(
            "    id {:<3} sk-{}  {:<22} {}\n",
            k.id,
            k.key,
            k.name,
            key_state(k)
        ));
    }
    if args.no_control {
        out.push_str("\n  Control API    off\n");
    } else {
        out.push_str(&format!("\n  Control API    {uri}/__mock/health\n"));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
}
