//! Streamed answers (DECISIONS D-STREAM): speech with `stream_format: "sse"`, transcription
//! with `stream=true`, image generation with `stream: true`.
//!
//! Each stream is read with a bounded read ([`crate::http::sse`]: a byte limit, an event limit and
//! the stream deadline), then judged. Where the line of D-STREAM-6 goes:
//!
//! - a **failure** breaks what a client of OpenAI's published stream protocol depends on: the
//!   SSE framing (a stream that ends inside an event, is cut, or never ends), an event that is
//!   not JSON, has a type the route does not stream, is named by an `event:` line for another
//!   type or lacks a required field; the order (deltas, then exactly one terminal event,
//!   nothing after it but `data: [DONE]`); the content (the deltas join to the done text, to
//!   audio of the requested format, to the non-streamed file where the target proves that file
//!   deterministic; every image decodes whole, its declared size is its size, a partial is the
//!   size of the final image, no more partials than asked); usage that reports nothing for a
//!   request that used something, or whose total is not its parts;
//! - a **deviation** is a real choice: a server error where a stream was asked (which error),
//!   a schema constraint on an optional field, a final image whose size is not the requested
//!   one (a model may round sizes, D-MEDIA), the diarized segments of D-STREAM-5.
//!
//! A target that answers a stream request with a plain body, or refuses it, does not stream:
//! the check is skipped with that cause, not failed, unless the plain answer is itself an
//! event stream under another content type. Both framings of D-STREAM are accepted (with or
//! without `event:` lines, with or without `data: [DONE]`, paced or buffered whole).

use super::audio::{price, upload};
use super::pixels::decoded_png;
use super::Kind::Failure;
use super::{
    accepted, answer_summary, is_validation_rejection, status_and_type, Check, CheckCtx, Halt,
    Needs, Outcome, Pass, Phase,
};
use crate::generators::media;
use crate::http::client::{Exchange, RequestSpec, StreamExchange};
use crate::http::sse::{SseEnd, SseLimits, SseRead};
use crate::redact::truncate;
use crate::vocab::discovery::RouteFamily;
use base64::Engine as _;
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::media::{
    parse_mp3, parse_size, parse_wav, speech_sse_supported, transcription_diarizes,
    transcription_streams, DIARIZED_JSON, MAX_PARTIAL_IMAGES,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::types::{stream_event_schema, StreamEvent, StreamUsage};
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "stream.speech",
        kind: Failure,
        route: "POST /v1/audio/speech",
        spec: "DECISIONS: Streaming (SSE) D-STREAM-1, D-STREAM-6",
        title: "With `stream_format: \"sse\"`, a model that may stream answers `text/event-stream`: `speech.audio.delta` events then exactly one `speech.audio.done`, last, each named as its type, ended within the stream deadline; the deltas concatenate to audio of the requested format and, where two non-streamed answers to the same input are identical, to that file; the done usage is its parts' sum and not zero. Schema constraints on optional fields are deviations.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::AudioSpeech]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(speech(c)),
    },
    Check {
        id: "stream.speech.unsupported-model",
        kind: super::Kind::Deviation,
        route: "POST /v1/audio/speech",
        spec: "DECISIONS: Streaming (SSE) D-STREAM-1 (tts-1 and tts-1-hd may not stream)",
        title: "`stream_format: \"sse\"` on a model that may not stream (tts-1, tts-1-hd) is refused as a bad request.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::AudioSpeech]),
        mock_only: None,
        decision: Some(id::D_STREAM),
        run: |c| Box::pin(speech_refused(c)),
    },
    Check {
        id: "stream.transcription",
        kind: Failure,
        route: "POST /v1/audio/transcriptions",
        spec: "DECISIONS: Streaming (SSE) D-STREAM-2, D-STREAM-5, D-STREAM-6",
        title: "With `stream=true`, a model that streams answers `text/event-stream`: `transcript.text.delta` events (and `transcript.text.segment` events, each with a unique id and start <= end) then exactly one `transcript.text.done`, last, each named as its type, ended within the stream deadline; the deltas concatenate to the done text; token usage is its parts' sum and not zero. A diarization model, when the catalog has one, is also asked for `response_format=diarized_json`: its stream has segments, each after its deltas (D-STREAM-5, deviations).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::AudioTranscriptions]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(transcription(c)),
    },
    Check {
        id: "stream.images",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "DECISIONS: Streaming (SSE) D-STREAM-3, D-STREAM-6",
        title: "With `stream: true` and `partial_images: 2`, a b64_json model answers `text/event-stream`: at most 2 `image_generation.partial_image` events, indexed 0, 1, then exactly one `image_generation.completed`, last, each named as its type, ended within the stream deadline; every image decodes whole as a PNG of its declared size, each partial the size of the final image; the usage is not zero. A final image of another size than requested is a deviation (D-MEDIA).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::ImageGenerations]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(images(c)),
    },
];

