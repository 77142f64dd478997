//! What can go wrong sending one request.

use std::time::Duration;

/// What can go wrong sending one request.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The base URL or a request URL is unusable.
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    /// A request would leave the target's host.
    #[error("refused: {url} is not on the target host {allowed}")]
    OffHost {
        /// The refused URL.
        url: String,
        /// The target's `host:port`.
        allowed: String,
    },
    /// The target redirected to another host.
    #[error("refused redirect to another host: {location}")]
    OffHostRedirect {
        /// The `Location` header.
        location: String,
    },
    /// A header could not be built.
    #[error("invalid header {0}")]
    InvalidHeader(String),
    /// TLS setup failed.
    #[error("TLS setup: {0}")]
    Tls(String),
    /// Connecting or exchanging failed.
    #[error("connection to the target failed: {0}")]
    Connect(String),
    /// The target answered, but not in HTTP a client can read: a head too large (a header
    /// flood) or malformed, a body cut short of its length or broken mid-way.
    #[error("the target broke HTTP: {0}")]
    Malformed(String),
    /// The request or the body did not finish in time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The body was larger than allowed.
    #[error("response body larger than {0} bytes")]
    BodyTooLarge(usize),
    /// The response bodies being read at once passed the client's memory budget.
    #[error("response bodies in flight passed the memory budget of {0} bytes")]
    MemoryBudget(usize),
}

impl ClientError {
    /// Whether the target could not be reached at all (as opposed to a refused or bad request).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ClientError::Connect(_) | ClientError::Timeout(_))
    }
}
