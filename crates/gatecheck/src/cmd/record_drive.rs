//! `gatecheck record --base-url URL --api-key KEY --out DIR [-- CHECK FLAGS]`: runs `check`'s
//! standard sequence against the target through a recording proxy, so every exchange of the
//! run is stored (docs/recording.md). The run is a deployment run (`--target deployment`:
//! nothing is sent to `/__mock/*`, whatever the target is), with `check`'s budgets, deadline
//! and key restoration, one request at a time, with a seed written to the manifest: `check`
//! against the replay with the manifest's `run.args` sends the same requests.

use super::record_args::{secrets, RecordArgs};
use anyhow::bail;
use gatecheck_conformance::recording::{Recorder, RecorderConfig, TargetInfo};
use std::time::Duration;

/// Check flags a recording sets itself: the recording is of a deployment run.
const FORCED: [&str; 2] = ["--target", "--base-url"];

/// The flags of the recorded `check` run: the user's, with a seed, one request at a time and
/// no progress bar unless given.
fn run_args(args: &RecordArgs, seed: u64) -> anyhow::Result<Vec<String>> {
    let given = |flag: &str| {
        args.check_args
            .iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    if let Some(flag) = FORCED.iter().find(|f| given(f)) {
        bail!("{flag} after --: record sets it (the run is a deployment run of --base-url)");
    }
    if given("--seed") || given("--expect") {
        bail!("give --seed and --expect before --, as record's own flags");
    }
    let mut out: Vec<String> = vec!["--target".into(), "deployment".into()];
    out.extend(["--seed".into(), seed.to_string()]);
    if let Some(p) = args.expect {
        out.extend(["--expect".into(), p.to_string()]);
    }
    if !given("--concurrency") {
        out.extend(["--concurrency".into(), "1".into()]);
    }
    out.extend(args.check_args.iter().cloned());
    Ok(out)
}

/// Records a `check` run against `--base-url`; the exit code is the run's.
pub(crate) async fn drive(args: RecordArgs) -> anyhow::Result<u8> {
    let Some(base_url) = args.base_url.clone() else {
        bail!("give --base-url URL (drive the target) or --proxy --upstream URL (record a client)");
    };
    let upstream = super::target_args::base_url(&base_url)
        .map_err(|e| anyhow::anyhow!("invalid --base-url {base_url:?}: {e}"))?;
    let seed = args.seed.unwrap_or_else(super::check::random_seed);
    let flags = run_args(&args, seed)?;
    let mut check_args = super::check::parse_args(
        ["check", "--base-url", "http://127.0.0.1:1"]
            .into_iter()
            .map(str::to_owned)
            .chain(flags.iter().cloned()),
    )
    .map_err(|e| anyhow::anyhow!("the check flags after --: {e}"))?;
    let mut secrets = secrets(&args)?;
    if let Some(key) = &args.credentials.api_key {
        secrets.push(("API_KEY".into(), key.clone()));
    }
    if let Some(token) = &args.credentials.access_token {
        secrets.push(("ACCESS_TOKEN".into(), token.clone()));
    }
    let mut config = RecorderConfig::new(upstream, &args.out);
    config.secrets = secrets;
    config.learn_keys = true;
    config.mode = "drive".into();
    config.profile = Some(check_args.expect.unwrap_or_default().to_string());
    config.target = TargetInfo {
        kind: args.target_kind.clone(),
        name: if args.target_name == "unknown" {
            base_url.clone()
        } else {
            args.target_name.clone()
        },
    };
    config.run = serde_json::json!({"command": "check", "seed": seed, "args": flags});
    let recorder = Recorder::start(config).await?;
    eprintln!(
        "gatecheck record: driving {base_url} through {} (seed {seed}), recording into {}",
        recorder.base_url(),
        args.out.display()
    );
    check_args.base_url = Some(recorder.base_url());
    check_args.credentials = args.credentials.clone();
    let code = super::check::run_async(check_args).await;
    let manifest = recorder.finish(Duration::from_secs(10)).await?;
    eprintln!(
        "gatecheck record: {} exchanges in {}; replay with `gatecheck serve --replay {}` and \
         `gatecheck check` with the manifest's run.args",
        manifest.exchanges.unwrap_or(0),
        args.out.display(),
        args.out.display()
    );
    Ok(code)
}
