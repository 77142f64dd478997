//! A stateful fake of a new-api model-access gateway.
//!
//! Point client code at [`MockServer::uri`] instead of the real gateway: keys are rejected by
//! status, expiry, quota, IP allowlist and model limits exactly as new-api does; quota is
//! charged atomically; `/api/token/` edits keys; `/api/models` serves the catalog; video tasks
//! run queued → terminal on a real or virtual clock; faults and a request journal are under
//! a control API (`/__mock/*`) and this library API.
//!
//! ```no_run
//! use gatecheck_mock::{Fault, MockServer, NewKey};
//! # async fn demo() {
//! let server = MockServer::start().await;
//! let base_url = server.uri();
//! let api_key = server.demo_key();
//! let tiny = server.add_key(NewKey::new().remain_quota(1));
//! server.inject(Fault::status(503).on("/v1/videos*").times(1));
//! // ... run the client under test against base_url ...
//! for call in server.received_requests() {
//!     println!("{} {} -> {}", call.method, call.path, call.status);
//! }
//! # let _ = (base_url, api_key, tiny);
//! # }
//! ```

// Handlers return `Result<_, MockResponse>`: the error is the answer to send, built only on the
// error path, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

mod app;
mod auth;
pub mod bench;
mod callback_delivery;
pub mod callbacks;
mod catalog;
mod clock;
mod config;
mod error;
mod faults;
mod fixtures;
mod handle;
mod headers;
mod ids;
pub mod inputs;
mod journal;
mod linger;
mod listen;
pub mod media;
pub mod midjourney;
mod persist;
mod provider_tasks;
mod ratelimit;
mod render;
pub mod replay;
mod routes;
mod script;
mod seeds;
mod server;
mod shutdown;
mod sse;
mod state;
mod tasks;
pub mod video;

pub use auth::NEW_API_USER;
pub use clock::{Clock, ClockMode, DEFAULT_VIRTUAL_EPOCH};
pub use config::{
    MockConfig, RateLimit, StreamPacing, DEFAULT_BODY_TIMEOUT, DEFAULT_JOURNAL_CAPACITY,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_STREAM_EVENT_GAP,
};
pub use faults::{Fault, FaultKind};
pub use fixtures::{FixtureError, Fixtures};
pub use handle::{demo_key_of, MockServer, MockServerBuilder};
pub use headers::{CONTROL_TOKEN_HEADER, REQUEST_ID_HEADER};
pub use journal::JournalEntry;
pub use listen::listen;
pub use script::StreamScript;
pub use state::{NewKey, StateSnapshot};
pub use tasks::TaskMetaEntry;
