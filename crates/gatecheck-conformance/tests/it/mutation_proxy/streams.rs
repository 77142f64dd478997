//! The stream bugs: what asks for a stream, and the event streams answered
//! (`planted_streams.rs`, `streams.rs`).
use super::*;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    _parts: &mut http::request::Parts,
    body: &mut Bytes,
) -> Option<Reply> {
    let Req { path, .. } = *r;
    match p.bug {
        Bug::StreamIgnored if path.starts_with("/v1/") => *body = without_stream(body),
        Bug::SseOnTts1 if path == "/v1/audio/speech" => {
            if let Ok(mut v) = serde_json::from_slice::<Value>(body)
                && v["model"] == "tts-1"
                && v["stream_format"] == "sse"
            {
                v["model"] = json!("gpt-4o-mini-tts");
                *body = Bytes::from(v.to_string());
            }
        }
        b if crate::planted_streams::plants(b) => {
            if let Some(new) = crate::planted_streams::request(b, path, body) {
                *body = new;
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
    let Answer { path, .. } = *a;
    match p.bug {
        Bug::StreamNoTerminal
        | Bug::StreamDeltaAfterDone
        | Bug::DoneTextDiffers
        | Bug::PartialNotPng
            if is_event_stream(&rparts.headers) =>
        {
            if let Some(new) = p.rewrite_stream(path, rbody) {
                *rbody = new;
            }
        }
        b if crate::planted_streams::plants(b) => {
            crate::planted_streams::rewrite(b, path, &mut rparts.headers, rbody);
        }
        _ => {}
    }
    None
}

/// `body` without what asks for a stream: the JSON fields `stream`, `stream_format` and
/// `partial_images`, and a multipart `stream=true` (made `false`).
pub(super) fn without_stream(body: &Bytes) -> Bytes {
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        if let Some(o) = v.as_object_mut() {
            for field in ["stream", "stream_format", "partial_images"] {
                o.remove(field);
            }
        }
        return Bytes::from(v.to_string());
    }
    let on: &[u8] = b"name=\"stream\"\r\n\r\ntrue\r\n";
    let Some(at) = body.windows(on.len()).position(|w| w == on) else {
        return body.clone();
    };
    let mut off = body[..at].to_vec();
    off.extend_from_slice(b"name=\"stream\"\r\n\r\nfalse\r\n");
    off.extend_from_slice(&body[at + on.len()..]);
    Bytes::from(off)
}

/// Whether an answer is an event stream.
pub(super) fn is_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// The JSON `data:` of one event block.
pub(super) fn event_data(block: &str) -> Option<Value> {
    let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
    serde_json::from_str(data).ok()
}

impl Proxy {
    /// The stream bugs: `body`, an event stream, with one event dropped, added or changed.
    fn rewrite_stream(&self, path: &str, body: &Bytes) -> Option<Bytes> {
        let text = std::str::from_utf8(body).ok()?;
        let mut blocks: Vec<String> = text.split_terminator("\n\n").map(str::to_owned).collect();
        let ty = |b: &str| event_data(b).and_then(|v| v["type"].as_str().map(str::to_owned));
        match self.bug {
            Bug::StreamNoTerminal if path == "/v1/audio/speech" => {
                blocks.retain(|b| ty(b).as_deref() != Some("speech.audio.done"));
            }
            Bug::StreamDeltaAfterDone if path == "/v1/audio/transcriptions" => {
                let delta = json!({"type": "transcript.text.delta", "delta": " again"});
                blocks.push(format!("event: transcript.text.delta\ndata: {delta}"));
            }
            Bug::DoneTextDiffers if path == "/v1/audio/transcriptions" => {
                let done = blocks
                    .iter_mut()
                    .find(|b| ty(b).as_deref() == Some("transcript.text.done"))?;
                let mut v = event_data(done)?;
                v["text"] = json!(format!("{} (edited)", v["text"].as_str().unwrap_or("")));
                *done = with_data(done, &v);
            }
            Bug::PartialNotPng if path == "/v1/images/generations" => {
                let partial = blocks
                    .iter_mut()
                    .find(|b| ty(b).as_deref() == Some("image_generation.partial_image"))?;
                let mut v = event_data(partial)?;
                v["b64_json"] = json!(STANDARD.encode(b"GIF89a not a png"));
                *partial = with_data(partial, &v);
            }
            _ => return None,
        }
        Some(Bytes::from(
            blocks
                .iter()
                .map(|b| format!("{b}\n\n"))
                .collect::<String>(),
        ))
    }
}
