//! The check list: every check of every family (`checks::*`), and the views of it the CLI
//! prints (stable ids, what each checks, its spec reference and its kind). "Catalog" in this
//! crate means the target's model catalog (`/api/models`), never this list.

use crate::checks::usage;
use crate::checks::{
    audio, auth, catalog as model_catalog, image_edits, images, key, midjourney, midjourney_routes,
    models, platform_checks, provider, quota, refund, remix, route, stream, token, token_batch, v1,
    video, video_era, video_unified, Check, CheckInfo,
};
use gatecheck_schemas::decisions::{id, Id};
use std::sync::OnceLock;

/// Every check, sorted by id.
pub(crate) fn registry() -> &'static [Check] {
    static ALL: OnceLock<Vec<Check>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = Vec::new();
        for family in [
            auth::CHECKS,
            key::CHECKS,
            key::routes::CHECKS,
            quota::CHECKS,
            token::CHECKS,
            video::CHECKS,
            video_era::CHECKS,
            images::CHECKS,
            image_edits::CHECKS,
            midjourney::CHECKS,
            midjourney_routes::CHECKS,
            audio::CHECKS,
            model_catalog::CHECKS,
            v1::CHECKS,
            route::CHECKS,
            stream::CHECKS,
            usage::CHECKS,
            video_unified::CHECKS,
            remix::CHECKS,
            provider::CHECKS,
            &platform_checks::checks(),
            refund::CHECKS,
            token_batch::CHECKS,
            models::CHECKS,
        ] {
            v.extend_from_slice(family);
        }
        v.sort_by(|a, b| a.info.id.cmp(b.info.id));
        v
    })
}

/// Every check of the registry, sorted by id.
pub fn all_checks() -> Vec<CheckInfo> {
    let mut all: Vec<CheckInfo> = registry().iter().map(|d| d.info).collect();
    all.sort_by(|a, b| a.id.cmp(b.id));
    all
}

/// The registry entry of `id`.
pub fn find(id: &str) -> Option<CheckInfo> {
    registry().iter().find(|d| d.info.id == id).map(|d| d.info)
}

/// The registry as a Markdown table (the content of `docs/checks.md`).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| Check id | What it checks | Route | Spec reference | Kind |\n|---|---|---|---|---|\n",
    );
    for c in all_checks() {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            c.id,
            c.title.replace('|', "\\|"),
            c.route,
            c.spec.replace('|', "\\|"),
            c.kind
        ));
    }
    out
}

/// The registry as plain text, one check a line (`gatecheck check --list`).
pub fn text_list() -> String {
    let all = all_checks();
    let width = all.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in all {
        out.push_str(&format!(
            "{:<width$}  {:<9}  {}\n",
            c.id,
            c.kind.as_str(),
            c.title
        ));
    }
    out
}

/// The DECISIONS section a deviation check cites, as its id in docs/DECISIONS.md: from the
/// `DECISIONS: <section>` part of its spec reference, else from its id's area.
///
/// ```
/// use gatecheck_conformance::internals::decision_id;
/// use gatecheck_schemas::decisions::{id, Id};
/// assert_eq!(decision_id("video.content.mp4", "DECISIONS: Video tasks (content route)"), Some(id::D_VIDEO));
/// assert_eq!(decision_id("images.usage-consistent", "spec: Image generation result"), Some(id::D_MEDIA));
/// assert_eq!(decision_id("stream.speech", "DECISIONS: Streaming (SSE) D-STREAM-1"), Some(id::D_STREAM));
/// ```
pub fn decision_id(id: &str, spec: &str) -> Option<Id> {
    const SECTIONS: &[(&str, Id)] = &[
        ("Identity and auth", id::D_AUTH),
        ("Error bodies", id::D_ERR),
        ("PUT /api/token/", id::D_TOKEN),
        ("Video tasks", id::D_VIDEO),
        ("Images, audio", id::D_MEDIA),
        ("Catalog", id::D_CATALOG),
        ("Quota and limits", id::D_QUOTA),
        ("Streaming", id::D_STREAM),
        ("Provider and unified task routes", id::D_TASK),
        ("Model lists in other clients' shapes", id::D_MODELS),
    ];
    const AREAS: &[(&str, Id)] = &[
        ("auth.", id::D_AUTH),
        ("key.", id::D_AUTH),
        ("v1.", id::D_ERR),
        ("token.", id::D_TOKEN),
        ("video.", id::D_VIDEO),
        ("images.edits.", id::D_EDIT),
        ("mj.", id::D_MJ),
        ("images.", id::D_MEDIA),
        ("audio.", id::D_MEDIA),
        ("catalog.", id::D_CATALOG),
        ("quota.", id::D_QUOTA),
        ("stream.", id::D_STREAM),
        ("task.", id::D_TASK),
        ("models.", id::D_MODELS),
    ];
    if let Some(rest) = spec.split("DECISIONS: ").nth(1)
        && let Some((_, d)) = SECTIONS.iter().find(|(name, _)| rest.starts_with(name))
    {
        return Some(*d);
    }
    AREAS
        .iter()
        .find(|(prefix, _)| id.starts_with(prefix))
        .map(|(_, d)| *d)
}
