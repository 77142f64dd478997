//! new-api's key search and batch routes, by personal access token (DECISIONS D-TOKEN-6 to
//! D-TOKEN-8; the rules are `gatecheck_schemas::rules::token_batch`):
//!
//! - `GET /api/token/search?keyword=&token=&p=&page_size=`: a page of the caller's matching
//!   keys, masked.
//! - `POST /api/token/batch` `{ids}`: deletes the caller's keys among them, answers the count.
//! - `POST /api/token/batch/keys` `{ids}` (at most 100): the caller's full keys by id.

use super::ctx::Ctx;
use super::token_api::{account, page_of};
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::auth::mask_key;
use gatecheck_schemas::rules::catalog::query_pairs;
use gatecheck_schemas::rules::token_batch::{
    batch_too_many_message, parse_batch_ids, search_matches, BATCH_KEYS_MAX, SEARCH_HARD_LIMIT,
};
use http::Request;
use hyper::body::Incoming;
use std::collections::BTreeSet;

/// `GET /api/token/search`.
pub(crate) async fn search(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let query = req.uri().query().unwrap_or("");
    if let Err(resp) = super::ctx::paging_ok(cx, query) {
        return resp;
    }
    let (page, size) = page_of(query);
    let size = size.min(SEARCH_HARD_LIMIT);
    let pairs = query_pairs(query);
    let param = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    };
    let (keyword, token) = (param("keyword"), param("token"));
    let mut found = Vec::new();
    for k in cx.app.state.keys_of(account.id) {
        match search_matches(keyword, token, &k.name, &k.key) {
            Ok(true) => found.push(k),
            Ok(false) => {}
            Err(message) => return response::api_failure(message),
        }
    }
    let total = found.len();
    let items: Vec<_> = found
        .into_iter()
        .skip((page - 1).saturating_mul(size))
        .take(size)
        .map(|mut k| {
            k.key = mask_key(&k.key);
            k
        })
        .collect();
    response::api_success(&serde_json::json!({
        "page": page,
        "page_size": size,
        "total": total,
        "items": items,
    }))
}

/// The caller's account and the batch's ids, or the refusal.
async fn batch(
    cx: &Ctx,
    req: Request<Incoming>,
) -> Result<(std::sync::Arc<gatecheck_schemas::types::Account>, Vec<i64>), MockResponse> {
    let (account, req) = account(cx, req).await?;
    let body = cx.read_body(req).await?;
    let ids = parse_batch_ids(&body).map_err(response::api_failure)?;
    Ok((account, ids))
}

/// `POST /api/token/batch`: the count of the caller's keys deleted.
pub(crate) async fn delete(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, ids) = match batch(cx, req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let unique: BTreeSet<i64> = ids.into_iter().collect();
    let count = unique
        .into_iter()
        .filter(|id| cx.app.state.delete_key(*id, account.id))
        .count();
    response::api_success(&count)
}

/// `POST /api/token/batch/keys`: the caller's full keys among the ids.
pub(crate) async fn keys(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, ids) = match batch(cx, req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    if ids.len() > BATCH_KEYS_MAX {
        return response::api_failure(&batch_too_many_message(BATCH_KEYS_MAX));
    }
    let keys: serde_json::Map<String, serde_json::Value> = ids
        .into_iter()
        .filter_map(|id| cx.app.state.key(id))
        .filter(|k| k.user_id == account.id)
        .map(|k| (k.id.to_string(), serde_json::Value::String(k.key)))
        .collect();
    response::api_success(&serde_json::json!({ "keys": keys }))
}
