//! The runner's check of each video platform of the registry (`task.platform.<name>`, issue
//! 54): its row from the platform's description, its function by how the platform answers a
//! fetch (`platforms::platform` for a polled one, `platforms_veo::veo` for one asked in real
//! time). The registry's platforms, and one added at run time before the check list is first
//! read, each get theirs: no list of platforms here.

use super::Kind::Failure;
use super::{platforms, platforms_native, platforms_veo, Check, CheckCtx, CheckFn, Needs, Phase};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::rules::platforms::{
    all, by_check_id, is_realtime, task_rooms, unified, Platform,
};

/// The route of the check of a platform outside the unified route (its plugin's).
const NATIVE_ROUTE: &str = "the platform's native routes, POST /v1/videos";

/// The route of a polled platform's check.
const ROUTE: &str =
    "POST /v1/video/generations, GET /v1/video/generations/{task_id}, GET /v1/videos/{id}";

/// One check per registered platform (`task.platform.<name>`): its row from the platform's
/// description ([`Platform::check`]); a polled platform runs `platforms::platform`, one asked in real
/// time `platforms_veo::veo`.
pub(crate) fn checks() -> Vec<Check> {
    unified()
        .map(|p| {
            let (route, run): (&'static str, CheckFn) = if is_realtime(p) {
                (platforms_veo::ROUTE, |c| {
                    Box::pin(platforms_veo::veo(c, platform_of(c)))
                })
            } else {
                (ROUTE, |c| Box::pin(platforms::platform(c, platform_of(c))))
            };
            let id: &'static str = Box::leak(p.check_id().into_boxed_str());
            Check {
                id,
                kind: Failure,
                route,
                spec: p.check.spec,
                title: p.check.title,
                phase: Phase::Shared,
                // Both routes' checks create on the unified route (`POST /v1/video/generations`).
                needs: Needs::All(&[RouteFamily::VideoGenerations]),
                mock_only: None,
                decision: None,
                run,
            }
        })
        .chain(task_rooms().map(|p| {
            let id: &'static str = Box::leak(p.check_id().into_boxed_str());
            let run: CheckFn = |c| Box::pin(platforms_native::native(c, platform_of(c)));
            Check {
                id,
                kind: Failure,
                route: NATIVE_ROUTE,
                spec: p.check.spec,
                title: p.check.title,
                phase: Phase::Shared,
                // Each creates through `POST /v1/videos` (the OpenAI-video decoder); the
                // native routes it also tries are judged by the check itself.
                needs: Needs::All(&[RouteFamily::VideoCreate]),
                mock_only: None,
                decision: None,
                run,
            }
        }))
        .collect()
}

/// The platform whose check `c` runs (its id `task.platform.<name>`).
fn platform_of(c: &CheckCtx) -> &'static Platform {
    // The check list is made from the registry: every platform check's id names one.
    by_check_id(c.check).unwrap_or(all()[0])
}
