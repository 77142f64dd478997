//! What Gemini's and Vertex's Veo adaptors share (relay/channel/task/gemini/billing.go and
//! dto.go, the Vertex adaptor @0fc1489e; DECISIONS D-PLAT-20, D-PLAT-21): the request read
//! (`metadata` first, as the Veo parameters: `durationSeconds`, `resolution`, `aspectRatio`;
//! then `duration`/`seconds` and `size`), the duration (`ResolveVeoDuration`; the billing ratio `seconds` is the rules'),
//! the operation's error and the failure reason (`error.message`).

use super::{meta, text, Read};
use gatecheck_schemas::rules::platforms::veo::{self, size_aspect_ratio, size_resolution};
use gatecheck_schemas::types::VideoTaskError;
use serde_json::{json, Map, Value};

/// The reason the mock's upstream gives in `raiMediaFilteredReasons` of a `filtered` operation.
pub(crate) const FILTERED_REASON: &str =
    "The video was filtered by the safety filters (the mock's `filtered` state).";

/// `ResolveVeoDuration` over the request (the rules' [`veo::seconds`]).
pub(crate) fn seconds(body: &Map<String, Value>) -> i64 {
    veo::seconds(body)
}

/// The Veo parameters' resolution and aspect ratio: `metadata` first, then `size`
/// (`SizeToVeoResolution`, `SizeToVeoAspectRatio`), else `720p` and `16:9`.
fn resolution_and_ratio(body: &Map<String, Value>) -> (String, &'static str) {
    let size = text(body, "size");
    let resolution = meta(body, "resolution")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| size_resolution(size).to_owned());
    let ratio = match meta(body, "aspectRatio").and_then(Value::as_str) {
        Some("9:16") => "9:16",
        Some(_) => "16:9",
        None => size_aspect_ratio(size),
    };
    (resolution, ratio)
}

/// The size `WxH` of the video a Veo request renders.
fn size(body: &Map<String, Value>) -> String {
    let (resolution, ratio) = resolution_and_ratio(body);
    let (w, h) = match resolution.as_str() {
        "4k" => (3840, 2160),
        "1080p" => (1920, 1080),
        _ => (1280, 720),
    };
    if ratio == "9:16" {
        format!("{h}x{w}")
    } else {
        format!("{w}x{h}")
    }
}

/// What a Veo adaptor reads: `action` as given, the duration and the size.
pub(crate) fn read_as(body: &Map<String, Value>, action: &'static str) -> Read {
    Read {
        action,
        seconds: seconds(body),
        size: size(body),
    }
}

/// The operation's `error` (a google.rpc.Status).
pub(crate) fn error(e: &VideoTaskError) -> Value {
    json!({ "code": 3, "message": e.message, "status": "INVALID_ARGUMENT" })
}

/// `ParseTaskResult`'s reason: the operation's `error.message`.
pub(crate) fn reason(e: &VideoTaskError) -> String {
    if e.message.is_empty() {
        e.code.clone()
    } else {
        e.message.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn metadata_overlays_the_request() {
        let b = body(json!({"duration": 4, "size": "720x1280"}));
        assert_eq!((seconds(&b), size(&b)), (4, "720x1280".to_owned()));
        let b = body(json!({"duration": 4, "seconds": "6", "size": "1920x1080",
            "metadata": {"durationSeconds": 6, "resolution": "720P", "aspectRatio": "9:16"}}));
        assert_eq!((seconds(&b), size(&b)), (6, "720x1280".to_owned()));
        let b = body(json!({"seconds": "5"}));
        assert_eq!((seconds(&b), size(&b)), (5, "1280x720".to_owned()));
        assert_eq!(seconds(&body(json!({}))), 8);
    }
}
