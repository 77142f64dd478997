//! Bounded cost of the unauthenticated media route (`GET /media/images/*.png`).
//!
//! Anyone can ask for any seed and size up to 4096×4096, and an uncached 4096×4096 render costs
//! about 80 ms of CPU and 50 MB of pixels. So renders for that route (cache hits are free: see
//! [`crate::media::png`]) run off the async workers, one at a time, with at most
//! [`MAX_WAITING`] requests queued behind it; more get 503 with `Retry-After: 1`. A flood of
//! uncached URLs thus costs at most one core and one image's memory, and never slows the
//! authenticated routes' workers.

use bytes::Bytes;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::Semaphore;

/// Requests allowed to wait for the renderer; more are answered 503.
pub(crate) const MAX_WAITING: usize = 8;

/// The render queue of one mock (each server has its own).
#[derive(Debug)]
pub(crate) struct Renderer {
    slot: Semaphore,
    waiting: AtomicUsize,
}

impl Default for Renderer {
    fn default() -> Self {
        Self {
            slot: Semaphore::new(1),
            waiting: AtomicUsize::new(0),
        }
    }
}

/// Why an image was not rendered.
#[derive(Debug)]
pub(crate) enum RenderError {
    /// The size is out of range (or encoding failed): 404 on the public route.
    Invalid,
    /// Too many renders queued: 503.
    Busy,
}

impl Renderer {
    /// The PNG of `seed` at `w`×`h`, rendered under the bounds above.
    pub(crate) async fn public_png(&self, seed: u64, w: u32, h: u32) -> Result<Bytes, RenderError> {
        // One rendering and MAX_WAITING queued.
        if self.waiting.fetch_add(1, Ordering::AcqRel) > MAX_WAITING {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(RenderError::Busy);
        }
        let result = match self.slot.acquire().await {
            Ok(_permit) => tokio::task::spawn_blocking(move || crate::media::png(seed, w, h))
                .await
                .map_err(|_| RenderError::Invalid)
                .and_then(|r| r.map_err(|_| RenderError::Invalid)),
            Err(_) => Err(RenderError::Invalid),
        };
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        result
    }
}
