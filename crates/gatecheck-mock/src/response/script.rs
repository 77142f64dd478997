//! Scripted streams: a library user decides the events, the timing and a cut of the streamed
//! answers of one route (and optionally one model), for the next N matching requests or until
//! the mock is reset.
//!
//! A script replaces only the events of an answer the mock streams: the request is admitted
//! (key, model, validation, charge) as without the script, and a request that would not stream
//! is not affected. Scripted events are not validated (a malformed one may be scripted on
//! purpose), only framed as server-sent events. Each script's events are framed once, when it
//! is built; a stream sends them from the shared script, so a streamed answer holds one event
//! at a time whatever the number of requests.

use crate::config::StreamPacing;
use crate::harness::faults::route_matches;
use bytes::{BufMut, Bytes, BytesMut};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One scripted event, framed, and the wait before it.
#[derive(Debug, Clone)]
pub(crate) struct ScriptedFrame {
    /// The wait before the event (`None`: the script's gap).
    pub(crate) wait: Option<Duration>,
    /// `event: <name>\ndata: <line>\n…\n\n`.
    pub(crate) bytes: Bytes,
}

/// The script of the streamed answers of one route (and optionally one model), installed with
/// [`MockServer::script_stream`](crate::MockServer::script_stream): its events, the waits
/// before them and a cut, for the next N matching answers or until the mock is reset.
///
/// A script replaces only the events of an answer the mock streams: the request is admitted
/// (key, model, validation, charge) as without it. Scripted events are not validated (a
/// malformed one may be scripted on purpose), only framed as server-sent events, each line of
/// their data a `data:` line. They are framed once, when the script is built, and shared by
/// every answer that plays it.
///
/// ```
/// use gatecheck_mock::{StreamPacing, StreamScript};
/// use serde_json::json;
/// use std::time::Duration;
/// let script = StreamScript::new("POST /v1/audio/transcriptions")
///     .model("gpt-4o-mini-transcribe")
///     .event("transcript.text.delta", &json!({"type": "transcript.text.delta", "delta": "Hi"}))
///     .wait(Duration::from_millis(200))
///     .event_text("transcript.text.delta", "{\"type\": \"transcript.te")
///     .data("[DONE]")
///     .cut_after(2)
///     .times(1);
/// assert_eq!(script.len(), 3);
/// assert_eq!(script.pacing_of(), None);
/// ```
#[derive(Debug, Clone)]
pub struct StreamScript {
    route: String,
    model: Option<String>,
    frames: Vec<ScriptedFrame>,
    gap: Option<Duration>,
    next_wait: Option<Duration>,
    cut_after: Option<u32>,
    times: Option<u32>,
    pacing: Option<StreamPacing>,
}

impl StreamScript {
    /// A script for the streamed answers of `route`: a pattern as in
    /// [`Fault::on`](crate::Fault::on) (`POST /v1/audio/speech`, `/v1/images/*`).
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/images/generations");
    /// assert!(script.is_empty());
    /// ```
    pub fn new(route: impl Into<String>) -> Self {
        Self {
            route: route.into(),
            model: None,
            frames: Vec::new(),
            gap: None,
            next_wait: None,
            cut_after: None,
            times: None,
            pacing: None,
        }
    }

    /// Only for requests for `model` (the request's `model` field).
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech").model("gpt-4o-mini-tts");
    /// # let _ = script;
    /// ```
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Adds the event `event: <name>` whose data is `data`, serialized on one line.
    ///
    /// ```
    /// use serde_json::json;
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech")
    ///     .event("speech.audio.done", &json!({"type": "speech.audio.done"}));
    /// assert_eq!(script.len(), 1);
    /// ```
    pub fn event(self, name: &str, data: &serde_json::Value) -> Self {
        let text = serde_json::to_string(data).unwrap_or_default();
        self.push(Some(name), &text)
    }

    /// Adds the event `event: <name>` whose data is `text`, as it is (not checked: it may be
    /// malformed JSON on purpose); each line of `text` becomes a `data:` line.
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech")
    ///     .event_text("speech.audio.delta", "{\"type\": \"speech.au");
    /// assert_eq!(script.len(), 1);
    /// ```
    pub fn event_text(self, name: &str, text: &str) -> Self {
        self.push(Some(name), text)
    }

    /// Adds an event without an `event:` line whose data is `text` (`[DONE]`, or data-only
    /// JSON as new-api relays speech).
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/images/generations").data("[DONE]");
    /// assert_eq!(script.len(), 1);
    /// ```
    pub fn data(self, text: &str) -> Self {
        self.push(None, text)
    }

    /// The wait before the next event added (instead of the gap).
    ///
    /// ```
    /// use std::time::Duration;
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech")
    ///     .wait(Duration::from_secs(1))
    ///     .data("{}");
    /// # let _ = script;
    /// ```
    pub fn wait(mut self, by: Duration) -> Self {
        self.next_wait = Some(by);
        self
    }

