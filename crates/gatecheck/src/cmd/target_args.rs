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

/// Parses a target's base URL (`check --base-url`, `diff --left`/`--right`, `snapshot
/// --base-url`, `fixtures pull --base-url`, `record --base-url`/`--upstream`): an absolute
/// `http` or `https` URL. The text is kept as given, as it names the target in output; clap
/// prints the error after the flag and its value
/// (`invalid value 'ftp://x' for '--base-url <URL>': the scheme must be http or https, not ftp`).
pub fn parse_base_url(s: &str) -> Result<String, String> {
    base_url(s).map(|_| s.to_owned())
}

/// The URL of a base URL's text, as [`parse_base_url`] accepts it.
pub fn base_url(s: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(s).map_err(|e| format!("not an absolute URL: {e}"))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(format!("the scheme must be http or https, not {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::{base_url, parse_base_url};

    #[test]
    fn a_base_url_is_absolute_http_or_https_and_kept_as_given() {
        assert_eq!(
            parse_base_url("http://127.0.0.1:3000").as_deref(),
            Ok("http://127.0.0.1:3000")
        );
        assert_eq!(
            parse_base_url("https://gw.example/new-api/").as_deref(),
            Ok("https://gw.example/new-api/")
        );
        assert_eq!(
            base_url("http://127.0.0.1:3000").map(|u| u.to_string()),
            Ok("http://127.0.0.1:3000/".to_owned())
        );
    }

    #[test]
    fn a_bad_base_url_says_why_in_one_style() {
        assert_eq!(
            parse_base_url("ftp://x"),
            Err("the scheme must be http or https, not ftp".to_owned())
        );
        assert_eq!(
            parse_base_url("localhost:3000"),
            Err("the scheme must be http or https, not localhost".to_owned())
        );
        assert_eq!(
            parse_base_url("127.0.0.1:3000"),
            Err("not an absolute URL: relative URL without a base".to_owned())
        );
        assert_eq!(
            parse_base_url("gw.example"),
            Err("not an absolute URL: relative URL without a base".to_owned())
        );
        assert_eq!(
            parse_base_url(""),
            Err("not an absolute URL: relative URL without a base".to_owned())
        );
        assert_eq!(
            parse_base_url("http://[::1"),
            Err("not an absolute URL: invalid IPv6 address".to_owned())
        );
    }
}
