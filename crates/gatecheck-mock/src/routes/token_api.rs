//! `/api/token/*`: key management by personal access token, in new-api's shapes.
//!
//! - `PUT /api/token/[?status_only=1]`: update (the checks of DECISIONS.md, in order).
//! - `GET /api/token/?p=&size=`: list `{page, page_size, total, items}`.
//! - `GET /api/token/{id}`, `DELETE /api/token/{id}`, `POST /api/token/` (create),
//!   `POST /api/token/{id}/key` (the full secret).
//! - `GET /api/usage/token` (by API key, new-api's read-only usage view of the key).

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::routes::auth;
use crate::state::NewKey;
use gatecheck_schemas::rules::auth::parse_bearer;
use gatecheck_schemas::rules::catalog::query_pairs;
use gatecheck_schemas::rules::token::{
    self as rules, parse_update_body, UpdateContext, UpdateFailure,
};
use gatecheck_schemas::types::Account;
use gatecheck_schemas::Profile;
use http::Request;
use hyper::body::Incoming;
use serde::Deserialize;
use std::sync::Arc;

/// Default page size of the listing.
const DEFAULT_PAGE_SIZE: usize = 10;
/// Largest page size of the listing (the catalog's bound, one rule for both listings).
const MAX_PAGE_SIZE: usize = gatecheck_schemas::rules::catalog::MAX_PAGE_SIZE as usize;

/// The account of the request's access token, or the refusal (given after the rest of a
/// short body, as every answer before the body is read).
pub(super) async fn account(
    cx: &Ctx,
    req: Request<Incoming>,
) -> Result<(Arc<Account>, Request<Incoming>), MockResponse> {
    match auth::authenticate_account(&cx.app, req.headers()) {
        Ok(a) => Ok((a, req)),
        Err(resp) => Err(cx.refuse(req, resp).await),
    }
}

/// `PUT /api/token/[?status_only=1]`.
pub(crate) async fn update_token(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    // A clone of the URI shares the request's bytes (no copy of the query).
    let uri = req.uri().clone();
    match cx.read_body(req).await {
        Ok(body) => update(cx, &account, &body, uri.query().unwrap_or("")),
        Err(resp) => resp,
    }
}

/// `GET /api/token/?p=&size=`.
pub(crate) async fn list_tokens(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    match account(cx, req).await {
        Ok((account, req)) => list(cx, &account, req.uri().query().unwrap_or("")),
        Err(resp) => resp,
    }
}

/// `POST /api/token/`.
pub(crate) async fn create_token(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    match cx.read_body(req).await {
        Ok(body) => create(cx, &account, &body),
        Err(resp) => resp,
    }
}

/// `GET /api/token/{id}`.
pub(crate) async fn get_token(cx: &Ctx, req: Request<Incoming>, id: &str) -> MockResponse {
    let account = match account(cx, req).await {
        Ok((a, _)) => a,
        Err(resp) => return resp,
    };
    with_id(cx, id, |id| match cx.app.state.key(id) {
        Some(k) if k.user_id == account.id => response::api_success_key(&shown(cx, k)),
        _ => response::api_failure(rules::MSG_NOT_FOUND),
    })
}

/// A key record as the profile's answers show it: `new-api` masks the key in every answer but
/// `POST /api/token/{id}/key` (controller/token.go buildMaskedTokenResponse, used by
/// GetAllTokens, GetToken and UpdateToken; DECISIONS NA6).
fn shown(
    cx: &Ctx,
    mut record: gatecheck_schemas::types::KeyRecord,
) -> gatecheck_schemas::types::KeyRecord {
    if cx.profile() == Profile::NewApi {
        record.key = gatecheck_schemas::rules::auth::mask_key(&record.key);
    }
    record
}

/// `DELETE /api/token/{id}`.
pub(crate) async fn delete_token(cx: &Ctx, req: Request<Incoming>, id: &str) -> MockResponse {
    let account = match account(cx, req).await {
        Ok((a, _)) => a,
        Err(resp) => return resp,
    };
    with_id(cx, id, |id| {
        if cx.app.state.delete_key(id, account.id) {
            response::api_ok()
        } else {
            response::api_failure(rules::MSG_NOT_FOUND)
        }
    })
}

