//! Checks of JSON-encoded string content.
//!
//! The spec states that a model record's `endpoints`, in its string form, is "a JSON-encoded
//! string holding a map from an endpoint label to an object with `path` and `method`". The
//! schema says so with `contentMediaType: application/json` and a `contentSchema`, but draft
//! 2020-12 makes those keywords annotations only, so this module enforces them: the string must
//! decode as JSON, and the decoded value must match the `contentSchema`.

use crate::schemas::{self, names};
use crate::violation::Violation;
use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::sync::LazyLock;

/// Where the `endpoints` string form sits in `model-record.json`.
const ENDPOINTS_SUBSCHEMA: &str = "/properties/endpoints/anyOf/0";

/// The compiled `contentSchema` of the `endpoints` string form (`None` if the embedded schema
/// lacks it, which the crate's tests rule out).
static ENDPOINTS_CONTENT: LazyLock<Option<Validator>> = LazyLock::new(|| {
    let schema = schemas::schema(names::MODEL_RECORD)?
        .pointer(&format!("{ENDPOINTS_SUBSCHEMA}/contentSchema"))?;
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .offline()
        .build(schema)
        .ok()
});

/// Appends the content violations of `instance`, a `name` resource, to `out`.
pub(crate) fn check(name: &str, instance: &Value, out: &mut Vec<Violation>) {
    match name {
        names::MODEL_RECORD => check_endpoints(instance, "", "", out),
        names::CATALOG_ENVELOPE => {
            if let Some(records) = instance.get("data").and_then(Value::as_array) {
                for (i, record) in records.iter().enumerate() {
                    check_endpoints(
                        record,
                        &format!("/data/{i}"),
                        "/properties/data/items/$ref",
                        out,
                    );
                }
            }
        }
        _ => {}
    }
}

/// Checks the `endpoints` of one model record found at `instance_prefix`, reached in the
/// resource schema through `schema_prefix`.
fn check_endpoints(
    record: &Value,
    instance_prefix: &str,
    schema_prefix: &str,
    out: &mut Vec<Violation>,
) {
    let Some(Value::String(text)) = record.get("endpoints") else {
        return;
    };
    let instance_path = format!("{instance_prefix}/endpoints");
    let schema_path = format!("{schema_prefix}{ENDPOINTS_SUBSCHEMA}");
    let location = |keyword: &str| {
        Some(format!(
            "{}{}.json#{ENDPOINTS_SUBSCHEMA}/{keyword}",
            schemas::SCHEMA_BASE_URI,
            names::MODEL_RECORD
        ))
    };
    let decoded: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            out.push(Violation {
                instance_path,
                keyword: "contentMediaType".to_owned(),
                schema_path: format!("{schema_path}/contentMediaType"),
                keyword_location: location("contentMediaType"),
                message: format!("the string is not JSON-encoded: {e}"),
            });
            return;
        }
    };
    let Some(validator) = ENDPOINTS_CONTENT.as_ref() else {
        return;
    };
    for error in validator.iter_errors(&decoded) {
        let inner = error.instance_path().as_str().to_owned();
        let inner = if inner.is_empty() {
            "(root)".to_owned()
        } else {
            inner
        };
        out.push(Violation {
            instance_path: instance_path.clone(),
            keyword: "contentSchema".to_owned(),
            schema_path: format!(
                "{schema_path}/contentSchema{}",
                error.evaluation_path().as_str()
            ),
            keyword_location: location("contentSchema"),
            message: format!("the decoded JSON at {inner}: {error}"),
        });
    }
}
