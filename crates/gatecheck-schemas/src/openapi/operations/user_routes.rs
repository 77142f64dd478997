//! The operations of the logged-in user's routes beside the keys (new-api's
//! router/api-router.go@823e263, `UserAuth`: the access token, as the key routes).

use super::build::{key_op, page_param, text_param};
use crate::openapi::response::json_response;
use crate::openapi::schema_ref;
use crate::rules::catalog::{MAX_PAGE, MAX_PAGE_SIZE};
use serde_json::{json, Value};

/// An optional integer query parameter (Unix seconds, a log type).
fn int_param(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description,
            "schema": { "type": "integer" } })
}

/// The filters the log routes share (controller/log.go GetUserLogs, GetLogsSelfStat).
fn log_filters() -> Vec<Value> {
    vec![
        int_param("type", "Log type: 2 consume, 6 refund; 0 or none for all."),
        int_param(
            "start_timestamp",
            "From (Unix seconds, inclusive); 0 for no bound.",
        ),
        int_param(
            "end_timestamp",
            "Until (Unix seconds, inclusive); 0 for no bound.",
        ),
        text_param("token_name", "The key's name, exactly."),
        text_param("model_name", "The model, exactly."),
        text_param("group", "The group, exactly."),
    ]
}

/// An operation of the group, with its tag.
fn user_op(id: &str, summary: &str, parameters: Vec<Value>, ok: Value) -> Value {
    let mut op = key_op(id, summary, parameters, ok);
    op["tags"] = json!(["user"]);
    op
}

/// The user's routes.
pub(super) fn user(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "getSelf" => user_op(
            operation_id,
            "The logged-in user: the account, its quota and what it used (new-api).",
            vec![],
            json_response("The user.", schema_ref("SelfEnvelope")),
        ),
        "getSelfGroups" => user_op(
            operation_id,
            "The groups the user may use, with their ratios (new-api).",
            vec![],
            json_response("The groups by name.", schema_ref("SelfGroupsEnvelope")),
        ),
        "getUserModels" => user_op(
            operation_id,
            "The models enabled in the user's groups (new-api).",
            vec![text_param(
                "group",
                "One group's models (one the user may use); all by default.",
            )],
            json_response("The model names.", schema_ref("UserModelsEnvelope")),
        ),
        "getSelfLogs" => {
            let mut params = vec![
                page_param("p", "Page number.", MAX_PAGE),
                page_param("page_size", "Logs per page.", MAX_PAGE_SIZE),
            ];
            params.extend(log_filters());
            params.push(text_param("request_id", "The request's id, exactly."));
            let mut op = user_op(
                operation_id,
                "The user's usage logs, newest first (new-api).",
                params,
                json_response("A page of logs.", schema_ref("UsageLogPageEnvelope")),
            );
            op["responses"]["400"] = json_response(
                "A page parameter that is not an integer in range (documented profile; new-api normalises it).",
                schema_ref("ApiFailure"),
            );
            op
        }
        "getSelfLogStat" => user_op(
            operation_id,
            "The quota of the user's consume logs, and its requests of the last minute (new-api).",
            log_filters(),
            json_response("The totals.", schema_ref("UsageLogStatEnvelope")),
        ),
        "getSelfQuotaData" => user_op(
            operation_id,
            "The user's usage by model and hour, over at most 30 days (new-api).",
            vec![
                int_param("start_timestamp", "From (Unix seconds, inclusive)."),
                int_param(
                    "end_timestamp",
                    "Until (Unix seconds, inclusive); at most 2592000 after the start.",
                ),
            ],
            json_response(
                "The usage rows, or `success:false` for a span over 30 days.",
                json!({ "anyOf": [schema_ref("QuotaDataEnvelope"), schema_ref("ApiFailure")] }),
            ),
        ),
        _ => return None,
    };
    Some(op)
}