/// `POST /api/token/{id}/key`: the full secret.
pub(crate) async fn token_key(cx: &Ctx, req: Request<Incoming>, id: &str) -> MockResponse {
    let account = match account(cx, req).await {
        Ok((a, _)) => a,
        Err(resp) => return resp,
    };
    with_id(cx, id, |id| match cx.app.state.key(id) {
        Some(k) if k.user_id == account.id => {
            response::api_success(&serde_json::json!({"key": k.key}))
        }
        _ => response::api_failure(rules::MSG_NOT_FOUND),
    })
}

fn with_id(cx: &Ctx, raw: &str, f: impl FnOnce(i64) -> MockResponse) -> MockResponse {
    match raw.parse::<i64>() {
        Ok(id) => {
            cx.name_key(id);
            f(id)
        }
        Err(e) => response::api_failure(&format!("invalid id `{raw}`: {e}")),
    }
}

fn status_only(query: &str) -> bool {
    query_pairs(query)
        .iter()
        .any(|(k, v)| k == "status_only" && !v.is_empty())
}

/// `PUT /api/token/`.
fn update(cx: &Ctx, account: &Account, body: &[u8], query: &str) -> MockResponse {
    let req = match parse_update_body(body) {
        Ok(r) => r,
        Err(e) => return response::api_failure(&e),
    };
    cx.name_key(req.id);
    let profile = cx.profile();
    // Checks 1 and 2 come before the lookup (3).
    if let Err(f) = rules::check_request(&req, profile) {
        return response::api_failure(&f.message_in(profile));
    }
    let ctx = UpdateContext {
        profile,
        now: cx.now(),
        account_groups: &account.groups,
        status_only: status_only(query),
    };
    match cx.app.state.update_key(
        req.id,
        account.id,
        |current| rules::apply_update(current, &req, &ctx),
        UpdateFailure::NotFound,
    ) {
        // new-api answers with the key masked (buildMaskedTokenResponse, DECISIONS NA6).
        Ok(record) if profile == Profile::NewApi => response::api_success_key(&shown(
            cx,
            gatecheck_schemas::types::KeyRecord::clone(&record),
        )),
        Ok(record) => response::api_success_key(&record),
        Err(f) => response::api_failure(&f.message_in(profile)),
    }
}

/// `GET /api/token/?p=&size=`.
fn list(cx: &Ctx, account: &Account, query: &str) -> MockResponse {
    if let Err(resp) = super::ctx::paging_ok(cx, query) {
        return resp;
    }
    let (page, size) = page_of(query);
    let keys = cx.app.state.keys_of(account.id);
    let total = keys.len();
    let items: Vec<_> = keys
        .into_iter()
        .skip((page - 1).saturating_mul(size))
        .take(size)
        .map(|k| shown(cx, k))
        .collect();
    response::api_success(&serde_json::json!({
        "page": page,
        "page_size": size,
        "total": total,
        "items": items,
    }))
}

/// The page and page size of a listing's query (`p`/`page`, `size`/`page_size`/`ps`; 1 and
/// 10 by default, the size at most the catalog's bound).
pub(super) fn page_of(query: &str) -> (usize, usize) {
    let mut page = 1usize;
    let mut size = DEFAULT_PAGE_SIZE;
    for (k, v) in query_pairs(query) {
        match k.as_str() {
            "p" | "page" => page = v.parse::<usize>().ok().filter(|p| *p >= 1).unwrap_or(1),
            "size" | "page_size" | "ps" => {
                size = v
                    .parse::<usize>()
                    .ok()
                    .filter(|s| *s >= 1)
                    .unwrap_or(DEFAULT_PAGE_SIZE)
                    .min(MAX_PAGE_SIZE)
            }
            _ => {}
        }
    }
    (page, size)
}

/// The body of `POST /api/token/` (new-api's token fields; the rest is ignored). Each field
/// is optional: absent or JSON `null`, it takes its zero value, as Go's encoding/json leaves it
/// (controller/token.go AddToken binds with `ShouldBindJSON`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CreateRequest {
    name: Option<String>,
    expired_time: Option<i64>,
    remain_quota: Option<i64>,
    unlimited_quota: Option<bool>,
    model_limits_enabled: Option<bool>,
    model_limits: Option<String>,
    allow_ips: Option<String>,
    group: Option<String>,
    cross_group_retry: Option<bool>,
}

