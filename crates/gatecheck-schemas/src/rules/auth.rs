//! Parsing credentials out of the `Authorization` header, and how a management route (`/api/*`)
//! refuses an access token ([`AccessRefusal`]).

use super::rejection::ACCEPTED;
use crate::Profile;

/// Why a management route (`/api/*`) refuses a request's credentials. The body is always the
/// `/api` envelope `{success:false, message}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessRefusal {
    /// No access token (or, on `GET /api/usage/token`, no well-formed `Bearer` key).
    Missing,
    /// An access token that names no account.
    Invalid,
    /// `New-Api-User` missing (required by new-api), not a user id, or not the token's user.
    UserMismatch,
    /// The account may not use the route (new-api's role check).
    Forbidden,
}

impl AccessRefusal {
    /// Every way a management route refuses credentials.
    pub const ALL: [AccessRefusal; 4] = [
        AccessRefusal::Missing,
        AccessRefusal::Invalid,
        AccessRefusal::UserMismatch,
        AccessRefusal::Forbidden,
    ];

    /// The HTTP status under `profile`: 401, except new-api's logical failure (HTTP 200
    /// `{success:false}`) for an unknown access token, and 403 for a forbidden route.
    ///
    /// ```
    /// use gatecheck_schemas::{rules::auth::AccessRefusal, Profile};
    /// assert_eq!(AccessRefusal::Missing.http_status(Profile::NewApi), 401);
    /// assert_eq!(AccessRefusal::Invalid.http_status(Profile::Documented), 401);
    /// assert_eq!(AccessRefusal::Invalid.http_status(Profile::NewApi), 200);
    /// ```
    pub fn http_status(self, profile: Profile) -> u16 {
        match (self, profile) {
            (Self::Invalid, Profile::NewApi) => ACCEPTED,
            (Self::Forbidden, _) => 403,
            _ => 401,
        }
    }
}

/// Whether an `/api/*` answer admitted the request: a 2xx whose envelope does not say
/// `success: false`. Anything else refused it, whatever the status: the spec pins no status
/// for a refused access token, so only an admission breaks "a wrong token never succeeds".
///
/// ```
/// use gatecheck_schemas::rules::auth::is_access_admitted;
/// assert!(is_access_admitted(200, Some(true)) && is_access_admitted(204, None));
/// assert!(!is_access_admitted(200, Some(false)));
/// assert!(!is_access_admitted(404, None) && !is_access_admitted(500, Some(true)));
/// ```
pub fn is_access_admitted(status: u16, success: Option<bool>) -> bool {
    (200..300).contains(&status) && success != Some(false)
}

/// Extracts the API key of a model route from an `Authorization` header value.
///
/// The `Bearer ` prefix is matched case-insensitively and is optional (new-api accepts a bare
/// key too); a leading `sk-` is stripped. new-api also cuts the key at its first `-` (the rest
/// selects a channel), and so does this function. Returns `None` when no key remains.
///
/// ```
/// use gatecheck_schemas::rules::auth::parse_bearer;
/// assert_eq!(parse_bearer("Bearer sk-abc"), Some("abc"));
/// assert_eq!(parse_bearer("bEaReR abc"), Some("abc"));
/// assert_eq!(parse_bearer("sk-abc-2"), Some("abc"));
/// assert_eq!(parse_bearer("Bearer "), None);
/// ```
pub fn parse_bearer(header: &str) -> Option<&str> {
    let mut value = header.trim();
    if let Some(scheme) = value.get(..6) {
        let rest = &value[6..];
        if scheme.eq_ignore_ascii_case("bearer") && (rest.is_empty() || rest.starts_with(' ')) {
            value = rest.trim();
        }
    }
    let value = value.strip_prefix("sk-").unwrap_or(value);
    // The key ends at its first `-` (this runs on every model request).
    let value = match gatecheck_codecs::scan::find_byte(value.as_bytes(), b'-') {
        Some(end) => value.get(..end).unwrap_or(value),
        None => value,
    };
    if value.is_empty() {
        None
    } else {
        Some(value)
    }
}

/// Extracts the personal access token of `/api/token/*` from an `Authorization` header value.
///
/// The token is sent raw; a `Bearer ` prefix (any case) is accepted too, as deployed new-api
/// does. A value of more than one word that is not `Bearer <token>` is rejected.
///
/// ```
/// use gatecheck_schemas::rules::auth::parse_access_token;
/// assert_eq!(parse_access_token("tok"), Some("tok"));
/// assert_eq!(parse_access_token("Bearer tok"), Some("tok"));
/// assert_eq!(parse_access_token("a b c"), None);
/// assert_eq!(parse_access_token("  "), None);
/// ```
pub fn parse_access_token(header: &str) -> Option<&str> {
    let mut parts = header.split_whitespace();
    let first = parts.next()?;
    match (parts.next(), parts.next()) {
        (None, _) => Some(first),
        (Some(second), None) if first.eq_ignore_ascii_case("bearer") => Some(second),
        _ => None,
    }
}

/// Formats a stored key (without prefix) the way clients send it: `sk-<key>`.
///
/// ```
/// assert_eq!(gatecheck_schemas::rules::auth::display_key("abc"), "sk-abc");
/// ```
pub fn display_key(stored: &str) -> String {
    format!("sk-{stored}")
}

