//! Streamed answers (DECISIONS D-STREAM): speech with `stream_format: "sse"`, transcription
//! with `stream=true`, image generation with `stream: true`.
//!
//! Each stream is read with a bounded read ([`crate::sse`]: a byte limit, an event limit and
//! the stream deadline), then judged: every event valid against its schema, the order (deltas,
//! then exactly one terminal event, nothing after it but `data: [DONE]`), and the content. The
//! spec does not show streaming, so every finding is a deviation citing its D-STREAM row. A
//! target that answers a stream request with a plain body, or refuses it, does not stream: the
//! check is skipped with that cause, not failed. Both framings of D-STREAM are accepted (with
//! or without `event:` lines, with or without `data: [DONE]`, paced or buffered whole).

use super::audio::{price, upload};
use super::Kind::Deviation;
use super::{
    accepted, answer_summary, def, is_validation_rejection, status_and_type, CheckDef, Ctx, Halt,
    Outcome, Pass, Phase,
};
use crate::client::{Exchange, RequestSpec, StreamExchange};
use crate::generators::media;
use crate::redact::truncate;
use crate::sse::{SseEnd, SseLimits, SseRead};
use base64::Engine as _;
use gatecheck_schemas::rules::media::{
    parse_mp3, parse_png, parse_size, parse_wav, speech_sse_supported, transcription_diarizes,
    transcription_streams, DIARIZED_JSON, MAX_PARTIAL_IMAGES,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::types::{stream_event_schema, StreamEvent};
use serde_json::{json, Value};

pub(crate) const CHECKS: &[CheckDef] = &[
    def("stream.speech", Deviation, "POST /v1/audio/speech", "DECISIONS: Streaming (SSE) D-STREAM-1",
        "With `stream_format: \"sse\"`, a model that may stream answers `text/event-stream`: `speech.audio.delta` events then exactly one `speech.audio.done`, last, each valid against its schema, ended within the stream deadline; the deltas concatenate to audio of the requested format.",
        Phase::Shared, |c| Box::pin(speech(c))),
    def("stream.speech.unsupported-model", Deviation, "POST /v1/audio/speech", "DECISIONS: Streaming (SSE) D-STREAM-1 (tts-1 and tts-1-hd may not stream)",
        "`stream_format: \"sse\"` on a model that may not stream (tts-1, tts-1-hd) is refused as a bad request.",
        Phase::Shared, |c| Box::pin(speech_refused(c))),
    def("stream.transcription", Deviation, "POST /v1/audio/transcriptions", "DECISIONS: Streaming (SSE) D-STREAM-2, D-STREAM-5",
        "With `stream=true`, a model that streams answers `text/event-stream`: `transcript.text.delta` events (and `transcript.text.segment` events, each with a unique id and start <= end) then exactly one `transcript.text.done`, last, each valid against its schema, ended within the stream deadline; the deltas concatenate to the done text. A diarization model, when the catalog has one, is also asked for `response_format=diarized_json`: its stream has segments, each after its deltas (D-STREAM-5).",
        Phase::Shared, |c| Box::pin(transcription(c))),
    def("stream.images", Deviation, "POST /v1/images/generations", "DECISIONS: Streaming (SSE) D-STREAM-3",
        "With `stream: true` and `partial_images: 2`, a b64_json model answers `text/event-stream`: at most 2 `image_generation.partial_image` events then exactly one `image_generation.completed`, last, each valid against its schema, ended within the stream deadline; every image is a PNG of the requested size.",
        Phase::Shared, |c| Box::pin(images(c))),
];

/// What a stream of one route is made of.
struct Shape {
    /// The DECISIONS row the route's stream is decided by.
    row: &'static str,
    /// What is streamed, for messages: `speech`.
    what: &'static str,
    /// The types of its delta events.
    deltas: &'static [&'static str],
    /// The type of its terminal event.
    terminal: &'static str,
}

const SPEECH: Shape = Shape {
    row: "D-STREAM-1",
    what: "speech",
    deltas: &["speech.audio.delta"],
    terminal: "speech.audio.done",
};

const TRANSCRIPTION: Shape = Shape {
    row: "D-STREAM-2",
    what: "transcriptions",
    deltas: &["transcript.text.delta", "transcript.text.segment"],
    terminal: "transcript.text.done",
};

