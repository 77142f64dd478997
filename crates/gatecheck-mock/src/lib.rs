//! A stateful fake of a [new-api](https://github.com/QuantumNous/new-api) model-access
//! gateway, for integration tests of the code that talks to one.
//!
//! # What it is for
//!
//! Point client code at [`MockServer::uri`] instead of the real gateway. The mock answers as
//! new-api does, from one shared state:
//!
//! - keys are refused by status, expiry, quota, IP allowlist and model limits, and quota is
//!   charged atomically;
//! - `/api/token/` edits keys and `/api/models` serves the catalog;
//! - audio, image and video routes answer with real media (WAV, PNG, MP4, ...);
//! - video and Midjourney tasks run queued → terminal on a real or a virtual [`Clock`];
//! - faults ([`Fault`]), stream scripts ([`StreamScript`]) and a request journal
//!   ([`JournalEntry`]) are under this library API and the control API (`/__mock/*`).
//!
//! # A first test
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
//!
//! A virtual clock makes task timing a test's own: start with
//! `MockServer::builder().clock(ClockMode::virtual_default()).start().await`, then move time
//! with `server.clock().advance(...)`.
//!
//! # The names
//!
//! - Start: [`MockServer`] (`start`, or [`MockServerBuilder`] from `builder()`), with a
//!   [`ClockMode`], [`Fixtures`] and a [`MockConfig`] ([`RateLimit`], [`StreamPacing`]);
//!   [`listen`] binds a socket before a runtime exists.
//! - Shape the state: [`NewKey`], [`StateSnapshot`] (save and load), [`demo_key_of`].
//! - Misbehave: [`Fault`] / [`FaultKind`], [`StreamScript`].
//! - Look back: [`JournalEntry`], [`TaskMetaEntry`], [`callbacks::CallbackRecord`].
//! - Replay a recording instead of the model: [`replay`].
//! - Header names: [`REQUEST_ID_HEADER`], [`CONTROL_TOKEN_HEADER`], [`NEW_API_USER`].
//!
//! Everything else the workspace's own tools reach into (the media encoders, the task models,
//! the defaults) is under [`internals`], which is not a stable API.

// Handlers return `Result<_, MockResponse>`: the error is the answer to send, built only on the
// error path, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

mod app;
mod config;
mod fixtures;
mod handle;
mod harness;
mod ids;
mod inputs;
pub mod internals;
mod media;
mod response;
mod routes;
mod server;
mod shutdown;
mod state;
mod tasks;
mod userinfo;

pub use config::{MockConfig, RateLimit, StreamPacing};
pub use fixtures::{FixtureError, Fixtures};
pub use handle::builder::MockServerBuilder;
pub use handle::{demo_key_of, MockServer};
pub use harness::clock::{Clock, ClockMode};
pub use harness::faults::{Fault, FaultKind};
pub use harness::journal::{FormPart, JournalEntry};
pub use response::headers::{CONTROL_TOKEN_HEADER, REQUEST_ID_HEADER};
pub use response::script::StreamScript;
pub use routes::auth::NEW_API_USER;
pub use server::listen::listen;
pub use server::replay;
pub use state::{NewKey, StateSnapshot};
pub use tasks::callbacks;
pub use tasks::platforms::Channel;

/// A video platform's hooks (what its adaptor reads of a request and writes as the
/// upstream's task), for a platform added at run time: [`platform_hooks::extend`] adds its
/// description and its hooks before the mock first reads the registry (docs/ARCHITECTURE.md,
/// "Adding a video platform"; the registered platforms' hooks are `tasks/platforms/*.rs`).
pub mod platform_hooks {
    pub use crate::tasks::platforms::{
        error_code, extend, prompt_required, queued, render_common, Adaptor, Read, Upstream,
        VideoView,
    };
}
pub use tasks::TaskMetaEntry;
