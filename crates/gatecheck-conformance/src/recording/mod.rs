//! Recording a target's answers and replaying them (docs/recording.md).
//!
//! - [`mod@format`]: the versioned recording format (`manifest.json`, one JSON file per exchange)
//!   and its normalization (secrets to placeholders, multipart boundary, Unix times).
//! - [`Recorder`]: a recording reverse proxy between a client and the target.
//! - [`ReplayServer`]: answers requests from a [`Recording`]; requests it does not hold get a
//!   599 naming the closest recorded one, and are counted.

pub mod format;
mod proxy;
mod replay;
mod serve;

pub use format::{
    Manifest, RecordedBody, RecordedExchange, RecordedRequest, RecordedResponse, Recording,
    RecordingError, Substitutions, TargetInfo, FORMAT_VERSION,
};
pub use proxy::{Recorder, RecorderConfig};
pub use replay::{ReplayServer, Unmatched, UNMATCHED_STATUS};
