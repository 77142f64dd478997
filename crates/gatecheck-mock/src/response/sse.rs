//! Server-sent event answers: `text/event-stream` bodies produced event by event.
//!
//! A streamed answer is an [`SseBody`] over a lazy iterator of events: each event is built
//! (encoded, framed) only when the connection asks for the next frame, so memory stays that of
//! one event however many there are. A gap ([`crate::MockConfig::stream_event_gap`]) separates
//! events, in wall time or on the mock's clock ([`crate::StreamPacing`]: each event is sent
//! when the clock reaches its time); a script ([`crate::StreamScript`]) brings its own events,
//! waits and cut. The stream faults ([`crate::FaultKind::StreamCut`], `StreamStall`,
//! `StreamMalformed`) act on one event of it.
//!
//! Framing: `event: <type>\ndata: <json>\n\n` ([`Framing::Named`]), or `data: <json>\n\n`
//! ([`Framing::DataOnly`], what new-api's `StreamScannerHandler` re-emits), optionally followed
//! by `data: [DONE]\n\n`.

use crate::harness::clock::Clock;
use crate::harness::faults::FaultKind;
use bytes::{BufMut, Bytes, BytesMut};
use hyper::body::{Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// The content type of every streamed answer.
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// How long a stall fault without `ms` holds the stream (the client gives up first).
const MAX_STALL: Duration = Duration::from_secs(600);

/// How long a cut stream waits after its half event, so that it reaches the client before
/// the connection is closed.
const CUT_FLUSH: Duration = Duration::from_millis(50);

/// The error that ends a stream cut by a fault: the connection is closed mid-event.
#[derive(Debug, thiserror::Error)]
#[error("stream cut by fault")]
pub struct StreamCut;

/// How events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `event: <type>\ndata: <json>\n\n`.
    Named,
    /// `data: <json>\n\n`.
    DataOnly,
}

/// One event before framing: its type and its JSON data.
#[derive(Debug)]
pub(crate) struct Event {
    /// The `type` of the event (also its `event:` name).
    pub(crate) name: &'static str,
    /// The JSON data, one line.
    pub(crate) data: Vec<u8>,
}

impl Event {
    /// The event of `name` whose data is `value` serialized.
    pub(crate) fn json(name: &'static str, value: &serde_json::Value) -> Self {
        Self {
            name,
            data: serde_json::to_vec(value).unwrap_or_default(),
        }
    }
}

/// A stream fault aimed at one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aim {
    /// Send half of the event, then close the connection.
    Cut(u32),
    /// Wait this long before the event.
    Stall(u32, Duration),
    /// Send the event with its JSON cut in half.
    Malformed(u32),
}

impl Aim {
    fn of(kind: &FaultKind) -> Option<Self> {
        match *kind {
            FaultKind::StreamCut { event } => Some(Self::Cut(event)),
            FaultKind::StreamStall { event, ms } => Some(Self::Stall(
                event,
                ms.map_or(MAX_STALL, |ms| Duration::from_millis(ms).min(MAX_STALL)),
            )),
            FaultKind::StreamMalformed { event } => Some(Self::Malformed(event)),
            _ => None,
        }
    }
}

/// How a stream is sent.
#[derive(Debug, Clone)]
pub(crate) struct Pacing {
    /// The framing of each event.
    pub(crate) framing: Framing,
    /// Whether `data: [DONE]` ends the stream.
    pub(crate) done_marker: bool,
    /// The wait between two events.
    pub(crate) gap: Duration,
    /// The whole stream is built first and sent with a `Content-Length`, without gaps (an
    /// answer a gateway read whole before relaying it).
    pub(crate) buffered: bool,
    /// The waits are measured on this clock (each event is sent when the clock reaches its
    /// time, [`crate::StreamPacing::Clock`]); `None`: wall time.
    pub(crate) clock: Option<Clock>,
}

/// A framed event and the wait before it (`None`: the pacing's gap; none before the first).
type Paced = (Option<Duration>, Bytes);

/// The wait before the next event.
type Wait = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A `text/event-stream` body produced event by event.
pub struct SseBody {
    events: Box<dyn Iterator<Item = Paced> + Send>,
    pacing: Pacing,
    aim: Option<Aim>,
    /// The connection is closed after this many events (a script's cut).
    cut_after: Option<u32>,
    /// Index of the next event.
    index: u32,
    /// The next event, pulled before its wait.
    held: Option<Bytes>,
    wait: Option<Wait>,
    /// On clock pacing: the clock time (Unix ms) the last event was due at.
    due_ms: i64,
    /// The length of a buffered stream.
    exact: Option<u64>,
    /// The stream is cut (a fault sent its half event, or a script's cut was reached): the
    /// next poll ends the body with [`StreamCut`].
    cut: bool,
    finished: bool,
}

impl std::fmt::Debug for SseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseBody")
            .field("index", &self.index)
            .field("aim", &self.aim)
            .finish_non_exhaustive()
    }
}

