//! One OpenAPI operation per entry of the route table ([`crate::routes::ROUTES`]), by
//! `operationId`. Statuses are the union of both profiles': `documented` and `new-api` (which
//! answers 500 `invalid_request` on audio and image validation and 400 `task_not_exist` for an
//! unknown video task).
//!
//! The operations are built by group (one module each, from the small builders of `build`);
//! [`operation`] asks each group in turn.

mod build;
mod key_routes;
mod model_routes;
mod public;

use serde_json::Value;

/// The builder of each group of named operations, asked in this order.
const GROUPS: [fn(&str) -> Option<Value>; 7] = [
    model_routes::audio,
    model_routes::video,
    model_routes::video_task,
    model_routes::images,
    model_routes::models,
    key_routes::keys,
    public::media_and_health,
];

/// The operation of `operation_id`, or `None` for an id the table does not know.
pub(super) fn operation(operation_id: &str) -> Option<Value> {
    if let Some(op) = GROUPS.iter().find_map(|group| group(operation_id)) {
        return Some(op);
    }
    if operation_id.starts_with("mj") {
        return super::midjourney::operation(operation_id);
    }
    super::tasks::operation(operation_id)
}
