//! Which era of new-api's task layer the target runs, and how the runner knows: `--era`, the
//! mock's signature, or what the target shows (DECISIONS D-ERA-1).

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

/// The era to judge by: `--era` when given, else the mock's signature, else the Go adaptors'.
pub(crate) fn tell(
    cfg: &crate::RunnerConfig,
    mock: Option<&crate::http::mock_control::MockControl>,
) -> EraSeen {
    if let crate::EraChoice::Fixed(era) = cfg.judging.era {
        return EraSeen::named(era);
    }
    match mock.and_then(|m| m.signature.as_ref()) {
        Some(sig) => EraSeen {
            era: sig.era.unwrap_or(Era::Adaptors),
            source: match sig.era {
                Some(_) => format!("the mock's signature, profile {}", sig.profile),
                None => "the mock's signature names no era: a mock older than the eras".into(),
            },
        },
        None => EraSeen::untold("no signature"),
    }
}
