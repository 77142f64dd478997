//! Who may use the control API (`/__mock/*`: the API, the dashboard and its assets): the
//! switch, the `Host` (the guard against DNS rebinding), the page's site, the peer and the
//! control token. The routes and the replay front both ask [`gate`].
//!
//! The `Host` rule. A page on `http://rebind.example:3000` whose name is
//! made to resolve to 127.0.0.1 is same-origin with itself, so its requests carry a matching
//! `Origin` and pass the cross-site test; only its `Host` gives it away. The rule is the one
//! Vite, webpack-dev-server and Jupyter apply: a loopback name or address, the address the
//! mock is bound to, or a name the user allowed (`gatecheck serve --allowed-host NAME`).
//! The port is not compared (a loopback name is loopback on every port).

use crate::app::App;
use crate::response::headers::CONTROL_TOKEN_HEADER;
use crate::state::secrets_equal;
use std::net::{IpAddr, SocketAddr};

/// Whether a browser sent the request from another site's page: an `Origin` whose host and
/// port are not the request's `Host`, or `Sec-Fetch-Site: cross-site`. A page on another
/// origin must not drive the control API of a mock on the developer's loopback (a form or
/// `fetch(..., {mode: "no-cors"})` reaches it without any CORS permission). The dashboard is
/// same-origin; curl and the SDKs send no `Origin`.
fn cross_site(headers: &http::HeaderMap) -> bool {
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"))
    {
        return true;
    }
    let Some(origin) = headers.get(http::header::ORIGIN) else {
        return false;
    };
    let host = headers.get(http::header::HOST).map(|h| h.as_bytes());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, authority)| authority.as_bytes());
    origin_host.is_none() || origin_host != host
}

