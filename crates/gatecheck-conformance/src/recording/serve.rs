//! The accept loop the recorder and the replay server share: one hyper HTTP/1 connection a
//! task, each request answered by the server's handler with its shared state, until stopped.

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::watch;

/// Accepts connections on `listener` until `stopped` changes; each request goes to
/// `handle(state, request)`.
pub(crate) async fn accept_loop<S, F, Fut>(
    listener: tokio::net::TcpListener,
    state: Arc<S>,
    mut stopped: watch::Receiver<bool>,
    handle: F,
) where
    S: Send + Sync + 'static,
    F: Fn(Arc<S>, Request<Incoming>) -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
            _ = stopped.changed() => return,
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(state, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
