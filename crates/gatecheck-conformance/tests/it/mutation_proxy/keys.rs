//! The key and key-route bugs: `/api/token` updates, key refusals on the model routes, and the
//! key search and model-list surface (`planted_keys.rs`, `planted_key_routes.rs`,
//! `planted_keysurface.rs`).
use super::*;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    _parts: &mut http::request::Parts,
    body: &mut Bytes,
) -> Option<Reply> {
    let Req {
        path,
        query,
        auth,
        method,
    } = *r;
    match p.bug {
        Bug::NameCountedInBytes if path == "/api/token/" && method == http::Method::PUT => {
            let name = serde_json::from_slice::<Value>(body)
                .ok()
                .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default();
            if name.len() > 50 {
                return Some(json_response(
                    200,
                    &json!({"success": false, "message": "token name is too long"}),
                ));
            }
        }
        Bug::StatusNotApplied if path == "/api/token/" && query.is_none() => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
                if let Some(o) = v.as_object_mut() {
                    o.remove("status");
                }
                *body = Bytes::from(v.to_string());
            }
        }
        Bug::StatusDroppedEverywhere | Bug::StatusIgnoredClaimed if path == "/api/token/" => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
                if let Some(o) = v.as_object_mut() {
                    o.remove("status");
                }
                *body = Bytes::from(v.to_string());
            }
        }
        Bug::WrongTokenSucceeds if path.starts_with("/api/token") && auth.starts_with("wrong") => {
            return Some(json_response(
                200,
                &json!({"success": true, "message": "", "data": {}}),
            ));
        }
        Bug::NegativeQuotaStored if path == "/api/token/" && method == http::Method::PUT => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body)
                && v.get("remain_quota")
                    .and_then(Value::as_i64)
                    .is_some_and(|q| q < 0)
            {
                v["remain_quota"] = json!(0);
                *body = Bytes::from(v.to_string());
            }
        }
        Bug::StatusOutOfEnumStored | Bug::ExpiredTimeOutOfRangeStored
            if path == "/api/token/" && method == http::Method::PUT =>
        {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
                let (field, valid, stored): (_, fn(i64) -> bool, _) =
                    if p.bug == Bug::StatusOutOfEnumStored {
                        ("status", token::is_valid_status, 1)
                    } else {
                        ("expired_time", token::is_valid_expired_time, -1)
                    };
                if v.get(field)
                    .and_then(Value::as_i64)
                    .is_some_and(|x| !valid(x))
                {
                    v[field] = json!(stored);
                    *body = Bytes::from(v.to_string());
                }
            }
        }
        _ => {}
    }
    None
}

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer {
        path,
        auth,
        status,
        message,
        code,
        api_message,
        asks_stream,
        ..
    } = *a;
    match p.bug {
        b if crate::planted_key_routes::plants(b)
            && crate::planted_key_routes::lets_through(
                b,
                path,
                (status, message, code),
                asks_stream,
            ) =>
        {
            return Some(admitted_400());
        }
        Bug::DisabledKeyAccepted if status == 401 && message.contains("status is unavailable") => {
            return Some(admitted_400());
        }
        Bug::ExpiredKeyAccepted if status == 401 && message.contains("expired") => {
            return Some(admitted_400())
        }
        Bug::IpAllowlistIgnored if status == 403 && code == "access_denied" => {
            return Some(admitted_400())
        }
        Bug::ModelLimitsIgnored if status == 403 && code == "model_not_allowed" => {
            return Some(admitted_400())
        }
        Bug::ZeroQuotaAccepted if status == 401 && message.contains("quota is exhausted") => {
            return Some(admitted_400())
        }
        Bug::InsufficientAs402 if status == 403 && code == "pre_consume_token_quota_failed" => {
            rparts.status = StatusCode::PAYMENT_REQUIRED;
        }
        Bug::IpRefusal401 if status == 403 && code == "access_denied" => {
            rparts.status = StatusCode::UNAUTHORIZED;
        }
        Bug::MissingTokenAs200
            if status == 401 && path.starts_with("/api/token") && auth.is_empty() =>
        {
            rparts.status = StatusCode::OK;
        }
        Bug::NameTooLongMessageChanged if api_message.contains(token::MSG_NAME_TOO_LONG) => {
            return Some(json_response(
                200,
                &json!({"success": false, "message": "invalid name"}),
            ));
        }
        Bug::GroupNoAccessAccepted if api_message.contains(token::MSG_NO_ACCESS_TO_GROUP) => {
            return Some(json_response(200, &json!({"success": true, "message": ""})));
        }
        Bug::EnableExpiredAccepted if api_message.contains(token::MSG_EXPIRED_CANNOT_ENABLE) => {
            return Some(json_response(200, &json!({"success": true, "message": ""})));
        }
        Bug::UnknownIdAccepted if api_message.contains(token::MSG_NOT_FOUND) => {
            return Some(json_response(200, &json!({"success": true, "message": ""})));
        }
        Bug::NewApiNameMessage if api_message.contains(token::MSG_NAME_TOO_LONG) => {
            let msg = api_message.replace(token::MSG_NAME_TOO_LONG, MSG_NAME_TOO_LONG_NEW_API);
            return Some(json_response(
                200,
                &json!({"success": false, "message": msg}),
            ));
        }
        Bug::KeyRefusalsAre502 if (status == 401 || status == 403) && path == "/v1/videos" => {
            rparts.status = StatusCode::BAD_GATEWAY;
        }
        Bug::Status401To403 if status == 401 && path.starts_with("/v1/") => {
            rparts.status = StatusCode::FORBIDDEN;
        }
        b if crate::planted_keysurface::plants(b) => {
            crate::planted_keysurface::rewrite(b, path, rbody);
        }
        _ => {}
    }
    None
}
