//! Fetching a result URL on another host (an image a CDN or object store serves): what a
//! client downloads, so what a check judges. Never with the target's credentials (a client of
//! its own, for that origin, with no key, token or `--header`), size-bounded
//! ([`MAX_RESULT_BYTES`]), and redirects followed within the rules: at most [`MAX_HOPS`],
//! http or https only, never from https down to http, and never to a link-local address (a
//! cloud's metadata service); a loopback or private address only when the target itself is on
//! one (a test bed), so a hostile target cannot point the runner into the network it runs in.

use crate::http::client::{Client, Exchange, RequestSpec};
use crate::http::client_error::ClientError;
use crate::http::target::Target;
use crate::http::transport::{Transport, TransportError};
use std::net::IpAddr;
use url::{Host, Url};

/// The largest result fetched from another host.
pub(crate) const MAX_RESULT_BYTES: usize = 32 << 20;

/// The most redirects followed.
pub(crate) const MAX_HOPS: usize = 5;

/// Why a URL on another host was not fetched, or its fetch did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotFetched(pub String);

/// The answer of a result URL, where a client downloads it: `spec` (a GET of the URL, with
/// whatever auth the caller means for the target's host) through the run's transport when the
/// URL is on the target's host; on another host, [`fetch`] (no credentials). `Ok(Err(_))`: the
/// URL is on another host and was not fetched (refused by the address rules, unreachable, too
/// large, or the run replays a recording, which holds no other host's answers).
pub(crate) async fn result(
    t: &Transport,
    spec: &RequestSpec,
) -> Result<Result<Exchange, NotFetched>, TransportError> {
    match t.send(spec, 0).await {
        Err(TransportError::Client(ClientError::OffHost { .. })) => {}
        other => return other.map(Ok),
    }
    if t.answers_from_recording() {
        return Ok(Err(NotFetched(
            "a replay does not fetch other hosts".to_owned(),
        )));
    }
    Ok(fetch(t.client(), &spec.path).await)
}

/// Fetches `url` (off the target's host) with a client of its own; the answer of the last hop.
pub(crate) async fn fetch(client: &Client, url: &str) -> Result<Exchange, NotFetched> {
    let target = client.target().base_url.clone();
    let mut at = Url::parse(url).map_err(|e| NotFetched(format!("{url} is not a URL: {e}")))?;
    for _ in 0..=MAX_HOPS {
        allowed(&at, &target)?;
        let hop = client
            .elsewhere(origin(&at)?, MAX_RESULT_BYTES)
            .map_err(|e| NotFetched(e.to_string()))?;
        let next = match hop.send(&RequestSpec::get(at.as_str())).await {
            Ok(ex) if ex.status.is_redirection() => match ex.header("location") {
                Some(loc) => loc.to_owned(),
                None => return Ok(ex),
            },
            Ok(ex) => return Ok(ex),
            Err(ClientError::OffHostRedirect { location }) => location,
            Err(e) => return Err(NotFetched(e.to_string())),
        };
        let joined = at
            .join(&next)
            .map_err(|e| NotFetched(format!("a redirect to {next:?}: {e}")))?;
        if at.scheme() == "https" && joined.scheme() == "http" {
            return Err(NotFetched(format!(
                "{at} redirects from https down to http ({joined}); not followed"
            )));
        }
        at = joined;
    }
    Err(NotFetched(format!(
        "more than {MAX_HOPS} redirects from {url}"
    )))
}

/// The origin of `url` (its scheme, host and port), the base URL of the hop's client.
fn origin(url: &Url) -> Result<Url, NotFetched> {
    let mut o = url.clone();
    o.set_path("/");
    o.set_query(None);
    o.set_fragment(None);
    o.set_username("")
        .and_then(|()| o.set_password(None))
        .map_err(|()| NotFetched(format!("{url}: no host")))?;
    Ok(o)
}

/// What kind of address a host names: `None` for a name that is not an address literal.
fn address(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(d) if d.eq_ignore_ascii_case("localhost") => {
            Some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        }
        Host::Domain(_) => None,
    }
}

fn is_link_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast(),
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80 || v6.is_unspecified(),
    }
}

fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
        IpAddr::V6(v6) => v6.is_loopback() || (v6.segments()[0] & 0xfe00) == 0xfc00,
    }
}

/// Whether the runner may fetch `url` for a run against `target`.
fn allowed(url: &Url, target: &Url) -> Result<(), NotFetched> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(NotFetched(format!(
            "{url}: only http and https are fetched"
        )));
    }
    let Some(ip) = address(url) else {
        return Ok(());
    };
    if is_link_local(ip) {
        return Err(NotFetched(format!(
            "{url} names a link-local or unspecified address; never fetched"
        )));
    }
    let target_local = address(target).is_some_and(is_local);
    if is_local(ip) && !target_local {
        return Err(NotFetched(format!(
            "{url} names a loopback or private address and the target is not on one; not fetched"
        )));
    }
    Ok(())
}

impl Client {
    /// A client for `origin` with this one's timeout, proxies, user agent and memory budget,
    /// and nothing of its target's: no API key, access token, account id or `--header`.
    pub(crate) fn elsewhere(&self, origin: Url, max_body: usize) -> Result<Client, ClientError> {
        let mut config = self.config().clone();
        config.target = Target::new(origin);
        config.max_body_bytes = max_body.min(config.max_body_bytes);
        Client::new(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_address_rules() {
        let public = url("https://gateway.example.com/");
        let local = url("http://127.0.0.1:3000/");
        assert!(allowed(&url("https://cdn.example.net/a.png"), &public).is_ok());
        assert!(allowed(&url("http://169.254.169.254/latest/meta-data"), &local).is_err());
        assert!(allowed(&url("http://[fe80::1]/x"), &local).is_err());
        assert!(allowed(&url("http://127.0.0.1:9/x.png"), &public).is_err());
        assert!(allowed(&url("http://10.0.0.5/x.png"), &public).is_err());
        assert!(allowed(&url("http://localhost:9/x.png"), &public).is_err());
        assert!(allowed(&url("http://127.0.0.1:9/x.png"), &local).is_ok());
        assert!(allowed(&url("file:///etc/passwd"), &local).is_err());
        assert_eq!(
            origin(&url("https://u:p@cdn.example.net:8443/a/b.png?sig=1#f"))
                .unwrap()
                .as_str(),
            "https://cdn.example.net:8443/"
        );
    }
}