/// What a stream of one route is made of.
struct Shape {
    /// The DECISIONS row the route's stream is decided by.
    row: Id,
    /// What is streamed, for messages: `speech`.
    what: &'static str,
    /// The types of its delta events.
    deltas: &'static [&'static str],
    /// The type of its terminal event.
    terminal: &'static str,
}

const SPEECH: Shape = Shape {
    row: id::D_STREAM_1,
    what: "speech",
    deltas: &["speech.audio.delta"],
    terminal: "speech.audio.done",
};

const TRANSCRIPTION: Shape = Shape {
    row: id::D_STREAM_2,
    what: "transcriptions",
    deltas: &["transcript.text.delta", "transcript.text.segment"],
    terminal: "transcript.text.done",
};

/// A diarized transcription stream (`diarized_json`): the same events, decided by D-STREAM-5.
const DIARIZED: Shape = Shape {
    row: id::D_STREAM_5,
    what: "diarized transcriptions",
    deltas: &["transcript.text.delta", "transcript.text.segment"],
    terminal: "transcript.text.done",
};

const IMAGES: Shape = Shape {
    row: id::D_STREAM_3,
    what: "image generations",
    deltas: &["image_generation.partial_image"],
    terminal: "image_generation.completed",
};

/// The bounds of every streamed read: the stream deadline (`--timeout` unless set apart).
fn limits(ctx: &CheckCtx) -> SseLimits {
    SseLimits {
        deadline: ctx
            .cfg
            .limits
            .stream_deadline
            .unwrap_or(ctx.cfg.limits.request_timeout),
        ..SseLimits::default()
    }
}

/// A stream that was read, with its request, for the judging steps.
struct Streamed<'a> {
    ctx: &'a CheckCtx,
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

    /// A failure of the stream protocol (D-STREAM-6), with the request and the first bytes of
    /// the stream.
    fn fail(&self, message: impl Into<String>) -> Halt {
        let message = format!(
            "{} (the {} stream protocol, {}, D-STREAM-6)",
            message.into(),
            self.shape.what,
            self.shape.row
        );
        self.ctx.fail(message, self.spec, Some(&self.answer))
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

/// Whether a plain answer's body is an event stream all the same: its first field line is a
/// `data:` or `event:` field (comments and blank lines before it skipped).
fn looks_like_sse(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&body[..body.len().min(512)]);
    text.lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with(':'))
        .is_some_and(|l| l.starts_with("data:") || l.starts_with("event:"))
}

/// Sends `spec` asking for a stream and reads it. A plain answer or a refusal is a skip (the
/// target does not stream this route), unless the plain answer is an event stream under
/// another content type (a failure: a client reads it by its type); a server error is a
/// deviation from the route's row.
async fn open<'a>(
    ctx: &'a CheckCtx,
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
    if accepted(ex) && looks_like_sse(&ex.body) {
        return Err(ctx.fail(
            format!(
                "asked to stream {what}, the target answered {} whose body is an event stream: \
                 a stream is `text/event-stream`, and a client reads the body by its type \
                 (D-STREAM-6)",
                status_and_type(ex)
            ),
            spec,
            Some(ex),
        ));
    }
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
    // Which error a stream request gets is a choice (D-STREAM-6): a server error where
    // DECISIONS decides a stream is a deviation from that row, never a failure.
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

/// The events of a stream, judged, and the first schema constraint one of them broke (a
/// deviation, reported once the failures are ruled out).
struct Judged {
    events: Vec<StreamEvent>,
    schema: Option<String>,
}

impl Judged {
    /// The schema finding, as a deviation from the stream's row; `Ok` without one.
    fn schema_deviation(&self, s: &Streamed<'_>) -> Result<(), Halt> {
        match &self.schema {
            Some(finding) => Err(s.deviate(finding.clone())),
            None => Ok(()),
        }
    }
}

