//! The contract of a new-api model-access service, as code.
//!
//! - [`types`]: serde types for every resource and request.
//! - [`Profile`]: the `documented` and `new-api` behaviour profiles.
//! - [`json`]: fast JSON writers for the hottest records, byte-identical to `serde_json`.
//! - [`decisions`]: every contract decision as data (the rows of `docs/DECISIONS.md`).
//! - [`rules`]: the one behaviour model that both the mock's logic and the runner's oracle use.
//! - [`validate`]: validation of JSON bodies against the JSON Schemas in `schemas/` (embedded,
//!   compiled once), by resource name ([`schema_names`], [`names`]); [`bundled`] gives a
//!   resource's schema as one self-contained document.
//! - [`openapi()`]: the OpenAPI 3.1 document of every route (also committed as
//!   `schemas/openapi.json`), generated from the route table [`routes`] that the mock
//!   dispatches on; [`openapi::check`] judges an answer against it.
//! - `arbitrary` (feature `arbitrary`): proptest strategies for the typed resources.
//! - `multipart` (feature `multipart`): `multipart/form-data` bodies read as the service
//!   reads them.
//!
//! Validation ([`validate`], [`is_valid`], [`bundled`], [`openapi::check`]) is the `validate`
//! feature, on by default. Without it the crate does not depend on `jsonschema`: the mock
//! (which only needs the types and the rules) and the fuzz targets build without it.

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
#[cfg(feature = "validate")]
mod content;
pub mod decisions;
pub mod json;
#[cfg(feature = "multipart")]
pub mod multipart;
pub mod openapi;
#[cfg(feature = "validate")]
mod pinned;
mod profile;
#[cfg(feature = "validate")]
mod registry;
pub mod routes;
pub mod rules;
mod scan;
mod schemas;
pub mod sse;
pub mod types;
#[cfg(feature = "validate")]
mod validate;

pub use openapi::{openapi, openapi_json};
#[cfg(feature = "validate")]
pub use pinned::validate_pinned;
pub use profile::{Profile, UnknownProfile};
#[cfg(feature = "validate")]
pub use registry::bundled;
pub use schemas::{names, schema, schema_names, COMMON_DEFS, SCHEMA_BASE_URI};
#[cfg(feature = "validate")]
pub use validate::{is_valid, validate, ValidationError, Violation, MAX_VIOLATIONS};
