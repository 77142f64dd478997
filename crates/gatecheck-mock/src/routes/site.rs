//! The site's public pages a client reads before it pays: `GET /api/pricing` (the model
//! prices, the group ratios the caller may use and the endpoints, new-api's
//! controller/pricing.go GetPricing) and `GET /api/status` (`quota_per_unit` and the site's
//! switches, controller/misc.go GetStatus). Neither needs a key (DECISIONS D-CATALOG-2).

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::routes::auth;
use gatecheck_schemas::rules::quota::QUOTA_PER_USD;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::types::{Endpoints, ModelRecord};
use http::HeaderMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// new-api's constant `pricing_version` (controller/pricing.go).
const PRICING_VERSION: &str = "a42d372ccf0b5dd13ecf71203521f9d2";

/// The labels and routes of a catalog record's `endpoints` (`Formats` names have no route).
fn endpoints(m: &ModelRecord) -> Vec<(String, Option<Value>)> {
    match &m.endpoints {
        Endpoints::Formats(names) => names.iter().map(|n| (n.clone(), None)).collect(),
        Endpoints::Encoded(s) => serde_json::from_str::<Map<String, Value>>(s)
            .map(|map| map.into_iter().map(|(k, v)| (k, Some(v))).collect())
            .unwrap_or_default(),
    }
}

/// One model as new-api's `model.Pricing` (model/pricing.go): priced per call (`quota_type`
/// 1, `model_price` in USD: per request, or per second of media for a model priced by the
/// second) or by tokens (`quota_type` 0, `model_ratio` = USD per million input tokens / 2, as
/// new-api's ratio 1 is $2 per million, and `completion_ratio` = output / input).
fn pricing_item(m: &ModelRecord, groups: &[String]) -> Value {
    let p = &m.pricing;
    let per_call = p.per_request.or(p.per_second).unwrap_or(0.0);
    let input = p.input.unwrap_or(0.0);
    let output = p.output.unwrap_or(0.0);
    let (quota_type, model_ratio, completion_ratio) = if per_call > 0.0 {
        (1, 0.0, 0.0)
    } else {
        let completion = if input > 0.0 { output / input } else { 0.0 };
        (0, input / 2.0, completion)
    };
    let types: Vec<String> = endpoints(m).into_iter().map(|(k, _)| k).collect();
    json!({
        "model_name": m.id,
        "description": m.name,
        "quota_type": quota_type,
        "model_ratio": model_ratio,
        "model_price": per_call,
        "owner_by": m.provider_code,
        "completion_ratio": completion_ratio,
        "enable_groups": groups,
        "supported_endpoint_types": types,
    })
}

/// The groups the caller may use: an account's (its access token in `Authorization`), else
/// every group the site prices (new-api: `GetUserUsableGroups` of the anonymous group).
fn usable_groups(cx: &Ctx, headers: &HeaderMap, ratios: &BTreeMap<String, f64>) -> Vec<String> {
    let named = headers.contains_key(http::header::AUTHORIZATION);
    match auth::authenticate_account(&cx.app, headers) {
        Ok(account) if named => account.groups.clone(),
        _ => ratios.keys().cloned().collect(),
    }
}

/// `GET /api/pricing`: `{success, data:[Pricing], vendors, group_ratio, usable_group,
/// supported_endpoint, auto_groups, pricing_version}`, no `message` (controller/pricing.go).
pub(crate) fn pricing(cx: &Ctx, headers: &HeaderMap) -> MockResponse {
    let ratios = &cx.fixtures().group_ratio;
    let groups = usable_groups(cx, headers, ratios);
    let ratio_of = |g: &String| ratios.get(g).copied().unwrap_or(1.0);
    let group_ratio: Map<String, Value> = groups
        .iter()
        .map(|g| (g.clone(), json!(ratio_of(g))))
        .collect();
    let usable: Map<String, Value> = groups
        .iter()
        .map(|g| {
            (
                g.clone(),
                json!(format!("{g} group (ratio {})", ratio_of(g))),
            )
        })
        .collect();
    let mut supported = Map::new();
    for m in cx.catalog().models() {
        for (label, route) in endpoints(m) {
            if let Some(route) = route {
                supported.entry(label).or_insert(route);
            }
        }
    }
    let data: Vec<Value> = cx
        .catalog()
        .models()
        .iter()
        .map(|m| pricing_item(m, &groups))
        .collect();
    response::json(
        ACCEPTED,
        &json!({
            "success": true,
            "data": data,
            "vendors": [],
            "group_ratio": group_ratio,
            "usable_group": usable,
            "supported_endpoint": supported,
            "auto_groups": [],
            "pricing_version": PRICING_VERSION,
        }),
    )
}

/// `GET /api/status`: `{success, message:"", data}` with the fields a client needs
/// (controller/misc.go GetStatus); `quota_per_unit` is the quota of 1 USD.
pub(crate) fn status(cx: &Ctx) -> MockResponse {
    response::json(
        ACCEPTED,
        &json!({
            "success": true,
            "message": "",
            "data": {
                "version": concat!("gatecheck-mock-", env!("CARGO_PKG_VERSION")),
                "start_time": cx.now(),
                "system_name": "gatecheck mock",
                "server_address": cx.base_url(),
                "quota_per_unit": QUOTA_PER_USD,
                "display_in_currency": true,
                "quota_display_type": "USD",
                "custom_currency_symbol": "¤",
                "custom_currency_exchange_rate": 1,
                "usd_exchange_rate": 7.3,
                "price": 7.3,
                "enable_task": true,
                "enable_drawing": true,
                "self_use_mode_enabled": false,
                "default_use_auto_group": false,
                "setup": true,
                "docs_link": "",
                "top_up_link": "",
            }
        }),
    )
}
