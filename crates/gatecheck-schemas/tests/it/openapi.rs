//! The OpenAPI document: the committed `schemas/openapi.json` matches the generator, every route
//! is there, every `$ref` is local and resolves, and the components judge bodies as the schema
//! files do.

use gatecheck_schemas::routes::table;
use gatecheck_schemas::{openapi, openapi_json, schema_names};
use serde_json::{json, Value};
use std::path::Path;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/openapi.json");

#[test]
fn committed_openapi_json_matches_the_generator() {
    let generated = openapi_json();
    if std::env::var_os("GATECHECK_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(COMMITTED, &generated).expect("write schemas/openapi.json");
        return;
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/openapi.json is out of date with the generator in \
         crates/gatecheck-schemas/src/openapi.rs (or the schema files).\n\
         Regenerate it with:\n\n    GATECHECK_BLESS=1 cargo test -p gatecheck-schemas --test it openapi\n\n\
         or: cargo run -p gatecheck -- schemas openapi > schemas/openapi.json"
    );
}

#[test]
fn every_route_of_the_spec_and_the_extensions_is_documented() {
    let doc = openapi();
    assert_eq!(doc["openapi"], "3.1.0");
    // The document holds exactly the route table, which the mock dispatches on.
    let routes: Vec<(String, String)> = table()
        .iter()
        .map(|r| (r.path.to_owned(), r.method.to_ascii_lowercase()))
        .collect();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if method != "parameters" {
                assert!(
                    routes.contains(&(path.clone(), method.clone())),
                    "{method} {path}"
                );
                count += 1;
            }
        }
    }
    assert_eq!(count, routes.len());
    for (path, method) in &routes {
        let (path, method) = (path.as_str(), method.as_str());
        let op = &doc["paths"][path][method];
        assert!(op["operationId"].is_string(), "{method} {path}");
        let security = &op["security"];
        // The provider routes, and the native routes the platforms' plugins declare.
        let native =
            gatecheck_schemas::rules::platforms::native::declared().any(|(_, _, r)| r.path == path);
        let provider = path.starts_with("/kling/") || path.starts_with("/jimeng/") || native;
        if path.starts_with("/v1/") || path.starts_with("/v1beta/") || provider {
            assert_eq!(security, &json!([{"bearerAuth": []}]), "{path}");
        } else if path.starts_with("/api/token/")
            || ["/api/user/", "/api/log/self", "/api/data/self"]
                .iter()
                .any(|p| path.starts_with(p))
        {
            assert_eq!(
                security,
                &json!([{"accessToken": [], "newApiUser": []}, {"accessToken": []}]),
                "{path}"
            );
        } else if path == "/api/usage/token" {
            assert_eq!(security, &json!([{"bearerAuth": []}]), "{path}");
        } else if path.contains("/mj/") && !path.contains("/mj/image/") {
            // A Bearer key, or the key in `mj-api-secret` (DECISIONS D-MJ-1).
            let either = json!([{"bearerAuth": []}, {"mjApiSecret": []}]);
            assert_eq!(security, &either, "{path}");
        } else {
            assert_eq!(security, &json!([]), "{path}");
        }
    }
    let params: Vec<&str> = doc["paths"]["/api/models"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        ["p", "page", "page_size", "model_type", "provider_code"]
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["accessToken"]["name"],
        "Authorization"
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["bearerAuth"]["scheme"],
        "bearer"
    );
}

fn collect_refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn every_ref_is_local_and_resolves() {
    let doc = openapi();
    let mut refs = Vec::new();
    collect_refs(&doc, &mut refs);
    assert!(refs.len() > 50);
    for r in refs {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external $ref {r}"));
        let pointer = pointer.replace("~1", "/").replace("~0", "~");
        assert!(doc.pointer(&pointer).is_some(), "dangling $ref {r}");
    }
    let text = openapi_json();
    assert!(!text.contains("\"$id\""), "no $id left in components");
    assert!(!text.contains("common.json"));
}

/// Compiles a component of the OpenAPI document with the document as its only resource.
pub(crate) fn component_validator(doc: &Value, component: &str) -> jsonschema::Validator {
    let registry = jsonschema::Registry::new()
        .draft(jsonschema::Draft::Draft202012)
        .add("https://gatecheck.dev/openapi.json", doc.clone())
        .unwrap()
        .prepare()
        .unwrap();
    let schema = json!({"$ref": format!("https://gatecheck.dev/openapi.json#/components/schemas/{component}")});
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_registry(&registry)
        .offline()
        .build(&schema)
        .unwrap_or_else(|e| panic!("{component}: {e}"))
}

pub(crate) fn pascal(name: &str) -> String {
    name.split('-')
        .map(|p| p[..1].to_uppercase() + &p[1..])
        .collect()
}

