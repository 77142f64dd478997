//! The logged-in user's routes beside the keys, by personal access token as `/api/token/*`
//! (new-api's `UserAuth`), in new-api's shapes (main 823e263; DECISIONS D-TOKEN-10 to D-TOKEN-13):
//!
//! - `GET /api/user/self` (controller/user.go GetSelf): the account, its quota and use.
//! - `GET /api/user/self/groups` (controller/group.go GetUserGroups): its groups and ratios.
//! - `GET /api/user/models` (controller/user.go GetUserModels): the models of its groups.
//! - `GET /api/log/self`, `GET /api/log/self/stat` (controller/log.go GetUserLogs,
//!   GetLogsSelfStat): its usage log ([`crate::state::usage`]) and the log's totals.
//! - `GET /api/data/self` (controller/usedata.go GetUserQuotaDates): its usage by the hour.

use super::ctx::Ctx;
use super::token_api::{account, page_of};
use crate::response::{self, MockResponse};
use crate::state::usage::{UsageEntry, TYPE_CONSUME};
use gatecheck_schemas::rules::catalog::query_pairs;
use gatecheck_schemas::rules::quota::DEFAULT_GROUP;
use gatecheck_schemas::types::Account;
use http::Request;
use hyper::body::Incoming;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The account's balance before any charge: the mock keeps no wallet apart from the keys, so
/// `quota` is this less what the account's keys used (DECISIONS D-TOKEN-10).
pub(crate) const ACCOUNT_QUOTA: i64 = 500_000_000;

/// The widest span of `GET /api/data/self` (controller/usedata.go: one month, in seconds).
const MAX_DATA_SPAN: i64 = 2_592_000;

/// Usage data is kept by the hour (model/usedata.go LogQuotaData).
const DATA_BUCKET: i64 = 3600;

/// The requests counted by the stat's `rpm`: those of the last 60 seconds.
const RPM_WINDOW: i64 = 60;

/// The name of a log entry's model (empty when not in the catalog).
fn model_name<'a>(cx: &'a Ctx, e: &UsageEntry) -> &'a str {
    e.model
        .and_then(|i| cx.catalog().models().get(i))
        .map_or("", |m| m.id.as_str())
}

/// The account's own group: its first (new-api's user group), `default` without any.
fn user_group(account: &Account) -> &str {
    account.groups.first().map_or(DEFAULT_GROUP, String::as_str)
}

/// A ratio as Go's encoding/json writes a float64: `1`, not `1.0`.
fn ratio_value(ratio: f64) -> Value {
    if ratio.fract() == 0.0 && ratio.abs() < 9.0e15 {
        json!(ratio as i64)
    } else {
        json!(ratio)
    }
}

/// A group's description (setting/user_usable_group.go's defaults; new-api's `用户分组` for the
/// user's own group outside them, service/group.go GetUserUsableGroups).
fn group_desc<'a>(group: &'a str, account: &Account) -> &'a str {
    match group {
        "default" => "默认分组",
        "vip" => "vip分组",
        g if g == user_group(account) => "用户分组",
        g => g,
    }
}

/// The quota the account's keys have used, and its requests charged.
fn used(cx: &Ctx, account: &Account) -> (i64, usize) {
    let used = cx
        .app
        .state
        .keys_of(account.id)
        .iter()
        .map(|k| k.used_quota)
        .sum();
    let requests = cx
        .app
        .usage
        .of_user(account.id, |e| e.kind == TYPE_CONSUME)
        .len();
    (used, requests)
}

/// `GET /api/user/self`.
pub(crate) async fn get_self(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let account = match account(cx, req).await {
        Ok((a, _)) => a,
        Err(resp) => return resp,
    };
    let (used_quota, requests) = used(cx, &account);
    response::api_success(&json!({
        "id": account.id,
        "username": account.username,
        "display_name": account.username,
        "role": 1,
        "status": 1,
        "email": "",
        "github_id": "",
        "discord_id": "",
        "oidc_id": "",
        "wechat_id": "",
        "telegram_id": "",
        "group": user_group(&account),
        "quota": (ACCOUNT_QUOTA - used_quota).max(0),
        "used_quota": used_quota,
        "request_count": requests,
        "aff_code": "",
        "aff_count": 0,
        "aff_quota": 0,
        "aff_history_quota": 0,
        "inviter_id": 0,
        "linux_do_id": "",
        "setting": "",
        "stripe_customer": "",
        "sidebar_modules": "",
        // calculateUserPermissions for a common user; authz.Capabilities grants it nothing.
        "permissions": {
            "sidebar_settings": true,
            "sidebar_modules": { "admin": false },
            "admin_permissions": { "channel": {
                "read": false, "operate": false, "write": false,
                "sensitive_write": false, "secret_view": false
            } }
        }
    }))
}

