//! The OpenAPI 3.1 document of the contract.

use serde_json::{json, Value};

/// The OpenAPI 3.1 document of every route of the spec (plus the key-management extensions of
/// DECISIONS.md). Placeholder until the generator lands.
pub fn openapi() -> Value {
    json!({"openapi": "3.1.0", "info": {"title": "gatecheck", "version": "1.0.0"}, "paths": {}})
}

/// [`openapi`] as pretty-printed JSON with a trailing newline: the text of `schemas/openapi.json`.
pub fn openapi_json() -> String {
    let mut text = serde_json::to_string_pretty(&openapi()).unwrap_or_default();
    text.push('\n');
    text
}