/// Masks a key as new-api's listings do: the first and last four characters around stars.
///
/// ```
/// use gatecheck_schemas::rules::auth::mask_key;
/// assert_eq!(mask_key("abcdefghijkl"), "abcd**********ijkl");
/// assert_eq!(mask_key("abc"), "***");
/// ```
pub fn mask_key(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    match chars.len() {
        0 => String::new(),
        n if n <= 4 => "*".repeat(n),
        n if n <= 8 => format!(
            "{}****{}",
            chars[..2].iter().collect::<String>(),
            chars[n - 2..].iter().collect::<String>()
        ),
        n => format!(
            "{}**********{}",
            chars[..4].iter().collect::<String>(),
            chars[n - 4..].iter().collect::<String>()
        ),
    }
}

/// The header that names the account next to an access token on `/api/token/*`
/// (`New-Api-User: <id>`), lowercase as HTTP/2 writes it.
pub const NEW_API_USER_HEADER: &str = "new-api-user";

/// The two generations of new-api's dashboard authentication (`UserAuth`, the key-management
/// and user routes; DECISIONS D-AUTH-7, D-AUTH-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DashboardAuth {
    /// Before upstream commit 31d70fca (2026-07-20): `New-Api-User` required and matched
    /// against the token's user, an unknown token answered 200 `{success:false}` (what the
    /// frozen `new-api-adaptors` profile plays).
    UserHeader,
    /// From 31d70fca (#6329, stateless dashboard tokens) on, every plugin-era version among
    /// them (middleware/auth.go@823e263 `authHelper`, `classifyDashboardCredential`,
    /// `writeDashboardAuthError`): `New-Api-User` is not read; a missing or unknown token is
    /// 401 `{success:false, code:"AUTH_UNAUTHORIZED", message}` ([`stateless_refusal`]).
    Stateless,
}

impl DashboardAuth {
    /// The generation a named profile plays: the documented profile has none of new-api's,
    /// `new-api` (the plugin era) the stateless one, `new-api-adaptors` the header one.
    ///
    /// ```
    /// use gatecheck_schemas::rules::auth::DashboardAuth;
    /// use gatecheck_schemas::NamedProfile;
    /// assert_eq!(DashboardAuth::played_by(NamedProfile::NEW_API), Some(DashboardAuth::Stateless));
    /// assert_eq!(DashboardAuth::played_by(NamedProfile::NEW_API_ADAPTORS), Some(DashboardAuth::UserHeader));
    /// assert_eq!(DashboardAuth::played_by(NamedProfile::DOCUMENTED), None);
    /// ```
    pub fn played_by(named: crate::NamedProfile) -> Option<DashboardAuth> {
        match (named.profile, named.effective_era()) {
            (Profile::Documented, _) => None,
            (Profile::NewApi, crate::Era::Plugins) => Some(DashboardAuth::Stateless),
            (Profile::NewApi, crate::Era::Adaptors) => Some(DashboardAuth::UserHeader),
        }
    }

    /// The generations a new-api deployment of `era` may run: the plugin era is after
    /// 31d70fca, so stateless only; the adaptors' era spans the commit, so either.
    pub fn of_era(era: crate::Era) -> &'static [DashboardAuth] {
        match era {
            crate::Era::Plugins => &[DashboardAuth::Stateless],
            crate::Era::Adaptors => &[DashboardAuth::UserHeader, DashboardAuth::Stateless],
        }
    }
}

/// The code of the stateless dashboard auth's refusal of a missing or unknown token.
pub const AUTH_UNAUTHORIZED: &str = "AUTH_UNAUTHORIZED";
/// Its message (i18n `auth.access_token_invalid`, en.yaml@823e263), for a missing token too:
/// no credential is `ErrAuthTokenInvalid` as an unknown one is.
pub const MSG_ACCESS_TOKEN_INVALID: &str = "Unauthorized, invalid access token";

/// The stateless dashboard auth's 401 body: `{"success": false, "code": "AUTH_UNAUTHORIZED",
/// "message": "Unauthorized, invalid access token"}`.
///
/// ```
/// use gatecheck_schemas::rules::auth::{is_stateless_refusal, stateless_refusal};
/// assert!(is_stateless_refusal(401, &stateless_refusal()));
/// assert!(!is_stateless_refusal(200, &stateless_refusal()));
/// assert!(!is_stateless_refusal(401, &serde_json::json!({"success": false, "message": "x"})));
/// ```
pub fn stateless_refusal() -> serde_json::Value {
    serde_json::json!({"success": false, "code": AUTH_UNAUTHORIZED, "message": MSG_ACCESS_TOKEN_INVALID})
}

/// Whether an answer is the stateless dashboard auth's refusal of a missing or unknown token:
/// 401 with `success:false` and `code` `AUTH_UNAUTHORIZED`.
pub fn is_stateless_refusal(status: u16, body: &serde_json::Value) -> bool {
    status == 401
        && body.get("success").and_then(serde_json::Value::as_bool) == Some(false)
        && body.get("code").and_then(serde_json::Value::as_str) == Some(AUTH_UNAUTHORIZED)
}
