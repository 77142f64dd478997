//! Request bodies the mock answers without reading: the way Go's net/http server, which
//! new-api runs on, handles them (DECISIONS D-ROUTE-1).
//!
//! The mock refuses many requests before it reads their body: a bad key (401), an IP
//! allowlist (403), a route it does not serve (404), an upload over the limit (413). If the
//! connection were then closed with request bytes still unread, the kernel would answer them
//! with a TCP reset: a client still sending gets a broken pipe, and the reset can destroy the
//! answer before the client reads it (a gateway in front of the mock turns that into a 500).
//! Go's server does this instead (net/http server.go `chunkWriter.writeHeader`, transfer.go
//! `body.Close`), on HTTP/1:
//!
//! - Before the answer goes out, it reads and discards what is left of the body, at most
//!   `maxPostHandlerReadBytes` ([`POST_HANDLER_READ_BYTES`], 256 KiB) and one byte more: a
//!   body that ends within it leaves the connection open for the next request.
//! - A body with more left (known from `Content-Length` without reading, or found by reading)
//!   is not read: the answer says `Connection: close` and the connection is closed after it
//!   (write side first, then a 500 ms pause: `closeWriteAndWait`).
//! - `Expect: 100-continue` with the body never asked for: no `100 Continue` is sent, nothing
//!   is read, and the answer says `Connection: close`.
//!
//! [`answer_unread`] does the same, with two differences that keep the close clean: the read
//! before the answer is bounded in time (the body timeout), and past the 256 KiB the rest of
//! the body is drained in the background while the answer goes out, at most
//! [`LINGER_MAX_BYTES`] and [`LINGER_MAX_TIME`] (a lingering close, as web servers do), so
//! that the connection ends with a FIN, not a reset. (Go also skips the read for a request
//! that says `Connection: close`, and can reset; the mock reads it as any other.) HTTP/2 needs
//! none of this: a refused stream is reset on its own, and the connection stays.
//!
//! Nothing is kept in memory and no lock is held; a request without a body costs one check.

use crate::app::App;
use crate::response::MockResponse;
use crate::shutdown::wait_down;
use http::{HeaderValue, Request, Version};
use http_body_util::BodyExt;
use hyper::body::{Body, Incoming};
use std::time::Duration;
use tokio::sync::watch;

/// Go's `maxPostHandlerReadBytes` (net/http transfer.go): the most bytes of a body the
/// handler left unread that are read before the answer, to keep the connection open.
pub(crate) const POST_HANDLER_READ_BYTES: u64 = 256 * 1024;

/// The most body bytes drained in the background after an answer that closes the connection.
pub(crate) const LINGER_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The longest a body is drained in the background after an answer that closes the
/// connection.
pub(crate) const LINGER_MAX_TIME: Duration = Duration::from_secs(3);

/// Answers `resp` to `req`, whose body no handler has read, as described in the module
/// documentation: at once for a request without a body (or on HTTP/2), after reading a body
/// of at most [`POST_HANDLER_READ_BYTES`], and with `Connection: close` otherwise.
pub(crate) async fn answer_unread(
    app: &App,
    req: Request<Incoming>,
    resp: MockResponse,
) -> MockResponse {
    let (parts, body) = req.into_parts();
    if body.is_end_stream() || parts.version >= Version::HTTP_2 {
        return resp;
    }
    if expects_continue(&parts.headers) {
        // Dropping a body that was never polled sends no `100 Continue` (hyper skips it and
        // reads only what has already arrived), as Go does.
        drop(body);
        return closing(resp);
    }
    settle(app, body, resp).await
}

/// What to answer after a refusal when `body` (unread, or read in part) is still open: read
/// the rest when fewer than [`POST_HANDLER_READ_BYTES`] are known to remain, within the body timeout, and
/// keep the connection; else `Connection: close`, and the rest is drained in the background.
pub(crate) async fn settle(app: &App, mut body: Incoming, resp: MockResponse) -> MockResponse {
    let remaining = body.size_hint().exact();
    if remaining.is_some_and(|n| n >= POST_HANDLER_READ_BYTES) {
        drain_in_background(body, app.shutdown.clone());
        return closing(resp);
    }
    let read = tokio::time::timeout(
        app.config.body_timeout,
        drain(&mut body, POST_HANDLER_READ_BYTES),
    )
    .await;
    match read {
        Ok(Drained::End(_)) => resp,
        Ok(Drained::Over(_)) => {
            drain_in_background(body, app.shutdown.clone());
            closing(resp)
        }
        // A read error or a stalled body: what remains must not be read as a next request.
        Ok(Drained::Failed) | Err(_) => closing(resp),
    }
}

/// `resp` with `Connection: close` (hyper closes the connection after an answer saying so).
pub(crate) fn closing(mut resp: MockResponse) -> MockResponse {
    resp.headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// Whether the request says `Expect: 100-continue`.
fn expects_continue(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"))
}

/// Drains `body` in a task of its own, at most [`LINGER_MAX_BYTES`] and [`LINGER_MAX_TIME`],
/// and ends early on shutdown; returns at once. Dropping the body ends the connection's read
/// side (hyper closes a connection whose request body was not read to its end).
pub(crate) fn drain_in_background<B>(mut body: B, mut shutdown: watch::Receiver<bool>)
where
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
{
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::timeout(LINGER_MAX_TIME, drain(&mut body, LINGER_MAX_BYTES)) => {}
            _ = wait_down(&mut shutdown) => {}
        }
    });
}

/// How a [`drain`] ended; each with the data bytes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drained {
    /// The body ended.
    End(u64),
    /// More than the cap was read, and the body goes on.
    Over(u64),
    /// The body failed (a broken connection, bad chunked framing).
    Failed,
}

/// Reads and discards the frames of `body` until its end, an error, or more than `max` bytes.
pub(crate) async fn drain<B>(body: &mut B, max: u64) -> Drained
where
    B: Body + Unpin,
{
    use bytes::Buf as _;
    let mut read = 0u64;
    loop {
        if read > max {
            return Drained::Over(read);
        }
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    read = read.saturating_add(data.remaining() as u64);
                }
            }
            Some(Err(_)) => return Drained::Failed,
            None => return Drained::End(read),
        }
    }
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
        assert_eq!(
            drain(&mut chunks(10, 1000), 1 << 20).await,
            Drained::End(10_000)
        );
    }

    #[tokio::test]
    async fn drain_stops_past_the_cap() {
        // It stops at the first frame that takes it past the cap.
        assert_eq!(
            drain(&mut chunks(100, 1000), 4_500).await,
            Drained::Over(5_000)
        );
    }

    #[tokio::test]
    async fn drain_reports_a_broken_body() {
        let items: Vec<Result<Frame<Bytes>, std::io::Error>> = vec![
            Ok(Frame::data(Bytes::from_static(b"abc"))),
            Err(std::io::Error::other("cut")),
        ];
        let mut body = StreamBody::new(futures_util::stream::iter(items));
        assert_eq!(drain(&mut body, 1 << 20).await, Drained::Failed);
    }
}