#[test]
fn components_judge_bodies_as_the_schema_files_do() {
    let doc = openapi();
    let keys: Value = serde_json::from_str(include_str!("../../fixtures/keys.json")).unwrap();
    let key = keys["keys"][4].clone();
    let task =
        json!({"id": "t", "object": "video", "model": "m", "status": "completed", "progress": 100});
    let bodies: Vec<(&str, Value)> = vec![
        ("key-record", key.clone()),
        ("key-record", json!({"id": 1})),
        (
            "token-update-envelope",
            json!({"success": true, "message": "", "data": key}),
        ),
        (
            "token-update-envelope",
            json!({"success": true, "message": ""}),
        ),
        (
            "token-update-envelope",
            json!({"success": false, "message": "token name is too long"}),
        ),
        ("video-task", task.clone()),
        (
            "video-task",
            json!({"id": "t", "object": "video", "model": "m", "status": "running", "progress": 101}),
        ),
        (
            "video-task",
            json!({"id": "t", "object": "video", "model": "m", "status": "queued", "progress": 3}),
        ),
        (
            "image-request",
            json!({"model": "m", "prompt": "p", "size": "1024x1024"}),
        ),
        (
            "image-request",
            json!({"model": "m", "prompt": "p", "size": "big"}),
        ),
        (
            "transcription-form",
            json!({"model": "w", "temperature": 2}),
        ),
        (
            "token-update-request",
            json!({"id": 1, "name": "n".repeat(51)}),
        ),
    ];
    for name in schema_names() {
        let validator = component_validator(&doc, &pascal(name));
        for (_, body) in bodies.iter().filter(|(n, _)| n == name) {
            assert_eq!(
                validator.is_valid(body),
                gatecheck_schemas::is_valid(name, body),
                "{name}: {body}"
            );
        }
    }
}

#[test]
fn the_committed_file_is_pretty_json() {
    assert!(Path::new(COMMITTED).exists() || std::env::var_os("GATECHECK_BLESS").is_some());
    let text = openapi_json();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, openapi());
    assert!(text.ends_with("}\n"));
}

#[test]
fn every_link_names_an_operation_and_one_of_its_parameters() {
    let doc = openapi();
    let mut operations = std::collections::BTreeMap::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for (method, op) in item.as_object().unwrap() {
            if method != "parameters" {
                let mut params = item.get("parameters").cloned().unwrap_or(json!([]));
                if let (Some(all), Some(own)) = (
                    params.as_array_mut(),
                    op.get("parameters").and_then(Value::as_array),
                ) {
                    all.extend(own.iter().cloned());
                }
                operations.insert(
                    op["operationId"].as_str().unwrap().to_owned(),
                    (op.clone(), params),
                );
            }
        }
    }
    let mut links = 0;
    for (op, _) in operations.values() {
        for response in op["responses"].as_object().unwrap().values() {
            for link in response
                .get("links")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|l| l.values())
            {
                links += 1;
                let target = link["operationId"].as_str().unwrap();
                let (_, shared) = operations
                    .get(target)
                    .unwrap_or_else(|| panic!("no operation {target}"));
                for param in link["parameters"].as_object().unwrap().keys() {
                    let declared = shared.as_array().unwrap().iter().any(|p| {
                        let p = if let Some(r) = p["$ref"].as_str() {
                            doc.pointer(&r[1..]).unwrap()
                        } else {
                            p
                        };
                        p["name"] == param.as_str()
                    });
                    assert!(declared, "{target} has no parameter {param}");
                }
            }
        }
    }
    // createVideo (2), getVideo, updateToken, listTokens (3).
    assert_eq!(links, 7);
}

/// Follows a local `$ref` (once), or returns the value itself.
fn deref<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(r) => doc
            .pointer(&r[1..])
            .unwrap_or_else(|| panic!("dangling {r}")),
        None => value,
    }
}

#[test]
fn operations_are_well_formed() {
    let doc = openapi();
    let mut operation_ids = std::collections::BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let templated: Vec<&str> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.split_once('}')))
            .map(|(name, _)| name)
            .collect();
        let shared = item
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            assert!(operation_ids.insert(op["operationId"].as_str().unwrap().to_owned()));
            let own = op
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let params: Vec<&Value> = shared
                .iter()
                .chain(own.iter())
                .map(|p| deref(&doc, p))
                .collect();
            for p in &params {
                assert!(
                    p["name"].is_string() && p["in"].is_string() && p["schema"].is_object(),
                    "{p}"
                );
                if p["in"] == "path" {
                    assert_eq!(
                        p["required"], true,
                        "{method} {path}: path parameters are required"
                    );
                    assert!(
                        templated.contains(&p["name"].as_str().unwrap()),
                        "{method} {path}: {p}"
                    );
                }
            }
            for name in &templated {
                assert!(
                    params
                        .iter()
                        .any(|p| p["in"] == "path" && p["name"] == *name),
                    "{method} {path}: no parameter for {{{name}}}"
                );
            }
            let responses = op["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|s| s.starts_with('2')),
                "{method} {path}: no success response"
            );
            for (status, response) in responses {
                assert!(
                    status.len() == 3 && status.parse::<u16>().is_ok(),
                    "{status}"
                );
                let response = deref(&doc, response);
                assert!(
                    response["description"].is_string(),
                    "{method} {path} {status}"
                );
                for media in response
                    .get("content")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    assert!(
                        media.1["schema"].is_object(),
                        "{method} {path} {status} {}",
                        media.0
                    );
                }
            }
            if let Some(body) = op.get("requestBody") {
                assert!(body["content"].as_object().is_some_and(|c| !c.is_empty()));
            }
        }
    }
    assert_eq!(operation_ids.len(), table().len());
}
