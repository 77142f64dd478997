//! The live dashboard at `GET /__mock/ui`: keys, video tasks on the clock, the request
//! journal, faults, and buttons that advance the clock.
//!
//! Three static files compiled into the binary (`ui/index.html`, `ui/ui.css`, `ui/ui.js`;
//! no build step). The page polls the control API's own JSON routes (`/__mock/health`,
//! `clock`, `keys`, `videos`, `requests`, `faults`) once a second and writes what they hold
//! as text, never as markup. It is reached through the control API (`routes/control.rs`), behind the same access
//! check (loopback peers, or the control token), and is never on a model route's path.

use crate::response::{self, MockResponse};
use bytes::Bytes;
use http::header::{HeaderName, HeaderValue};

const INDEX: &str = include_str!("ui/index.html");
const STYLE: &str = include_str!("ui/ui.css");
const SCRIPT: &str = include_str!("ui/ui.js");

/// Only the page's own files and the control API: no inline script, no other origin, no
/// framing.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                      connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
                      frame-ancestors 'none'";

/// The dashboard's file at `rest` (the path after `/__mock/`, without surrounding slashes):
/// `ui`, `ui/ui.css`, `ui/ui.js`; `None` for anything else under `ui/`.
pub(crate) fn serve(rest: &str) -> Option<MockResponse> {
    let (content_type, body) = match rest {
        "ui" | "ui/index.html" => ("text/html; charset=utf-8", INDEX),
        "ui/ui.css" => ("text/css; charset=utf-8", STYLE),
        "ui/ui.js" => ("text/javascript; charset=utf-8", SCRIPT),
        _ => return None,
    };
    let mut resp = response::bytes_response(200, content_type, Bytes::from_static(body.as_bytes()));
    let headers = resp.headers_mut();
    for (name, value) in [
        (http::header::CONTENT_SECURITY_POLICY, POLICY),
        (http::header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (http::header::CACHE_CONTROL, "no-store"),
        (http::header::REFERRER_POLICY, "no-referrer"),
    ] {
        headers.insert::<HeaderName>(name, HeaderValue::from_static(value));
    }
    Some(resp)
}

#[cfg(test)]
mod tests {
    #[test]
    fn serves_its_three_files_and_nothing_else() {
        for (path, ct) in [
            ("ui", "text/html; charset=utf-8"),
            ("ui/ui.css", "text/css; charset=utf-8"),
            ("ui/ui.js", "text/javascript; charset=utf-8"),
        ] {
            let resp = super::serve(path).expect(path);
            assert_eq!(resp.status(), 200);
            assert_eq!(resp.headers()[http::header::CONTENT_TYPE], ct);
            assert!(resp.headers()[http::header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap()
                .contains("script-src 'self'"));
        }
        assert!(super::serve("ui/../keys").is_none());
        assert!(super::serve("ui/secret").is_none());
    }

    #[test]
    fn the_page_shows_one_clock_in_utc() {
        // The panel shows the mock's clock in UTC; the "live" stamp must not be local time.
        let script = super::SCRIPT;
        assert!(!script.contains("toLocaleTimeString"), "a local-time clock");
        assert!(!script.contains("toLocaleString()"), "a local-time clock");
        assert!(script.contains("' UTC"), "the clocks say UTC");
    }

    #[test]
    fn the_script_never_writes_markup() {
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ] {
            assert!(!super::SCRIPT.contains(banned), "{banned}");
        }
    }
}
