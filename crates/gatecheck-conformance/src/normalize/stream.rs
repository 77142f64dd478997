//! Streamed answers (`text/event-stream`) normalized event by event.
//!
//! A stream is compared as the sequence of its events: each becomes
//! `{"event": <its event: line>, "data": <its data, normalized>}` (no `event` key for a
//! data-only event). JSON data is normalized with the same rules as a JSON body, from its own
//! root, so that ids, timestamps (`created_at`), base64 payloads (`b64_json`, a speech delta's
//! `audio`: `"[png 1024x1024 ~1MiB]"`, `"[mp3 ~4KiB]"`) and usage are normalized the way they
//! are in non-streamed answers; other data (`[DONE]`, a malformed event) goes through the text
//! patterns. Bytes after the last complete event (a stream cut mid-event) become a last entry
//! `{"incomplete": "~64B"}`. A diff of two streams therefore points at the event index where
//! they part: `/events/4` absent on one side is a missing terminal event.

use super::{size_class, Normalizer};
use gatecheck_codecs::sse::SseParser;
use serde_json::{Map, Value};

/// Whether a `Content-Type` (already lower case) is an event stream.
pub(super) fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim() == "text/event-stream")
}

impl Normalizer {
    /// Normalizes an event-stream body, event by event (see the module's documentation).
    ///
    /// ```
    /// use gatecheck_conformance::normalize::Normalizer;
    /// use serde_json::json;
    /// let mut n = Normalizer::builtin();
    /// let body = b"event: x.delta\ndata: {\"type\":\"x.delta\",\"created_at\":1763700000}\n\n\
    ///              data: [DONE]\n\ndata: {\"ha";
    /// assert_eq!(n.normalize_events(body), vec![
    ///     json!({"event": "x.delta", "data": {"type": "x.delta", "created_at": "[timestamp]"}}),
    ///     json!({"data": "[DONE]"}),
    ///     json!({"incomplete": "~8B"}),
    /// ]);
    /// ```
    pub fn normalize_events(&mut self, body: &[u8]) -> Vec<Value> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        parser.push(body, &mut events);
        let pending = parser.pending();
        let mut out: Vec<Value> = events
            .into_iter()
            .map(|(name, data)| {
                let mut event = Map::new();
                if let Some(name) = name {
                    event.insert("event".to_owned(), Value::String(name));
                }
                let data = match serde_json::from_str::<Value>(&data) {
                    Ok(json) => self.normalize_json(&json),
                    Err(_) => Value::String(self.normalize_text(&data).join("\n")),
                };
                event.insert("data".to_owned(), data);
                Value::Object(event)
            })
            .collect();
        if pending > 0 {
            let mut cut = Map::new();
            cut.insert("incomplete".to_owned(), Value::String(size_class(pending)));
            out.push(Value::Object(cut));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use serde_json::json;

    fn png(w: u32, h: u32) -> String {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&w.to_be_bytes());
        png.extend_from_slice(&h.to_be_bytes());
        png.resize(300, 7);
        base64::engine::general_purpose::STANDARD.encode(png)
    }

    fn stream(events: &[Value], done: bool) -> Vec<u8> {
        let mut out = String::new();
        for e in events {
            let ty = e["type"].as_str().unwrap_or_default();
            out.push_str(&format!("event: {ty}\ndata: {e}\n\n"));
        }
        if done {
            out.push_str("data: [DONE]\n\n");
        }
        out.into_bytes()
    }

    fn image_events(created_at: i64, partials: usize) -> Vec<Value> {
        let mut events: Vec<Value> = (0..partials)
            .map(|i| {
                json!({"type": "image_generation.partial_image", "b64_json": png(64, 32),
                       "created_at": created_at + i as i64, "partial_image_index": i})
            })
            .collect();
        events.push(
            json!({"type": "image_generation.completed", "b64_json": png(64, 32),
                           "created_at": created_at + 9, "usage": {"total_tokens": 7}}),
        );
        events
    }

    #[test]
    fn volatile_values_of_events_are_normalized() {
        let mut n = Normalizer::builtin();
        let events = n.normalize_events(&stream(&image_events(1_763_700_000, 1), true));
        assert_eq!(
            events[0],
            json!({"event": "image_generation.partial_image", "data": {
                "type": "image_generation.partial_image", "b64_json": "[png 64x32 ~256B]",
                "created_at": "[timestamp]", "partial_image_index": 0}})
        );
        assert_eq!(events[1]["data"]["usage"], json!({"total_tokens": 7}));
        assert_eq!(events[2], json!({"data": "[DONE]"}));
        let audio = base64::engine::general_purpose::STANDARD.encode(b"ID3\x04rest of a file");
        let delta = format!("data: {{\"type\":\"speech.audio.delta\",\"audio\":\"{audio}\"}}\n\n");
        let events = n.normalize_events(delta.as_bytes());
        assert_eq!(events[0]["data"]["audio"], json!("[mp3 ~16B]"));
    }
}
