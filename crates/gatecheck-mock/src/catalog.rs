//! `GET /api/models`: the catalog envelope, with pages cached as serialized bytes.
//!
//! The catalog never changes while the mock runs, so each distinct query is serialized once.

use bytes::Bytes;
use gatecheck_schemas::rules::catalog::{self as rules, CatalogQuery};
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashMap};

/// The most distinct queries whose answers are cached.
const CACHE_LIMIT: usize = 512;

/// The immutable catalog and its page cache.
#[derive(Debug)]
pub struct Catalog {
    models: Vec<ModelRecord>,
    by_id: HashMap<String, usize>,
    /// `GET /v1/models/{id}` bodies, serialized once (by catalog index) on the first such
    /// request: a mock that is never asked costs nothing at start.
    model_bodies: std::sync::OnceLock<Vec<Bytes>>,
    capabilities: BTreeMap<String, ModelCapabilities>,
    cache: RwLock<HashMap<String, Bytes>>,
}

impl Catalog {
    /// A catalog of `models` with their `capabilities`.
    pub fn new(
        models: Vec<ModelRecord>,
        capabilities: BTreeMap<String, ModelCapabilities>,
    ) -> Self {
        let by_id = models
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.clone(), i))
            .collect();
        Self {
            models,
            by_id,
            model_bodies: std::sync::OnceLock::new(),
            capabilities,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// Every model, in catalog order.
    pub fn models(&self) -> &[ModelRecord] {
        &self.models
    }

    /// One model by id.
    pub fn model(&self, id: &str) -> Option<&ModelRecord> {
        self.by_id.get(id).map(|&i| &self.models[i])
    }

    /// The serialized [`model_object`] of one model by id.
    pub fn model_body(&self, id: &str) -> Option<Bytes> {
        let bodies = self.model_bodies.get_or_init(|| {
            self.models
                .iter()
                .map(|m| Bytes::from(serde_json::to_vec(&model_object(m)).unwrap_or_default()))
                .collect()
        });
        self.by_id.get(id).map(|&i| bodies[i].clone())
    }

    /// What a model can do (fixture data).
    pub fn capabilities(&self, id: &str) -> Option<&ModelCapabilities> {
        self.capabilities.get(id)
    }

    /// The serialized envelope for a raw query string.
    pub fn page_bytes(&self, raw_query: &str) -> Bytes {
        if let Some(b) = self.cache.read().get(raw_query) {
            return b.clone();
        }
        let query = CatalogQuery::parse(raw_query);
        let envelope = rules::page(&self.models, &query);
        let bytes = Bytes::from(serde_json::to_vec(&envelope).unwrap_or_default());
        let mut cache = self.cache.write();
        if cache.len() < CACHE_LIMIT {
            cache.insert(raw_query.to_owned(), bytes.clone());
        }
        bytes
    }
}

/// A model as OpenAI's model object: `{id, object: "model", created, owned_by}`.
pub fn model_object(m: &ModelRecord) -> serde_json::Value {
    serde_json::json!({
        "id": m.id, "object": "model", "created": m.created, "owned_by": m.provider_code,
    })
}
