//! Recording a target's answers and replaying them (docs/recording.md).
//!
//! - [`mod@format`] (defined in `gatecheck_recording`, shared with the mock's replay):
//!   the versioned recording format (`manifest.json`, one JSON file per exchange)
//!   and its normalization (secrets to placeholders, multipart boundary, Unix times).
//! - [`Recorder`]: a recording reverse proxy between a client and the target.
//! - [`ReplayServer`]: answers requests from a [`Recording`] with the format's
//!   `gatecheck_recording::Matcher` (the mock's replay uses it too); requests it does not hold get a 599 naming the closest
//!   recorded one, and are counted. (`gatecheck serve --replay` is the mock's replay, which
//!   falls through to the mock instead.)

/// The recording format, shared with the mock's replay (`gatecheck_recording`).
pub use gatecheck_recording as format;
mod proxy;
mod replay;
mod serve;

pub use format::{
    Manifest, RecordedBody, RecordedExchange, RecordedRequest, RecordedResponse, Recording,
    RecordingError, Substitutions, TargetInfo, FORMAT_VERSION,
};
pub use gatecheck_recording::Unmatched;
pub use proxy::{Recorder, RecorderConfig};
pub use replay::{ReplayServer, UNMATCHED_STATUS};