/// Judges how the stream ended, then each event (JSON, type, `event:` name, required fields)
/// and the order: deltas, then exactly one terminal event, then nothing but `data: [DONE]`.
/// Every finding is a failure of the protocol; a schema constraint is kept for later.
fn judge_events(s: &Streamed<'_>) -> Result<Judged, Halt> {
    let read = s.read();
    let n = read.events.len();
    if read.end != SseEnd::Finished {
        let last = read.events.last().map_or(0, |e| e.at.as_millis());
        return Err(s.fail(format!(
            "{} after {n} events (the last at {last} ms), without its end",
            read.end
        )));
    }
    if read.trailing > 0 {
        return Err(s.fail(format!(
            "the stream ended inside an event: {} bytes after the last complete event (an \
             event ends with a blank line)",
            read.trailing
        )));
    }
    let mut out: Vec<StreamEvent> = Vec::new();
    let mut schema = None;
    let mut done_marker = false;
    for (i, e) in read.events.iter().enumerate() {
        let at = format!("event {} of {n}", i + 1);
        if done_marker {
            return Err(s.fail(format!("{at} came after `data: [DONE]`")));
        }
        if e.data == "[DONE]" {
            if !out.last().is_some_and(StreamEvent::is_terminal) {
                return Err(s.fail(format!(
                    "{at} is `data: [DONE]` before any {}",
                    s.shape.terminal
                )));
            }
            done_marker = true;
            continue;
        }
        let (event, finding) = judge_event(s, &at, e.name.as_deref(), &e.data)?;
        if let Some(t) = out.iter().find(|e| e.is_terminal()) {
            return Err(s.fail(format!(
                "{at} ({}) came after the terminal event {}: nothing may follow it",
                event.event_type(),
                t.event_type()
            )));
        }
        schema = schema.or(finding);
        out.push(event);
    }
    if !out.iter().any(StreamEvent::is_terminal) {
        return Err(s.fail(format!(
            "the stream ended after {n} events without its terminal event {}",
            s.shape.terminal
        )));
    }
    Ok(Judged {
        events: out,
        schema,
    })
}

/// One event: JSON with a `type` of this stream, named by its `event:` line if it has one,
/// with the required fields of its type (failures); and whether it breaks a constraint of the
/// type's schema beyond them (a finding, judged later).
fn judge_event(
    s: &Streamed<'_>,
    at: &str,
    name: Option<&str>,
    data: &str,
) -> Result<(StreamEvent, Option<String>), Halt> {
    let Ok(v) = serde_json::from_str::<Value>(data) else {
        return Err(s.fail(format!("{at} is not JSON: {}", truncate(data, 120))));
    };
    let ty = v
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let ty = ty.as_str();
    let shape = s.shape;
    if ty != shape.terminal && !shape.deltas.contains(&ty) {
        return Err(s.fail(format!(
            "{at} has type \"{ty}\"; a {} stream has {} and {}",
            shape.what,
            shape.deltas.join(", "),
            shape.terminal
        )));
    }
    if let Some(name) = name.filter(|n| *n != ty) {
        return Err(s.fail(format!("{at} is named \"{name}\" but its type is \"{ty}\"")));
    }
    let schema = stream_event_schema(ty).unwrap_or_default();
    let finding = gatecheck_schemas::validate(schema, &v)
        .err()
        .map(|e| format!("{at} ({ty}), schema {schema}: {e}"));
    let event = serde_json::from_value(v).map_err(|e| s.fail(format!("{at} ({ty}): {e}")))?;
    Ok((event, finding))
}

/// A stream's token usage that is not its own sum, or reports nothing for a request that used
/// something: `what` names the event.
fn judge_usage(s: &Streamed<'_>, what: &str, u: &StreamUsage) -> Result<(), Halt> {
    if u.total_tokens != u.input_tokens + u.output_tokens {
        return Err(s.fail(format!(
            "{what} usage: total_tokens {} is not input_tokens {} + output_tokens {}",
            u.total_tokens, u.input_tokens, u.output_tokens
        )));
    }
    if u.total_tokens == 0 {
        return Err(s.fail(format!(
            "{what} usage is 0 tokens in and out, for a request that was answered with media \
             (a client billing by usage sees it as free)"
        )));
    }
    Ok(())
}

fn b64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(text)
}

/// The speech stream's request: the model, its format, the streamed spec, the same request
/// without `stream_format`, and its price.
pub(crate) struct SpeechAsk {
    pub model: String,
    pub format: &'static str,
    pub streamed: RequestSpec,
    pub plain: RequestSpec,
    pub quota: i64,
}

