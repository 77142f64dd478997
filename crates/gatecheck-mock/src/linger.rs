//! Lingering close after an early 413.
//!
//! The mock answers 413 as soon as it knows a body is over the upload limit (from
//! `Content-Length`, or while streaming), before the body has arrived. If the connection were
//! then closed with request bytes still unread, the kernel would answer them with a TCP reset,
//! and a reset can destroy the 413 before the client reads it (clients busy sending the body
//! often never see it). So, as web servers do, the rest of the body is read and thrown away
//! for a bounded time and number of bytes ([`LINGER_MAX_TIME`], [`LINGER_MAX_BYTES`]) while
//! the 413 goes out; the connection closes after that. Nothing is kept in memory and no lock
//! is held.

use crate::app::wait_down;
use http_body_util::BodyExt;
use hyper::body::Body;
use std::time::Duration;
use tokio::sync::watch;

/// The most body bytes drained after a 413.
pub(crate) const LINGER_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The longest a body is drained after a 413.
pub(crate) const LINGER_MAX_TIME: Duration = Duration::from_secs(3);

/// Drains `body` in a task of its own, at most [`LINGER_MAX_BYTES`] and [`LINGER_MAX_TIME`],
/// and ends early on shutdown; returns at once. Dropping the body ends the connection's read
/// side (hyper closes a connection whose request body was not read to its end).
pub(crate) fn drain_in_background<B>(body: B, mut shutdown: watch::Receiver<bool>)
where
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
{
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::timeout(LINGER_MAX_TIME, drain(body, LINGER_MAX_BYTES)) => {}
            _ = wait_down(&mut shutdown) => {}
        }
    });
}

/// Reads and discards the frames of `body` until its end, an error, or more than `max` bytes;
/// returns the number of data bytes read.
pub(crate) async fn drain<B>(mut body: B, max: u64) -> u64
where
    B: Body + Unpin,
{
    use bytes::Buf as _;
    let mut read = 0u64;
    while read <= max {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    read = read.saturating_add(data.remaining() as u64);
                }
            }
            Some(Err(_)) | None => break,
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::StreamBody;
    use hyper::body::Frame;

    fn chunks(
        n: usize,
        size: usize,
    ) -> StreamBody<impl futures_util::Stream<Item = Result<Frame<Bytes>, std::io::Error>> + Unpin>
    {
        let items: Vec<Result<Frame<Bytes>, std::io::Error>> = (0..n)
            .map(|_| Ok(Frame::data(Bytes::from(vec![0u8; size]))))
            .collect();
        StreamBody::new(futures_util::stream::iter(items))
    }

    #[tokio::test]
    async fn drain_reads_to_the_end() {
        assert_eq!(drain(chunks(10, 1000), 1 << 20).await, 10_000);
    }

    #[tokio::test]
    async fn drain_stops_past_the_cap() {
        // It stops at the first frame that takes it past the cap.
        assert_eq!(drain(chunks(100, 1000), 4_500).await, 5_000);
    }
}
