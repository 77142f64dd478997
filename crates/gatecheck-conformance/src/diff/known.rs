//! The known differences of the `new-api` profile (the table at the end of DECISIONS.md), by the
//! check id of the sequence step that shows each.

use serde::Serialize;

/// One row of DECISIONS.md's table of `new-api` profile differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct KnownDifference {
    /// The row's "Where" column.
    pub place: &'static str,
    /// The runner's verdict on the deployed behaviour: `failure` or `accepted`.
    pub verdict: &'static str,
}

/// The six rows of the table.
pub const KNOWN_DIFFERENCES: [KnownDifference; 6] = [
    KnownDifference {
        place: "Key name length (50 characters vs 50 UTF-8 bytes)",
        verdict: "failure",
    },
    KnownDifference {
        place: "Validation errors on audio and image routes (400 vs 500 invalid_request)",
        verdict: "failure",
    },
    KnownDifference {
        place: "Unknown video task id (404 vs 400 task_not_exist)",
        verdict: "failure",
    },
    KnownDifference {
        place: "`status` in PUT without `status_only` (applied vs ignored)",
        verdict: "failure",
    },
    KnownDifference {
        place: "Wrong access token on /api/token/ (401 vs 200 success:false)",
        verdict: "accepted",
    },
    KnownDifference {
        place: "`New-Api-User` header (optional vs required)",
        verdict: "accepted",
    },
];

/// The known profile difference a step of the standard sequence exhibits, if any.
pub fn known_difference(check_id: &str) -> Option<KnownDifference> {
    let row = match check_id {
        "token.update.name-20-multibyte" => 0,
        "image.generate.bad-size-400"
        | "audio.translation.temperature-400"
        | "audio.translation.extension-400"
        | "audio.speech.voice-400" => 1,
        "video.poll.unknown-id-404" => 2,
        "token.update.status-without-status-only" => 3,
        "token.update.wrong-access-token" => 4,
        "token.update.missing-new-api-user" => 5,
        _ => return None,
    };
    Some(KNOWN_DIFFERENCES[row])
}