/// The sentence every speech stream carries.
const SPEECH_INPUT: &str = "The stream carries this sentence as audio, part by part (gatecheck).";

/// The speech request of `stream.speech` (and `usage.charged`): a model that may stream, in
/// mp3 or wav (the formats whose audio the runner parses).
pub(crate) fn speech_ask(ctx: &CheckCtx) -> Result<SpeechAsk, Halt> {
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
    let body = json!({
        "model": model, "input": SPEECH_INPUT, "voice": voice, "response_format": format,
    });
    let mut streamed = body.clone();
    streamed["stream_format"] = json!("sse");
    let quota = ctx.price(
        &model,
        Usage {
            input_tokens: SPEECH_INPUT.len() as i64,
            ..Usage::one_request()
        },
    );
    Ok(SpeechAsk {
        model,
        format,
        streamed: RequestSpec::post("/v1/audio/speech")
            .auth(auth.clone())
            .json(streamed),
        plain: RequestSpec::post("/v1/audio/speech").auth(auth).json(body),
        quota,
    })
}

async fn speech(ctx: &CheckCtx) -> Outcome {
    let ask = speech_ask(ctx)?;
    let format = ask.format;
    let s = open(ctx, &ask.streamed, ask.quota, &SPEECH).await?;
    let judged = judge_events(&s)?;
    let mut audio = Vec::new();
    for e in &judged.events {
        match e {
            StreamEvent::SpeechAudioDelta { audio: part } => audio.extend(
                b64(part).map_err(|e| s.fail(format!("a delta's audio is not base64: {e}")))?,
            ),
            StreamEvent::SpeechAudioDone { usage } => judge_usage(&s, "speech.audio.done", usage)?,
            _ => {}
        }
    }
    let parsed = match format {
        "mp3" => parse_mp3(&audio).map(|_| ()),
        _ => parse_wav(&audio).map(|_| ()),
    };
    if let Err(e) = parsed {
        return Err(s.fail(format!(
            "the {} bytes of the deltas, concatenated, are not {format} audio: {e}",
            audio.len()
        )));
    }
    let file = same_file(&s, &ask, &audio).await?;
    judged.schema_deviation(&s)?;
    Ok(Pass {
        cases: 1,
        note: Some(format!("{}; {file}", s.note())),
    })
}

/// The joined deltas against the file the same request answers without streaming, where the
/// target proves that file deterministic: two non-streamed answers, byte for byte the same. A
/// TTS model may draw each answer anew; then only the format is judged (above), and the note
/// says so.
async fn same_file(s: &Streamed<'_>, ask: &SpeechAsk, audio: &[u8]) -> Result<String, Halt> {
    let ctx = s.ctx;
    let first = ctx.send(&ask.plain, ask.quota).await?;
    if !accepted(&first) {
        return Ok(format!(
            "the non-streamed request was answered {}: the deltas were not compared with a file",
            answer_summary(&first)
        ));
    }
    let second = ctx.send(&ask.plain, ask.quota).await?;
    if !accepted(&second) || second.body != first.body {
        return Ok(
            "two non-streamed answers differ (the model is not deterministic): the \
                   deltas were compared by format only"
                .to_owned(),
        );
    }
    let file = &first.body[..];
    if audio == file {
        return Ok(format!(
            "the deltas join to the {} bytes of the file",
            file.len()
        ));
    }
    let at = audio
        .iter()
        .zip(file)
        .position(|(a, b)| a != b)
        .unwrap_or(audio.len().min(file.len()));
    let related = ctx.related("the same request, not streamed", &ask.plain, &first);
    let mut halt = s.fail(format!(
        "the deltas join to {} bytes that differ from the {} bytes of the file the same \
         request answers without streaming (identical twice) from byte {at}: a delta was \
         dropped, repeated or changed",
        audio.len(),
        file.len()
    ));
    if let Halt::Finding(ev) = &mut halt {
        ev.related.push(related);
    }
    Err(halt)
}

async fn speech_refused(ctx: &CheckCtx) -> Outcome {
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
        id::D_STREAM_1,
        format!("{model} may not stream speech, but a request to stream it was answered: {how} (D-STREAM-1)"),
        &spec,
        Some(ex),
    ))
}

