//! Parsing credentials out of the `Authorization` header.

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
    let value = value.split('-').next().unwrap_or("");
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