/// Frames `event` as `pacing` says.
fn frame(event: &Event, framing: Framing) -> Bytes {
    let mut out = BytesMut::with_capacity(event.data.len() + event.name.len() + 16);
    if framing == Framing::Named {
        out.put_slice(b"event: ");
        out.put_slice(event.name.as_bytes());
        out.put_u8(b'\n');
    }
    out.put_slice(b"data: ");
    out.put_slice(&event.data);
    out.put_slice(b"\n\n");
    out.freeze()
}

/// `framed` with its JSON cut in half (still one well-framed SSE event, whose data is not
/// JSON).
fn malformed(framed: &Bytes) -> Bytes {
    let body = &framed[..framed.len().saturating_sub(2)];
    let start = body
        .windows(6)
        .position(|w| w == b"data: ")
        .map_or(0, |p| p + 6);
    let cut = start + (body.len() - start) / 2;
    let mut out = BytesMut::with_capacity(cut + 2);
    out.put_slice(&body[..cut]);
    out.put_slice(b"\n\n");
    out.freeze()
}

impl SseBody {
    /// A body sending `events` paced by `pacing`, with the stream fault `fault` if any.
    pub(crate) fn new(
        events: impl Iterator<Item = Event> + Send + 'static,
        pacing: Pacing,
        fault: Option<FaultKind>,
    ) -> Self {
        let framing = pacing.framing;
        let framed = events.map(move |e| (None, frame(&e, framing)));
        let done = pacing
            .done_marker
            .then(|| (None, Bytes::from_static(b"data: [DONE]\n\n")));
        Self::paced(Box::new(framed.chain(done)), pacing, fault, None)
    }

    /// A body playing a script's events (framed already, with their own waits), closed after
    /// `cut_after` of them if set.
    pub(crate) fn scripted(
        playing: crate::response::script::Playing,
        mut pacing: Pacing,
        fault: Option<FaultKind>,
    ) -> Self {
        pacing.gap = playing.gap.unwrap_or(pacing.gap);
        pacing.buffered = false;
        let frames = playing.frames;
        let events = (0..frames.len()).map(move |i| (frames[i].wait, frames[i].bytes.clone()));
        Self::paced(Box::new(events), pacing, fault, playing.cut_after)
    }

    fn paced(
        mut events: Box<dyn Iterator<Item = Paced> + Send>,
        mut pacing: Pacing,
        fault: Option<FaultKind>,
        cut_after: Option<u32>,
    ) -> Self {
        let aim = fault.as_ref().and_then(Aim::of);
        let mut exact = None;
        if pacing.buffered {
            // Built whole (as the gateway reads it whole), then sent with its length.
            let all: Vec<Paced> = events
                .enumerate()
                .map(|(i, (_, b))| match aim {
                    Some(Aim::Malformed(at)) if at as usize == i => (None, malformed(&b)),
                    _ => (None, b),
                })
                .collect();
            exact = Some(all.iter().map(|(_, b)| b.len() as u64).sum());
            events = Box::new(all.into_iter());
            pacing.gap = Duration::ZERO;
            pacing.clock = None;
        }
        let due_ms = pacing.clock.as_ref().map_or(0, Clock::now_ms);
        Self {
            events,
            pacing,
            aim,
            cut_after,
            index: 0,
            held: None,
            wait: None,
            due_ms,
            exact,
            cut: false,
            finished: false,
        }
    }

    /// The wait before event `index` (its own, or the gap; and a stall aimed at it, in wall
    /// time), or `None` when it is due at once.
    fn wait_before(&mut self, index: u32, own: Option<Duration>) -> Option<Wait> {
        let gap = own.unwrap_or(if index > 0 {
            self.pacing.gap
        } else {
            Duration::ZERO
        });
        let stall = match self.aim {
            Some(Aim::Stall(at, by)) if at == index => by,
            _ => Duration::ZERO,
        };
        match &self.pacing.clock {
            None => {
                let total = gap + stall;
                (!total.is_zero()).then(|| Box::pin(tokio::time::sleep(total)) as Wait)
            }
            Some(clock) => {
                let ms = i64::try_from(gap.as_millis()).unwrap_or(i64::MAX);
                self.due_ms = self.due_ms.saturating_add(ms);
                let (clock, due) = (clock.clone(), self.due_ms);
                (ms > 0 || !stall.is_zero()).then(|| {
                    Box::pin(async move {
                        clock.wait_until_ms(due).await;
                        tokio::time::sleep(stall).await;
                    }) as Wait
                })
            }
        }
    }