async fn transcription(ctx: &CheckCtx) -> Outcome {
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
        let judged = judge_events(&s)?;
        judge_transcript(&s, &judged.events, *diarized)?;
        judged.schema_deviation(&s)?;
        notes.push(format!("{model}: {}", s.note()));
    }
    Ok(Pass {
        cases: cases.len() as u32,
        note: Some(notes.join("; ")),
    })
}

/// A transcription stream's content: the deltas concatenate to the done text, and its token
/// usage is its parts' sum and not zero (failures); each segment (`transcript.text.segment`)
/// has a unique id and starts no later than it ends; a diarized stream (`diarized_json`) has
/// at least one segment, and the deltas that name a segment come before it (deviations from
/// the shape's row: the segments are D-STREAM-5's).
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
                return Err(s.fail(format!(
                    "the deltas concatenate to \"{}\", but transcript.text.done has \"{}\"",
                    truncate(&deltas, 120),
                    truncate(text, 120)
                )));
            }
            StreamEvent::TranscriptTextDone { usage: Some(u), .. } if u.kind == "tokens" => {
                let tokens = StreamUsage {
                    input_tokens: u.input_tokens.unwrap_or(0),
                    output_tokens: u.output_tokens.unwrap_or(0),
                    total_tokens: u.total_tokens.unwrap_or(0),
                };
                judge_usage(s, "transcript.text.done", &tokens)?;
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

/// The image stream's request: the model, its size, the spec and its price.
pub(crate) fn images_ask(ctx: &CheckCtx) -> Result<(String, String, RequestSpec, i64), Halt> {
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
    let quota = ctx.price(&model, Usage::one_request());
    Ok((model, size, spec, quota))
}

async fn images(ctx: &CheckCtx) -> Outcome {
    let (_, size, spec, quota) = images_ask(ctx)?;
    let partials = PARTIALS.min(MAX_PARTIAL_IMAGES);
    let s = open(ctx, &spec, quota, &IMAGES).await?;
    let judged = judge_events(&s)?;
    let mut seen = 0i64;
    let mut dims: Vec<(String, (u32, u32))> = Vec::new();
    for e in &judged.events {
        let (what, b64_json, declared) = match e {
            StreamEvent::ImagePartial {
                b64_json,
                size,
                partial_image_index,
                ..
            } => {
                if *partial_image_index != seen {
                    return Err(s.fail(format!(
                        "partial image {} has partial_image_index {partial_image_index}",
                        seen + 1
                    )));
                }
                seen += 1;
                if seen > partials {
                    return Err(s.fail(format!(
                        "{seen} partial images for partial_images {partials}"
                    )));
                }
                (format!("partial image {seen}"), b64_json, size)
            }
            StreamEvent::ImageCompleted {
                b64_json,
                usage,
                size,
                ..
            } => {
                judge_usage(&s, "image_generation.completed", usage)?;
                ("the completed image".to_owned(), b64_json, size)
            }
            _ => continue,
        };
        let bytes = b64(b64_json).map_err(|e| s.fail(format!("{what} is not base64: {e}")))?;
        let png = decoded_png(&bytes)
            .map_err(|e| s.fail(format!("{what} is not a PNG that decodes: {e}")))?;
        let got = (png.width, png.height);
        if parse_size(declared) != Some(got) {
            return Err(s.fail(format!(
                "{what} is a {}x{} PNG, but its event declares size {declared}",
                got.0, got.1
            )));
        }
        dims.push((what, got));
    }
    judge_sizes(&s, &dims, &size)?;
    judged.schema_deviation(&s)?;
    Ok(Pass {
        cases: 1,
        note: Some(s.note()),
    })
}

/// The sizes of a stream's images (partials first, the completed image last): each partial
/// the size of the final image (a failure: they are renderings of one image), the final image
/// the requested size (a deviation: a model may round sizes, D-MEDIA).
fn judge_sizes(s: &Streamed<'_>, dims: &[(String, (u32, u32))], size: &str) -> Result<(), Halt> {
    let Some((_, last)) = dims.last() else {
        return Ok(());
    };
    if let Some((what, d)) = dims.iter().find(|(_, d)| d != last) {
        return Err(s.fail(format!(
            "{what} is {}x{}, the completed image {}x{}: the partials render the same image",
            d.0, d.1, last.0, last.1
        )));
    }
    if parse_size(size) != Some(*last) {
        return Err(s.deviate(format!(
            "the completed image is {}x{} for size {size}",
            last.0, last.1
        )));
    }
    Ok(())
}
