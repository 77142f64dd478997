//! The contract of a new-api model-access service, as code: what a body must look like, how
//! the service behaves, and the OpenAPI document of every route.
//!
//! The gatecheck mock answers from this crate and the conformance runner judges a target with
//! it, so the two cannot drift apart. It depends on no other gatecheck crate.
//!
//! # A first example
//!
//! Validate a body against its resource schema; each broken rule comes back with its JSON
//! pointer, its keyword and a message:
//!
//! ```
//! use serde_json::json;
//!
//! let task = json!({"id": "t1", "object": "video", "model": "sora-2",
//!                   "status": "running", "progress": 101});
//! let err = gatecheck_schemas::validate("video-task", &task).unwrap_err();
//! assert!(err.violations().iter().any(|v| v.instance_path == "/progress"));
//! ```
//!
//! # The names you need
//!
//! - [`validate`](validate()) / [`is_valid`], by resource name ([`names`], [`schema_names`]),
//!   reporting a [`ValidationError`] of [`Violation`]s; [`bundled`] gives one self-contained
//!   schema for other tools.
//! - [`types`]: serde types for every resource and request.
//! - [`rules`]: the behaviour model (limits, header names, state edges, answers) that the mock
//!   and the runner both call; every spec constant lives there once.
//! - [`Profile`]: the `documented` and `new-api` behaviour profiles.
//! - [`openapi()`]: the OpenAPI 3.1 document (committed as `schemas/openapi.json`), built from
//!   the route table [`routes`]; [`openapi::check`] judges an answer against it.
//!
//! Further modules serve the other gatecheck crates: [`decisions`] (the rows of
//! `docs/DECISIONS.md` as data) and `arbitrary` (feature `arbitrary`: proptest strategies of
//! the types). The hottest records also have hand-written JSON writers (`KeyRecord::write_json`
//! and the like), byte for byte what their serde derive writes.
//!
//! What the mock and the runner share that is not the contract lives elsewhere: the codecs
//! (byte scans, JSON writers, SSE framing, multipart bodies, seeded draws, PNG) in
//! `gatecheck-codecs`, whose scans and JSON writers this crate calls, and the recording format
//! of `gatecheck record` in `gatecheck-recording`.
//!
//! # Features
//!
//! Validation ([`validate`](validate()), [`is_valid`], [`bundled`], [`openapi::check`]) is the
//! `validate` feature, on by default. Without it the crate does not depend on `jsonschema`:
//! the mock (which only needs the types and the rules) and the fuzz targets build without it.

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
#[cfg(feature = "validate")]
mod content;
pub mod decisions;
mod json;
pub mod openapi;
#[cfg(feature = "validate")]
mod pinned;
mod profile;
#[cfg(feature = "validate")]
mod registry;
pub mod routes;
pub mod rules;
mod schemas;
pub mod types;
#[cfg(feature = "validate")]
mod validate;
#[cfg(feature = "validate")]
mod violation;

pub use openapi::{openapi, openapi_json};
#[cfg(feature = "validate")]
pub use pinned::validate_pinned;
pub use profile::{Era, NamedProfile, Profile, UnknownEra, UnknownNamedProfile, UnknownProfile};
#[cfg(feature = "validate")]
pub use registry::bundled;
pub use schemas::{names, schema, schema_names, COMMON_DEFS, SCHEMA_BASE_URI};
#[cfg(feature = "validate")]
pub use validate::{is_valid, validate};
#[cfg(feature = "validate")]
pub use violation::{ValidationError, Violation, MAX_VIOLATIONS};
