//! Authentication: API keys on `/v1/*`, access tokens on `/api/token/*`.

use crate::app::App;
use crate::response::{self, MockResponse};
use crate::state::AuthedKey;
use gatecheck_schemas::rules::auth::{
    mask_key, parse_access_token, parse_bearer, stateless_refusal, AccessRefusal, DashboardAuth,
};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::Account;
use gatecheck_schemas::Profile;
use http::header::AUTHORIZATION;
use http::HeaderMap;
use std::net::{IpAddr, SocketAddr};

/// The header naming the user on `/api/token/*`.
pub use gatecheck_schemas::rules::auth::NEW_API_USER_HEADER as NEW_API_USER;

/// The client IP: the TCP peer, or the first `X-Forwarded-For` entry when trusted.
pub(crate) fn client_ip(app: &App, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
    if app.config.trust_forwarded_for {
        let forwarded = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok());
        if let Some(ip) = forwarded {
            return ip;
        }
    }
    peer.ip()
}

/// The message of a key rejection, new-api's wording (`new-api`: `Invalid token` for each,
/// DECISIONS NA2).
fn key_message(profile: Profile, r: Rejection, secret: &str) -> String {
    match r {
        Rejection::KeyExhausted if profile == Profile::Documented => {
            let masked = mask_key(secret);
            format!("This token quota is exhausted TokenStatusExhausted[sk-{masked}]")
        }
        other => other.message(profile).to_owned(),
    }
}

/// Authenticates a model request at `now` (Unix seconds): key parse and lookup (401), status, expiry and quota (401,
/// storing status 3 or 4 when found so), then the IP allowlist (403 `access_denied`).
pub(crate) fn authenticate_key(
    app: &App,
    headers: &HeaderMap,
    client: IpAddr,
    now: i64,
) -> Result<AuthedKey, MockResponse> {
    let profile = app.config.profile;
    let header = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Some(secret) = parse_bearer(header) else {
        let r = Rejection::MissingKey;
        return Err(response::rejection(profile, r, r.message(profile)));
    };
    app.state
        .authenticate(secret, now, client)
        .map_err(|r| response::rejection(profile, r, &key_message(profile, r, secret)))
}

/// Authenticates a key-management request by personal access token, with `New-Api-User`
/// (optional in `documented`, required in `new-api-adaptors`; when sent it must match). The
/// `new-api` profile (the plugin era) plays new-api's stateless dashboard auth, which reads no
/// `New-Api-User` (DECISIONS D-AUTH-9).
pub(crate) fn authenticate_account(
    app: &App,
    headers: &HeaderMap,
) -> Result<std::sync::Arc<Account>, MockResponse> {
    let profile = app.config.profile;
    let header = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let named = gatecheck_schemas::NamedProfile::new(profile, app.era);
    if DashboardAuth::played_by(named) == Some(DashboardAuth::Stateless) {
        return parse_access_token(header)
            .and_then(|token| app.state.account_by_token(token))
            .ok_or_else(|| response::json(401, &stateless_refusal()));
    }
    let Some(token) = parse_access_token(header) else {
        return Err(response::api_failure_status(
            AccessRefusal::Missing.http_status(profile),
            "Unauthorized, not logged in and no access token provided",
        ));
    };
    let Some(account) = app.state.account_by_token(token) else {
        let msg = "Unauthorized, invalid access token";
        let status = AccessRefusal::Invalid.http_status(profile);
        return Err(response::api_failure_status(status, msg));
    };
    match headers.get(NEW_API_USER).map(|v| v.to_str().map(str::trim)) {
        None if profile == Profile::NewApi => Err(response::api_failure_status(
            AccessRefusal::UserMismatch.http_status(profile),
            "Unauthorized, New-Api-User header not provided",
        )),
        None => Ok(account),
        Some(Ok(v)) => match v.parse::<i64>() {
            Ok(id) if id == account.id => Ok(account),
            Ok(_) => Err(response::api_failure_status(
                AccessRefusal::UserMismatch.http_status(profile),
                "Unauthorized, New-Api-User does not match the logged-in user",
            )),
            Err(_) => Err(response::api_failure_status(
                AccessRefusal::UserMismatch.http_status(profile),
                "Unauthorized, New-Api-User is not a valid user id",
            )),
        },
        Some(Err(_)) => Err(response::api_failure_status(
            AccessRefusal::UserMismatch.http_status(profile),
            "Unauthorized, New-Api-User is not a valid user id",
        )),
    }
}