    /// The wait between two events that have no [`StreamScript::wait`] of their own (default:
    /// the server's [`stream_event_gap`](crate::MockConfig::stream_event_gap)). The first
    /// event is sent at once unless it has a wait.
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech")
    ///     .gap(std::time::Duration::from_millis(40));
    /// # let _ = script;
    /// ```
    pub fn gap(mut self, gap: Duration) -> Self {
        self.gap = Some(gap);
        self
    }

    /// Closes the connection after `n` events (without the rest, without a terminal chunk):
    /// `cut_after(0)` sends none; a script of `n` events or fewer ends normally.
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech").cut_after(2);
    /// # let _ = script;
    /// ```
    pub fn cut_after(mut self, n: u32) -> Self {
        self.cut_after = Some(n);
        self
    }

    /// Applies to the next `n` matching streamed answers only (default: every one, until the
    /// script is removed or the mock reset).
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::new("POST /v1/audio/speech").times(1);
    /// # let _ = script;
    /// ```
    pub fn times(mut self, n: u32) -> Self {
        self.times = Some(n);
        self
    }

    /// Measures the waits on wall time or on the mock's clock (default: the server's
    /// [`stream_pacing`](crate::MockConfig::stream_pacing)).
    ///
    /// ```
    /// use gatecheck_mock::{StreamPacing, StreamScript};
    /// let script = StreamScript::new("POST /v1/audio/speech").pacing(StreamPacing::Clock);
    /// assert_eq!(script.pacing_of(), Some(StreamPacing::Clock));
    /// ```
    pub fn pacing(mut self, pacing: StreamPacing) -> Self {
        self.pacing = Some(pacing);
        self
    }

    /// The pacing the script asks for, if any.
    ///
    /// ```
    /// assert_eq!(gatecheck_mock::StreamScript::new("*").pacing_of(), None);
    /// ```
    pub fn pacing_of(&self) -> Option<StreamPacing> {
        self.pacing
    }

    /// The number of events.
    ///
    /// ```
    /// assert_eq!(gatecheck_mock::StreamScript::new("*").data("x").len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the script has no event.
    ///
    /// ```
    /// assert!(gatecheck_mock::StreamScript::new("*").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    fn push(mut self, name: Option<&str>, text: &str) -> Self {
        let mut out = BytesMut::with_capacity(text.len() + 32);
        if let Some(name) = name {
            out.put_slice(b"event: ");
            // One line: a name with a line break would start another field.
            out.put_slice(name.replace(['\r', '\n'], " ").as_bytes());
            out.put_u8(b'\n');
        }
        for line in text.split('\n') {
            out.put_slice(b"data: ");
            out.put_slice(line.strip_suffix('\r').unwrap_or(line).as_bytes());
            out.put_u8(b'\n');
        }
        out.put_u8(b'\n');
        self.frames.push(ScriptedFrame {
            wait: self.next_wait.take(),
            bytes: out.freeze(),
        });
        self
    }
}

/// A script as one streamed answer plays it.
#[derive(Debug, Clone)]
pub(crate) struct Playing {
    /// The framed events, shared with the installed script.
    pub(crate) frames: Arc<[ScriptedFrame]>,
    /// The default wait between events, when the script sets one.
    pub(crate) gap: Option<Duration>,
    /// The connection is closed after this many events.
    pub(crate) cut_after: Option<u32>,
    /// The script's pacing, when it sets one.
    pub(crate) pacing: Option<StreamPacing>,
}

#[derive(Debug)]
struct Installed {
    route: String,
    model: Option<String>,
    times: Option<u32>,
    played: u32,
    playing: Playing,
}

/// The installed scripts.
#[derive(Debug, Default)]
pub(crate) struct StreamScripts {
    inner: Mutex<Vec<Installed>>,
    /// Whether any script is installed (the common path takes no lock).
    armed: AtomicBool,
}

impl StreamScripts {
    /// Installs `script` (after the others: the first that matches plays).
    pub(crate) fn add(&self, script: StreamScript) {
        self.inner.lock().push(Installed {
            route: script.route,
            model: script.model,
            times: script.times,
            played: 0,
            playing: Playing {
                frames: script.frames.into(),
                gap: script.gap,
                cut_after: script.cut_after,
                pacing: script.pacing,
            },
        });
        self.armed.store(true, Ordering::Release);
    }

    /// Removes every script.
    pub(crate) fn clear(&self) {
        self.inner.lock().clear();
        self.armed.store(false, Ordering::Release);
    }

    /// The script the streamed answer to `method path` for `model` plays, if any: the first
    /// installed that matches and has plays left (a spent one is removed).
    pub(crate) fn take(&self, method: &str, path: &str, model: &str) -> Option<Playing> {
        if !self.armed.load(Ordering::Acquire) {
            return None;
        }
        let mut scripts = self.inner.lock();
        let at = scripts.iter().position(|s| {
            route_matches(&s.route, method, path) && s.model.as_deref().is_none_or(|m| m == model)
        })?;
        let script = &mut scripts[at];
        script.played += 1;
        let playing = script.playing.clone();
        if script.times.is_some_and(|t| script.played >= t) {
            scripts.remove(at);
        }
        self.armed.store(!scripts.is_empty(), Ordering::Release);
        Some(playing)
    }