/// `GET /api/user/self/groups`.
pub(crate) async fn self_groups(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let account = match account(cx, req).await {
        Ok((a, _)) => a,
        Err(resp) => return resp,
    };
    let fixtures = cx.fixtures();
    let groups: Map<String, Value> = account
        .groups
        .iter()
        .map(|g| {
            let entry = json!({
                "ratio": ratio_value(fixtures.group_ratio_of(g)),
                "desc": group_desc(g, &account),
            });
            (g.clone(), entry)
        })
        .collect();
    response::api_success(&groups)
}

/// `GET /api/user/models[?group=]`: the catalog's models (every group has them all in the
/// mock), none for a group the account may not use.
pub(crate) async fn user_models(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let pairs = query_pairs(req.uri().query().unwrap_or(""));
    let group = pairs.iter().find(|(k, _)| k == "group").map(|(_, v)| v);
    let usable = group.is_none_or(|g| g.is_empty() || account.groups.contains(g));
    let models: Vec<&str> = if usable {
        cx.catalog()
            .models()
            .iter()
            .map(|m| m.id.as_str())
            .collect()
    } else {
        Vec::new()
    };
    response::api_success(&models)
}

/// The filters of the log routes (controller/log.go), each empty or 0 for none.
#[derive(Debug, Default)]
struct LogQuery {
    kind: i64,
    start: i64,
    end: i64,
    token_name: String,
    model_name: String,
    group: String,
    request_id: String,
}

impl LogQuery {
    fn parse(query: &str) -> Self {
        let mut q = Self::default();
        for (k, v) in query_pairs(query) {
            let int = || v.trim().parse::<i64>().unwrap_or(0);
            match k.as_str() {
                "type" => q.kind = int(),
                "start_timestamp" => q.start = int(),
                "end_timestamp" => q.end = int(),
                "token_name" => q.token_name = v,
                "model_name" => q.model_name = v,
                "group" => q.group = v,
                "request_id" => q.request_id = v,
                _ => {}
            }
        }
        q
    }

    /// Whether entry `e` (with its key's name and group) passes the filters; `times`: with the
    /// time bounds.
    fn keeps(&self, e: &UsageEntry, (name, group, model): (&str, &str, &str), times: bool) -> bool {
        let text = |want: &str, got: &str| want.is_empty() || want == got;
        (self.kind == 0 || self.kind == e.kind)
            && text(&self.token_name, name)
            && text(&self.model_name, model)
            && text(&self.group, group)
            && (self.request_id.is_empty()
                || e.request_id.is_some_and(|r| r.as_str() == self.request_id))
            && (!times || self.start == 0 || e.created_at >= self.start)
            && (!times || self.end == 0 || e.created_at <= self.end)
    }
}

/// The name and group of each of the account's keys, by id (a deleted key's entries show
/// neither: the mock keeps no copy of them in the log).
fn key_names(cx: &Ctx, account: &Account) -> BTreeMap<i64, (String, String)> {
    cx.app
        .state
        .keys_of(account.id)
        .into_iter()
        .map(|k| {
            let group = if k.group.is_empty() {
                user_group(account).to_owned()
            } else {
                k.group
            };
            (k.id, (k.name, group))
        })
        .collect()
}

/// The account's log entries that `q` keeps, newest first, with their keys' names and groups.
fn entries(
    cx: &Ctx,
    account: &Account,
    q: &LogQuery,
    times: bool,
) -> Vec<(UsageEntry, (String, String))> {
    let names = key_names(cx, account);
    let of = |e: &UsageEntry| names.get(&e.key_id).cloned().unwrap_or_default();
    cx.app
        .usage
        .of_user(account.id, |e| {
            let (name, group) = of(e);
            q.keeps(e, (&name, &group, model_name(cx, e)), times)
        })
        .into_iter()
        .map(|e| {
            let n = of(&e);
            (e, n)
        })
        .collect()
}

