//! The routes the spec pins are served: one finding per route the target lacks, judged on the
//! probe that discovery sent (`crate::vocab::discovery`), so a missing route is reported here once
//! and the checks that need it are skipped with the cause "route not served".

use super::Kind::Failure;
use super::{def, Check, CheckCtx, Halt, Outcome, Pass, Phase};
use crate::vocab::discovery::RouteFamily;

pub(crate) const CHECKS: &[Check] = &[
    def(
        "route.audio-translations",
        Failure,
        "POST /v1/audio/translations",
        "spec: Endpoints (POST /v1/audio/translations)",
        "The target serves the translation route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::AudioTranslations)),
    ),
    def(
        "route.audio-speech",
        Failure,
        "POST /v1/audio/speech",
        "spec: Endpoints (POST /v1/audio/speech)",
        "The target serves the speech route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::AudioSpeech)),
    ),
    def(
        "route.videos-create",
        Failure,
        "POST /v1/videos",
        "spec: Endpoints (POST /v1/videos)",
        "The target serves the video task creation route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::VideoCreate)),
    ),
    def(
        "route.videos-poll",
        Failure,
        "GET /v1/videos/{task_id}",
        "spec: Endpoints (GET /v1/videos/{task_id})",
        "The target serves the video task poll route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::VideoPoll)),
    ),
    def(
        "route.images-generations",
        Failure,
        "POST /v1/images/generations",
        "spec: Endpoints (POST /v1/images/generations)",
        "The target serves the image generation route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::ImageGenerations)),
    ),
    def(
        "route.api-models",
        Failure,
        "GET /api/models",
        "spec: Endpoints (GET /api/models)",
        "The target serves the model catalog route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::Catalog)),
    ),
    def(
        "route.api-token",
        Failure,
        "PUT /api/token/",
        "spec: Endpoints (PUT /api/token/)",
        "The target serves the key update route.",
        Phase::Shared,
        |c| Box::pin(served(c, RouteFamily::KeyUpdate)),
    ),
];

/// Judges discovery's probe of `family`: served passes, not served fails with the probes as
/// evidence.
async fn served(ctx: &CheckCtx, family: RouteFamily) -> Outcome {
    let Some(probe) = ctx.env.routes.iter().find(|p| p.family == family) else {
        return Err(Halt::not_observed(
            "discovery did not probe this route (offline dry run)",
        ));
    };
    let Some(((spec, ex), earlier)) = probe.exchanges.split_last() else {
        return Err(Halt::not_observed("discovery sent no probe for this route"));
    };
    if probe.served {
        return Ok(Pass {
            cases: probe.exchanges.len() as u32,
            note: None,
        });
    }
    let with_creds = if earlier.is_empty() {
        "without credentials"
    } else {
        "with and without credentials"
    };
    let mut ev = ctx.evidence(
        format!(
            "the target does not serve {}, a route the spec pins: it answered {} {with_creds}",
            family.route(),
            super::status_text(ex.status.as_u16()),
        ),
        spec,
        Some(ex),
    );
    for (s, e) in earlier {
        ev.related
            .push(ctx.related("the probe without credentials", s, e));
    }
    ev.cases_run = probe.exchanges.len() as u32;
    Err(Halt::Finding(Box::new(ev)))
}