/// `POST /api/token/`.
fn create(cx: &Ctx, account: &Account, body: &[u8]) -> MockResponse {
    let req: CreateRequest = match serde_json::from_slice(body) {
        Ok(r) => r,
        Err(e) => return response::api_failure(&format!("invalid request body: {e}")),
    };
    let name = req.name.unwrap_or_default();
    let expired_time = req.expired_time.unwrap_or(0);
    let remain_quota = req.remain_quota.unwrap_or(0);
    let unlimited_quota = req.unlimited_quota.unwrap_or(false);
    let group = req.group.unwrap_or_default();
    if rules::name_too_long(&name, cx.profile()) {
        return response::api_failure(rules::MSG_NAME_TOO_LONG);
    }
    if !unlimited_quota && remain_quota < 0 {
        return response::api_failure(rules::MSG_QUOTA_NEGATIVE);
    }
    if !rules::is_valid_expired_time(expired_time) {
        return response::api_failure(&UpdateFailure::ExpiredTimeInvalid(expired_time).message());
    }
    if !group.is_empty() && group != "auto" && !account.groups.contains(&group) {
        return response::api_failure(&UpdateFailure::NoAccessToGroup(group).message());
    }
    let new = NewKey {
        user_id: Some(account.id),
        name: Some(name),
        // A zero expiry takes the column default, -1 (never), as GORM does.
        expired_time: Some(if expired_time == 0 { -1 } else { expired_time }),
        remain_quota: Some(remain_quota),
        unlimited_quota: Some(unlimited_quota),
        model_limits_enabled: Some(req.model_limits_enabled.unwrap_or(false)),
        model_limits: Some(req.model_limits.unwrap_or_default()),
        allow_ips: req.allow_ips,
        cross_group_retry: Some(req.cross_group_retry.unwrap_or(false) && group == "auto"),
        group: Some(group),
        ..NewKey::default()
    };
    let record = cx.app.state.create_key(new, cx.now(), cx.ids());
    response::api_success_key(&record)
}

/// `GET /api/usage/token`: the calling key's quota, as new-api's `GetTokenUsage` answers it,
/// behind its `TokenAuthReadOnly` (router/api-router.go, middleware/auth.go@823e263): a
/// missing key, one no key has and a disabled key are 401 before the controller runs; any
/// other key that exists is answered (expired and exhausted ones too), as the route is
/// read-only. Both profiles: the route is new-api's, not the spec's (DECISIONS D-OAS-2).
pub(crate) fn usage(cx: &Ctx, req: &Request<Incoming>) -> MockResponse {
    let header = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .unwrap_or("");
    if header.is_empty() {
        return response::api_failure_status(401, "Token not provided");
    }
    // The middleware's own reading of the key (`Bearer `, `sk-` and a `-suffix` dropped).
    let Some(key) = parse_bearer(header).and_then(|s| cx.app.state.key_by_secret(s)) else {
        return response::api_failure_status(401, "Invalid token");
    };
    if key.status == gatecheck_schemas::types::KEY_STATUS_DISABLED {
        return response::api_failure_status(401, "This token status is unavailable");
    }
    // The controller's: exactly `Bearer <key>`, the key looked up again (without a suffix cut).
    let mut parts = header.split(' ');
    let secret = match (parts.next(), parts.next(), parts.next()) {
        (Some(scheme), Some(secret), None) if scheme.eq_ignore_ascii_case("bearer") => secret,
        _ => return response::api_failure_status(401, "Invalid Bearer token"),
    };
    let secret = secret.strip_prefix("sk-").unwrap_or(secret);
    let Some(key) = cx
        .app
        .state
        .key_by_secret(secret)
        .filter(|k| k.id == key.id)
    else {
        return response::api_failure("Failed to get token info, please try again later");
    };
    let limits: serde_json::Map<String, serde_json::Value> =
        gatecheck_schemas::rules::key::model_limits(&key)
            .into_iter()
            .map(|m| (m.to_owned(), serde_json::Value::Bool(true)))
            .collect();
    response::json(
        200,
        &serde_json::json!({
            "code": true,
            "message": "ok",
            "data": {
                "object": "token_usage",
                "name": key.name,
                "total_granted": key.remain_quota + key.used_quota,
                "total_used": key.used_quota,
                "total_available": key.remain_quota,
                "unlimited_quota": key.unlimited_quota,
                "model_limits": limits,
                "model_limits_enabled": key.model_limits_enabled,
                "expires_at": if key.expired_time == -1 { 0 } else { key.expired_time },
            }
        }),
    )
}