    /// How many scripts are installed.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.inner.lock().len()
    }
}

impl StreamScript {
    /// A [`StreamScript`] from the JSON of `POST /__mock/streams`:
    ///
    /// ```json
    /// {"route": "POST /v1/audio/speech", "model": "tts-1",
    ///  "events": [{"event": "speech.audio.delta", "data": {"type": "speech.audio.delta"}},
    ///             {"wait_ms": 300, "data": "[DONE]"}],
    ///  "gap_ms": 40, "cut_after": 1, "times": 1, "pacing": "clock"}
    /// ```
    ///
    /// An event's `data` is sent as it is when it is a string, else as its JSON; `event` names it
    /// (an `event:` line), `wait_ms` is the wait before it. Only `route` is required.
    ///
    /// ```
    /// let script = gatecheck_mock::StreamScript::from_json(&serde_json::json!({
    ///     "route": "POST /v1/audio/speech",
    ///     "events": [{"event": "e", "data": {"a": 1}}, {"wait_ms": 5, "data": "[DONE]"}],
    ///     "cut_after": 1, "times": 2, "pacing": "wall",
    /// })).unwrap();
    /// assert_eq!(script.len(), 2);
    /// assert!(gatecheck_mock::StreamScript::from_json(&serde_json::json!({})).is_err());
    /// ```
    pub fn from_json(v: &serde_json::Value) -> Result<StreamScript, String> {
        from_json(v)
    }
}

/// The body of [`StreamScript::from_json`].
fn from_json(v: &serde_json::Value) -> Result<StreamScript, String> {
    let field_u32 = |name: &str| -> Result<Option<u32>, String> {
        match v.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("{name} must be a whole number, not {n}")),
        }
    };
    let ms = |e: &serde_json::Value, name: &str| -> Result<Option<Duration>, String> {
        match e.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(n) => n
                .as_u64()
                .map(|ms| Some(Duration::from_millis(ms)))
                .ok_or_else(|| format!("{name} must be milliseconds, not {n}")),
        }
    };
    let route = v
        .get("route")
        .and_then(|r| r.as_str())
        .ok_or("route (a string such as \"POST /v1/audio/speech\") is required")?;
    let mut script = StreamScript::new(route);
    if let Some(model) = v.get("model").and_then(|m| m.as_str()) {
        script = script.model(model);
    }
    let events = match v.get("events") {
        None | Some(serde_json::Value::Null) => &[][..],
        Some(serde_json::Value::Array(list)) => &list[..],
        Some(other) => return Err(format!("events must be a list, not {other}")),
    };
    for e in events {
        if let Some(wait) = ms(e, "wait_ms")? {
            script = script.wait(wait);
        }
        let text = match e.get("data") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => return Err(format!("an event needs its data: {e}")),
        };
        script = match e.get("event").and_then(|n| n.as_str()) {
            Some(name) => script.event_text(name, &text),
            None => script.data(&text),
        };
    }
    if let Some(gap) = ms(v, "gap_ms")? {
        script = script.gap(gap);
    }
    if let Some(n) = field_u32("cut_after")? {
        script = script.cut_after(n);
    }
    if let Some(n) = field_u32("times")? {
        script = script.times(n);
    }
    if let Some(p) = v.get("pacing").and_then(|p| p.as_str()) {
        let pacing =
            StreamPacing::parse(p).ok_or_else(|| format!("pacing is wall or clock, not {p}"))?;
        script = script.pacing(pacing);
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_match_route_and_model_and_are_spent() {
        let set = StreamScripts::default();
        set.add(
            StreamScript::new("POST /v1/audio/speech")
                .model("m1")
                .data("1")
                .times(2),
        );
        set.add(StreamScript::new("/v1/audio/*").data("2"));
        let get = set.take("GET", "/v1/audio/speech", "m1").unwrap();
        assert_eq!(
            &get.frames[0].bytes[..],
            b"data: 2\n\n",
            "the route-only script"
        );
        let first = set.take("POST", "/v1/audio/speech", "m1").unwrap();
        assert_eq!(&first.frames[0].bytes[..], b"data: 1\n\n");
        let other = set.take("POST", "/v1/audio/speech", "m2").unwrap();
        assert_eq!(&other.frames[0].bytes[..], b"data: 2\n\n");
        assert!(set.take("POST", "/v1/audio/speech", "m1").is_some());
        assert_eq!(set.len(), 1, "spent after two plays");
        set.clear();
        assert!(set.take("POST", "/v1/audio/speech", "m1").is_none());
    }

    #[test]
    fn text_is_framed_line_by_line() {
        let s = StreamScript::new("*")
            .event_text("a\nb", "x\r\ny")
            .wait(Duration::from_secs(1))
            .data("");
        assert_eq!(&s.frames[0].bytes[..], b"event: a b\ndata: x\ndata: y\n\n");
        assert_eq!(s.frames[0].wait, None);
        assert_eq!(&s.frames[1].bytes[..], b"data: \n\n");
        assert_eq!(s.frames[1].wait, Some(Duration::from_secs(1)));
    }
}
