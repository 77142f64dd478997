//! `gatecheck serve`: run the stateful mock gateway.

use super::runtime;
use anyhow::{anyhow, Context as _};
use gatecheck_conformance::exit;
use gatecheck_mock::internals::DEFAULT_JOURNAL_CAPACITY;
use gatecheck_mock::replay::ReplayOptions;
use gatecheck_mock::{ClockMode, Fault, Fixtures, MockServer, MockServerBuilder};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::types::{
    KeyRecord, KEY_STATUS_DISABLED, KEY_STATUS_ENABLED, KEY_STATUS_EXHAUSTED, KEY_STATUS_EXPIRED,
};
use gatecheck_schemas::NamedProfile;
use std::io::{IsTerminal as _, Write as _};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `gatecheck serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port to listen on; 0 picks a free one (read it from `--ready-json` or `--ready-file`).
    #[arg(long, default_value_t = 3000)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Behaviour profile: `documented` (the spec), `new-api` (the deployed gateway, with the
    /// task plugins) or `new-api-adaptors` (the gateway's Go task adaptors, before
    /// 2026-08-29, frozen).
    #[arg(long, default_value = "documented")]
    pub profile: NamedProfile,
    /// Clock: `real`, `virtual` or `virtual:<unix seconds>` (moves only via the control API).
    #[arg(long, default_value = "real")]
    pub clock: String,
    /// Directory with accounts.json, keys.json, catalog.json, capabilities.json, video.json
    /// (missing files fall back to the embedded fixtures).
    #[arg(long, value_name = "DIR")]
    pub fixtures: Option<PathBuf>,
    /// Keep the state durably in this file: loaded at start when it exists (a corrupt file is
    /// an error), written through before each answer to a state-changing request, and once
    /// more on SIGINT/SIGTERM after the open connections are drained.
    #[arg(long, value_name = "F")]
    pub state_file: Option<PathBuf>,
    /// Threads that serve requests: 1 serves them all on the main thread (the quickest start,
    /// and as `gatecheck bench` measures the mock); more start a multi-threaded runtime with
    /// that many workers; 0, one per core.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u16).range(0..=1024))]
    pub threads: u16,
    /// Open connections served at once; further ones wait in the accept queue.
    #[arg(long, default_value_t = gatecheck_mock::internals::DEFAULT_MAX_CONNECTIONS, value_name = "N")]
    pub max_connections: usize,
    /// Seconds allowed to receive a whole request body (then 408 and the connection closes).
    #[arg(long, default_value_t = gatecheck_mock::internals::DEFAULT_BODY_TIMEOUT.as_secs(), value_name = "SECS")]
    pub body_timeout: u64,
    /// Milliseconds between two events of a streamed answer (SSE speech, transcription and
    /// image generation).
    #[arg(long, default_value_t = gatecheck_mock::internals::DEFAULT_STREAM_EVENT_GAP.as_millis() as u64, value_name = "MS")]
    pub stream_gap_ms: u64,
    /// What stream waits are measured on: `wall` time, or the mock's `clock` (with
    /// `--clock virtual`, each event is sent when `POST /__mock/clock/advance` reaches it).
    #[arg(long, default_value = "wall", value_parser = ["wall", "clock"], value_name = "ON")]
    pub stream_pacing: String,
    /// With `--clock virtual`: a poll of a pending video task at the clock reading of its last
    /// poll moves the clock by the fixture's `poll_after_ms` (10 s), and task answers ask for
    /// 50 ms between polls, so that an SDK's create-and-poll ends without touching the clock
    /// (docs/mock.md, "Polls that move the clock").
    #[arg(long)]
    pub poll_advance: bool,
    /// Turn the control API (`/__mock/*`) off.
    #[arg(long)]
    pub no_control: bool,
    /// Let non-loopback peers use the control API with this token (`X-Mock-Control-Token`).
    #[arg(long, value_name = "T", env = "GATECHECK_CONTROL_TOKEN")]
    pub control_token: Option<String>,
    /// Let the control API answer requests whose Host is NAME too (repeatable; a leading `.`
    /// allows every name under it). Without it only loopback names, 127.0.0.0/8, `[::1]` and
    /// the bound address are answered (the DNS-rebinding guard).
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
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
    /// Let Kling callbacks (`callback_url`) go to this CIDR, address or host name too
    /// (repeatable; loopback is always allowed, anything else is refused and journaled).
    #[arg(long = "allow-callbacks-to", value_name = "CIDR|HOST",
          value_parser = |s: &str| s.parse::<gatecheck_mock::callbacks::AllowEntry>().map(|_| s.to_owned()))]
    pub allow_callbacks_to: Vec<String>,
    /// A fault installed at start, as the control API's JSON (repeatable), e.g.
    /// `{"route":"/v1/*","kind":"status","status":503,"probability":0.1}`.
    #[arg(long = "fault", value_name = "JSON")]
    pub faults: Vec<String>,
    /// Once listening, print one JSON line on stdout instead of the banner (which goes to
    /// stderr): `base_url`, `user_id`, `access_token`, `demo_key` and the labelled `keys`.
    #[arg(long)]
    pub ready_json: bool,
    /// Once listening, write the same JSON object to this file (atomically: it appears complete).
    #[arg(long, value_name = "F")]
    pub ready_file: Option<PathBuf>,
    /// Stop (as on SIGTERM) when the process that started the mock ends, even by SIGKILL: its
    /// parent is checked every 250 ms (Unix). What the test fixtures of the Python and npm
    /// packages pass, so that a killed test runner leaves no mock behind.
    #[arg(long)]
    pub exit_with_parent: bool,
    /// A file or folder to remove when the mock stops after it was ready, however it stops but
    /// SIGKILL (repeatable): the fixtures' folder of the ready file and the log. (A start that
    /// fails leaves it to the caller, who reads the log in it.)
    #[arg(long, value_name = "PATH")]
    pub remove_on_exit: Vec<PathBuf>,
    /// Answer from the recording in DIR (docs/recording.md); requests it does not hold fall
    /// through to the mock of --profile (journaled as `replay: unmatched`).
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// With --replay: a request the recording does not hold gets 404 (route not recorded) or
    /// 501 (route recorded, request differs) naming the closest recorded request.
    #[arg(long, requires = "replay")]
    pub replay_strict: bool,
    /// With --replay: the replay's value of a recorded secret placeholder `{{NAME}}`, as
    /// `NAME=VALUE` (repeatable): a request carrying VALUE matches the recorded one.
    #[arg(long, value_name = "NAME=VALUE", requires = "replay")]
    pub replay_secret: Vec<String>,
    /// With --replay: like --replay-secret, the value read from an environment variable,
    /// `NAME=VAR` (repeatable; keeps the value out of the process list).
    #[arg(long, value_name = "NAME=VAR", requires = "replay")]
    pub replay_secret_env: Vec<String>,
}

/// Runs the subcommand and returns the exit code: [`exit::PASSED`] after a clean stop (SIGINT or
/// SIGTERM), [`exit::ERROR`] when the mock cannot start or its state cannot be saved.
#[inline(never)]
pub fn run(args: ServeArgs) -> u8 {
    let parent = parent_watch(&args);
    if let Err(e) = check_paths(&args) {
        return runtime::exit_code("serve", Err(e));
    }
    // The port is bound before the runtime is built (about 0.4 ms): a client that polls it
    // connects at once, and its first request waits in the accept queue until the mock is up.
    let listener = match gatecheck_mock::listen(SocketAddr::new(args.host, args.port)) {
        Ok(listener) => listener,
        Err(e) => {
            let e = anyhow!("cannot listen on {}:{}: {e}", args.host, args.port);
            return runtime::exit_code("serve", Err(e));
        }
    };
    runtime::block_on_threads("serve", args.threads.into(), async {
        runtime::exit_code(
            "serve",
            serve(args, listener, parent).await.map(|()| exit::PASSED),
        )
    })
}

/// How long after it listens `serve` starts jemalloc's background purging.
const PURGE_START_DELAY: Duration = Duration::from_millis(100);

/// Turns of the runtime that [`answer_waiting_requests`] gives to the server's tasks: one to
/// accept a connection that waited in the queue, one to read and answer its request.
const WAITING_REQUEST_TURNS: usize = 2;

/// Lets the server answer the requests that waited while it started (a client that polled the
/// port), before the logging set-up and the banner (about 0.15 ms): on one runtime thread they
/// would otherwise come first. The turns are yields of a task of their own, queued behind the
/// server's: each lets the runtime poll its sockets and run the tasks they woke (the accept,
/// then the connection). With nothing waiting, they cost two empty polls.
async fn answer_waiting_requests() {
    let turns = tokio::spawn(async {
        for _ in 0..WAITING_REQUEST_TURNS {
            tokio::task::yield_now().await;
        }
    });
    // A yield cannot fail; a runtime shutting down cancels the task, and the start goes on.
    let _ = turns.await;
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on(std::io::stderr().is_terminal()))
        .try_init();
}

/// Colour only on a terminal, and never under `NO_COLOR` (set and not empty, no-color.org).
pub(crate) fn colour_on(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `--fixtures` and `--state-file` are checked before the port is bound: a directory that is
/// not there, or a state file that could not be written, stops the start with its flag named.
fn check_paths(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.fixtures
        && !dir.is_dir()
    {
        anyhow::bail!(
            "--fixtures {}: no such directory (it holds accounts.json, keys.json, catalog.json, \
             capabilities.json, video.json; without the flag the embedded fixtures are used)",
            dir.display()
        );
    }
    let Some(path) = &args.state_file else {
        return Ok(());
    };
    if path.is_dir() {
        anyhow::bail!("--state-file {}: a directory, not a file", path.display());
    }
    if path.exists() {
        return Ok(());
    }
    let parent = super::output_path::parent_of(path);
    if !parent.is_dir() {
        anyhow::bail!(
            "--state-file {}: the directory {} does not exist (the mock would answer its \
             first state-changing request with 500)",
            path.display(),
            parent.display()
        );
    }
    super::output_path::probe_dir(&parent).with_context(|| {
        format!(
            "--state-file {}: cannot write in {}",
            path.display(),
            parent.display()
        )
    })
}

/// The paths of `--remove-on-exit`, removed when `serve` returns after the mock was ready (a
/// clean stop, or the parent's end).
struct RemoveOnExit(Vec<PathBuf>);

impl Drop for RemoveOnExit {
    fn drop(&mut self) {
        for path in &self.0 {
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(path)
            } else {
                std::fs::remove_file(path)
            };
            if let Err(e) = removed
                && e.kind() != std::io::ErrorKind::NotFound
            {
                eprintln!("gatecheck serve: cannot remove {}: {e}", path.display());
            }
        }
    }
}

/// How often `--exit-with-parent` looks at the parent process.
const PARENT_CHECK: Duration = Duration::from_millis(250);

/// The parent process id to watch under `--exit-with-parent`, read at once (before the parent
/// can be gone).
fn parent_watch(args: &ServeArgs) -> Option<u32> {
    if !args.exit_with_parent {
        return None;
    }
    #[cfg(unix)]
    {
        Some(std::os::unix::process::parent_id())
    }
    #[cfg(not(unix))]
    {
        eprintln!("gatecheck serve: --exit-with-parent works on Unix only; ignored");
        None
    }
}

/// Resolves once the process is no longer `parent`'s child (the parent ended: the process was
/// handed to init or a subreaper); never without a parent to watch.
async fn parent_gone(parent: Option<u32>) {
    let Some(parent) = parent else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(PARENT_CHECK).await;
        #[cfg(unix)]
        if std::os::unix::process::parent_id() != parent {
            return;
        }
    }
}

async fn serve(
    args: ServeArgs,
    listener: std::net::TcpListener,
    parent: Option<u32>,
) -> anyhow::Result<()> {
    let clock = ClockMode::parse(&args.clock)
        .ok_or_else(|| anyhow!("unknown clock `{}`: expected real or virtual", args.clock))?;
    if args.poll_advance && clock == ClockMode::Real {
        anyhow::bail!("--poll-advance moves a virtual clock: give --clock virtual too");
    }
    // The builder starts from the embedded fixtures: only a directory replaces them.
    let mut builder: MockServerBuilder = MockServer::builder()
        .listener(listener)
        .named_profile(args.profile)
        .clock(clock)
        .poll_advance(args.poll_advance)
        .max_body_bytes(args.max_body_mb.saturating_mul(1024 * 1024))
        .journal_capacity(args.journal_size)
        .trust_forwarded_for(args.trust_forwarded_for)
        .max_connections(args.max_connections)
        .body_timeout(Duration::from_secs(args.body_timeout.max(1)))
        .stream_event_gap(Duration::from_millis(args.stream_gap_ms))
        .stream_pacing(
            gatecheck_mock::StreamPacing::parse(&args.stream_pacing).unwrap_or_default(),
        );
    if let Some(dir) = &args.fixtures {
        builder = builder.fixtures(Fixtures::from_dir(dir)?);
    }
    for entry in &args.allow_callbacks_to {
        builder = builder.allow_callbacks_to(entry.clone());
    }
    for name in &args.allowed_hosts {
        builder = builder.allowed_host(name.clone());
    }
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
        builder = builder.state_file(path);
    }
    // The port is already bound (`run`): what can fail here is the state file, whose errors
    // name it.
    if let Some(options) = replay_options(&args)? {
        builder = builder.replay_options(options);
    }
    let server = builder.try_start().await?;
    answer_waiting_requests().await;
    // Logging starts once the mock listens: the subscriber's set-up (the `RUST_LOG` filter,
    // the registry) is then off the path to the first answer (about 0.3 ms of a 3.4 ms start,
    // BENCHMARKS.md). Nothing logs at `info` or above before this point; the `debug` line of
    // the listening address is in the banner.
    init_tracing();
    announce(&server, &args)?;
    // From here on the mock removes the paths when it stops; a failed start leaves them to
    // the caller, who reads the log in them.
    let _remove = RemoveOnExit(args.remove_on_exit.clone());
    // jemalloc's purging thread starts once the first requests have been answered
    // (crate::alloc): started before `main`, it was a quarter of a millisecond of the way to
    // the first 200.
    tokio::spawn(async {
        tokio::time::sleep(PURGE_START_DELAY).await;
        crate::alloc::start_background_purge();
    });
    tokio::select! {
        () = wait_for_signal() => {}
        () = parent_gone(parent) => tracing::info!("the parent process ended"),
    }
    tracing::info!("shutting down: draining connections");
    server
        .close()
        .await
        .context("cannot write the final state")?;
    if let Some(path) = &args.state_file {
        tracing::info!(path = %path.display(), "state written");
    }
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

/// `--replay DIR` with its strictness and secrets, if given.
fn replay_options(args: &ServeArgs) -> anyhow::Result<Option<ReplayOptions>> {
    let Some(dir) = &args.replay else {
        return Ok(None);
    };
    let mut options = ReplayOptions::new(dir).strict(args.replay_strict);
    for pair in &args.replay_secret {
        let (name, value) = pair
            .split_once('=')
            .with_context(|| format!("--replay-secret {pair:?}: expected NAME=VALUE"))?;
        options = options.secret(name, value);
    }
    for pair in &args.replay_secret_env {
        let (name, var) = pair
            .split_once('=')
            .with_context(|| format!("--replay-secret-env {pair:?}: expected NAME=VAR"))?;
        let value = std::env::var(var)
            .with_context(|| format!("--replay-secret-env {name}: environment variable {var}"))?;
        options = options.secret(name, value);
    }
    Ok(Some(options))
}

fn key_state(k: &KeyRecord) -> String {
    let mut parts = vec![match k.status {
        KEY_STATUS_ENABLED => "enabled",
        KEY_STATUS_DISABLED => "disabled",
        KEY_STATUS_EXPIRED => "expired",
        KEY_STATUS_EXHAUSTED => "exhausted",
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

/// Prints the banner (stdout, or stderr under `--ready-json`), the ready line and the ready file.
fn announce(server: &MockServer, args: &ServeArgs) -> anyhow::Result<()> {
    let banner = banner(server, args);
    let ready = ready_line(server, args);
    if let Some(path) = &args.ready_file {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, format!("{ready}\n"))
            .and_then(|()| std::fs::rename(&tmp, path))
            .with_context(|| format!("cannot write the ready file {}", path.display()))?;
    }
    if args.ready_json {
        let _ = std::io::stderr().lock().write_all(banner.as_bytes());
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{ready}").context("cannot write the ready line")?;
        stdout.flush().context("cannot write the ready line")?;
    } else {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(banner.as_bytes());
        let _ = stdout.flush();
    }
    Ok(())
}

/// The ready object, one line of JSON: where the mock listens and its demo credentials.
fn ready_line(server: &MockServer, args: &ServeArgs) -> String {
    let uri = server.uri();
    let account = server.demo_account();
    let state = server.state();
    let keys: Vec<serde_json::Value> = state
        .keys
        .iter()
        .filter(|k| k.user_id == account.id)
        .map(|k| {
            serde_json::json!({
                "id": k.id,
                "label": k.name,
                "key": format!("sk-{}", k.key),
                "state": key_state(k),
            })
        })
        .collect();
    let control_url = (!args.no_control).then(|| format!("{uri}/__mock"));
    serde_json::json!({
        "event": "ready",
        "base_url": uri,
        "profile": server.named_profile().to_string(),
        "era": server.era().as_str(),
        "clock": args.clock,
        "user_id": account.id,
        "access_token": account.access_token,
        "demo_key": server.demo_key(),
        "keys": keys,
        "control_url": control_url,
        "replay": args.replay.as_ref().map(|d| d.display().to_string()),
        "pid": std::process::id(),
    })
    .to_string()
}

fn banner(server: &MockServer, args: &ServeArgs) -> String {
    let uri = server.uri();
    let account = server.demo_account();
    let state = server.state();
    let mut out = String::new();
    out.push_str(&format!(
        "gatecheck mock listening on {uri} (profile {}, clock {})\n\n",
        server.named_profile(),
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
    if let Some(dir) = &args.replay {
        let mode = if args.replay_strict {
            "strict"
        } else {
            "unmatched requests answered by the mock"
        };
        out.push_str(&format!("\n  Replaying      {} ({mode})\n", dir.display()));
    }
    if args.no_control {
        out.push_str("\n  Control API    off\n");
    } else {
        out.push_str(&format!("\n  Control API    {uri}/__mock/health\n"));
        out.push_str(&format!(
            "  Dashboard      {uri}/__mock/ui   (keys, tasks, the request journal; live)\n"
        ));
    }
    out
}
