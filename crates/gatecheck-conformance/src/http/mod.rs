//! How the runner talks to a target: the transport under the run's safety rules, and the typed
//! clients above it.
//!
//! - `client`: one request, one exchange, pinned to the target's host (hyper-util, rustls).
//! - `client_error`: what can go wrong sending one request.
//! - `connector`: direct, CONNECT-tunnelled or http-proxy connections, and the TLS roots.
//! - `elsewhere`: a result URL on another host, fetched without the target's credentials.
//! - `request`: a request the runner means to send, and its redacted curl reproduction.
//! - `target`: the deployment under test and the credentials the runner may use on it.
//! - `transport`: the client with budgets, pacing, concurrency, retries, deadline and dry runs.
//! - `sse`: a bounded reader of `text/event-stream` answers.
//! - `memory`: one memory budget for every response body in flight.
//! - `backoff`: exponential backoff with full jitter, honouring `Retry-After`.
//! - `budget`: request and quota budgets, and request pacing (`--rate`).
//! - `mock_control`: the mock's control API (`/__mock/*`), typed.
//! - `key_api`: the working key and the `/api/token/` key API around it.
//! - `models`: the capabilities the runner ships with, and the target's `/api/models` catalog.
//! - `pricing`: the working key's group ratio (`--group-ratio`, else `GET /api/pricing`).

pub(crate) mod backoff;
pub(crate) mod budget;
pub(crate) mod client;
pub(crate) mod client_error;
pub(crate) mod connector;
pub(crate) mod elsewhere;
pub(crate) mod key_api;
pub(crate) mod memory;
pub(crate) mod mock_control;
pub(crate) mod models;
pub(crate) mod pricing;
pub(crate) mod request;
pub(crate) mod sse;
pub(crate) mod target;
pub(crate) mod transport;
