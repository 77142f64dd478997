//! The model catalog of the runner's own fixtures (`fixtures/catalog.json`): the models an
//! offline run assumes, and the records a bare model id from `GET /v1/models` is judged by.

use gatecheck_schemas::types::ModelRecord;
use std::sync::OnceLock;

const FIXTURE_CATALOG: &str = include_str!("../../fixtures/catalog.json");

/// The fixtures' models, parsed once (none if the embedded file does not parse).
pub(crate) fn fixture_models() -> &'static [ModelRecord] {
    static MODELS: OnceLock<Vec<ModelRecord>> = OnceLock::new();
    MODELS.get_or_init(|| {
        #[derive(serde::Deserialize)]
        struct File {
            models: Vec<ModelRecord>,
        }
        serde_json::from_str::<File>(FIXTURE_CATALOG)
            .map(|f| f.models)
            .unwrap_or_default()
    })
}
