//! The in-memory registry of every embedded schema document, and self-contained (bundled)
//! schemas for tools outside gatecheck.

use crate::schemas::{self, rewrite_refs, RefTarget, DOCUMENTS};
use crate::violation::ValidationError;
use jsonschema::{Draft, Registry};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// Every embedded document, registered under its `$id`, or why the registry could not be built.
/// Nothing is fetched: `$ref`s resolve only to registered documents.
pub(crate) static REGISTRY: LazyLock<Result<Registry<'static>, String>> = LazyLock::new(|| {
    let mut builder = Registry::new().draft(Draft::Draft202012);
    for doc in DOCUMENTS.iter() {
        let value = doc.value.clone()?;
        builder = builder
            .add(schemas::id_of(doc.name), value)
            .map_err(|e| format!("{}: {e}", doc.name))?;
    }
    builder.prepare().map_err(|e| e.to_string())
});

/// The schema of a resource with every definition it references copied under `$defs`, so that
/// it stands alone (for other validators, code generators, editors): `common.json#/$defs/size`
/// becomes `#/$defs/size`, `key-record.json` becomes `#/$defs/key-record`. It validates exactly
/// as [`crate::validate`] does, the JSON-encoded `endpoints` check aside.
///
/// ```
/// let bundled = gatecheck_schemas::bundled("token-update-envelope").unwrap();
/// assert_eq!(bundled["then"]["properties"]["data"]["$ref"], "#/$defs/key-record");
/// assert!(bundled["$defs"]["key_status"].is_object());
/// ```
///
/// # Errors
///
/// [`ValidationError::UnknownSchema`] for a name not in [`crate::schema_names`].
pub fn bundled(name: &str) -> Result<Value, ValidationError> {
    let root = schemas::schema(name).ok_or_else(|| ValidationError::UnknownSchema {
        name: name.to_owned(),
    })?;
    let local = |target: &RefTarget| match target {
        RefTarget::Common(def) => def.clone(),
        RefTarget::Resource(resource) => resource.clone(),
    };
    let mut wanted = BTreeSet::new();
    let body = rewrite_refs(root, &mut |target| {
        let reference = format!("#/$defs/{}", local(&target));
        wanted.insert(target);
        reference
    });
    let mut defs = Map::new();
    let mut done = BTreeSet::new();
    while let Some(target) = wanted.pop_first() {
        if !done.insert(target.clone()) {
            continue;
        }
        let Some(schema) = target.resolve() else {
            return Err(ValidationError::BrokenSchema {
                name: name.to_owned(),
                reason: format!("dangling reference to {target:?}"),
            });
        };
        let rewritten = rewrite_refs(schema, &mut |inner| {
            let reference = format!("#/$defs/{}", local(&inner));
            wanted.insert(inner);
            reference
        });
        defs.insert(local(&target), rewritten);
    }
    let mut out = Map::new();
    for keyword in ["$schema", "$id"] {
        if let Some(value) = root.get(keyword) {
            out.insert(keyword.into(), value.clone());
        }
    }
    if let Value::Object(rest) = body {
        out.extend(rest);
    }
    if !defs.is_empty() {
        out.insert("$defs".into(), Value::Object(defs));
    }
    Ok(Value::Object(out))
}
