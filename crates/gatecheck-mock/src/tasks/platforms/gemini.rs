//! Gemini Veo (channel type 24): relay/channel/task/gemini/adaptor.go (DECISIONS D-PLAT-20).
//! Reads the Veo parameters (`super::veo`: `metadata` first, then `duration` and `size`),
//! always `textGenerate`; its task is the Gemini API's operation `{name:"models/<m>/operations/
//! <id>", done, response:{generateVideoResponse:{generatedSamples:[{video:{uri}}]}}, error}`;
//! billed `{"seconds": N}`. new-api asks it in real time on every fetch (D-PLAT-22).

use super::{veo, Adaptor, Read, Upstream};
use gatecheck_schemas::rules::platforms::gemini::PLATFORM;
use gatecheck_schemas::rules::platforms::veo::{DONE, ERROR, FILTERED};
use gatecheck_schemas::rules::task::ACTION_TEXT_GENERATE;
use serde_json::{json, Map, Value};

/// The Gemini API's answer type of a finished Veo operation.
const RESPONSE_TYPE: &str =
    "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse";

fn read(body: &Map<String, Value>) -> Read {
    veo::read_as(body, ACTION_TEXT_GENERATE)
}

/// The operation name Gemini answers the submit with (`models/<m>/operations/<id>`).
pub(crate) fn operation_name(model: &str, id: &str) -> String {
    format!("models/{model}/operations/{id}")
}

fn upstream(u: &Upstream<'_>) -> Value {
    let mut op = json!({ "name": operation_name(u.model, &u.id) });
    match u.word {
        DONE => {
            op["done"] = json!(true);
            let uri = format!(
                "https://generativelanguage.googleapis.com/v1beta/files/{}:download?alt=media",
                u.id
            );
            op["response"] = json!({
                "@type": RESPONSE_TYPE,
                "generateVideoResponse": { "generatedSamples": [{ "video": { "uri": uri } }] },
            });
        }
        FILTERED => {
            // Done, no sample: the safety filter took the video (no `uri` to resolve).
            op["done"] = json!(true);
            op["response"] = json!({
                "@type": RESPONSE_TYPE,
                "generateVideoResponse": {
                    "raiMediaFilteredCount": 1,
                    "raiMediaFilteredReasons": [veo::FILTERED_REASON],
                },
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

/// Gemini Veo.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: veo::reason,
    submit_status: super::queued,
    validate: super::prompt_required,
    video_status: None,
    render: |v, view| super::render_common(v, view, super::error_code),
    proxy_url: true,
};
