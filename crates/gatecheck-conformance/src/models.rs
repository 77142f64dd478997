//! The models the runner knows: the capabilities it ships with, and the target's
//! `/api/models` catalog.

use crate::request::RequestSpec;
use crate::transport::{Transport, TransportError};
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use serde_json::Value;
use std::collections::BTreeMap;

const CAPABILITIES: &str = include_str!("../fixtures/capabilities.json");

/// The capabilities of the models the runner knows (sizes, voices, durations), by model id.
pub fn known_capabilities() -> BTreeMap<String, ModelCapabilities> {
    parse_capabilities(CAPABILITIES).unwrap_or_default()
}

/// Parses capabilities in the `fixtures/capabilities.json` format (`{"models": {id: {...}}}`).
pub fn parse_capabilities(
    json: &str,
) -> Result<BTreeMap<String, ModelCapabilities>, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct File {
        models: BTreeMap<String, ModelCapabilities>,
    }
    serde_json::from_str::<File>(json).map(|f| f.models)
}

/// Every model of the catalog (all pages of `GET /api/models`).
pub async fn fetch_catalog(t: &Transport) -> Result<Vec<ModelRecord>, TransportError> {
    let mut out = Vec::new();
    for page in 1..=20 {
        let ex = t
            .send(
                &RequestSpec::get(format!("/api/models?p={page}&page_size=100")),
                0,
            )
            .await?;
        let v = ex.json().unwrap_or(Value::Null);
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let n = data.len();
        out.extend(
            data.into_iter()
                .filter_map(|m| serde_json::from_value::<ModelRecord>(m).ok()),
        );
        let total = v.get("total").and_then(Value::as_i64).unwrap_or(0);
        if n == 0 || out.len() as i64 >= total {
            break;
        }
    }
    Ok(out)
}