/// A diarized transcription stream (`diarized_json`): the same events, decided by D-STREAM-5.
const DIARIZED: Shape = Shape {
    row: "D-STREAM-5",
    what: "diarized transcriptions",
    deltas: &["transcript.text.delta", "transcript.text.segment"],
    terminal: "transcript.text.done",
};

const IMAGES: Shape = Shape {
    row: "D-STREAM-3",
    what: "image generations",
    deltas: &["image_generation.partial_image"],
    terminal: "image_generation.completed",
};

/// The bounds of every streamed read: the stream deadline (`--timeout` unless set apart).
fn limits(ctx: &Ctx) -> SseLimits {
    SseLimits {
        deadline: ctx.cfg.stream_deadline.unwrap_or(ctx.cfg.request_timeout),
        ..SseLimits::default()
    }
}

/// A stream that was read, with its request, for the judging steps.
struct Streamed<'a> {
    ctx: &'a Ctx,
    spec: &'a RequestSpec,
    /// The head of the answer and the first bytes of the stream (evidence).
    answer: Exchange,
    read: SseRead,
    shape: &'a Shape,
}

impl Streamed<'_> {
    /// A deviation from the shape's row, with the request and the first bytes of the stream.
    fn deviate(&self, message: impl Into<String>) -> Halt {
        let message = format!("{} ({})", message.into(), self.shape.row);
        self.ctx
            .deviate(self.shape.row, message, self.spec, Some(&self.answer))
    }

    fn read(&self) -> &SseRead {
        &self.read
    }

    /// What the pass reports: the events and their timing.
    fn note(&self) -> String {
        let read = self.read();
        let first = read.events.first().map_or(0, |e| e.at.as_millis());
        let last = read.events.last().map_or(0, |e| e.at.as_millis());
        format!(
            "{} events, {} bytes, first at {first} ms, last at {last} ms",
            read.events.len(),
            read.bytes
        )
    }
}

/// Sends `spec` asking for a stream and reads it. A plain answer or a refusal is a skip (the
/// target does not stream this route); a server error is a deviation from the route's row.
async fn open<'a>(
    ctx: &'a Ctx,
    spec: &'a RequestSpec,
    quota: i64,
    shape: &'a Shape,
) -> Result<Streamed<'a>, Halt> {
    let StreamExchange { exchange, events } = ctx.t.send_stream(spec, quota, limits(ctx)).await?;
    if let Some(read) = events {
        return Ok(Streamed {
            ctx,
            spec,
            answer: exchange,
            read,
            shape,
        });
    }
    let ex = &exchange;
    let what = shape.what;
    if accepted(ex) {
        return Err(Halt::not_observed(format!(
            "asked to stream {what}, the target answered a plain {}: it does not stream {what}, \
             so there is no stream to judge",
            status_and_type(ex)
        )));
    }
    if ex.status.is_client_error() || is_validation_rejection(ex) {
        return Err(Halt::not_observed(format!(
            "the target refused to stream {what}: {}",
            answer_summary(ex)
        )));
    }
    // The spec does not show streams: a server error where DECISIONS decides a stream is a
    // deviation from that row, never a failure or an error that fails the run.
    Err(ctx.deviate(
        shape.row,
        format!(
            "a request to stream {what} was answered {}, where {} decides a stream",
            answer_summary(ex),
            shape.row
        ),
        spec,
        Some(ex),
    ))
}