    /// Event `index` as sent, after the fault aimed at it.
    fn shape(&mut self, index: u32, bytes: Bytes) -> Bytes {
        match self.aim {
            Some(Aim::Cut(at)) if at == index => {
                self.cut = true;
                bytes.slice(..bytes.len() / 2)
            }
            Some(Aim::Malformed(at)) if at == index && !self.pacing.buffered => malformed(&bytes),
            _ => bytes,
        }
    }
}

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = StreamCut;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StreamCut>>> {
        let this = self.get_mut();
        if this.finished {
            return Poll::Ready(None);
        }
        if !this.cut && this.held.is_none() && this.cut_after == Some(this.index) {
            this.cut = true;
        }
        if this.cut {
            // What was sent is written before the connection is closed.
            let flush = this
                .wait
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(CUT_FLUSH)));
            if flush.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.finished = true;
            return Poll::Ready(Some(Err(StreamCut)));
        }
        if this.held.is_none() {
            let Some((own, next)) = this.events.next() else {
                this.finished = true;
                return Poll::Ready(None);
            };
            this.held = Some(next);
            this.wait = this.wait_before(this.index, own);
        }
        if let Some(wait) = this.wait.as_mut() {
            if wait.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.wait = None;
        }
        let index = this.index;
        this.index += 1;
        let bytes = this.held.take().unwrap_or_default();
        let bytes = this.shape(index, bytes);
        Poll::Ready(Some(Ok(Frame::data(bytes))))
    }

    fn is_end_stream(&self) -> bool {
        self.finished
    }

    fn size_hint(&self) -> SizeHint {
        match self.exact {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;
    use hyper::body::Body as _;

    fn events(n: usize) -> impl Iterator<Item = Event> + Send {
        (0..n).map(|i| Event::json("x.delta", &serde_json::json!({ "type": "x.delta", "i": i })))
    }

    fn pacing(framing: Framing, buffered: bool) -> Pacing {
        Pacing {
            framing,
            done_marker: false,
            gap: Duration::ZERO,
            buffered,
            clock: None,
        }
    }

    #[tokio::test]
    async fn events_are_framed_one_per_frame() {
        let body = SseBody::new(events(3), pacing(Framing::Named, false), None);
        let bytes = body.collect().await.expect("no cut").to_bytes();
        let text = std::str::from_utf8(&bytes).expect("utf-8");
        assert_eq!(text.matches("event: x.delta\ndata: {").count(), 3, "{text}");
        assert!(text.ends_with("}\n\n"));
    }

    #[tokio::test]
    async fn buffered_streams_have_their_length_and_cuts_end_in_an_error() {
        let body = SseBody::new(events(3), pacing(Framing::DataOnly, true), None);
        let len = body.size_hint().exact().expect("exact");
        assert_eq!(
            body.collect().await.expect("whole").to_bytes().len() as u64,
            len
        );
        let cut = Some(FaultKind::StreamCut { event: 1 });
        let body = SseBody::new(events(3), pacing(Framing::Named, false), cut);
        assert!(body.collect().await.is_err());
    }

    #[tokio::test]
    async fn a_malformed_event_is_still_framed() {
        let bad = Some(FaultKind::StreamMalformed { event: 0 });
        let body = SseBody::new(events(1), pacing(Framing::Named, false), bad);
        let bytes = body.collect().await.expect("whole").to_bytes();
        let text = std::str::from_utf8(&bytes).expect("utf-8");
        let data = text.split("data: ").nth(1).expect("data").trim_end();
        assert!(text.ends_with("\n\n") && serde_json::from_str::<serde_json::Value>(data).is_err());
    }
}

#[cfg(test)]
mod clock_tests {
    use super::*;
    use crate::harness::clock::ClockMode;
    use std::future::poll_fn;

    /// Polls `body` for its next frame without waiting: `None` while it waits.
    fn try_next(body: &mut SseBody) -> Option<Bytes> {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        match hyper::body::Body::poll_frame(Pin::new(body), &mut cx) {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().ok(),
            _ => None,
        }
    }

    #[tokio::test]
    async fn clock_pacing_sends_each_event_when_the_clock_reaches_it() {
        let clock = Clock::new(ClockMode::Virtual { epoch: 1000 });
        // An endless stream: nothing of it is built ahead, so memory is one event's.
        let events = (0u64..).map(|i| Event::json("x.delta", &serde_json::json!({ "i": i })));
        let pacing = Pacing {
            framing: Framing::DataOnly,
            done_marker: false,
            gap: Duration::from_secs(2),
            buffered: false,
            clock: Some(clock.clone()),
        };
        let mut body = SseBody::new(events, pacing, None);
        assert_eq!(
            try_next(&mut body).as_deref(),
            Some(&b"data: {\"i\":0}\n\n"[..])
        );
        for i in 1..500u64 {
            assert!(try_next(&mut body).is_none(), "event {i} before its time");
            clock.advance(Duration::from_millis(1999));
            assert!(try_next(&mut body).is_none(), "event {i} 1 ms early");
            clock.advance(Duration::from_millis(1));
            let next = poll_fn(|cx| hyper::body::Body::poll_frame(Pin::new(&mut body), cx)).await;
            let data = next.and_then(|f| f.ok()?.into_data().ok()).expect("event");
            assert_eq!(data, format!("data: {{\"i\":{i}}}\n\n").as_bytes());
        }
    }
}
