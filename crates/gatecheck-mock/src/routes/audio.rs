//! `/v1/audio/*`: translations, transcriptions (multipart) and speech (JSON).
//!
//! - `POST /v1/audio/translations`, `POST /v1/audio/transcriptions`: `file` (one of the nine
//!   extensions, not empty) and `model` (a catalog model with that capability) are required;
//!   `temperature` within `[0, 1]`; `response_format` one of `json`, `text`, `srt`,
//!   `verbose_json`, `vtt`. The text and the duration come from the file
//!   ([`crate::media::transcribe`]).
//! - `POST /v1/audio/speech`: `input` of 1 to 4096 characters, `voice` one of the model's,
//!   `response_format` one of the model's formats (default mp3), `speed` within [0.25, 4].
//!
//! Streaming (DECISIONS D-STREAM): speech with `stream_format: "sse"` answers
//! `speech.audio.delta` events whose audio concatenates to the file of the non-streamed
//! answer, then `speech.audio.done` with `usage` (not for `tts-1`, `tts-1-hd`); a
//! transcription with `stream=true` answers one `transcript.text.delta` per word, then
//! `transcript.text.done` with the whole text and `usage` (`whisper-1` ignores `stream`); a
//! diarization model asked for `response_format=diarized_json` also sends each segment as a
//! `transcript.text.segment` after its deltas (D-STREAM-5; the streams are in [`stream`]).
//! The `new-api` profile frames speech events as `data:` lines only and sends a transcription
//! stream whole, with its length (as new-api relays them).
//!
//! Validation failures are [`response::validation`]: 400, or 500 `invalid_request` in the
//! `new-api` profile.

mod stream;

