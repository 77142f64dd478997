//! The mock's health signature: how a runner tells a gatecheck mock from a real deployment.
//!
//! A real gateway serves its web dashboard, `200 text/html`, on every unknown path, so a 2xx on
//! `GET /__mock/health` proves nothing. The mock answers a JSON body naming the service, its
//! version and its profile; [`parse_signature`] accepts only that body, and the runner uses
//! mock-only features (control API, virtual clock) only when it sees it.

use crate::{Era, Profile};
use serde_json::{json, Value};

/// The path of the health route.
pub const HEALTH_PATH: &str = "/__mock/health";

/// The header a replaying mock (`gatecheck serve --replay DIR --replay-strict`) sets on its
/// answer to a request the recording does not hold; the runner skips the check that sent it
/// (`not-in-recording`) instead of judging the answer.
pub const REPLAY_HEADER: &str = "x-gatecheck-replay";

/// The value of [`REPLAY_HEADER`] on an answer that is not from the recording.
pub const REPLAY_UNMATCHED: &str = "unmatched";

/// The header a replaying mock sets on an answer from the recording: the Unix time (seconds)
/// at which that answer was recorded. A client that judges the replay takes "now" from it
/// (the runner does), so that the times it sends and the decisions it makes on them (is a key
/// expired yet?) are the recorded run's, whenever the replay is judged.
pub const REPLAY_TIME_HEADER: &str = "x-gatecheck-replay-time";

/// The value of [`REPLAY_HEADER`] on an answer from the recording. Its time passed when it was
/// recorded: the replay serves a task's recorded states in order, one per poll, so a client
/// polling it need not wait between polls (the runner then polls without real waits; the
/// logical time it counts, and so its verdicts, are the recorded run's).
pub const REPLAY_MATCHED: &str = "matched";

/// The `service` field of the signature.
pub const SERVICE: &str = "gatecheck-mock";

/// What the signature says about the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockSignature {
    /// The gatecheck version of the mock.
    pub version: String,
    /// The mock's behaviour profile.
    pub profile: Profile,
    /// The era of new-api's task layer the mock plays (`era` in the body; `None` from a mock
    /// older than the eras, which played the Go adaptors').
    pub era: Option<Era>,
}

/// The body of `GET /__mock/health`: `{status, service, version, profile}` plus `extra`'s
/// fields (the clock, for example).
///
/// ```
/// use gatecheck_schemas::rules::health::{parse_signature, signature_body};
/// use gatecheck_schemas::Profile;
/// let body = signature_body("1.2.3", Profile::NewApi, serde_json::json!({"now": 5}));
/// let sig = parse_signature(200, Some("application/json"), body.to_string().as_bytes()).unwrap();
/// assert_eq!((sig.version.as_str(), sig.profile), ("1.2.3", Profile::NewApi));
/// ```
pub fn signature_body(version: &str, profile: Profile, extra: Value) -> Value {
    let mut body = json!({
        "status": "ok",
        "service": SERVICE,
        "version": version,
        "profile": profile.as_str(),
    });
    if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
        for (k, v) in extra {
            b.entry(k).or_insert(v);
        }
    }
    body
}

/// The signature in a health answer, or `None` when the answer is anything else: another
/// status, another content type (a dashboard's `text/html`), a body that is not the signature.
pub fn parse_signature(
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Option<MockSignature> {
    if status != 200 {
        return None;
    }
    let ct = content_type?.split(';').next()?.trim();
    if !ct.eq_ignore_ascii_case("application/json") {
        return None;
    }
    let v: Value = serde_json::from_slice(body).ok()?;
    if v.get("service")?.as_str()? != SERVICE || v.get("status")?.as_str()? != "ok" {
        return None;
    }
    let version = v.get("version")?.as_str()?.to_owned();
    if version.is_empty() {
        return None;
    }
    let profile = v.get("profile")?.as_str()?.parse().ok()?;
    let era = v
        .get("era")
        .and_then(Value::as_str)
        .and_then(|e| e.parse().ok());
    Some(MockSignature {
        version,
        profile,
        era,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dashboard_is_not_a_mock() {
        let html = b"<!doctype html><html><body>new-api</body></html>";
        assert_eq!(parse_signature(200, Some("text/html"), html), None);
        assert_eq!(
            parse_signature(200, Some("application/json"), b"{\"status\":\"ok\"}"),
            None
        );
        assert_eq!(
            parse_signature(200, Some("application/json"), b"{\"success\":true}"),
            None
        );
    }

    #[test]
    fn the_signature_round_trips() {
        let body = signature_body(
            "0.1.0",
            Profile::Documented,
            json!({"clock": "virtual", "era": "adaptors"}),
        );
        assert_eq!(body["clock"], "virtual");
        let text = body.to_string();
        let sig = parse_signature(
            200,
            Some("application/json; charset=utf-8"),
            text.as_bytes(),
        );
        assert_eq!(
            sig,
            Some(MockSignature {
                version: "0.1.0".into(),
                profile: Profile::Documented,
                era: Some(Era::Adaptors),
            })
        );
        assert_eq!(
            parse_signature(404, Some("application/json"), text.as_bytes()),
            None
        );
    }
}
