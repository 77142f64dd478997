//! The contract of a new-api model-access service, as code.
//!
//! - [`types`]: serde types for every resource and request.
//! - [`Profile`]: the `documented` and `new-api` behaviour profiles.
//! - [`rules`]: the one behaviour model that both the mock's logic and the runner's oracle use.
//! - Validation of JSON bodies against the JSON Schemas in `schemas/`, and the OpenAPI document.

mod profile;
pub mod rules;
pub mod types;

pub use profile::{Profile, UnknownProfile};
