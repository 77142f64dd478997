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