/// Judges how the stream ended, then each event (JSON, type, `event:` name, schema) and the
/// order: deltas, then exactly one terminal event, then nothing but `data: [DONE]`.
fn judge_events(s: &Streamed<'_>) -> Result<Vec<StreamEvent>, Halt> {
    let read = s.read();
    let n = read.events.len();
    if read.end != SseEnd::Finished {
        let last = read.events.last().map_or(0, |e| e.at.as_millis());
        return Err(s.deviate(format!(
            "{} after {n} events (the last at {last} ms), without its end",
            read.end
        )));
    }
    if read.trailing > 0 {
        return Err(s.deviate(format!(
            "the stream ended inside an event: {} bytes after the last complete event (an \
             event ends with a blank line)",
            read.trailing
        )));
    }
    let mut out: Vec<StreamEvent> = Vec::new();
    let mut done_marker = false;
    for (i, e) in read.events.iter().enumerate() {
        let at = format!("event {} of {n}", i + 1);
        if done_marker {
            return Err(s.deviate(format!("{at} came after `data: [DONE]`")));
        }
        if e.data == "[DONE]" {
            if !out.last().is_some_and(StreamEvent::is_terminal) {
                return Err(s.deviate(format!(
                    "{at} is `data: [DONE]` before any {}",
                    s.shape.terminal
                )));
            }
            done_marker = true;
            continue;
        }
        let event = judge_event(s, &at, e.name.as_deref(), &e.data)?;
        if let Some(t) = out.iter().find(|e| e.is_terminal()) {
            return Err(s.deviate(format!(
                "{at} ({}) came after the terminal event {}: nothing may follow it",
                event.event_type(),
                t.event_type()
            )));
        }
        out.push(event);
    }
    if !out.iter().any(StreamEvent::is_terminal) {
        return Err(s.deviate(format!(
            "the stream ended after {n} events without its terminal event {}",
            s.shape.terminal
        )));
    }
    Ok(out)
}

/// One event: JSON with a `type` of this stream, named by its `event:` line if it has one,
/// valid against the type's schema.
fn judge_event(
    s: &Streamed<'_>,
    at: &str,
    name: Option<&str>,
    data: &str,
) -> Result<StreamEvent, Halt> {
    let Ok(v) = serde_json::from_str::<Value>(data) else {
        return Err(s.deviate(format!("{at} is not JSON: {}", truncate(data, 120))));
    };
    let ty = v
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let ty = ty.as_str();
    let shape = s.shape;
    if ty != shape.terminal && !shape.deltas.contains(&ty) {
        return Err(s.deviate(format!(
            "{at} has type \"{ty}\"; a {} stream has {} and {}",
            shape.what,
            shape.deltas.join(", "),
            shape.terminal
        )));
    }
    if let Some(name) = name.filter(|n| *n != ty) {
        return Err(s.deviate(format!("{at} is named \"{name}\" but its type is \"{ty}\"")));
    }
    let schema = stream_event_schema(ty).unwrap_or_default();
    if let Err(e) = gatecheck_schemas::validate(schema, &v) {
        return Err(s.deviate(format!("{at} ({ty}), schema {schema}: {e}")));
    }
    serde_json::from_value(v).map_err(|e| s.deviate(format!("{at} ({ty}): {e}")))
}

fn b64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(text)
}

async fn speech(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth()?;
    ctx.model_with(|c| c.speech.is_some())?;
    let Some((model, speech)) = ctx
        .models_with(|c| c.speech.is_some())
        .into_iter()
        .find(|(m, _)| speech_sse_supported(&m.id))
        .and_then(|(m, c)| c.speech.clone().map(|s| (m.id.clone(), s)))
    else {
        return Err(Halt::no_model(
            "no speech model that may stream (tts-1 and tts-1-hd may not): give --model speech=ID",
        ));
    };
    let Some(format) = ["mp3", "wav"]
        .into_iter()
        .find(|f| speech.formats.iter().any(|g| g == f))
    else {
        return Err(Halt::no_model(format!(
            "{model} has neither mp3 nor wav, the formats whose audio the runner parses"
        )));
    };
    let voice = speech
        .voices
        .first()
        .cloned()
        .unwrap_or_else(|| "alloy".into());
    let input = "The stream carries this sentence as audio, part by part (gatecheck).";
    let spec = RequestSpec::post("/v1/audio/speech")
        .auth(auth)
        .json(json!({
            "model": model, "input": input, "voice": voice,
            "response_format": format, "stream_format": "sse",
        }));
    let quota = ctx.price(
        &model,
        Usage {
            input_tokens: input.len() as i64,
            ..Usage::one_request()
        },
    );
    let s = open(ctx, &spec, quota, &SPEECH).await?;
    let events = judge_events(&s)?;
    let mut audio = Vec::new();
    for e in &events {
        match e {
            StreamEvent::SpeechAudioDelta { audio: part } => audio.extend(
                b64(part).map_err(|e| s.deviate(format!("a delta's audio is not base64: {e}")))?,
            ),
            StreamEvent::SpeechAudioDone { usage: u }
                if u.total_tokens != u.input_tokens + u.output_tokens =>
            {
                return Err(s.deviate(format!(
                    "speech.audio.done usage: total_tokens {} is not input_tokens {} + output_tokens {}",
                    u.total_tokens, u.input_tokens, u.output_tokens
                )));
            }
            _ => {}
        }
    }
    let parsed = match format {
        "mp3" => parse_mp3(&audio).map(|_| ()),
        _ => parse_wav(&audio).map(|_| ()),
    };
    if let Err(e) = parsed {
        return Err(s.deviate(format!(
            "the {} bytes of the deltas, concatenated, are not {format} audio: {e}",
            audio.len()
        )));
    }
    Ok(Pass {
        cases: 1,
        note: Some(s.note()),
    })
}

