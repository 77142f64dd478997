//! URL credentials (`http://user:pw@host/`) are never shown or stored: the journal, the log,
//! the state file, `GET /__mock/state` and the dashboard see `http://***@host/`. Only the
//! callback sender holds the URL as given, in memory, to deliver with it.

use std::borrow::Cow;

/// What stands in for a URL's userinfo.
pub const REDACTED: &str = "***";

/// The bytes that end a URL's authority (or the URL itself, in running text).
fn ends_authority(b: u8) -> bool {
    matches!(
        b,
        b'/' | b'?' | b'#' | b'\\' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'{' | b'}' | b'|' | b'^'
    ) || b.is_ascii_whitespace()
        || b.is_ascii_control()
}

/// `text` with the userinfo of every URL in it (after `://`, or JSON's `:\/\/`) replaced by
/// [`REDACTED`]; borrowed when there is none.
///
/// ```
/// use gatecheck_mock::internals::userinfo::redact;
/// assert_eq!(redact("http://user:pw@127.0.0.1:9/h?a=b"), "http://***@127.0.0.1:9/h?a=b");
/// assert_eq!(redact(r#"{"u":"http:\/\/a:b@h\/x"}"#), r#"{"u":"http:\/\/***@h\/x"}"#);
/// assert_eq!(redact("mailto:a@b and http://h/p@q"), "mailto:a@b and http://h/p@q");
/// ```
pub fn redact(text: &str) -> Cow<'_, str> {
    if !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let sep = if bytes[i..].starts_with(b"://") {
            3
        } else if bytes[i..].starts_with(br":\/\/") {
            5
        } else {
            i += 1;
            continue;
        };
        let start = i + sep;
        let end = bytes[start..]
            .iter()
            .position(|&b| ends_authority(b))
            .map_or(bytes.len(), |n| start + n);
        if let Some(at) = bytes[start..end].iter().rposition(|&b| b == b'@') {
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = start + at;
        }
        i = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// `url` without its userinfo, and the `Authorization: Basic` value that carries it (as Go's
/// `net/http` and curl send a URL's credentials); `None` when `url` has none or does not
/// parse.
pub fn split_credentials(url: &str) -> Option<(String, String)> {
    use base64::Engine as _;
    let mut parsed = url::Url::parse(url).ok()?;
    if parsed.username().is_empty() && parsed.password().is_none() {
        return None;
    }
    let mut pair = percent_decode(parsed.username());
    pair.push(b':');
    pair.extend(percent_decode(parsed.password().unwrap_or("")));
    parsed.set_username("").ok()?;
    parsed.set_password(None).ok()?;
    let basic = base64::engine::general_purpose::STANDARD.encode(pair);
    Some((parsed.to_string(), format!("Basic {basic}")))
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Whether `url`'s userinfo is [`REDACTED`] (a URL read back from a state file).
pub fn is_redacted(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| u.username() == REDACTED && u.password().is_none())
}

/// Serializes a URL with its userinfo redacted (serde `serialize_with`).
pub(crate) fn serialize<S: serde::Serializer>(url: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&redact(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_url_in_a_text_loses_its_userinfo() {
        let t = "a http://u:p@h:1/x b https://tok@h2 c ftp://h3/@x d http://x@y@z/";
        assert_eq!(
            redact(t),
            "a http://***@h:1/x b https://***@h2 c ftp://h3/@x d http://***@z/"
        );
        assert!(matches!(redact("no creds http://h/"), Cow::Borrowed(_)));
        assert!(matches!(redact("a@b"), Cow::Borrowed(_)));
        assert_eq!(redact("http://u:p@"), "http://***@");
    }

    #[test]
    fn credentials_travel_as_basic_auth_not_in_the_url() {
        let (url, auth) = split_credentials("http://us%40er:p%3Aw@127.0.0.1:9/h?q=1").unwrap();
        assert_eq!(url, "http://127.0.0.1:9/h?q=1");
        // base64 of "us@er:p:w"
        assert_eq!(auth, "Basic dXNAZXI6cDp3");
        assert!(split_credentials("http://127.0.0.1:9/h").is_none());
    }

    #[test]
    fn a_redacted_url_is_told_apart() {
        assert!(is_redacted("http://***@127.0.0.1:9/h"));
        assert!(!is_redacted("http://u:p@127.0.0.1:9/h"));
        assert!(!is_redacted("http://127.0.0.1:9/h"));
    }
}
