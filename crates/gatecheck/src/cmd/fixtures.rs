//! `gatecheck fixtures pull`: a deployment's catalog, model capabilities and key fields into a
//! fixtures directory for `gatecheck serve --fixtures DIR` (docs/fixtures-pull.md).
//!
//! Exit codes: [`exit::PASSED`] written, [`exit::ERROR`] a configuration error, a failed
//! request or an unwritable directory.

use super::runtime;
use super::target_args::TargetCredentials;
use anyhow::Context as _;
use gatecheck_conformance::pull::pull;
use gatecheck_conformance::{exit, Client, ClientConfig, Secret, Target};
use std::path::PathBuf;

/// Subcommands of `gatecheck fixtures`.
#[derive(Debug, clap::Subcommand)]
pub enum FixturesCommand {
    /// Read a deployment's catalog, the capabilities of its models and one key's fields into a
    /// fixtures directory (GET requests only; no secret is written).
    Pull(PullArgs),
}

/// Arguments of `gatecheck fixtures pull`.
#[derive(Debug, clap::Args)]
pub struct PullArgs {
    /// Base URL of the deployment.
    #[arg(long, value_name = "URL", value_parser = super::target_args::parse_base_url)]
    pub base_url: String,
    /// `--api-key`, `--access-token`, `--user-id`, `--key-id` (as for `check`); the key's
    /// fields are read with `--key-id` and `--access-token`.
    #[command(flatten)]
    pub credentials: TargetCredentials,
    /// The directory to write (created when missing; existing fixture files are replaced).
    #[arg(long, value_name = "DIR", default_value = "fixtures-pulled")]
    pub out: PathBuf,
    /// Capabilities of models gatecheck does not know (`fixtures/capabilities.json` format);
    /// they take precedence over the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub capabilities: Option<PathBuf>,
    /// Per-request timeout, seconds.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub timeout: u64,
}

/// Runs the subcommand and returns the exit code.
pub fn run(command: FixturesCommand) -> u8 {
    match command {
        FixturesCommand::Pull(args) => runtime::block_on("fixtures pull", async {
            runtime::exit_code("fixtures pull", pull_cmd(args).await)
        }),
    }
}

async fn pull_cmd(args: PullArgs) -> anyhow::Result<u8> {
    let url = super::target_args::base_url(&args.base_url)
        .map_err(|e| anyhow::anyhow!("invalid --base-url {:?}: {e}", args.base_url))?;
    let creds = &args.credentials;
    let mut target = Target::new(url);
    target.api_key = creds.api_key.clone().map(Secret::new);
    target.access_token = creds.access_token.clone().map(Secret::new);
    target.user_id = creds.user_id;
    target.key_id = creds.key_id;
    let extra = match &args.capabilities {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Some(
                gatecheck_conformance::internals::parse_capabilities(&text)
                    .with_context(|| format!("invalid capabilities file {}", path.display()))?,
            )
        }
        None => None,
    };
    if creds.key_id.is_some() && creds.access_token.is_none() {
        anyhow::bail!("--key-id needs --access-token to read the key's fields");
    }
    let mut config = ClientConfig::new(target);
    config.timeout = std::time::Duration::from_secs(args.timeout.max(1));
    let client = Client::new(config)?;
    let pulled = pull(&client, creds.key_id, extra).await?;
    // The key is served under the account of the mock's embedded fixtures (accounts hold access
    // tokens and are never pulled).
    let user_id = gatecheck_mock::Fixtures::embedded()
        .demo_account()
        .map(|a| a.id)
        .unwrap_or(1);
    let secrets: Vec<&str> = [&creds.api_key, &creds.access_token]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let written = pulled.write(&args.out, user_id, &secrets)?;
    for note in &pulled.notes {
        eprintln!("gatecheck fixtures pull: {note}");
    }
    println!(
        "pulled {} models ({} with capabilities){} into {}",
        pulled.catalog.len(),
        pulled.capabilities.len(),
        match &pulled.key {
            Some(k) => format!(", key {} (served with a new local secret)", k.id),
            None => String::new(),
        },
        args.out.display()
    );
    for path in written {
        println!("  {}", path.display());
    }
    println!(
        "serve it: gatecheck serve --fixtures {}",
        args.out.display()
    );
    Ok(exit::PASSED)
}