async fn speech_refused(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth()?;
    let Some((model, voice)) = ctx
        .models_with(|c| c.speech.is_some())
        .into_iter()
        .find(|(m, _)| !speech_sse_supported(&m.id))
        .map(|(m, c)| {
            let voice = c.speech.as_ref().and_then(|s| s.voices.first().cloned());
            (m.id.clone(), voice.unwrap_or_else(|| "alloy".into()))
        })
    else {
        return Err(Halt::no_model(
            "no speech model that may not stream (tts-1, tts-1-hd)",
        ));
    };
    let spec = RequestSpec::post("/v1/audio/speech")
        .auth(auth)
        .json(json!({
            "model": model, "input": "one two three", "voice": voice, "stream_format": "sse",
        }));
    let answer = ctx.t.send_stream(&spec, 0, limits(ctx)).await?;
    let ex = &answer.exchange;
    if is_validation_rejection(ex) {
        return Ok(Pass {
            cases: 1,
            note: None,
        });
    }
    let how = match &answer.events {
        Some(read) => format!("streamed {} events", read.events.len()),
        None if accepted(ex) => {
            return Err(Halt::not_observed(format!(
                "asked to stream speech on {model}, the target answered a plain {}: it \
                 ignores stream_format and does not stream speech, so there is no refusal to judge",
                status_and_type(ex)
            )))
        }
        None => answer_summary(ex),
    };
    Err(ctx.deviate(
        "D-STREAM-1",
        format!("{model} may not stream speech, but a request to stream it was answered: {how} (D-STREAM-1)"),
        &spec,
        Some(ex),
    ))
}

async fn transcription(ctx: &Ctx) -> Outcome {
    let route = "/v1/audio/transcriptions";
    let streaming = ctx
        .models_with(|c| c.transcription.as_ref().is_some_and(|t| t.transcription))
        .into_iter()
        .map(|(m, _)| m.id.clone())
        .filter(|m| transcription_streams(m))
        .collect::<Vec<_>>();
    let Some(model) = streaming.first().cloned() else {
        return Err(Halt::no_model(
            "no transcription model that streams (whisper-1 ignores stream): give --model transcription=ID",
        ));
    };
    // A diarization model is asked for `diarized_json` too: its stream has segments (D-STREAM-5).
    let diarize = streaming.into_iter().find(|m| transcription_diarizes(m));
    let mut cases = vec![(model, false)];
    cases.extend(diarize.map(|m| (m, true)));
    let mut notes = Vec::new();
    for (model, diarized) in &cases {
        let file = ("speech.wav", media::wav(if *diarized { 6000 } else { 600 }));
        let mut extra = vec![("stream", "true".to_owned())];
        if *diarized {
            extra.push(("response_format", DIARIZED_JSON.to_owned()));
        }
        let spec = upload(ctx, route, Some(model), Some(file), &extra)?;
        let shape = if *diarized { &DIARIZED } else { &TRANSCRIPTION };
        let s = open(ctx, &spec, price(ctx, model), shape).await?;
        let events = judge_events(&s)?;
        judge_transcript(&s, &events, *diarized)?;
        notes.push(format!("{model}: {}", s.note()));
    }
    Ok(Pass {
        cases: cases.len() as u32,
        note: Some(notes.join("; ")),
    })
}

