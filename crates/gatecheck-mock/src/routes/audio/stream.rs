//! The streamed answers of `/v1/audio/*` (DECISIONS D-STREAM-1, -2, -5): speech as
//! `speech.audio.delta` events, transcriptions as `transcript.text.delta` events, with
//! `transcript.text.segment` events for a diarization model asked for `diarized_json`.

use crate::media::{Segment, SpeechParts, Transcript};
use crate::response::sse::{Event, Framing};
use crate::response::MockResponse;
use crate::routes::ctx::Ctx;
use gatecheck_schemas::rules::media::segment_id;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::Profile;
use serde_json::json;

/// The route a speech stream answers (for its usage record).
const SPEECH_PATH: &str = "/v1/audio/speech";
/// The route a transcription stream answers (for its usage record).
const TRANSCRIPTIONS_PATH: &str = "/v1/audio/transcriptions";

/// The speaker label of diarized segment `index`: `A` and `B` in turn (OpenAI labels
/// unknown speakers with capital letters; the mock's audio has no voices to tell apart).
fn speaker(index: usize) -> &'static str {
    if index.is_multiple_of(2) {
        "A"
    } else {
        "B"
    }
}

/// One delta event.
fn delta(text: &str, segment: Option<&str>) -> Event {
    let mut data = json!({ "type": "transcript.text.delta", "delta": text });
    if let Some(id) = segment {
        data["segment_id"] = json!(id);
    }
    Event::json("transcript.text.delta", &data)
}

/// The events of diarized segment `index` (the last one when `last`): one delta per word,
/// each naming the segment, then the `transcript.text.segment` itself. The deltas carry the
/// space that joins it to the next segment, so that all the deltas make the done text.
fn segment_events(index: usize, seg: &Segment, last: bool) -> Vec<Event> {
    let id = segment_id(index);
    let joined = if last {
        seg.text.clone()
    } else {
        format!("{} ", seg.text)
    };
    let mut out: Vec<Event> = joined
        .split_inclusive(' ')
        .map(|w| delta(w, Some(&id)))
        .collect();
    out.push(Event::json(
        "transcript.text.segment",
        &json!({
            "type": "transcript.text.segment",
            "id": id,
            "start": seg.start_ms as f64 / 1000.0,
            "end": seg.end_ms as f64 / 1000.0,
            "text": seg.text,
            "speaker": speaker(index),
        }),
    ));
    out
}

/// The streamed transcription: one `transcript.text.delta` per word (with the space after
/// it); with `diarized`, each segment's deltas name it and are followed by its
/// `transcript.text.segment`; then `transcript.text.done` with the whole text and the usage
/// charged. Events are built segment by segment, as they are sent.
pub(super) fn stream_transcript(
    cx: &Ctx,
    model: &str,
    t: Transcript,
    usage: Usage,
    diarized: bool,
) -> MockResponse {
    let (input, output) = (usage.input_tokens, usage.output_tokens);
    let Transcript { text, segments, .. } = t;
    let done = Event::json(
        "transcript.text.done",
        &json!({
            "type": "transcript.text.done",
            "text": text,
            "usage": {
                "type": "tokens",
                "input_tokens": input,
                "input_token_details": { "text_tokens": 0, "audio_tokens": input },
                "output_tokens": output,
                "total_tokens": input + output,
            },
        }),
    );
    let events: Box<dyn Iterator<Item = Event> + Send> = if diarized {
        let n = segments.len();
        Box::new(
            segments
                .into_iter()
                .enumerate()
                .flat_map(move |(i, seg)| segment_events(i, &seg, i + 1 == n)),
        )
    } else {
        let words: Vec<String> = text.split_inclusive(' ').map(str::to_owned).collect();
        Box::new(words.into_iter().map(|w| delta(&w, None)))
    };
    // new-api reads the upstream stream whole and sends it with its length (D-STREAM-2).
    let buffered = cx.profile() == Profile::NewApi;
    cx.stream(
        TRANSCRIPTIONS_PATH,
        model,
        events.chain(std::iter::once(done)),
        Framing::Named,
        false,
        buffered,
    )
}

/// Most bytes of audio in one `speech.audio.delta` event.
const MAX_SPEECH_CHUNK: usize = 16 * 1024;
/// Deltas of a short answer: its audio is split in this many parts at least.
const MIN_SPEECH_DELTAS: usize = 4;

/// The streamed speech: `audio` in `speech.audio.delta` events (base64 parts of the same file
/// as the non-streamed answer, each made and encoded when it is sent: a stalled client holds
/// one part, not the audio), then `speech.audio.done` with the usage charged. new-api relays
/// each `data:` line alone (D-STREAM-1).
pub(super) fn stream_speech(
    cx: &Ctx,
    model: &str,
    mut audio: SpeechParts,
    usage: Usage,
) -> MockResponse {
    use base64::Engine as _;
    let (input, output) = (usage.input_tokens, usage.output_tokens);
    let chunk = audio
        .len()
        .div_ceil(MIN_SPEECH_DELTAS)
        .clamp(1, MAX_SPEECH_CHUNK);
    let parts = audio.len().div_ceil(chunk);
    let deltas = (0..parts).map(move |_| {
        let part = audio.take(chunk);
        Event::json(
            "speech.audio.delta",
            &json!({
                "type": "speech.audio.delta",
                "audio": base64::engine::general_purpose::STANDARD.encode(&part),
            }),
        )
    });
    let done = std::iter::once_with(move || {
        Event::json(
            "speech.audio.done",
            &json!({
                "type": "speech.audio.done",
                "usage": {
                    "input_tokens": input,
                    "output_tokens": output,
                    "total_tokens": input + output,
                },
            }),
        )
    });
    let framing = match cx.profile() {
        Profile::Documented => Framing::Named,
        Profile::NewApi => Framing::DataOnly,
    };
    cx.stream(
        SPEECH_PATH,
        model,
        deltas.chain(done),
        framing,
        false,
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(index: usize, text: &str, last: bool) -> Vec<serde_json::Value> {
        let seg = Segment {
            start_ms: 1500,
            end_ms: 3250,
            text: text.to_owned(),
            tokens: vec![],
        };
        segment_events(index, &seg, last)
            .iter()
            .map(|e| serde_json::from_slice(&e.data).unwrap())
            .collect()
    }

    #[test]
    fn a_segment_follows_its_deltas() {
        let events = events_of(1, "quiet fields", false);
        let deltas: Vec<&str> = events[..2]
            .iter()
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(deltas, ["quiet ", "fields "]);
        assert!(events[..2].iter().all(|e| e["segment_id"] == "seg_002"));
        assert_eq!(
            events[2],
            json!({"type": "transcript.text.segment", "id": "seg_002", "start": 1.5,
                   "end": 3.25, "text": "quiet fields", "speaker": "B"})
        );
        let last = events_of(0, "the end", true);
        assert_eq!(last[1]["delta"], "end");
        assert_eq!(last[2]["speaker"], "A");
    }
}
