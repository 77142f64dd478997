//! Which request and response headers an intermediary passes on: the mock's replay front (to
//! the mock behind it), the recorder (to the upstream it records) and the recording format (what
//! it stores of an exchange) all drop the same connection-level fields.
//!
//! RFC 9110 §7.6.1: a proxy removes the `Connection` header, the fields it names, and the fields
//! known to be connection-specific whether named or not (`Proxy-Connection`, `Keep-Alive`, `TE`,
//! `Transfer-Encoding`, `Upgrade`): [`HOP_BY_HOP`]. A gatecheck intermediary re-frames every
//! message it passes on with its own HTTP stack, so the framing fields of the message it read go
//! too: [`REFRAMED`].

/// The connection-specific fields of RFC 9110 §7.6.1 (lowercase).
pub const HOP_BY_HOP: [&str; 6] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "transfer-encoding",
    "upgrade",
];

/// Fields the intermediary's own HTTP stack writes for the message it sends (lowercase): the
/// body's length (`Content-Length`, from the body it sends), `Trailer` (RFC 7230's hop-by-hop
/// list: no gatecheck intermediary passes trailers on) and `Expect` (hyper answers
/// `100-continue` itself).
pub const REFRAMED: [&str; 3] = ["content-length", "trailer", "expect"];

/// Whether an intermediary passes header `name` (lowercase) on: not when it is [`HOP_BY_HOP`] or
/// [`REFRAMED`].
///
/// ```
/// use gatecheck_schemas::rules::forwarding::is_passed_on;
/// assert!(is_passed_on("authorization"));
/// assert!(!is_passed_on("keep-alive"));
/// assert!(!is_passed_on("content-length"));
/// ```
pub fn is_passed_on(name: &str) -> bool {
    !HOP_BY_HOP.contains(&name) && !REFRAMED.contains(&name)
}
