//! The component schemas of the logged-in user's routes (`/api/user/self`, `/api/user/self/groups`,
//! `/api/user/models`, `/api/log/self`, `/api/log/self/stat`, `/api/data/self`), as new-api's
//! controllers render them (controller/user.go, controller/group.go, controller/log.go,
//! controller/usedata.go; model/log.go `Log`, model/usedata.go `QuotaData`; main 823e263).

use super::schema_ref;
use serde_json::{json, Map, Value};

/// `{success, message, data: <data>}`, `success` true.
fn envelope(title: &str, description: &str, data: Value) -> Value {
    json!({
        "title": title,
        "description": description,
        "type": "object",
        "required": ["success", "message", "data"],
        "properties": {
            "success": { "const": true },
            "message": { "type": "string" },
            "data": data
        }
    })
}

/// An object of integer fields, all required.
fn integers(fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .map(|f| ((*f).to_owned(), json!({ "type": "integer" })))
        .collect()
}

/// Adds the schemas to the document's components.
pub(super) fn components(out: &mut Map<String, Value>) {
    out.insert("SelfEnvelope".into(), self_envelope());
    out.insert("SelfGroupsEnvelope".into(), self_groups_envelope());
    out.insert(
        "UserModelsEnvelope".into(),
        envelope(
            "The user's models",
            "`GET /api/user/models`: the models enabled in the groups the user may use (controller/user.go GetUserModels).",
            json!({ "type": "array", "items": { "type": "string" } }),
        ),
    );
    out.insert("UsageLog".into(), usage_log());
    out.insert("UsageLogPageEnvelope".into(), usage_log_page_envelope());
    let stat = integers(&["quota", "rpm", "tpm"]);
    out.insert(
        "UsageLogStatEnvelope".into(),
        envelope(
            "The user's usage totals",
            "`GET /api/log/self/stat`: the quota of the user's consume logs (within the filters), and the count (`rpm`) and tokens (`tpm`) of those of the last 60 seconds (controller/log.go GetLogsSelfStat, model/log.go SumUsedQuota).",
            json!({ "type": "object", "required": ["quota", "rpm", "tpm"], "properties": stat }),
        ),
    );
    out.insert("QuotaData".into(), quota_data());
    out.insert(
        "QuotaDataEnvelope".into(),
        envelope(
            "The user's usage by the hour",
            "`GET /api/data/self`: the user's usage by model and hour (controller/usedata.go GetUserQuotaDates).",
            json!({ "type": "array", "items": schema_ref("QuotaData") }),
        ),
    );
}

/// `GET /api/user/self` (controller/user.go GetSelf, buildSelfUserData).
fn self_envelope() -> Value {
    let mut props = integers(&[
        "id",
        "role",
        "status",
        "quota",
        "used_quota",
        "request_count",
        "aff_count",
        "aff_quota",
        "aff_history_quota",
        "inviter_id",
    ]);
    for f in [
        "username",
        "display_name",
        "email",
        "github_id",
        "discord_id",
        "oidc_id",
        "wechat_id",
        "telegram_id",
        "group",
        "aff_code",
        "linux_do_id",
        "setting",
        "stripe_customer",
    ] {
        props.insert(f.into(), json!({ "type": "string" }));
    }
    props.insert("sidebar_modules".into(), json!({ "type": "string" }));
    props.insert(
        "permissions".into(),
        json!({
            "type": "object",
            "required": ["sidebar_settings", "sidebar_modules", "admin_permissions"],
            "properties": {
                "sidebar_settings": { "type": "boolean" },
                "sidebar_modules": { "type": "object" },
                "admin_permissions": {
                    "type": "object",
                    "additionalProperties": { "type": "object", "additionalProperties": { "type": "boolean" } }
                }
            }
        }),
    );
    envelope(
        "The logged-in user",
        "`GET /api/user/self`: the account, its quota, what it used and its permissions (controller/user.go GetSelf).",
        json!({
            "type": "object",
            "required": ["id", "username", "role", "status", "group", "quota", "used_quota", "request_count", "permissions"],
            "properties": props
        }),
    )
}

/// `GET /api/user/self/groups` (controller/group.go GetUserGroups).
fn self_groups_envelope() -> Value {
    envelope(
        "The user's groups",
        "`GET /api/user/self/groups`: each group the user may use, by name, with its ratio (a number; `自动` for `auto`) and description (controller/group.go GetUserGroups).",
        json!({
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["ratio", "desc"],
                "properties": {
                    "ratio": { "type": ["number", "string"] },
                    "desc": { "type": "string" }
                }
            }
        }),
    )
}

/// One usage log (model/log.go `Log`, as formatUserLogs shows it to its user).
fn usage_log() -> Value {
    let mut props = integers(&[
        "id",
        "user_id",
        "created_at",
        "type",
        "quota",
        "prompt_tokens",
        "completion_tokens",
        "use_time",
        "channel",
        "token_id",
    ]);
    for f in [
        "content",
        "username",
        "token_name",
        "model_name",
        "channel_name",
        "group",
        "ip",
        "request_id",
        "upstream_request_id",
        "other",
    ] {
        props.insert(f.into(), json!({ "type": "string" }));
    }
    props.insert("is_stream".into(), json!({ "type": "boolean" }));
    json!({
        "title": "Usage log",
        "description": "One of the user's logs (model/log.go Log): `type` 2 a consume, 6 a refund; `id` its place in the listing (assignDisplayLogIds), `channel_name` empty and `other` without its admin fields (formatUserLogs).",
        "type": "object",
        "required": ["id", "user_id", "created_at", "type", "username", "token_name", "model_name", "quota"],
        "properties": props
    })
}

/// `GET /api/log/self` (controller/log.go GetUserLogs).
fn usage_log_page_envelope() -> Value {
    envelope(
        "The user's logs",
        "`GET /api/log/self`: a page of the user's logs, newest first (controller/log.go GetUserLogs).",
        json!({
            "type": "object",
            "required": ["page", "page_size", "total", "items"],
            "properties": {
                "page": { "type": "integer" },
                "page_size": { "type": "integer" },
                "total": { "type": "integer" },
                "items": { "type": "array", "items": schema_ref("UsageLog") }
            }
        }),
    )
}

/// One row of the usage data (model/usedata.go `QuotaData`, as GetQuotaDataByUserId selects it:
/// the fields it does not select are their zero values).
fn quota_data() -> Value {
    let mut props = integers(&[
        "id",
        "user_id",
        "created_at",
        "token_id",
        "channel_id",
        "token_used",
        "count",
        "quota",
    ]);
    for f in ["username", "model_name", "use_group", "node_name"] {
        props.insert(f.into(), json!({ "type": "string" }));
    }
    json!({
        "title": "Usage data",
        "description": "The user's usage of one model in one hour (`created_at` on the hour): requests (`count`), quota and tokens.",
        "type": "object",
        "required": ["user_id", "username", "model_name", "created_at", "count", "quota", "token_used"],
        "properties": props
    })
}
