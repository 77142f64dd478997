//! The arguments of `gatecheck record` and the secrets they name, shared by its proxy mode
//! (`record.rs`) and its drive mode (`record_drive.rs`).

use anyhow::{anyhow, bail, Context as _};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Arguments of `gatecheck record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// Record as a proxy: relay each request to `--upstream` and store the exchange. Without
    /// it, `record` drives `--base-url` through `check`'s standard sequence.
    #[arg(long, requires = "upstream", conflicts_with = "base_url")]
    pub proxy: bool,
    /// With `--proxy`: the target's base URL (http or https).
    #[arg(long, value_name = "URL", value_parser = super::target_args::parse_base_url)]
    pub upstream: Option<String>,
    /// Without `--proxy`: the target to drive (http or https), as `check --base-url`.
    #[arg(long, value_name = "URL", value_parser = super::target_args::parse_base_url)]
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

/// The `--secret NAME=VALUE` and `--secret-env NAME=VAR` pairs, checked.
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
