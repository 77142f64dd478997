//! The server's shutdown signal: a `watch` channel that flips to `true` once, read by every
//! task that must end with the server (hanging requests, lingering bodies, the callback
//! pump, the accept loops).

use tokio::sync::watch;

/// Resolves once `rx` says the server is shutting down (or its sender is gone).
pub(crate) async fn wait_down(rx: &mut watch::Receiver<bool>) {
    loop {
        if *rx.borrow_and_update() {
            return;
        }
        if rx.changed().await.is_err() {
            return;
        }
    }
}
