//! Integration tests of gatecheck-schemas: the embedded schemas, the fixtures and the spec's
//! example bodies, hand-made invalid bodies, properties of the typed resources, and the OpenAPI
//! document.

mod examples;
mod fixtures;
mod invalid;
mod openapi;
mod properties;
mod registry;

/// Asserts that `instance` is a valid `name`, printing every violation otherwise.
#[track_caller]
pub fn assert_valid(name: &str, instance: &serde_json::Value) {
    if let Err(err) = gatecheck_schemas::validate(name, instance) {
        panic!("{err}\ninstance: {instance:#}");
    }
}
