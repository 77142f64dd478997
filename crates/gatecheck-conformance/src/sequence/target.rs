//! Targets for a sequence: a URL with credentials, an embedded mock, or a served mock whose
//! demo credentials are read from its control API.

use crate::http::client::Client;
use crate::http::mock_control::{pick_account, MockControl};
use crate::http::target::Target;
use crate::http::transport::Transport;
use crate::redact::Secret;
use crate::vocab::config::TargetMode;
use gatecheck_schemas::rules::health::MockSignature;
use gatecheck_schemas::types::KEY_STATUS_ENABLED;

/// A target from a base URL (`http` or `https`).
pub fn parse_target(base_url: &str) -> Result<Target, String> {
    let url = url::Url::parse(base_url).map_err(|e| format!("bad URL `{base_url}`: {e}"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!(
            "bad URL `{base_url}`: the scheme must be http or https"
        ));
    }
    Ok(Target::new(url))
}

/// The target of an embedded mock, with the demo account's credentials (its key, key id,
/// access token and user id).
#[cfg(feature = "embedded")]
pub fn mock_target(server: &gatecheck_mock::MockServer) -> Result<Target, String> {
    let mut target = parse_target(&server.uri())?;
    let account = server.demo_account();
    let fixtures = gatecheck_mock::Fixtures::embedded();
    target.key_id = gatecheck_mock::demo_key_of(&fixtures).map(|k| k.id);
    target.api_key = Some(Secret::new(server.demo_key()));
    target.access_token = Some(Secret::new(account.access_token));
    target.user_id = Some(account.id);
    Ok(target)
}

/// Sends `GET /__mock/health` and returns the mock's signature when the answer is it
/// ([`gatecheck_schemas::rules::health::parse_signature`]: a dashboard's `200 text/html`, a
/// 404 or any other body is not); `None` too when the request fails.
pub async fn probe_mock(t: &Transport) -> Option<MockSignature> {
    MockControl::probe(t).await.ok().flatten()?.signature
}

/// What one side of a diff is, as far as mock-only requests go (`--target`, see
/// docs/verdicts.md "Target discovery").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideKind {
    /// An embedded mock (`--left-mock`): the mock by construction.
    EmbeddedMock,
    /// A URL whose `GET /__mock/health` answered the mock's signature.
    SignedMock(MockSignature),
    /// A URL the user declared a mock (`--target mock`); no probe was sent.
    DeclaredMock,
    /// A URL whose health probe answered no mock signature (`--target auto`).
    Unsigned,
    /// A URL under `--target deployment`: not even the probe was sent.
    Deployment,
}

impl SideKind {
    /// Whether the mock's control API may be used on this side.
    pub fn is_mock(&self) -> bool {
        matches!(
            self,
            SideKind::EmbeddedMock | SideKind::SignedMock(_) | SideKind::DeclaredMock
        )
    }

    /// What the side is and what that means for the run, for people.
    pub fn describe(&self) -> String {
        match self {
            SideKind::EmbeddedMock => "the embedded mock: control API and virtual clock".into(),
            SideKind::SignedMock(sig) => format!(
                "gatecheck mock signature seen (version {}, profile {}): control API and virtual clock used",
                sig.version,
                sig.profile.as_str()
            ),
            SideKind::DeclaredMock => {
                "--target mock: control API used without a health probe".into()
            }
            SideKind::Unsigned => "no gatecheck mock signature on /__mock/health: a deployment; \
                                   nothing more is sent to /__mock/*, polls wait in real time"
                .into(),
            SideKind::Deployment => "--target deployment: nothing is sent to /__mock/*, \
                                     polls wait in real time"
                .into(),
        }
    }

    /// What a URL side is under `mode`: probes `/__mock/health` only under `auto`.
    pub async fn classify(t: &Transport, mode: TargetMode) -> Self {
        match mode {
            TargetMode::Deployment => SideKind::Deployment,
            TargetMode::Mock => SideKind::DeclaredMock,
            TargetMode::Auto => match probe_mock(t).await {
                Some(sig) => SideKind::SignedMock(sig),
                None => SideKind::Unsigned,
            },
        }
    }
}

/// When the target is a gatecheck mock with its control API on, fills in the credentials the
/// caller did not give from `GET /__mock/accounts` and `GET /__mock/keys`: the run's account
/// (`pick_account` in `http/mock_control.rs`: the target's user id's, else the lowest id), and
/// its first enabled key with no IP or model restriction, limited quota and no expiry. Returns whether the target
/// answered as a mock.
pub async fn discover_mock_credentials(t: &Transport, target: &mut Target) -> bool {
    let mock = MockControl::declared();
    let Ok(accounts) = mock.accounts(t).await else {
        return false;
    };
    let Some(account) = pick_account(&accounts, target.user_id) else {
        return false;
    };
    let keys = mock.keys(t).await.unwrap_or_default();
    let key = keys.into_iter().filter(|k| {
        k.user_id == account.id
            && k.status == KEY_STATUS_ENABLED
            && k.allow_ips.as_deref().unwrap_or("").trim().is_empty()
            && !k.model_limits_enabled
            && !k.unlimited_quota
            && k.remain_quota > 0
            && k.expired_time == -1
    });
    let key = key.min_by_key(|k| k.id);
    if target.access_token.is_none() {
        target.access_token = Some(Secret::new(account.access_token.clone()));
    }
    if target.user_id.is_none() {
        target.user_id = Some(account.id);
    }
    if let Some(k) = key
        && target.api_key.is_none()
    {
        target.api_key = Some(Secret::new(format!("sk-{}", k.key)));
        if target.key_id.is_none() {
            target.key_id = Some(k.id);
        }
    }
    true
}

