//! Arguments shared by the subcommands that talk to one target.

/// The credentials of a target: `--api-key`, `--access-token`, `--user-id`, `--key-id`
/// (flattened into `check` and `snapshot record|verify`; `diff` has `--left-*`/`--right-*`
/// ones, from `diff_side`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TargetCredentials {
    /// API key for the model routes (`Authorization: Bearer <key>`).
    #[arg(
        long,
        value_name = "KEY",
        env = "GATECHECK_API_KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,
    /// Personal access token for `/api/token/` (sent raw).
    #[arg(
        long,
        value_name = "T",
        env = "GATECHECK_ACCESS_TOKEN",
        hide_env_values = true
    )]
    pub access_token: Option<String>,
    /// Account id of the access token, sent as `New-Api-User`.
    #[arg(long, value_name = "ID", env = "GATECHECK_USER_ID")]
    pub user_id: Option<i64>,
    /// Id of the API key to use; whatever a run changes on it is restored at the end (by
    /// `check` also on Ctrl-C).
    #[arg(long, value_name = "ID")]
    pub key_id: Option<i64>,
}

/// Parses `--header 'Name: value'` (`check` and `diff`): a header name of token characters, and
/// the value after the first colon, trimmed.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("--header {s:?}: expected 'Name: value'"))?;
    let name = name.trim();
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(format!("--header {s:?}: {name:?} is not a header name"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}
