//! The models the runner knows: the capabilities it ships with, and the target's
//! `/api/models` catalog.

use crate::http::client::Exchange;
use crate::http::request::RequestSpec;
use crate::http::transport::{Transport, TransportError};
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use serde_json::Value;
use std::collections::BTreeMap;

const CAPABILITIES: &str = include_str!("../../fixtures/capabilities.json");

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

/// How a catalog read pages through `GET /api/models?p=N&page_size=100`.
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    /// Pages read at most.
    pub max_pages: u32,
    /// Whether a page without a `total` ends the read (as a `total` of 0 would); otherwise
    /// the last `total` seen stands, and the read goes on to an empty page.
    pub total_required: bool,
}

impl Paging {
    /// The run's read of the catalog (discovery): 20 pages at most, a page without `total`
    /// ends it.
    pub const RUN: Paging = Paging {
        max_pages: 20,
        total_required: true,
    };
    /// `gatecheck fixtures pull`: 50 pages at most, to an empty page when no `total` is sent.
    pub const PULL: Paging = Paging {
        max_pages: 50,
        total_required: false,
    };
}

/// One page of the catalog, as read.
#[derive(Debug)]
pub struct CatalogPage<'a> {
    /// The request's path and query.
    pub path: &'a str,
    /// The answer.
    pub exchange: &'a Exchange,
    /// Its body as JSON (`null` when it is not JSON).
    pub body: &'a Value,
}

/// The one pager of `GET /api/models`: reads page after page (from 1, at most
/// `paging.max_pages`) and hands each to `read`, which keeps what it wants and returns how
/// many records the page listed and how many it has kept in all (or an error, which ends the
/// read). The read ends after an empty page, or once the records kept reach the catalog's
/// `total`.
pub async fn page_catalog<E: From<TransportError>>(
    t: &Transport,
    paging: Paging,
    mut read: impl FnMut(CatalogPage<'_>) -> Result<(usize, usize), E>,
) -> Result<(), E> {
    let mut total = None;
    for page in 1..=paging.max_pages {
        let path = format!("/api/models?p={page}&page_size=100");
        let exchange = t.send(&RequestSpec::get(&path), 0).await?;
        let body = exchange.json().unwrap_or(Value::Null);
        let (listed, kept) = read(CatalogPage {
            path: &path,
            exchange: &exchange,
            body: &body,
        })?;
        let total_here = body.get("total");
        total = if paging.total_required {
            Some(i128::from(total_here.and_then(Value::as_i64).unwrap_or(0)))
        } else {
            total_here.and_then(Value::as_u64).map(i128::from).or(total)
        };
        if listed == 0 || total.is_some_and(|t| kept as i128 >= t) {
            break;
        }
    }
    Ok(())
}

/// Every model of the catalog (all pages of `GET /api/models`, [`Paging::RUN`]).
pub async fn fetch_catalog(t: &Transport) -> Result<Vec<ModelRecord>, TransportError> {
    let mut out = Vec::new();
    page_catalog(t, Paging::RUN, |page| {
        let data = page
            .body
            .get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let n = data.len();
        out.extend(
            data.into_iter()
                .filter_map(|m| serde_json::from_value::<ModelRecord>(m).ok()),
        );
        Ok::<_, TransportError>((n, out.len()))
    })
    .await?;
    Ok(out)
}
