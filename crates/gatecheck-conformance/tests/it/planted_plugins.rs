//! The planted bugs of new-api's plugin era at the host (DECISIONS D-ERA-*): each runs against
//! the mock's `new-api` profile (the task plugins) under `--expect new-api`, where the runner
//! judges by the plugin era; every other bug runs against the documented mock
//! ([`named_profile_of`]).

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;
use gatecheck_schemas::NamedProfile;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::HeadContentNotRouted,
            "video.content.head",
            Status::Failed,
            "routes::ONLY_IN_PLUGIN_ERA (HEAD of the content route, D-ERA-6)",
        ),
        (
            Bug::NotFoundCacheable,
            "v1.unknown-path-404",
            Status::Deviation,
            "era::NOT_FOUND_NO_STORE, era::forbids_store (D-ERA-5)",
        ),
        (
            Bug::PluginRefusalCodeLost,
            "video.create.empty-prompt-400",
            Status::Deviation,
            "era::plugin_refusal_body, era::is_plugin_refusal, era::PLUGIN_REQUEST_INVALID (D-ERA-4)",
        ),
    ]
}

/// The mock a planted bug runs against: the plugin era's bugs against `new-api`, the rest
/// against `documented`.
pub(crate) fn named_profile_of(bug: Bug) -> NamedProfile {
    match bug {
        Bug::HeadContentNotRouted | Bug::NotFoundCacheable | Bug::PluginRefusalCodeLost => {
            NamedProfile::NEW_API
        }
        _ => NamedProfile::DOCUMENTED,
    }
}