use super::ctx::Ctx;
use super::fields::Field;
use super::form;
use crate::media::{self, SpeechFormat, Transcript};
use crate::response::{self, MockResponse};
use bytes::Bytes;
use gatecheck_codecs::multipart::Rope;
use gatecheck_schemas::rules::media::{
    speech_sse_supported, transcription_diarizes, transcription_streams, DIARIZED_JSON,
    MAX_SPEECH_INPUT_CHARS, SPEECH_SPEED,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::types::{TranscriptFormat, AUDIO_EXTENSIONS};
use http::Request;
use hyper::body::Incoming;
use serde_json::json;

/// `POST /v1/audio/translations` (`translate`) and `POST /v1/audio/transcriptions`
/// (admitted).
pub(crate) async fn transcription(
    cx: &Ctx,
    req: Request<Incoming>,
    translate: bool,
) -> MockResponse {
    transcribe(cx, req, translate)
        .await
        .unwrap_or_else(|resp| resp)
}

/// `POST /v1/audio/speech` (admitted).
pub(crate) async fn speech(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    speak(cx, req).await.unwrap_or_else(|resp| resp)
}

/// The multipart fields of a transcription request.
#[derive(Debug, Default)]
struct Form {
    model: Option<String>,
    file: Option<(String, Rope)>,
    prompt: Option<String>,
    response_format: Option<String>,
    temperature: Option<String>,
    language: Option<String>,
    stream: Option<String>,
}

impl Form {
    /// Keeps a part the routes read; any other is ignored.
    fn set(&mut self, name: &str, filename: Option<String>, data: Rope) {
        let text = || form::text(&data);
        match name {
            "file" => self.file = Some((filename.unwrap_or_default(), data.clone())),
            "model" => self.model = Some(text()),
            "prompt" => self.prompt = Some(text()),
            "response_format" => self.response_format = Some(text()),
            "temperature" => self.temperature = Some(text()),
            "language" => self.language = Some(text()),
            "stream" => self.stream = Some(text()),
            _ => {}
        }
    }
}

async fn read_form(cx: &Ctx, req: Request<Incoming>) -> Result<Form, MockResponse> {
    let mut form = Form::default();
    form::read_form(cx, req, |name, filename, data| {
        form.set(name, filename, data)
    })
    .await?;
    Ok(form)
}

fn parse_format(s: Option<&str>) -> Option<TranscriptFormat> {
    match s.map(str::trim) {
        None | Some("") => Some(TranscriptFormat::Json),
        Some(s) => TranscriptFormat::ALL.into_iter().find(|f| f.as_str() == s),
    }
}

/// A transcription or translation (`translate`): the form checked in the order new-api
/// checks it, the file transcribed, the usage charged, then the text streamed or rendered.
async fn transcribe(
    cx: &Ctx,
    req: Request<Incoming>,
    translate: bool,
) -> Result<MockResponse, MockResponse> {
    let form = read_form(cx, req).await?;
    let model = cx.required_model(form.model.as_deref())?;
    check_capable(cx, &model, translate)?;
    let (bytes, ext) = audio_file(cx, form.file)?;
    let temperature = temperature(cx, form.temperature.as_deref())?;
    let (format, diarized) = output_format(cx, form.response_format.as_deref(), &model, translate)?;
    let _ = form.prompt; // optional style prompt: accepted, does not change the mock's text
    let stream = stream_wanted(cx, form.stream.as_deref(), &model, translate)?;

    let transcript = media::transcribe_of(&bytes, &ext);
    let usage = transcript_usage(&transcript);
    if diarized && !stream {
        return Err(invalid(
            cx,
            &format!("the mock serves response_format {DIARIZED_JSON} streamed only (stream=true)"),
            "response_format",
        ));
    }
    cx.charge(cx.price(&model, usage))?;
    if stream {
        return Ok(stream::stream_transcript(
            cx, &model, transcript, usage, diarized,
        ));
    }
    let language = if translate {
        "english".to_owned()
    } else {
        form.language
            .filter(|l| !l.trim().is_empty())
            .unwrap_or_else(|| "english".to_owned())
    };
    Ok(render(
        &transcript,
        format,
        translate,
        &language,
        temperature,
    ))
}

/// A validation failure of the transcription form, on `param`.
fn invalid(cx: &Ctx, msg: &str, param: &str) -> MockResponse {
    response::validation(cx.profile(), msg, Some(param))
}

/// The model is in the catalog with the capability the route needs.
fn check_capable(cx: &Ctx, model: &str, translate: bool) -> Result<(), MockResponse> {
    let capable = cx
        .catalog()
        .capabilities(model)
        .and_then(|c| c.transcription.as_ref())
        .is_some_and(|t| {
            if translate {
                t.translation
            } else {
                t.transcription
            }
        });
    if capable {
        return Ok(());
    }
    let route = if translate {
        "translation"
    } else {
        "transcription"
    };
    Err(invalid(
        cx,
        &format!("model {model} is not a speech model that supports {route}"),
        "model",
    ))
}

/// The `file` field: present, of one of the audio extensions, not empty. Returns its bytes
/// and its extension in lower case.
///
/// The `new-api` profile answers as 823e263 does (DECISIONS NA15, seen built and run behind
/// the mock): a missing file is the conversion's 500 `convert_request_failed`, and a file
/// named with an extension new-api cannot measure (`.mpga`, `.mpeg`, `.txt`) the duration
/// measurement's 500 `count_token_failed`, before the spec's own extension list.
fn audio_file(cx: &Ctx, file: Option<(String, Rope)>) -> Result<(Rope, String), MockResponse> {
    use gatecheck_schemas::rules::media::{
        new_api_unmeasured, NEW_API_UNMEASURED_CODE, NEW_API_UNMEASURED_STATUS,
    };
    use gatecheck_schemas::rules::rejection::NEW_API_UPLOAD_CODES;
    let new_api = cx.profile() == gatecheck_schemas::Profile::NewApi;
    let Some((filename, bytes)) = file else {
        if new_api {
            let code = NEW_API_UPLOAD_CODES[0];
            return Err(response::v1_error(
                500,
                "file is required",
                Some(code),
                None,
            ));
        }
        return Err(invalid(cx, "file is required", "file"));
    };
    if let Some(message) = new_api_unmeasured(&filename).filter(|_| new_api) {
        let code = Some(NEW_API_UNMEASURED_CODE);
        return Err(response::v1_error(
            NEW_API_UNMEASURED_STATUS,
            &message,
            code,
            None,
        ));
    }
    let ext = filename
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if !AUDIO_EXTENSIONS.contains(&ext.as_str()) {
        return Err(invalid(
            cx,
            &format!(
                "unsupported file format {:?}; supported formats: {}",
                filename,
                AUDIO_EXTENSIONS.join(", ")
            ),
            "file",
        ));
    }
    if bytes.is_empty() {
        return Err(invalid(cx, "the audio file is empty", "file"));
    }
    Ok((bytes, ext))
}

/// A form field without the ASCII white space around it (`[ \t\n\x0c\r]`, what the OpenAPI
/// document's patterns allow).
fn trim_ascii(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// The `temperature` field: 0 when absent or blank.
fn temperature(cx: &Ctx, field: Option<&str>) -> Result<f64, MockResponse> {
    match field.map(trim_ascii) {
        None | Some("") => Ok(0.0),
        Some(t) => match t.parse::<f64>() {
            Ok(v) if gatecheck_schemas::rules::media::temperature_ok(v) => Ok(v),
            _ => Err(invalid(
                cx,
                "temperature must be a number from 0 to 1",
                "temperature",
            )),
        },
    }
}

/// The `response_format` field, and whether it asks for `diarized_json` (D-STREAM-5:
/// diarization models, streamed; its events carry JSON).
fn output_format(
    cx: &Ctx,
    field: Option<&str>,
    model: &str,
    translate: bool,
) -> Result<(TranscriptFormat, bool), MockResponse> {
    let diarized = field.map(str::trim) == Some(DIARIZED_JSON);
    if diarized && (translate || !transcription_diarizes(model)) {
        return Err(invalid(
            cx,
            &format!("response_format {DIARIZED_JSON} is only supported by diarization models"),
            "response_format",
        ));
    }
    let format = if diarized {
        Some(TranscriptFormat::Json)
    } else {
        parse_format(field)
    };
    match format {
        Some(format) => Ok((format, diarized)),
        None => Err(invalid(
            cx,
            "response_format must be one of json, text, srt, verbose_json, vtt",
            "response_format",
        )),
    }
}

/// The `stream` field: a field of transcriptions only (translations have none: ignored
/// there); `true` streams where the model streams.
fn stream_wanted(
    cx: &Ctx,
    field: Option<&str>,
    model: &str,
    translate: bool,
) -> Result<bool, MockResponse> {
    match field.map(trim_ascii) {
        _ if translate => Ok(false),
        None | Some("") => Ok(false),
        Some(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(s) if s.eq_ignore_ascii_case("true") => Ok(transcription_streams(model)),
        Some(_) => Err(invalid(cx, "stream must be true or false", "stream")),
    }
}

/// What a transcript costs: one request, its seconds, a token per 100 ms in (at least one)
/// and a token per word out.
fn transcript_usage(transcript: &Transcript) -> Usage {
    let words: usize = transcript.segments.iter().map(|s| s.tokens.len()).sum();
    Usage {
        requests: 1,
        seconds: transcript.duration_ms as f64 / 1000.0,
        input_tokens: (transcript.duration_ms as i64).div_euclid(100).max(1),
        output_tokens: words as i64,
    }
}

fn render(
    t: &Transcript,
    format: TranscriptFormat,
    translate: bool,
    language: &str,
    temperature: f64,
) -> MockResponse {
    match format {
        TranscriptFormat::Json => response::json(ACCEPTED, &json!({ "text": t.text })),
        TranscriptFormat::Text => response::bytes_response(
            200,
            "text/plain; charset=utf-8",
            Bytes::from(format!("{}\n", t.text)),
        ),
        TranscriptFormat::Srt => response::bytes_response(
            200,
            "text/plain; charset=utf-8",
            Bytes::from(media::srt(&t.segments)),
        ),
        TranscriptFormat::Vtt => response::bytes_response(
            200,
            "text/vtt; charset=utf-8",
            Bytes::from(media::vtt(&t.segments)),
        ),
        TranscriptFormat::VerboseJson => {
            let segments: Vec<_> = t
                .segments
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    json!({
                        "id": i,
                        "seek": s.start_ms / 10,
                        "start": s.start_ms as f64 / 1000.0,
                        "end": s.end_ms as f64 / 1000.0,
                        "text": format!(" {}", s.text),
                        "tokens": s.tokens,
                        "temperature": temperature,
                        "avg_logprob": -0.25,
                        "compression_ratio": 1.25,
                        "no_speech_prob": 0.01,
                    })
                })
                .collect();
            response::json(
                200,
                &json!({
                    "task": if translate { "translate" } else { "transcribe" },
                    "language": language,
                    "duration": t.duration_ms as f64 / 1000.0,
                    "text": t.text,
                    "segments": segments,
                }),
            )
        }
    }
}

async fn speak(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let invalid = |msg: &str, param: &str| response::validation(cx.profile(), msg, Some(param));
    let body = cx.read_body(req).await?;
    let (v, model, cap) = cx.json_model(&body, |c| c.speech.as_ref(), "a text-to-speech model")?;
    let field = |k: &str| v.get(k).and_then(|x| x.as_str());
    let input = field("input").unwrap_or("");
    let chars = input.chars().count();
    if chars == 0 || chars > MAX_SPEECH_INPUT_CHARS {
        return Err(invalid(
            &format!("input must be 1 to {MAX_SPEECH_INPUT_CHARS} characters (got {chars})"),
            "input",
        ));
    }
    let voice = field("voice").unwrap_or("");
    if !cap.voices.iter().any(|x| x == voice) {
        return Err(invalid(
            &format!("voice {voice:?} is not one of {}", cap.voices.join(", ")),
            "voice",
        ));
    }
    let format_name = match v.get("response_format") {
        None | Some(Field::Null) => "mp3",
        Some(f) => f.as_str().unwrap_or("?"),
    };
    let format = SpeechFormat::parse(format_name)
        .filter(|f| cap.formats.iter().any(|x| x == f.as_str()))
        .ok_or_else(|| {
            invalid(
                &format!(
                    "response_format {format_name:?} is not one of {}",
                    cap.formats.join(", ")
                ),
                "response_format",
            )
        })?;
    let speed = match v.get("speed") {
        None | Some(Field::Null) => 1.0,
        Some(s) => match s.as_f64() {
            Some(x) if SPEECH_SPEED.contains(&x) => x,
            _ => {
                let (lo, hi) = (SPEECH_SPEED.start(), SPEECH_SPEED.end());
                return Err(invalid(
                    &format!("speed must be a number from {lo} to {hi}"),
                    "speed",
                ));
            }
        },
    };
    let stream = match v.get("stream_format") {
        None | Some(Field::Null) => false,
        Some(f) => match f.as_str() {
            Some("audio") => false,
            Some("sse") if speech_sse_supported(&model) => true,
            Some("sse") => {
                return Err(invalid(
                    &format!("stream_format sse is not supported for model {model}"),
                    "stream_format",
                ))
            }
            _ => {
                return Err(invalid(
                    "stream_format must be audio or sse",
                    "stream_format",
                ))
            }
        },
    };
    let ms = media::speech_duration_ms(input, speed);
    let usage = Usage {
        requests: 1,
        seconds: ms as f64 / 1000.0,
        input_tokens: chars as i64,
        output_tokens: (ms as i64).div_euclid(50).max(1),
    };
    cx.charge(cx.price(&model, usage))?;
    if stream {
        // Made part by part as the client reads (a stalled stream holds one part).
        let audio = media::SpeechParts::new(format, input, voice, speed);
        return Ok(stream::stream_speech(cx, &model, audio, usage));
    }
    let audio = media::speech(format, input, voice, speed);
    Ok(response::bytes_response(
        ACCEPTED,
        format.content_type(),
        audio,
    ))
}
