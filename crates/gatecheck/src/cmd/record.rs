//! `gatecheck record`: record a target's answers (docs/recording.md). `--proxy`: a recording
//! reverse proxy between a client and a target, until SIGINT or SIGTERM. Without it, the
//! drive mode ([`super::record_drive`]) runs `check`'s standard sequence through the
//! recorder.

use super::record_args::secrets;
pub use super::record_args::RecordArgs;
use super::runtime;
use anyhow::Context as _;
use gatecheck_conformance::exit;
use gatecheck_conformance::recording::{Recorder, RecorderConfig, TargetInfo};
use std::time::Duration;

/// Runs the subcommand and returns the exit code.
pub fn run(args: RecordArgs) -> u8 {
    runtime::block_on("record", async {
        runtime::exit_code("record", record(args).await)
    })
}

async fn record(args: RecordArgs) -> anyhow::Result<u8> {
    if !args.proxy {
        return super::record_drive::drive(args).await;
    }
    let upstream_text = args.upstream.clone().unwrap_or_default();
    let upstream = super::target_args::base_url(&upstream_text)
        .map_err(|e| anyhow::anyhow!("invalid --upstream {upstream_text:?}: {e}"))?;
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
