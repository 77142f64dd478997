//! The planted bugs of the stream and media surface (DECISIONS D-STREAM-6..8,
//! D-EDIT-6), applied by the mutation proxy (`mutation_proxy.rs`): each one a mistake a
//! gateway developer could make in relaying a stream, an image or a charge.

use super::planted::{Bug, Planted};
use super::support::with_data;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::media::crc32_ieee;
use serde_json::{json, Value};

/// Whether `bug` is one of this surface's bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::SpeechDeltaDuplicated
            | Bug::SpeechDeltaAltered
            | Bug::SpeechUsageZero
            | Bug::StreamCutMidEvent
            | Bug::EventNameDisagrees
            | Bug::StreamLabelledJson
            | Bug::PartialTruncatedPng
            | Bug::PartialWrongSize
            | Bug::TooManyPartials
            | Bug::ImageUsageUnderReported
            | Bug::EditIgnoresMask
    )
}

/// The request-side bugs: `body` as the proxy forwards it, when it changes.
pub(crate) fn request(bug: Bug, path: &str, body: &Bytes) -> Option<Bytes> {
    match bug {
        // The mask part is renamed on the way: the upstream never sees it and edits everywhere.
        Bug::EditIgnoresMask if path == "/v1/images/edits" => {
            let from: &[u8] = b"name=\"mask\"";
            let at = body.windows(from.len()).position(|w| w == from)?;
            let mut out = body[..at].to_vec();
            out.extend_from_slice(b"name=\"mask_ignored\"");
            out.extend_from_slice(&body[at + from.len()..]);
            Some(Bytes::from(out))
        }
        _ => None,
    }
}

/// The JSON `data:` of one event block.
fn data(block: &str) -> Option<Value> {
    let line = block.lines().find_map(|l| l.strip_prefix("data: "))?;
    serde_json::from_str(line).ok()
}

fn type_of(block: &str) -> Option<String> {
    data(block).and_then(|v| v["type"].as_str().map(str::to_owned))
}

/// `png` with its first IDAT chunk cut to half its data, length and CRC rewritten: every
/// chunk is well formed, the image data ends early.
fn truncated_png(png: &[u8]) -> Option<Vec<u8>> {
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().ok()?) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            let keep = len / 2;
            let mut out = png[..at].to_vec();
            out.extend_from_slice(&(keep as u32).to_be_bytes());
            let body_start = out.len();
            out.extend_from_slice(b"IDAT");
            out.extend_from_slice(&png[at + 8..at + 8 + keep]);
            let crc = crc32_ieee(&out[body_start..]);
            out.extend_from_slice(&crc.to_be_bytes());
            out.extend_from_slice(&png[at + 12 + len..]);
            return Some(out);
        }
        at += 12 + len;
    }
    None
}

