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
    let value = match crate::scan::find_byte(value.as_bytes(), b'-') {
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
