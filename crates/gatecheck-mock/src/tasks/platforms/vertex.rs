//! Vertex AI Veo (channel type 41): relay/channel/task/vertex/adaptor.go@0fc1489e (DECISIONS
//! D-PLAT-21). Reads the Veo parameters (`super::veo`) and `images[0]` (a data URI or base64:
//! `generate`, else `textGenerate`); its task is Vertex's `fetchPredictOperation` answer
//! `{name:"projects/<p>/locations/<r>/publishers/google/models/<m>/operations/<id>", done,
//! response:{"@type", raiMediaFilteredCount, videos:[{mimeType}]}, error}`, the base64 video
//! removed as new-api stores it (`redactVideoResponseBody`); billed `{"seconds": N}`. new-api
//! asks it in real time on every fetch (D-PLAT-22).

use super::{veo, Adaptor, Read, Upstream};
use gatecheck_schemas::rules::platforms::veo::{DONE, ERROR, FILTERED};
use gatecheck_schemas::rules::platforms::vertex::PLATFORM;
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
use serde_json::{json, Map, Value};

/// Vertex's answer type of a finished Veo operation.
const RESPONSE_TYPE: &str =
    "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse";

/// Whether `ParseImageInput` takes `s`: a data URI with a payload, or standard base64.
fn is_image_input(s: &str) -> bool {
    use base64::Engine;
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("data:") {
        return rest.split_once(',').is_some_and(|(_, b64)| !b64.is_empty());
    }
    !s.is_empty() && base64::engine::general_purpose::STANDARD.decode(s).is_ok()
}

fn read(body: &Map<String, Value>) -> Read {
    let first = body
        .get("images")
        .and_then(Value::as_array)
        .and_then(|l| l.first())
        .and_then(Value::as_str)
        .unwrap_or("");
    let action = if is_image_input(first) {
        ACTION_GENERATE
    } else {
        ACTION_TEXT_GENERATE
    };
    veo::read_as(body, action)
}

fn upstream(u: &Upstream<'_>) -> Value {
    let name = format!(
        "projects/gatecheck/locations/us-central1/publishers/google/models/{}/operations/{}",
        u.model, u.id
    );
    let mut op = json!({ "name": name });
    match u.word {
        DONE => {
            op["done"] = json!(true);
            op["response"] = json!({
                "@type": RESPONSE_TYPE,
                "raiMediaFilteredCount": 0,
                "videos": [{ "mimeType": "video/mp4" }],
            });
        }
        FILTERED => {
            // Done, no video: the safety filter took it (nothing to resolve).
            op["done"] = json!(true);
            op["response"] = json!({
                "@type": RESPONSE_TYPE,
                "raiMediaFilteredCount": 1,
                "raiMediaFilteredReasons": [veo::FILTERED_REASON],
            });
        }
        ERROR => {
            op["done"] = json!(true);
            if let Some(e) = u.error {
                op["error"] = veo::error(e);
            }
        }
        _ => {}
    }
    op
}

/// Vertex AI Veo.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: veo::reason,
    submit_status: super::queued,
    validate: super::prompt_required,
    video_status: None,
    render: |v, view| super::render_common(v, view, super::error_code),
    proxy_url: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_makes_it_generate() {
        let b = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(read(&b(json!({}))).action, ACTION_TEXT_GENERATE);
        let png = json!({"images": ["data:image/png;base64,iVBORw0KGgo="]});
        assert_eq!(read(&b(png)).action, ACTION_GENERATE);
        assert_eq!(
            read(&b(json!({"images": ["aGVsbG8="]}))).action,
            ACTION_GENERATE
        );
        let url = json!({"images": ["https://x/y.png"]});
        assert_eq!(read(&b(url)).action, ACTION_TEXT_GENERATE);
    }
}