/// Whether `peer` may use the control API with these headers: on, same-site, a loopback
/// `Host` ([`host_refusal`]), and a loopback peer or the control token. The replay
/// front asks it too, for its own peer, before it relays a control request.
pub(crate) fn gate(
    app: &App,
    peer: SocketAddr,
    headers: &http::HeaderMap,
    uri: &http::Uri,
) -> Result<(), (u16, String)> {
    if !app.config.control_enabled {
        return Err((404, "the control API is turned off".into()));
    }
    if headers.get_all(http::header::HOST).iter().nth(1).is_some() {
        return Err((
            403,
            "the control API refuses a request with two Host headers".into(),
        ));
    }
    let host = match headers.get(http::header::HOST) {
        Some(h) => Some(h.to_str().unwrap_or("")),
        None => uri.authority().map(http::uri::Authority::as_str),
    };
    if let Some(why) = host_refusal(host, app.bound, &app.config.allowed_hosts) {
        return Err((403, why));
    }
    if cross_site(headers) {
        return Err((
            403,
            "the control API does not answer requests from another site's page (Origin)".into(),
        ));
    }
    if peer.ip().is_loopback() {
        return Ok(());
    }
    let Some(expected) = app.config.control_token.as_deref() else {
        return Err((
            403,
            "the control API only answers loopback peers (start the mock with --control-token)"
                .into(),
        ));
    };
    let sent = headers
        .get(CONTROL_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .or_else(|| {
            headers
                .get(http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
        });
    if sent.is_some_and(|sent| secrets_equal(sent, expected)) {
        Ok(())
    } else {
        Err((403, "missing or wrong control token".into()))
    }
}

/// The longest host name quoted back in a refusal.
const MAX_QUOTED: usize = 80;

/// Why a request with this `Host` (or HTTP/2 `:authority`) may not use the control API, or
/// `None` when it may. `bound` is the address the mock listens on; when it is unspecified
/// (`0.0.0.0`, `::`) every IP address of the machine is one the mock is bound to, so any IP
/// literal is accepted (a rebinding page always has a name, never a literal address).
/// `allowed` entries match a name exactly (case-insensitive, a trailing dot ignored); an
/// entry starting with `.` also matches every name under it.
///
/// ```
/// use gatecheck_mock::internals::control_access::host_refusal as refusal;
/// let bound = Some("127.0.0.1".parse().unwrap());
/// assert_eq!(refusal(Some("localhost:3000"), bound, &[]), None);
/// assert_eq!(refusal(Some("[::1]:3000"), bound, &[]), None);
/// assert!(refusal(Some("rebind.attacker.example:3000"), bound, &[]).is_some());
/// assert_eq!(refusal(Some("mock:3000"), bound, &["mock".into()]), None);
/// ```
pub fn host_refusal(
    host: Option<&str>,
    bound: Option<IpAddr>,
    allowed: &[String],
) -> Option<String> {
    let Some(raw) = host else {
        return Some("the control API needs a Host header".into());
    };
    let Some(name) = host_name(raw) else {
        return Some(format!(
            "the control API refuses Host {:?}: not a host[:port]",
            quoted(raw)
        ));
    };
    if let Ok(ip) = name.parse::<IpAddr>() {
        let ip = ip.to_canonical();
        let bound_here = bound.is_some_and(|b| b.is_unspecified() || b.to_canonical() == ip);
        if ip.is_loopback() || bound_here {
            return None;
        }
    } else if name == "localhost" || name.ends_with(".localhost") || allowed_name(&name, allowed) {
        return None;
    }
    Some(format!(
        "the control API answers only a loopback Host (got {:?}); start the mock with \
         --allowed-host {} to allow it",
        quoted(&name),
        quoted(&name)
    ))
}

/// The host part of a `Host` value, lower case, without brackets or a trailing dot.
fn host_name(raw: &str) -> Option<String> {
    let authority: http::uri::Authority = raw.trim().parse().ok()?;
    if raw.contains('@') {
        return None;
    }
    let host = authority.host();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

fn allowed_name(name: &str, allowed: &[String]) -> bool {
    allowed.iter().any(|entry| {
        let entry = entry.trim().trim_end_matches('.').to_ascii_lowercase();
        match entry.strip_prefix('.') {
            Some(domain) => name == domain || name.ends_with(&entry),
            None => name == entry,
        }
    })
}

fn quoted(s: &str) -> String {
    s.chars().take(MAX_QUOTED).collect()
}

#[cfg(test)]
mod tests {
    use super::host_refusal as refusal;
    use std::net::IpAddr;

    fn ok(host: &str, bound: &str, allowed: &[&str]) -> bool {
        let allowed: Vec<String> = allowed.iter().map(|s| (*s).to_owned()).collect();
        refusal(Some(host), Some(bound.parse::<IpAddr>().unwrap()), &allowed).is_none()
    }

    #[test]
    fn loopback_names_and_addresses_pass() {
        for host in [
            "localhost",
            "LOCALHOST:3000",
            "localhost.:3000",
            "app.localhost:8080",
            "127.0.0.1:3000",
            "127.8.9.10",
            "[::1]:3000",
            "[::ffff:127.0.0.1]:3000",
        ] {
            assert!(ok(host, "127.0.0.1", &[]), "{host}");
        }
    }

    #[test]
    fn other_names_and_addresses_are_refused() {
        for host in [
            "rebind.attacker.example:3000",
            "localhost.attacker.example",
            "attackerlocalhost",
            "10.1.2.3:3000",
            "0.0.0.0:3000",
            "user@localhost:3000",
            "",
            "local host",
        ] {
            assert!(!ok(host, "127.0.0.1", &[]), "{host}");
        }
        assert!(refusal(None, None, &[]).is_some());
    }

    #[test]
    fn the_bound_address_and_allowed_names_pass() {
        assert!(ok("192.168.1.7:3000", "192.168.1.7", &[]));
        assert!(!ok("192.168.1.8:3000", "192.168.1.7", &[]));
        assert!(ok("10.9.8.7:3000", "0.0.0.0", &[]));
        assert!(ok("mock:3000", "0.0.0.0", &["mock"]));
        assert!(ok("MOCK.", "0.0.0.0", &["mock"]));
        assert!(!ok("mock.evil:3000", "0.0.0.0", &["mock"]));
        assert!(ok("a.ci.internal", "0.0.0.0", &[".ci.internal"]));
        assert!(ok("ci.internal", "0.0.0.0", &[".ci.internal"]));
        assert!(!ok("evilci.internal", "0.0.0.0", &[".ci.internal"]));
    }

    #[test]
    fn a_refusal_is_one_line_and_short() {
        let long = format!("{}.example", "a".repeat(500));
        let why = refusal(Some(&long), None, &[]).unwrap();
        assert!(!why.contains('\n'));
        assert!(why.len() < 400, "{why}");
    }
}
