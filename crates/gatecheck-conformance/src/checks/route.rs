//! The routes the spec pins are served: one finding per route the target lacks, judged on the
//! probe that discovery sent (`crate::vocab::discovery`), so a missing route is reported here once
//! and the checks that need it are skipped with the cause "route not served".

use super::Kind::Failure;
use super::{Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::vocab::discovery::RouteFamily;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "route.audio-translations",
        kind: Failure,
        route: "POST /v1/audio/translations",
        spec: "spec: Endpoints (POST /v1/audio/translations)",
        title: "The target serves the translation route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::AudioTranslations)),
    },
    Check {
        id: "route.audio-speech",
        kind: Failure,
        route: "POST /v1/audio/speech",
        spec: "spec: Endpoints (POST /v1/audio/speech)",
        title: "The target serves the speech route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::AudioSpeech)),
    },
    Check {
        id: "route.videos-create",
        kind: Failure,
        route: "POST /v1/videos",
        spec: "spec: Endpoints (POST /v1/videos)",
        title: "The target serves the video task creation route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::VideoCreate)),
    },
    Check {
        id: "route.videos-poll",
        kind: Failure,
        route: "GET /v1/videos/{task_id}",
        spec: "spec: Endpoints (GET /v1/videos/{task_id})",
        title: "The target serves the video task poll route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::VideoPoll)),
    },
    Check {
        id: "route.images-generations",
        kind: Failure,
        route: "POST /v1/images/generations",
        spec: "spec: Endpoints (POST /v1/images/generations)",
        title: "The target serves the image generation route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::ImageGenerations)),
    },
    Check {
        id: "route.api-models",
        kind: Failure,
        route: "GET /api/models",
        spec: "spec: Endpoints (GET /api/models)",
        title: "The target serves the model catalog route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::Catalog)),
    },
    Check {
        id: "route.api-token",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Endpoints (PUT /api/token/)",
        title: "The target serves the key update route.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(served(c, RouteFamily::KeyUpdate)),
    },
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