/// A transcription stream's content: the deltas concatenate to the done text; each segment
/// (`transcript.text.segment`) has a unique id and starts no later than it ends; a diarized
/// stream (`diarized_json`) has at least one segment, and the deltas that name a segment
/// come before it.
fn judge_transcript(s: &Streamed<'_>, events: &[StreamEvent], diarized: bool) -> Result<(), Halt> {
    let mut deltas = String::new();
    let mut segments: Vec<&str> = Vec::new();
    for e in events {
        match e {
            StreamEvent::TranscriptTextDelta { delta, segment_id } => {
                if let Some(id) = segment_id.as_deref().filter(|id| segments.contains(id)) {
                    return Err(s.deviate(format!(
                        "a delta of segment {id} came after transcript.text.segment {id}"
                    )));
                }
                deltas.push_str(delta);
            }
            StreamEvent::TranscriptTextSegment { id, start, end, .. } => {
                if segments.contains(&id.as_str()) {
                    return Err(
                        s.deviate(format!("two transcript.text.segment events have id {id}"))
                    );
                }
                if start > end {
                    return Err(s.deviate(format!(
                        "transcript.text.segment {id} starts at {start} s, after its end {end} s"
                    )));
                }
                segments.push(id);
            }
            StreamEvent::TranscriptTextDone { text, .. } if *text != deltas => {
                return Err(s.deviate(format!(
                    "the deltas concatenate to \"{}\", but transcript.text.done has \"{}\"",
                    truncate(&deltas, 120),
                    truncate(text, 120)
                )));
            }
            _ => {}
        }
    }
    if diarized && segments.is_empty() {
        let message = "a diarization model asked for response_format diarized_json streamed \
                       no transcript.text.segment event";
        return Err(s.deviate(message));
    }
    Ok(())
}

/// Partial images asked for by `stream.images`.
const PARTIALS: i64 = 2;

async fn images(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth()?;
    let Some((model, size)) = ctx
        .models_with(|c| c.image.as_ref().is_some_and(|i| i.output == "b64_json"))
        .into_iter()
        .find_map(|(m, c)| Some((m.id.clone(), c.image.as_ref()?.sizes.first()?.clone())))
    else {
        return Err(Halt::no_model(
            "no image model that answers b64_json (only those stream): give --model image=ID",
        ));
    };
    let partials = PARTIALS.min(MAX_PARTIAL_IMAGES);
    let spec = RequestSpec::post("/v1/images/generations")
        .auth(auth)
        .json(json!({
            "model": model, "prompt": "a red triangle on grey (gatecheck)", "size": size,
            "stream": true, "partial_images": partials,
        }));
    let s = open(ctx, &spec, ctx.price(&model, Usage::one_request()), &IMAGES).await?;
    let events = judge_events(&s)?;
    let want = parse_size(&size).unwrap_or((0, 0));
    let mut seen = 0i64;
    for e in &events {
        let (what, b64_json, got_size) = match e {
            StreamEvent::ImagePartial {
                b64_json,
                size,
                partial_image_index,
                ..
            } => {
                if *partial_image_index != seen {
                    return Err(s.deviate(format!(
                        "partial image {} has partial_image_index {partial_image_index}",
                        seen + 1
                    )));
                }
                seen += 1;
                (format!("partial image {seen}"), b64_json, size)
            }
            StreamEvent::ImageCompleted { b64_json, size, .. } => {
                ("the completed image".to_owned(), b64_json, size)
            }
            _ => continue,
        };
        if *got_size != size {
            return Err(s.deviate(format!("{what} has size {got_size}, requested {size}")));
        }
        let bytes = b64(b64_json).map_err(|e| s.deviate(format!("{what} is not base64: {e}")))?;
        match parse_png(&bytes) {
            Ok(info) if (info.width, info.height) == want => {}
            Ok(info) => {
                return Err(s.deviate(format!(
                    "{what} is a {}x{} PNG for size {size}",
                    info.width, info.height
                )))
            }
            Err(e) => return Err(s.deviate(format!("{what} is not a valid PNG: {e}"))),
        }
    }
    if seen > partials {
        return Err(s.deviate(format!(
            "{seen} partial images for partial_images {partials}"
        )));
    }
    Ok(Pass {
        cases: 1,
        note: Some(s.note()),
    })
}
