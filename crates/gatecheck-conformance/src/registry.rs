//! The check list: every check of every family (`checks::*`), and the views of it the CLI
//! prints (stable ids, what each checks, its spec reference and its kind). "Catalog" in this
//! crate means the target's model catalog (`/api/models`), never this list.

use crate::checks::usage;
use crate::checks::{
    audio, auth, catalog as model_catalog, image_edits, images, key, midjourney, midjourney_routes,
    models, native_routes, platform_checks, provider, quota, refund, remix, route, stream, token,
    token_batch, v1, video, video_era, video_unified, Check, CheckInfo,
};
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
            native_routes::CHECKS,
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
        v.sort_by(|a, b| a.id.cmp(b.id));
        v
    })
}

/// Every check of the registry, sorted by id.
pub fn all_checks() -> Vec<CheckInfo> {
    let mut all: Vec<CheckInfo> = registry().iter().map(Check::info).collect();
    all.sort_by(|a, b| a.id.cmp(b.id));
    all
}

/// The registry entry of `id`.
pub fn find(id: &str) -> Option<CheckInfo> {
    registry().iter().find(|d| d.id == id).map(Check::info)
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
