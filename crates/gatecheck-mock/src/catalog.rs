//! `GET /api/models`: the catalog envelope, with pages cached as serialized bytes.
//!
//! The catalog never changes while the mock runs, so each distinct query is serialized once.

use bytes::Bytes;
use gatecheck_schemas::rules::catalog::{self as rules, CatalogQuery};
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher as _;

/// The most distinct queries whose answers are cached.
const CACHE_LIMIT: usize = 512;

/// The immutable catalog and its page cache.
#[derive(Debug)]
pub struct Catalog {
    models: Vec<ModelRecord>,
    /// Index into `models` by id (the last of equal ids wins), hashed from the records' own
    /// ids: no copy of them.
    by_id: hashbrown::HashTable<usize>,
    hasher: hashbrown::DefaultHashBuilder,
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
        let hasher = hashbrown::DefaultHashBuilder::default();
        let mut by_id = hashbrown::HashTable::with_capacity(models.len());
        for (i, m) in models.iter().enumerate() {
            let hash = hasher.hash_one(m.id.as_str());
            let rehash = |&j: &usize| hasher.hash_one(models[j].id.as_str());
            match by_id.entry(hash, |&j| models[j].id == m.id, rehash) {
                hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = i,
                hashbrown::hash_table::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
        }
        Self {
            models,
            by_id,
            hasher,
            model_bodies: std::sync::OnceLock::new(),
            capabilities,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The position in `models` of the model `id`.
    fn index(&self, id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        self.by_id.find(hash, |&i| self.models[i].id == id).copied()
    }

    /// Every model, in catalog order.
    pub fn models(&self) -> &[ModelRecord] {
        &self.models
    }

    /// One model by id.
    pub fn model(&self, id: &str) -> Option<&ModelRecord> {
        self.index(id).map(|i| &self.models[i])
    }

    /// The serialized [`model_object`] of one model by id.
    pub fn model_body(&self, id: &str) -> Option<Bytes> {
        let bodies = self.model_bodies.get_or_init(|| {
            self.models
                .iter()
                .map(|m| Bytes::from(serde_json::to_vec(&model_object(m)).unwrap_or_default()))
                .collect()
        });
        self.index(id).map(|i| bodies[i].clone())
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
