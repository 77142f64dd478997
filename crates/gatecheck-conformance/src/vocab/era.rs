//! The era of new-api's task layer a run judges by, and how it was told (DECISIONS D-ERA-1;
//! told by `run/era.rs`).

use gatecheck_schemas::Era;
use serde::Serialize;

/// The era the run judges by, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EraSeen {
    /// The era.
    pub era: Era,
    /// How it was told: `--era`, the mock's signature, the target's version or routes, or
    /// nothing (the Go adaptors', what every deployment before 2026-08-29 runs).
    pub source: String,
}

impl EraSeen {
    /// An era the user named (`--era`).
    pub fn named(era: Era) -> Self {
        Self {
            era,
            source: "--era".into(),
        }
    }

    /// Nothing told the era: the Go adaptors' (a pre-plugin deployment stays judged as today).
    pub fn untold(why: &str) -> Self {
        Self {
            era: Era::Adaptors,
            source: format!("not told ({why}): the Go adaptors' assumed"),
        }
    }

    /// The report's line: `plugins (GET /api/status version v1.0.0-rc.34)`.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.era, self.source)
    }
}

impl Default for EraSeen {
    fn default() -> Self {
        Self::untold("not probed")
    }
}
