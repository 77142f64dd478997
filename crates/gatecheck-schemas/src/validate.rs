//! Validation of JSON values against the resource schemas, with validators compiled once.

use crate::content;
use crate::registry::REGISTRY;
use crate::schemas;
use crate::violation::{ValidationError, Violation, MAX_VIOLATIONS};
use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The compiled validators, by resource name, or why compilation failed.
type Compiled = Result<HashMap<&'static str, Validator>, String>;

static VALIDATORS: LazyLock<Compiled> = LazyLock::new(compile_all);

/// Compiles each resource schema against the shared registry.
fn compile_all() -> Compiled {
    let registry = REGISTRY.as_ref().map_err(Clone::clone)?;
    let mut out = HashMap::new();
    for name in schemas::schema_names() {
        let value = schemas::schema(name).ok_or_else(|| format!("{name}: missing"))?;
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .with_registry(registry)
            .offline()
            .build(value)
            .map_err(|e| format!("{name}: {e}"))?;
        out.insert(*name, validator);
    }
    Ok(out)
}

/// Validates `instance` against the resource schema `name`.
///
/// Every broken rule is reported with the instance path (a JSON pointer), the keyword and a
/// message. The validators are compiled on first use and shared afterwards.
///
/// ```
/// use serde_json::json;
/// let task = json!({"id": "t1", "object": "video", "model": "sora-2", "status": "running", "progress": 101});
/// let err = gatecheck_schemas::validate("video-task", &task).unwrap_err();
/// let paths: Vec<_> = err.violations().iter().map(|v| v.instance_path.as_str()).collect();
/// assert!(paths.contains(&"/status") && paths.contains(&"/progress"));
/// ```
///
/// # Errors
///
/// [`ValidationError::UnknownSchema`] for a name not in [`crate::schema_names`],
/// [`ValidationError::Invalid`] when the instance breaks a rule.
pub fn validate(name: &str, instance: &Value) -> Result<(), ValidationError> {
    let compiled = VALIDATORS
        .as_ref()
        .map_err(|reason| ValidationError::BrokenSchema {
            name: name.to_owned(),
            reason: reason.clone(),
        })?;
    let Some((schema, validator)) = compiled.get_key_value(name) else {
        return Err(ValidationError::UnknownSchema {
            name: name.to_owned(),
        });
    };
    let mut violations = Vec::new();
    let mut omitted = 0;
    if !validator.is_valid(instance) {
        let mut errors = validator.iter_errors(instance);
        violations.extend(errors.by_ref().take(MAX_VIOLATIONS).map(|error| Violation {
            instance_path: error.instance_path().as_str().to_owned(),
            keyword: error.kind().keyword().to_owned(),
            schema_path: error.evaluation_path().as_str().to_owned(),
            keyword_location: error.absolute_keyword_location().map(|u| u.to_string()),
            message: message_of(&error),
        }));
        omitted = errors.count();
    }
    content::check(name, instance, &mut violations);
    if violations.is_empty() {
        return Ok(());
    }
    omitted += violations.len().saturating_sub(MAX_VIOLATIONS);
    violations.truncate(MAX_VIOLATIONS);
    Err(ValidationError::Invalid {
        schema,
        violations,
        omitted,
    })
}

/// The message of one error; an `enum` error lists every allowed value.
fn message_of(error: &jsonschema::ValidationError<'_>) -> String {
    if let jsonschema::error::ValidationErrorKind::Enum { options } = error.kind() {
        return format!("{} is not one of {options}", error.instance());
    }
    error.to_string()
}

/// Whether `instance` is valid for the resource schema `name` (false for an unknown name).
pub fn is_valid(name: &str, instance: &Value) -> bool {
    validate(name, instance).is_ok()
}