/// The response-side bugs: rewrites the answer of `path` (its content type and body).
pub(crate) fn rewrite(bug: Bug, path: &str, headers: &mut http::HeaderMap, body: &mut Bytes) {
    let sse = headers
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if !sse {
        return;
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let mut blocks: Vec<String> = text.split_terminator("\n\n").map(str::to_owned).collect();
    let speech = path == "/v1/audio/speech";
    let image = path == "/v1/images/generations";
    let done = |b: &String| type_of(b).as_deref() == Some("speech.audio.done");
    let partial = |b: &String| type_of(b).as_deref() == Some("image_generation.partial_image");
    match bug {
        Bug::SpeechDeltaDuplicated if speech => {
            let Some(i) = blocks.iter().position(|b| !done(b)) else {
                return;
            };
            let again = blocks[i].clone();
            blocks.insert(i + 1, again);
        }
        Bug::SpeechDeltaAltered if speech => {
            // One byte in the middle of the second delta's audio: the frames still parse.
            let Some(b) = blocks.iter_mut().filter(|b| !done(b)).nth(1) else {
                return;
            };
            let Some(mut v) = data(b) else { return };
            let Ok(mut audio) = STANDARD.decode(v["audio"].as_str().unwrap_or("")) else {
                return;
            };
            let mid = audio.len() / 2;
            if let Some(x) = audio.get_mut(mid) {
                *x ^= 0x55;
            }
            v["audio"] = json!(STANDARD.encode(audio));
            *b = with_data(b, &v);
        }
        Bug::SpeechUsageZero if speech => {
            let Some(b) = blocks.iter_mut().find(|b| done(b)) else {
                return;
            };
            let Some(mut v) = data(b) else { return };
            v["usage"] = json!({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0});
            *b = with_data(b, &v);
        }
        Bug::StreamCutMidEvent if speech => {
            // The body ends halfway through the done event's data line.
            let Some(i) = blocks.iter().position(done) else {
                return;
            };
            blocks.truncate(i + 1);
            let last = blocks.pop().unwrap_or_default();
            let whole: String = blocks.iter().map(|b| format!("{b}\n\n")).collect();
            *body = Bytes::from(format!("{whole}{}", &last[..last.len() / 2]));
            return;
        }
        Bug::EventNameDisagrees if image => {
            let Some(b) = blocks.iter_mut().find(|b| partial(b)) else {
                return;
            };
            let named = b.replace(
                "event: image_generation.partial_image",
                "event: image_generation.completed",
            );
            *b = if named == *b {
                format!("event: image_generation.completed\n{b}")
            } else {
                named
            };
        }
        Bug::StreamLabelledJson if speech => {
            headers.insert("content-type", "application/json".parse().expect("ct"));
            return;
        }
        Bug::PartialTruncatedPng | Bug::PartialWrongSize if image => {
            let Some(b) = blocks.iter_mut().find(|b| partial(b)) else {
                return;
            };
            let Some(mut v) = data(b) else { return };
            let Ok(png) = STANDARD.decode(v["b64_json"].as_str().unwrap_or("")) else {
                return;
            };
            let new = if bug == Bug::PartialTruncatedPng {
                truncated_png(&png)
            } else {
                // A PNG of half the size, under the event's unchanged `size`.
                let (w, h) = (
                    u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
                    u32::from_be_bytes([png[20], png[21], png[22], png[23]]),
                );
                gatecheck_mock::internals::media::png(5, w / 2, h / 2)
                    .ok()
                    .map(|b| b.to_vec())
            };
            let Some(new) = new else { return };
            v["b64_json"] = json!(STANDARD.encode(new));
            *b = with_data(b, &v);
        }
        Bug::TooManyPartials if image => {
            let Some(i) = blocks.iter().rposition(partial) else {
                return;
            };
            let Some(mut v) = data(&blocks[i]) else {
                return;
            };
            let next = v["partial_image_index"].as_i64().unwrap_or(0) + 1;
            v["partial_image_index"] = json!(next);
            let extra = with_data(&blocks[i], &v);
            blocks.insert(i + 1, extra);
        }
        Bug::ImageUsageUnderReported if image => {
            // The usage halved, its parts still adding up: the key pays twice what it shows.
            let completed =
                |b: &String| type_of(b).as_deref() == Some("image_generation.completed");
            let Some(b) = blocks.iter_mut().find(|b| completed(b)) else {
                return;
            };
            let Some(mut v) = data(b) else { return };
            let input = v["usage"]["input_tokens"].as_i64().unwrap_or(0);
            let output = v["usage"]["output_tokens"].as_i64().unwrap_or(0) / 2;
            v["usage"]["output_tokens"] = json!(output);
            v["usage"]["total_tokens"] = json!(input + output);
            *b = with_data(b, &v);
        }
        _ => return,
    }
    *body = Bytes::from(
        blocks
            .iter()
            .map(|b| format!("{b}\n\n"))
            .collect::<String>(),
    );
}

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::StreamNoTerminal,
            "stream.speech",
            Status::Failed,
            "D-STREAM-1 (StreamEvent::is_terminal: exactly one speech.audio.done, last)",
        ),
        (
            Bug::StreamDeltaAfterDone,
            "stream.transcription",
            Status::Failed,
            "D-STREAM-2 (StreamEvent::is_terminal: nothing after transcript.text.done)",
        ),
        (
            Bug::DoneTextDiffers,
            "stream.transcription",
            Status::Failed,
            "D-STREAM-2 (transcript.text.done text is the deltas concatenated)",
        ),
        (
            Bug::PartialNotPng,
            "stream.images",
            Status::Failed,
            "D-STREAM-3 (media::parse_png on every partial image)",
        ),
        (
            Bug::SseOnTts1,
            "stream.speech.unsupported-model",
            Status::Deviation,
            "media::speech_sse_supported (D-STREAM-1: tts-1 may not stream)",
        ),
        (
            Bug::SpeechDeltaDuplicated,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6, D-STREAM-8 (the deltas join to the file)",
        ),
        (
            Bug::SpeechDeltaAltered,
            "stream.speech",
            Status::Failed,
            "D-STREAM-8 (the deltas join to the deterministic file)",
        ),
        (
            Bug::SpeechUsageZero,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (usage 0 for a request answered with media)",
        ),
        (
            Bug::StreamCutMidEvent,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (SseParser: the stream ends inside an event)",
        ),
        (
            Bug::EventNameDisagrees,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (the `event:` name is the data's type)",
        ),
        (
            Bug::StreamLabelledJson,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (a stream is text/event-stream)",
        ),
        (
            Bug::PartialTruncatedPng,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (every image decodes whole)",
        ),
        (
            Bug::PartialWrongSize,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (an image is the size its event declares)",
        ),
        (
            Bug::TooManyPartials,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (no more partials than partial_images)",
        ),
        (
            Bug::ImageUsageUnderReported,
            "usage.charged",
            Status::Failed,
            "D-STREAM-7 (quota::price_quota of the usage is the key::charge)",
        ),
    ]
}
