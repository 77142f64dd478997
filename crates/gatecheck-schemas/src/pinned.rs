//! Validation of what the spec pins, and of nothing more.
//!
//! A resource schema also describes fields that only DECISIONS.md gives (marked with a
//! `$comment` naming DECISIONS), and it types optional fields as their value. A target that
//! sends `null` for a field the spec calls optional or "present when ...", or that shapes a
//! DECISIONS-only field its own way, has not broken the spec: at most it differs from a
//! decision, which the deviation checks judge. [`validate_pinned`] reads the instance that way
//! before validating it.

use crate::validate::validate;
use crate::violation::ValidationError;
use serde_json::{Map, Value};

/// Validates `instance` against resource schema `name` as the spec pins it: members whose
/// value is `null` are read as absent (a required one is then reported missing), and the
/// top-level fields the schema marks as DECISIONS-only are left out. Returns what was set
/// aside, for a note.
///
/// ```
/// use serde_json::json;
/// let task = json!({"id": "v1", "object": "video", "model": "m", "status": "queued",
///     "progress": 0, "completed_at": null, "error": null, "seconds": 4});
/// let notes = gatecheck_schemas::validate_pinned("video-task", &task).unwrap();
/// assert!(notes.iter().any(|n| n.contains("completed_at")));
/// assert!(gatecheck_schemas::validate("video-task", &task).is_err());
/// ```
///
/// # Errors
///
/// As [`validate`], for the instance read as above.
pub fn validate_pinned(name: &str, instance: &Value) -> Result<Vec<String>, ValidationError> {
    let decided = decided_fields(name);
    let mut notes = Vec::new();
    let stripped = strip(instance, "", &decided, &mut notes);
    validate(name, &stripped)?;
    Ok(notes)
}

/// The top-level properties of schema `name` that only DECISIONS.md gives.
fn decided_fields(name: &str) -> Vec<String> {
    let Some(schema) = crate::schemas::schema(name) else {
        return Vec::new();
    };
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter(|(_, p)| {
            p.get("$comment")
                .and_then(Value::as_str)
                .is_some_and(|c| c.contains("DECISIONS"))
        })
        .map(|(k, _)| k.clone())
        .collect()
}

fn strip(value: &Value, path: &str, decided: &[String], notes: &mut Vec<String>) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let here = format!("{path}/{k}");
                if v.is_null() {
                    notes.push(format!("`{here}` is null: read as absent"));
                } else if path.is_empty() && decided.contains(k) {
                    notes.push(format!(
                        "`{here}` is a DECISIONS field: judged by the deviation checks"
                    ));
                } else {
                    out.insert(k.clone(), strip(v, &here, &[], notes));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| strip(v, &format!("{path}/{i}"), &[], notes))
                .collect(),
        ),
        other => other.clone(),
    }
}
