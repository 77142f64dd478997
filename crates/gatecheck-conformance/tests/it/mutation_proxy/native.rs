//! The bugs of the plugins' native routes (`planted_native.rs`, DECISIONS D-ERA-15, D-ERA-16):
//! each a host that answers a declared route otherwise than the plugin renders it.
use super::*;
use gatecheck_schemas::routes::path_matches;
use gatecheck_schemas::rules::platforms::native::{declared, NativeOperation, NativeRoute};

/// The declared native route the answer is of, if any.
fn route_of(a: &Answer<'_>) -> Option<&'static NativeRoute> {
    declared()
        .map(|(_, _, r)| r)
        .find(|r| r.method == a.method.as_str() && path_matches(r.path, a.path))
}

/// The JSON body of `rbody` with the text at `pointer` replaced by `edit` of it.
fn edit_id(rbody: &mut Bytes, pointer: &str, edit: impl FnOnce(&str) -> Value) {
    if let Ok(mut v) = serde_json::from_slice::<Value>(rbody) {
        if let Some(slot) = v.pointer_mut(pointer) {
            let id = slot.as_str().unwrap_or("").to_owned();
            *slot = edit(&id);
        }
        *rbody = Bytes::from(v.to_string());
    }
}

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    _rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    let route = route_of(a)?;
    let submit = route.operation == NativeOperation::Submit && a.status == 200;
    let query = route.operation == NativeOperation::Query;
    match p.bug {
        Bug::NativeRoutesNotRouted => {
            return Some(json_response(
                404,
                &json!({"error": {"message": "Invalid URL", "type": "invalid_request_error"}}),
            ));
        }
        Bug::NativeCreatedHostObject if submit => {
            let id = serde_json::from_slice::<Value>(rbody)
                .ok()
                .and_then(|v| v.pointer(route.id_pointer).cloned())
                .unwrap_or(Value::Null);
            return Some(json_response(200, &json!({ "task_id": id })));
        }
        Bug::NativeCreatedUpstreamId if submit => {
            edit_id(rbody, route.id_pointer, |_| {
                json!("cgt-20261207000000-gatecheck")
            });
        }
        Bug::NativeFetchOtherTask if query && a.status == 200 => {
            edit_id(rbody, route.id_pointer, |_| {
                json!("task_gatecheckAnotherTask000000")
            });
        }
        Bug::NativeErrorHostShape if query && a.status == 404 => {
            return Some(json_response(
                404,
                &json!({"code": "task_not_found", "message": "Task not found", "status_code": 404}),
            ));
        }
        _ => {}
    }
    None
}
