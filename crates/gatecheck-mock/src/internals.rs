//! **Unstable.** What the workspace's own tools reach into: the `gatecheck` CLI (the defaults
//! of `serve`'s flags), the fuzz drivers and the tests. (The seeded draws, the PNG
//! codec and the recording format the runner shares with the mock are in `gatecheck-schemas`.) These names may change in any release; a
//! library user needs none of them (the crate root holds the API).

/// The mock's parsers of untrusted input, as entry points for fuzzing.
pub mod inputs {
    pub use crate::inputs::*;
}

/// The deterministic media encoders (PNG, WAV, MP3, FLAC, Opus, AAC, MP4, subtitles).
pub mod media {
    pub use crate::media::*;
}

/// Which `Host` the control API answers (the DNS-rebinding guard).
pub mod control_access {
    pub use crate::routes::control_access::host_refusal;
}

/// URL credentials redacted wherever they are shown or stored.
pub mod userinfo {
    pub use crate::userinfo::*;
}

/// The Midjourney task model.
pub mod midjourney {
    pub use crate::tasks::midjourney::*;
}

/// The video task model (plans, outcomes, the task store).
pub mod video {
    pub use crate::fixtures::DEFAULT_VIDEO_JSON;
    pub use crate::tasks::video::*;
}

pub use crate::config::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_JOURNAL_CAPACITY, DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_STREAM_EVENT_GAP,
};
pub use crate::harness::clock::DEFAULT_VIRTUAL_EPOCH;
