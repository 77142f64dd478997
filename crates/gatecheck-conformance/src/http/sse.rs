//! A bounded reader of `text/event-stream` answers (server-sent events).
//!
//! [`SseParser`] (from `gatecheck_codecs::sse`) turns bytes into events as the WHATWG "event
//! stream" grammar says. [`read_events`] reads a response body with it
//! under three bounds, a byte limit, an event limit and a deadline ([`SseLimits`]), noting the
//! time of each event; whichever bound is reached first ends the read cleanly, and
//! [`SseRead::end`] says which. A stream that stalls or never ends is therefore a finding for
//! the check that reads it, never a hang.

use crate::http::memory::{BodyError, Held, MemoryBudget};
use bytes::Buf as _;
pub use gatecheck_codecs::sse::SseParser;
use http_body_util::BodyExt as _;
use hyper::body::Body;
use std::fmt;
use std::time::Duration;
use tokio::time::Instant;

/// The bounds of one streamed read.
///
/// ```
/// use gatecheck_conformance::internals::SseLimits;
/// let limits = SseLimits::default();
/// assert_eq!(limits.max_events, 10_000);
/// assert!(limits.max_bytes >= 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseLimits {
    /// Most bytes read from the body.
    pub max_bytes: usize,
    /// Most events read (a `data: [DONE]` marker counts as one).
    pub max_events: usize,
    /// How long the whole answer may take, from sending the request to the end of the body.
    pub deadline: Duration,
}

impl Default for SseLimits {
    /// 32 MiB, 10 000 events, 30 seconds.
    fn default() -> Self {
        Self {
            max_bytes: 32 << 20,
            max_events: 10_000,
            deadline: Duration::from_secs(30),
        }
    }
}

/// One event as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// Its `event:` field, if it had one.
    pub name: Option<String>,
    /// Its `data:` lines, joined by `\n`.
    pub data: String,
    /// When its last byte arrived, from the sending of the request.
    pub at: Duration,
}

/// How a streamed read ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEnd {
    /// The body ended.
    Finished,
    /// The body failed before its end (a connection closed mid-stream); the error.
    Cut(String),
    /// The byte limit was reached.
    TooLarge(usize),
    /// The event limit was reached.
    TooManyEvents(usize),
    /// The deadline passed before the body ended.
    Deadline(Duration),
}

impl fmt::Display for SseEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseEnd::Finished => f.write_str("the stream ended"),
            SseEnd::Cut(e) => write!(f, "the stream was cut ({e})"),
            SseEnd::TooLarge(n) => write!(f, "the stream passed {n} bytes"),
            SseEnd::TooManyEvents(n) => write!(f, "the stream passed {n} events"),
            SseEnd::Deadline(d) => {
                write!(f, "the stream did not end within {:.1} s", d.as_secs_f64())
            }
        }
    }
}

/// A stream as read: its events, how it ended, and what was left over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseRead {
    /// The complete events, in order.
    pub events: Vec<SseEvent>,
    /// How the read ended.
    pub end: SseEnd,
    /// Bytes after the last complete event (an event without its blank line).
    pub trailing: usize,
    /// Bytes read in all.
    pub bytes: usize,
}

/// Reads the event stream `body` under `limits`, timing each event from `start` (when the
/// request was sent). Bytes are held against `budget` as they arrive, like any body's; a
/// budget spent is the one error, every bound an [`SseEnd`].
pub(crate) async fn read_events<B>(
    body: B,
    limits: SseLimits,
    start: Instant,
    budget: &MemoryBudget,
) -> Result<SseRead, BodyError>
where
    B: Body + Unpin,
    B::Error: fmt::Display,
{
    let mut body = body;
    let mut held = Held::default();
    let mut parser = SseParser::default();
    let mut parsed = Vec::new();
    let (mut events, mut bytes) = (Vec::new(), 0usize);
    let deadline = start + limits.deadline;
    let end = loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => break SseEnd::Deadline(limits.deadline),
            Ok(None) => break SseEnd::Finished,
            Ok(Some(Err(e))) => break SseEnd::Cut(e.to_string()),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        let n = data.remaining();
        if bytes.saturating_add(n) > limits.max_bytes {
            break SseEnd::TooLarge(limits.max_bytes);
        }
        budget.hold(&mut held, n)?;
        bytes += n;
        while data.has_remaining() {
            let chunk = data.chunk();
            parser.push(chunk, &mut parsed);
            let len = chunk.len();
            data.advance(len);
        }
        let at = start.elapsed();
        events.extend(
            parsed
                .drain(..)
                .map(|(name, data)| SseEvent { name, data, at }),
        );
        if events.len() > limits.max_events {
            events.truncate(limits.max_events);
            break SseEnd::TooManyEvents(limits.max_events);
        }
    };
    Ok(SseRead {
        events,
        end,
        trailing: parser.pending(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{Full, StreamBody};
    use hyper::body::Frame;

    #[tokio::test]
    async fn a_body_is_read_to_its_end_or_to_a_bound() {
        let budget = MemoryBudget::new(1 << 20);
        let body = Full::new(Bytes::from_static(b"data: 1\n\ndata: 2\n\ndata: 3"));
        let limits = SseLimits::default();
        let read = read_events(body, limits, Instant::now(), &budget)
            .await
            .unwrap();
        assert_eq!((read.events.len(), read.trailing), (2, 7));
        assert_eq!(read.end, SseEnd::Finished);
        assert_eq!(budget.available(), 1 << 20);
        let body = Full::new(Bytes::from_static(b"data: 1\n\ndata: 2\n\ndata: 3\n\n"));
        let few = SseLimits {
            max_events: 2,
            ..limits
        };
        let read = read_events(body, few, Instant::now(), &budget).await;
        assert_eq!(read.unwrap().end, SseEnd::TooManyEvents(2));
        let body = Full::new(Bytes::from_static(b"data: 1\n\n"));
        let small = SseLimits {
            max_bytes: 4,
            ..limits
        };
        let read = read_events(body, small, Instant::now(), &budget).await;
        assert_eq!(read.unwrap().end, SseEnd::TooLarge(4));
    }

    #[tokio::test]
    async fn a_stream_that_never_ends_stops_at_the_deadline() {
        let budget = MemoryBudget::new(1 << 20);
        let first = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(Frame::data(
            Bytes::from_static(b"data: 1\n\n"),
        ))]);
        let body = StreamBody::new(futures_util::StreamExt::chain(
            first,
            futures_util::stream::pending(),
        ));
        let limits = SseLimits {
            deadline: Duration::from_millis(50),
            ..SseLimits::default()
        };
        let read = read_events(body, limits, Instant::now(), &budget)
            .await
            .unwrap();
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.end, SseEnd::Deadline(Duration::from_millis(50)));
    }
}
