//! Replaying a recording (docs/recording.md): the mock answers from a recorded deployment.
//!
//! - [`mod@format`]: the versioned recording format (`manifest.json`, one JSON file per
//!   exchange) and its normalization, shared with the recorder in `gatecheck-conformance`
//!   (defined in `gatecheck_recording`).
//! - [`Matcher`] (also in `gatecheck_recording`): finds the recorded answer of a normalized request (method, path, normalized
//!   `Authorization`, normalized body or form), in recorded order, and names the closest
//!   recorded request when none matches.
//! - The replay front (`MockServerBuilder::replay`, `gatecheck serve --replay`): answers from
//!   the recording; a request that matches nothing falls through to the mock of the chosen
//!   profile (its journal entry says `replay: "unmatched"`), or with
//!   [`ReplayOptions::strict`] gets 404 (route not in the recording) or 501 (route recorded,
//!   request differs) naming the closest recorded request. Task ids are remapped (each
//!   client's create gets its own id) and task states play back in recorded order, gated by
//!   the virtual clock.

pub(crate) mod front;
mod stories;

pub(crate) use front::Front;
/// The recording format, shared with the recorder (`gatecheck_recording`).
pub use gatecheck_recording as format;
pub use gatecheck_recording::{Gate, Matcher, Unmatched};

use std::path::PathBuf;

/// How a mock replays a recording.
///
/// ```
/// let options = gatecheck_mock::replay::ReplayOptions::new("fixtures/foreign/litellm")
///     .strict(true)
///     .secret("LITELLM_MASTER_KEY", "sk-replay-0123456789");
/// assert!(options.is_strict());
/// ```
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The recording directory.
    pub dir: PathBuf,
    /// Unmatched requests get 404/501 instead of the mock's answer.
    pub strict: bool,
    /// The replay's own values of the recorded secret placeholders (`NAME`, value).
    pub secrets: Vec<(String, String)>,
}

impl ReplayOptions {
    /// Replays the recording in `dir`, falling through to the mock on a miss, with no secrets.
    ///
    /// ```
    /// let options = gatecheck_mock::replay::ReplayOptions::new("rec");
    /// assert!(!options.is_strict());
    /// ```
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            strict: false,
            secrets: Vec::new(),
        }
    }

    /// Answers unmatched requests 404/501 with a near-miss report instead of the mock's answer.
    ///
    /// ```
    /// let options = gatecheck_mock::replay::ReplayOptions::new("rec").strict(true);
    /// assert!(options.is_strict());
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether unmatched requests get 404/501.
    ///
    /// ```
    /// assert!(!gatecheck_mock::replay::ReplayOptions::new("rec").is_strict());
    /// ```
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// A value for the recorded placeholder `{{NAME}}`: a request carrying `value` (in any
    /// form) matches the recorded request that carried the original secret.
    ///
    /// ```
    /// let options = gatecheck_mock::replay::ReplayOptions::new("rec").secret("API_KEY", "sk-abc12345");
    /// assert_eq!(options.secrets.len(), 1);
    /// ```
    pub fn secret(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.secrets.push((name.into(), value.into()));
        self
    }
}
