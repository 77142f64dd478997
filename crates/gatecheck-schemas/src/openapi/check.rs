//! Judging an answer against the OpenAPI document, as a validating proxy (Prism) does: the
//! route and method are documented, the status is declared, required headers are present, the
//! content type is declared, and a JSON body is valid against the declared schema.
//!
//! ```
//! use gatecheck_schemas::openapi::check::{Answer, ResponseChecker};
//! let checker = ResponseChecker::new();
//! let body = br#"{"status":"ok"}"#;
//! let answer = Answer {
//!     method: "GET", path: "/health", status: 200,
//!     headers: &[("content-type", "application/json"), ("x-oneapi-request-id", "r1")],
//!     body,
//! };
//! assert!(checker.check(&answer).is_empty());
//! let wrong = Answer { status: 201, ..answer };
//! assert_eq!(checker.check(&wrong).len(), 1);
//! ```

use crate::routes::{find_in, table};
use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One answer of the service, as seen on the wire.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    /// The request method.
    pub method: &'a str,
    /// The request path (no query).
    pub path: &'a str,
    /// The answer's status.
    pub status: u16,
    /// The answer's headers (any case).
    pub headers: &'a [(&'a str, &'a str)],
    /// The answer's body.
    pub body: &'a [u8],
}

impl Answer<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }
}

/// Checks answers against [`crate::openapi()`], compiling each body schema once.
#[derive(Debug)]
pub struct ResponseChecker {
    doc: Value,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

impl Default for ResponseChecker {
    fn default() -> Self {
        Self::new()
    }
}

impl ResponseChecker {
    /// A checker of the crate's document.
    pub fn new() -> Self {
        Self::with_document(crate::openapi())
    }

    /// A checker of another document (for tests of the checker).
    pub fn with_document(doc: Value) -> Self {
        Self {
            doc,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The violations of `answer`: empty when the document allows it.
    pub fn check(&self, answer: &Answer<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let what = format!("{} {} -> {}", answer.method, answer.path, answer.status);
        // Any row of the document's table: it documents every profile's operations (the
        // plugin era's native routes too).
        let Some(route) = find_in(table(), answer.method, answer.path) else {
            out.push(format!("{what}: route not in the route table"));
            return out;
        };
        let op = &self.doc["paths"][route.path][route.method.to_ascii_lowercase()];
        if !op.is_object() {
            out.push(format!(
                "{what}: operation {} not documented",
                route.operation_id
            ));
            return out;
        }
        let responses = &op["responses"];
        let declared = responses
            .get(answer.status.to_string())
            .or_else(|| responses.get(format!("{}XX", answer.status / 100)))
            .or_else(|| responses.get("default"));
        let Some(response) = declared.map(|r| self.resolve(r)) else {
            out.push(format!(
                "{what}: status not declared by {}",
                route.operation_id
            ));
            return out;
        };
        for (name, header) in response["headers"].as_object().into_iter().flatten() {
            let header = self.resolve(header);
            if header["required"] == true && answer.header(name).is_none() {
                out.push(format!("{what}: required header {name} missing"));
            }
        }
        let Some(content) = response["content"].as_object() else {
            return out;
        };
        if answer.method.eq_ignore_ascii_case("HEAD") || answer.body.is_empty() {
            return out;
        }
        let media = answer
            .header("content-type")
            .map(|ct| {
                ct.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        let entry = content.get(&media).or_else(|| {
            let family = media.split('/').next().unwrap_or("");
            content.get(&format!("{family}/*"))
        });
        let Some(entry) = entry else {
            out.push(format!(
                "{what}: content type {media:?} not declared (declared: {})",
                content.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
            return out;
        };
        if media == "application/json" || media.ends_with("+json") {
            match serde_json::from_slice::<Value>(answer.body) {
                Ok(body) => {
                    match self.validator(&entry["schema"]) {
                        Ok(v) => out.extend(v.iter_errors(&body).take(5).map(|e| {
                            format!("{what}: body at {:?}: {e}", e.instance_path().as_str())
                        })),
                        Err(e) => out.push(format!("{what}: schema does not compile: {e}")),
                    }
                }
                Err(e) => out.push(format!("{what}: body is not JSON: {e}")),
            }
        } else if media.starts_with("text/") && std::str::from_utf8(answer.body).is_err() {
            out.push(format!("{what}: {media} body is not UTF-8"));
        }
        out
    }

    /// Follows a local `$ref` (`#/components/...`).
    fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        match value["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => self.doc.pointer(pointer).unwrap_or(&Value::Null),
            None => value,
        }
    }

    /// The compiled validator of a schema of the document (local `$ref`s resolve within it).
    fn validator(&self, schema: &Value) -> Result<Arc<Validator>, String> {
        let key = schema.to_string();
        if let Some(v) = self.lock().get(&key) {
            return Ok(v.clone());
        }
        let mut root = match schema {
            Value::Object(map) => map.clone(),
            _ => serde_json::Map::new(),
        };
        root.insert("components".into(), self.doc["components"].clone());
        let compiled = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .offline()
            .build(&Value::Object(root))
            .map_err(|e| e.to_string())?;
        let compiled = Arc::new(compiled);
        self.lock().insert(key, compiled.clone());
        Ok(compiled)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Validator>>> {
        self.validators
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
