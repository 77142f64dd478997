//! The plugin era's bugs around the platforms' plugins and the dashboard auth
//! (`planted_plugins.rs`, DECISIONS D-ERA-8 to D-ERA-10, D-AUTH-9): each a host that answers
//! otherwise than new-api's plugin era.
use super::*;
use gatecheck_schemas::rules::platforms::OTHER_RATIOS_HEADER;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    parts: &mut http::request::Parts,
    _body: &mut Bytes,
) -> Option<Reply> {
    let no_user = !parts.headers.contains_key("new-api-user");
    if p.bug == Bug::DashboardUserHeaderRequired && r.path.starts_with("/api/token") && no_user {
        return Some(json_response(
            401,
            &json!({"success": false, "message": "Unauthorized, New-Api-User header not provided"}),
        ));
    }
    None
}

/// The JSON body of `rbody` changed by `edit`.
fn edit_json(rbody: &mut Bytes, edit: impl FnOnce(&mut Value)) {
    if let Ok(mut v) = serde_json::from_slice::<Value>(rbody) {
        edit(&mut v);
        *rbody = Bytes::from(v.to_string());
    }
}

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    if let Some(reply) = respond_native(p, a, rbody) {
        return Some(reply);
    }
    let create = a.path == "/v1/videos" && *a.method == http::Method::POST;
    match p.bug {
        Bug::PluginRenderKeepsUrl if a.is_poll && a.status == 200 => edit_json(rbody, |v| {
            if v["status"] == "completed" && v.pointer("/metadata/url").is_none() {
                v["metadata"] = json!({"url": format!("{}/content", a.path)});
            }
        }),
        Bug::PluginRenderStatusNotRow if a.is_poll && a.status == 200 => edit_json(rbody, |v| {
            if v["status"] == "completed" {
                v["status"] = json!("in_progress");
            }
        }),
        Bug::PluginContentStatusWord
            if a.path.ends_with("/content") && a.message.contains("current status: SUBMITTED") =>
        {
            edit_json(rbody, |v| {
                let m = v["error"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .replace("SUBMITTED", "QUEUED");
                v["error"]["message"] = json!(m);
            })
        }
        Bug::PluginJsonOnlyTakesMultipart
            if create && a.status == 400 && a.message.contains("JSON object required") =>
        {
            return Some(json_response(
                200,
                &json!({"id": "task_00000000000000000000000000000001", "object": "video",
                    "model": "", "status": "queued", "progress": 0, "created_at": 1}),
            ));
        }
        Bug::PluginActionOldWord
            if a.path.starts_with("/v1/video/generations/") && a.status == 200 =>
        {
            edit_json(rbody, |v| {
                if v["data"]["action"] == "text_to_video" {
                    v["data"]["action"] = json!("textGenerate");
                }
            })
        }
        Bug::PluginRatiosWithSize if create && a.status == 200 => {
            let mut ratios = rparts
                .headers
                .get(OTHER_RATIOS_HEADER)
                .and_then(|h| serde_json::from_slice::<Value>(h.as_bytes()).ok())
                .unwrap_or_else(|| json!({}));
            ratios["size"] = json!(1.666667);
            if let Ok(h) = http::HeaderValue::from_str(&ratios.to_string()) {
                rparts.headers.insert(OTHER_RATIOS_HEADER, h);
            }
        }
        Bug::DashboardWrongToken200
            if a.path.starts_with("/api/token")
                && a.status == 401
                && serde_json::from_slice::<Value>(rbody).is_ok_and(|v| {
                    v["code"] == gatecheck_schemas::rules::auth::AUTH_UNAUTHORIZED
                }) =>
        {
            return Some(json_response(
                200,
                &json!({"success": false, "message": "Unauthorized, invalid access token"}),
            ));
        }
        _ => {}
    }
    None
}

/// The plugin era's native routes and the OpenAI-video decoder (D-ERA-11): `Some` answers in
/// the upstream's place.
pub(super) fn respond_native(p: &Proxy, a: &Answer<'_>, rbody: &mut Bytes) -> Option<Reply> {
    let post = *a.method == http::Method::POST;
    let kling = a.path.starts_with("/kling/");
    let jimeng = a.path.starts_with("/jimeng");
    let v = serde_json::from_slice::<Value>(rbody).unwrap_or(Value::Null);
    let top = v["message"].as_str().unwrap_or("");
    let planted_id = "task_PLANTEDplantedPLANTEDplanted0000";
    match p.bug {
        Bug::KlingNativeCreateObject if kling && post && a.status == 200 => {
            let id = v["data"]["task_id"].clone();
            return Some(json_response(
                200,
                &json!({"id": id, "task_id": id, "object": "video", "model": "",
                    "status": "queued", "progress": 0, "created_at": 1}),
            ));
        }
        Bug::KlingModeAccepted
            if kling && post && a.status == 400 && top.starts_with("mode must") =>
        {
            return Some(json_response(
                200,
                &json!({"code": 0, "message": "SUCCEED",
                    "data": {"task_id": planted_id, "task_status": "submitted"}}),
            ));
        }
        Bug::KlingQueryOtherTask if kling && !post && a.status == 200 => edit_json(rbody, |v| {
            v["data"]["task_id"] = json!(planted_id);
        }),
        Bug::JimengUnsupportedActionSubmits
            if jimeng
                && a.status == 400
                && top == gatecheck_schemas::rules::platforms::jimeng::MSG_UNSUPPORTED_ACTION =>
        {
            return Some(json_response(
                200,
                &json!({"code": 10000, "message": "Success", "data": {"task_id": planted_id}}),
            ));
        }
        Bug::JimengErrorV1Shape if jimeng && a.status == 400 && !top.is_empty() => {
            return Some(json_response(
                400,
                &json!({"error": {"message": top, "type": "new_api_error", "code": "invalid_request"}}),
            ));
        }
        Bug::SoraEmptyPromptAccepted | Bug::SoraOtherFileAccepted
            if a.path == "/v1/videos" && post && a.status == 400 =>
        {
            let want = if p.bug == Bug::SoraEmptyPromptAccepted {
                gatecheck_schemas::rules::era::MSG_FIELD_PROMPT_REQUIRED
            } else {
                gatecheck_schemas::rules::openai_video::MSG_UNEXPECTED_FILE
            };
            if a.message.starts_with(want) {
                return Some(json_response(
                    200,
                    &json!({"id": planted_id, "object": "video", "model": "",
                        "status": "queued", "progress": 0, "created_at": 1}),
                ));
            }
        }
        _ => {}
    }
    None
}
