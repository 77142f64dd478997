//! Video tasks: the store the `/v1/videos` routes read and write (owned by the media routes).

use serde::{Deserialize, Serialize};

/// All video tasks of the mock.
#[derive(Debug, Default)]
pub struct VideoStore {}

/// A serializable dump of the [`VideoStore`], part of `GET|PUT /__mock/state`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VideoSnapshot {}

impl VideoStore {
    /// Forgets every task.
    pub fn reset(&self) {}

    /// Dumps every task.
    pub fn snapshot(&self) -> VideoSnapshot {
        VideoSnapshot::default()
    }

    /// Replaces every task with those of `snapshot`.
    pub fn restore(&self, snapshot: VideoSnapshot) {
        let _ = snapshot;
    }
}