/// How to reach one side of a diff or a snapshot run.
#[derive(Debug, Clone, Default)]
pub struct SideSpec {
    /// A deployment's base URL (or a served mock's).
    pub url: Option<String>,
    /// An embedded mock in this named profile (profile and era) instead of a URL.
    pub mock: Option<gatecheck_schemas::NamedProfile>,
    /// Seed of the embedded mock's ids.
    pub mock_seed: u64,
    /// Start of the embedded mock's virtual clock (Unix seconds); the mock's default when
    /// absent.
    pub mock_epoch: Option<i64>,
    /// API key.
    pub api_key: Option<String>,
    /// Access token.
    pub access_token: Option<String>,
    /// Account id (New-Api-User).
    pub user_id: Option<i64>,
    /// Id of the API key.
    pub key_id: Option<i64>,
    /// What a URL is taken for (`--target`): mock-only requests go only to a proven mock.
    /// An embedded mock is the mock whatever this says.
    pub target: TargetMode,
    /// Headers sent with every request to a URL side (`--header`), for gateways that route or
    /// authenticate by header; redacted from every output. Not sent to an embedded mock.
    pub headers: Vec<(String, String)>,
}

/// One side, ready to run steps: its label, its runner and, for an embedded mock, the server.
#[derive(Debug)]
pub struct OpenSide {
    /// `mock (documented)` or the URL.
    pub label: String,
    /// Whether it is the mock, and how that was learnt.
    pub kind: SideKind,
    /// Runs the steps.
    pub runner: super::SideRunner,
    server: Option<crate::sequence::embedded::MockServer>,
}

impl OpenSide {
    /// Starts the embedded mock or connects to the URL. A URL is classified first
    /// ([`SideKind::classify`], by `spec.target`); only when it is the mock are missing
    /// credentials filled in from its control API. Registers the credentials with `redactor`.
    pub async fn open(
        spec: &SideSpec,
        redactor: &crate::redact::Redactor,
        poll: super::PollSettings,
        timeout: std::time::Duration,
    ) -> Result<Self, String> {
        let (mut target, server, label) = match (&spec.url, spec.mock) {
            (Some(_), Some(_)) => return Err("give a URL or a mock, not both".into()),
            (None, None) => return Err("give a URL or a mock".into()),
            #[cfg(not(feature = "embedded"))]
            (None, Some(_)) => return Err(crate::sequence::embedded::NOT_BUILT.into()),
            #[cfg(feature = "embedded")]
            (None, Some(profile)) => {
                let server = gatecheck_mock::MockServer::builder()
                    .named_profile(profile)
                    .clock(match spec.mock_epoch {
                        Some(epoch) => gatecheck_mock::ClockMode::Virtual { epoch },
                        None => gatecheck_mock::ClockMode::virtual_default(),
                    })
                    .seed(spec.mock_seed)
                    .try_start()
                    .await
                    .map_err(|e| format!("cannot start the embedded mock: {e}"))?;
                let target = mock_target(&server)?;
                (target, Some(server), format!("mock ({profile})"))
            }
            (Some(url), None) => {
                let mut target = parse_target(url)?;
                target.headers = spec
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), Secret::new(v.clone())))
                    .collect();
                (target, None, url.clone())
            }
        };
        if let Some(k) = &spec.api_key {
            target.api_key = Some(Secret::new(k.clone()));
        }
        if let Some(t) = &spec.access_token {
            target.access_token = Some(Secret::new(t.clone()));
        }
        target.user_id = spec.user_id.or(target.user_id);
        target.key_id = spec.key_id.or(target.key_id);
        // Every request of a side goes through one direct transport (sent once, as it is).
        let transport = |target: &Target| {
            let mut c = crate::http::client::ClientConfig::new(target.clone());
            c.timeout = timeout;
            Client::new(c)
                .map(Transport::direct)
                .map_err(|e| e.to_string())
        };
        let mut t = transport(&target)?;
        let kind = match server {
            Some(_) => SideKind::EmbeddedMock,
            None => SideKind::classify(&t, spec.target).await,
        };
        if server.is_none()
            && kind.is_mock()
            && (target.api_key.is_none() || target.access_token.is_none())
            && discover_mock_credentials(&t, &mut target).await
        {
            t = transport(&target)?;
        }
        for secret in [&target.api_key, &target.access_token]
            .into_iter()
            .flatten()
            .chain(target.headers.iter().map(|(_, v)| v))
        {
            redactor.add_secret(secret);
        }
        Ok(Self {
            label,
            runner: super::SideRunner::over(t, poll).with_mock_control(kind.is_mock()),
            kind,
            server,
        })
    }

    /// Stops the embedded mock, if any.
    pub async fn shutdown(self) {
        if let Some(server) = self.server {
            server.shutdown().await;
        }
    }
}
