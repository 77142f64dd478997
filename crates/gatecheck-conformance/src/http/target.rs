//! The target: the deployment under test, and the credentials the runner may use on it.

use crate::redact::Secret;
use url::Url;

/// The deployment under test, and the credentials the runner may use on it.
#[derive(Debug, Clone)]
pub struct Target {
    /// Base URL; every request goes to its host and under its path.
    pub base_url: Url,
    /// An API key for the model routes (`Authorization: Bearer <key>`).
    pub api_key: Option<Secret>,
    /// A personal access token for `/api/token/` (sent raw).
    pub access_token: Option<Secret>,
    /// The account id, sent as `New-Api-User` with the access token.
    pub user_id: Option<i64>,
    /// The id of the key `api_key` belongs to (snapshotted and restored around a run).
    pub key_id: Option<i64>,
    /// Headers sent with every request (`--header`), for gateways that route or
    /// authenticate by header (Portkey's `x-portkey-provider`...). A request's own header of
    /// the same name wins. Values are secrets: they are redacted from every output.
    pub headers: Vec<(String, Secret)>,
}

impl Target {
    /// A target with no credentials.
    pub fn new(base_url: Url) -> Self {
        Self {
            base_url,
            api_key: None,
            access_token: None,
            user_id: None,
            key_id: None,
            headers: Vec::new(),
        }
    }

    /// The URL of `path_and_query` under the base URL (the base URL's own path is kept as a
    /// prefix).
    pub fn url(&self, path_and_query: &str) -> String {
        let base = self.base_url.as_str().trim_end_matches('/');
        if path_and_query.starts_with('/') {
            format!("{base}{path_and_query}")
        } else {
            format!("{base}/{path_and_query}")
        }
    }

    /// `host:port` of the base URL, the only authority requests may go to.
    pub fn authority(&self) -> String {
        authority_of(&self.base_url)
    }
}

pub(crate) fn authority_of(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default().to_ascii_lowercase(),
        url.port_or_known_default().unwrap_or(0)
    )
}