/// `GET /api/log/self`.
pub(crate) async fn self_logs(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let query = req.uri().query().unwrap_or("");
    if let Err(resp) = super::ctx::paging_ok(cx, query) {
        return resp;
    }
    let (page, size) = page_of(query);
    let found = entries(cx, &account, &LogQuery::parse(query), true);
    let start = (page - 1).saturating_mul(size);
    let items: Vec<Value> = found
        .iter()
        .skip(start)
        .take(size)
        .enumerate()
        .map(|(i, (e, (name, group)))| {
            let shown = (
                start + i + 1,
                name.as_str(),
                group.as_str(),
                model_name(cx, e),
            );
            log_item(e, shown, &account)
        })
        .collect();
    response::api_success(&json!({
        "page": page, "page_size": size, "total": found.len(), "items": items,
    }))
}

/// One log as model/log.go `Log` renders it to its user (formatUserLogs: no channel name, the
/// display id; the mock records no tokens, channel, content or IP: new-api's `RecordIpLog` is
/// off by default).
fn log_item(
    e: &UsageEntry,
    (shown_id, name, group, model): (usize, &str, &str, &str),
    account: &Account,
) -> Value {
    let mut item = json!({
        "id": shown_id, "user_id": e.user_id, "created_at": e.created_at, "type": e.kind,
        "content": "", "username": account.username, "token_name": name,
        "model_name": model, "quota": e.quota, "prompt_tokens": 0, "completion_tokens": 0,
        "use_time": 0, "is_stream": false, "channel": 0, "channel_name": "",
        "token_id": e.key_id, "group": group, "ip": "", "other": "{}",
    });
    if let Some(r) = e.request_id {
        item["request_id"] = json!(r.as_str());
    }
    item
}

/// `GET /api/log/self/stat`: the quota of the consume entries the filters keep, and the count
/// of those of the last minute (`rpm`; `tpm` 0: the mock records no tokens).
pub(crate) async fn self_log_stat(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let mut q = LogQuery::parse(req.uri().query().unwrap_or(""));
    q.kind = TYPE_CONSUME;
    // SumUsedQuota takes no request id.
    q.request_id.clear();
    let quota: i64 = entries(cx, &account, &q, true)
        .iter()
        .map(|(e, _)| e.quota)
        .sum();
    let since = cx.now() - RPM_WINDOW;
    let rpm = entries(cx, &account, &q, false)
        .iter()
        .filter(|(e, _)| e.created_at >= since)
        .count();
    response::api_success(&json!({ "quota": quota, "rpm": rpm, "tpm": 0 }))
}

/// `GET /api/data/self?start_timestamp=&end_timestamp=`: the consume entries by model and
/// hour whose hour is within the bounds (both inclusive, 0 when absent), at most a month apart.
pub(crate) async fn self_quota_data(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let (account, req) = match account(cx, req).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let q = LogQuery::parse(req.uri().query().unwrap_or(""));
    if q.end.saturating_sub(q.start) > MAX_DATA_SPAN {
        return response::api_failure("时间跨度不能超过 1 个月");
    }
    let mut rows: BTreeMap<(i64, &str), (i64, i64)> = BTreeMap::new();
    for e in cx.app.usage.of_user(account.id, |e| e.kind == TYPE_CONSUME) {
        let hour = e.created_at - e.created_at.rem_euclid(DATA_BUCKET);
        if hour < q.start || hour > q.end {
            continue;
        }
        let row = rows.entry((hour, model_name(cx, &e))).or_default();
        row.0 += 1;
        row.1 += e.quota;
    }
    let data: Vec<Value> = rows
        .into_iter()
        .map(|((hour, model), (count, quota))| {
            json!({
                "id": 0, "user_id": account.id, "username": account.username,
                "model_name": model, "created_at": hour, "use_group": "", "token_id": 0,
                "channel_id": 0, "node_name": "", "token_used": 0, "count": count,
                "quota": quota,
            })
        })
        .collect();
    response::api_success(&data)
}
