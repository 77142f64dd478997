//! `gatecheck record`: record a target's answers (docs/recording.md). `--proxy`: a recording
//! reverse proxy between a client and a target, until SIGINT or SIGTERM. Without it, the
//! drive mode ([`super::record_drive`]) runs `check`'s standard sequence through the
//! recorder.

use super::runtime;
use anyhow::{anyhow, bail, Context as _};
use gatecheck_conformance::exit;
use gatecheck_conformance::recording::{Recorder, RecorderConfig, TargetInfo};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `gatecheck record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// Record as a proxy: relay each request to `--upstream` and store the exchange. Without
    /// it, `record` drives `--base-url` through `check`'s standard sequence.
    #[arg(long, requires = "upstream", conflicts_with = "base_url")]
    pub proxy: bool,
    /// With `--proxy`: the target's base URL (http or https).
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Without `--proxy`: the target to drive (http or https), as `check --base-url`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Without `--proxy`: the target's credentials, as `check`'s (stored as `{{API_KEY}}`,
    /// `{{ACCESS_TOKEN}}`).
    #[command(flatten)]
    pub credentials: super::target_args::TargetCredentials,
    /// Without `--proxy`: the seed of the recorded run (default: drawn and written to the
    /// manifest).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Without `--proxy`: whose behaviour to expect where the spec says "not shown"
    /// (`documented` or `new-api`); the manifest's profile.
    #[arg(long, value_name = "PROFILE")]
    pub expect: Option<gatecheck_schemas::Profile>,
    /// Without `--proxy`: more `check` flags after `--` (`-- --only 'video.*' --cases 4`).
    #[arg(last = true, value_name = "CHECK FLAGS")]
    pub check_args: Vec<String>,
    /// Where to listen; port 0 picks a free one (read it from `--ready-file`).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// The recording directory (its `exchanges/` must be empty or absent).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// A secret to store as the placeholder `{{NAME}}`, in every form: `NAME=VALUE`
    /// (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    pub secret: Vec<String>,
    /// A secret read from an environment variable: `NAME=VAR` (repeatable; keeps the value out
    /// of the process list).
    #[arg(long, value_name = "NAME=VAR")]
    pub secret_env: Vec<String>,
    /// The target's kind, for the manifest (`litellm`).
    #[arg(long, value_name = "KIND", default_value = "unknown")]
    pub target_kind: String,
    /// The target's name and version, for the manifest (`litellm 1.108.5`).
    #[arg(long, value_name = "NAME", default_value = "unknown")]
    pub target_name: String,
    /// What the client runs (its seed and flags), as a JSON value, for the manifest.
    #[arg(long, value_name = "JSON")]
    pub run: Option<String>,
    /// Once listening, write `{"base_url": ...}` to this file (atomically).
    #[arg(long, value_name = "F")]
    pub ready_file: Option<PathBuf>,
}

/// Runs the subcommand and returns the exit code.
pub fn run(args: RecordArgs) -> u8 {
    runtime::block_on("record", async {
        runtime::exit_code("record", record(args).await)
    })
}

pub(crate) fn secrets(args: &RecordArgs) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for s in &args.secret {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| anyhow!("--secret {s:?}: expected NAME=VALUE"))?;
        out.push((name.to_owned(), value.to_owned()));
    }
    for s in &args.secret_env {
        let (name, var) = s
            .split_once('=')
            .ok_or_else(|| anyhow!("--secret-env {s:?}: expected NAME=VAR"))?;
        let value = std::env::var(var)
            .with_context(|| format!("--secret-env {name}: environment variable {var}"))?;
        out.push((name.to_owned(), value));
    }
    if let Some((name, _)) = out
        .iter()
        .find(|(n, _)| n.is_empty() || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        bail!("secret name {name:?}: use letters, digits and _");
    }
    Ok(out)
}

async fn record(args: RecordArgs) -> anyhow::Result<u8> {
    if !args.proxy {
        return super::record_drive::drive(args).await;
    }
    let upstream_text = args.upstream.clone().unwrap_or_default();
    let upstream = upstream_text
        .parse()
        .with_context(|| format!("--upstream {upstream_text}"))?;
    let run = match &args.run {
        Some(text) => serde_json::from_str(text).context("--run is not JSON")?,
        None => serde_json::Value::Null,
    };
    let mut config = RecorderConfig::new(upstream, &args.out);
    config.listen = args.listen;
    config.secrets = secrets(&args)?;
    config.target = TargetInfo {
        kind: args.target_kind.clone(),
        name: args.target_name.clone(),
    };
    config.run = run;
    let recorder = Recorder::start(config).await?;
    if let Some(path) = &args.ready_file {
        let tmp = path.with_extension("tmp");
        let text = serde_json::json!({"base_url": recorder.base_url()}).to_string();
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    eprintln!(
        "gatecheck record: {} -> {}, recording into {}",
        recorder.base_url(),
        upstream_text,
        args.out.display()
    );
    wait_for_signal().await?;
    let manifest = recorder.finish(Duration::from_secs(10)).await?;
    eprintln!(
        "gatecheck record: {} exchanges in {}",
        manifest.exchanges.unwrap_or(0),
        args.out.display()
    );
    Ok(exit::PASSED)
}

#[cfg(not(unix))]
async fn wait_for_signal() -> anyhow::Result<()> {
    tokio::signal::ctrl_c().await.context("cannot watch Ctrl-C")
}

#[cfg(unix)]
async fn wait_for_signal() -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    Ok(())
}
