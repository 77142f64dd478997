//! The site's public pages a client reads to know what it pays: `GET /api/pricing` and
//! `GET /api/status` (new-api controller/pricing.go GetPricing, controller/misc.go GetStatus;
//! DECISIONS D-CATALOG-2). No key: new-api reads a dashboard session if there is one.

use crate::openapi::response::json_response;
use crate::openapi::schema_ref;
use serde_json::{json, Value};

/// `getPricing` and `getStatus`.
pub(super) fn site(operation_id: &str) -> Option<Value> {
    let (summary, answer, schema) = match operation_id {
        "getPricing" => (
            "Model prices, the caller's usable groups and their ratios (a key is charged price x model ratio x its group's ratio), and the endpoints.",
            "The pricing answer (no `message` key).",
            "PricingAnswer",
        ),
        "getStatus" => (
            "The site's status: `quota_per_unit` (quota units per USD), its version and switches.",
            "The status answer.",
            "StatusAnswer",
        ),
        _ => return None,
    };
    Some(json!({
        "operationId": operation_id,
        "summary": summary,
        "tags": ["models"],
        "security": [],
        "responses": {
            "200": json_response(answer, schema_ref(schema))
        }
    }))
}
