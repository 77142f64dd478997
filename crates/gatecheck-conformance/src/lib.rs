//! Property-generated contract checks against any deployment of the service.
//!
//! - [`Client`], [`RequestSpec`], [`Exchange`]: one pinned HTTP exchange with a target.
//! - [`Transport`]: the client with budgets, pacing, retries and the deadline around it.
//! - [`Redactor`]: secrets never reach output, reports or snapshots.

mod backoff;
mod budget;
mod client;
pub mod normalize;
mod redact;
mod transport;

pub use backoff::{is_retryable, parse_retry_after, Backoff};
pub use budget::{Budget, BudgetExhausted, Pacer};
pub use client::{
    shell_quote, Auth, Body, Client, ClientConfig, ClientError, Exchange, Part, RequestSpec,
    Target, MULTIPART_BOUNDARY,
};
pub use redact::{truncate, Redactor, Secret, REDACTED, SECRET_FIELDS};
pub use transport::{deadline_in, Transport, TransportConfig, TransportError};
