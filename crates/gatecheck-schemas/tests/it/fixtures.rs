//! The fixtures validate, and deserialize into the typed resources.

use crate::assert_valid;
use gatecheck_schemas::types::{CatalogEnvelope, Endpoints, KeyRecord, ModelRecord};
use serde_json::{json, Value};

fn fixture(text: &str, field: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(text).expect("fixture parses");
    doc[field].as_array().expect("fixture list").clone()
}

fn keys() -> Vec<Value> {
    fixture(include_str!("../../fixtures/keys.json"), "keys")
}

fn models() -> Vec<Value> {
    fixture(include_str!("../../fixtures/catalog.json"), "models")
}

#[test]
fn every_fixture_key_is_a_valid_key_record() {
    let keys = keys();
    assert!(keys.len() >= 8);
    for key in &keys {
        assert_valid("key-record", key);
        let typed: KeyRecord = serde_json::from_value(key.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&typed).unwrap(), key, "round trip");
    }
}

#[test]
fn every_fixture_key_in_a_success_envelope_is_valid() {
    for key in keys() {
        assert_valid(
            "token-update-envelope",
            &json!({"success": true, "message": "", "data": key}),
        );
    }
}

#[test]
fn the_fixture_keys_cover_every_status_and_both_allow_ips_forms() {
    let keys = keys();
    for status in 1..=4 {
        assert!(
            keys.iter().any(|k| k["status"] == status),
            "status {status}"
        );
    }
    assert!(keys.iter().any(|k| k["allow_ips"].is_null()));
    assert!(keys.iter().any(|k| k["allow_ips"].is_string()));
    assert!(keys.iter().any(|k| k["expired_time"] == -1));
}

#[test]
fn every_fixture_model_is_a_valid_model_record() {
    let models = models();
    assert!(!models.is_empty());
    for model in &models {
        assert_valid("model-record", model);
        let typed: ModelRecord = serde_json::from_value(model.clone()).unwrap();
        if let Endpoints::Encoded(_) = typed.endpoints {
            let map = typed
                .endpoints
                .decode()
                .expect("the encoded endpoints decode");
            assert!(!map.is_empty(), "{}", typed.id);
        }
        assert_eq!(&serde_json::to_value(&typed).unwrap(), model, "round trip");
    }
}

#[test]
fn the_fixture_catalog_has_both_endpoint_forms_and_null_prices() {
    let models = models();
    assert!(models.iter().any(|m| m["endpoints"].is_string()));
    assert!(models.iter().any(|m| m["endpoints"].is_array()));
    assert!(models.iter().any(|m| m["pricing"]["input"].is_null()));
}

#[test]
fn the_fixture_catalog_in_an_envelope_is_valid() {
    let models = models();
    let envelope = json!({
        "success": true,
        "page": 1,
        "page_size": models.len(),
        "total": models.len(),
        "data": models,
    });
    assert_valid("catalog-envelope", &envelope);
    let typed: CatalogEnvelope = serde_json::from_value(envelope).unwrap();
    assert_eq!(typed.data.len(), typed.total as usize);
}
