//! Doubao / VolcEngine Seedance (channel type 54; relay/channel/task/doubao/adaptor.go,
//! DECISIONS D-PLAT-4).
//!
//! The upstream task is `{id, model, status, content:{video_url}, seed, resolution, duration,
//! ratio, framespersecond, service_tier, usage:{completion_tokens, total_tokens},
//! error:{code, message}, created_at, updated_at}`. `pending`/`queued` are `QUEUED` (10%),
//! `processing`/`running` `IN_PROGRESS` (50%), `succeeded` `SUCCESS` with
//! `content.video_url`, `failed` `FAILURE` with `error.message`; any other state is
//! `IN_PROGRESS` at 30%.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};

/// Doubao Seedance.
pub const PLATFORM: Platform = Platform {
    channel_type: "54",
    name: "doubao",
    models: &[
        "doubao-seedance-1-0-pro-250528",
        "doubao-seedance-1-0-lite-t2v",
        "doubao-seedance-1-0-lite-i2v",
        "doubao-seedance-1-5-pro-251215",
        "doubao-seedance-2-0-260128",
        "doubao-seedance-2-0-fast-260128",
    ],
    states: &[
        state("pending", Queued, 10),
        state("queued", Queued, 10),
        state("processing", InProgress, 50),
        state("running", InProgress, 50),
        state("succeeded", Success, 100),
        state("failed", Failure, 100),
    ],
    other: Some((InProgress, 30)),
    words: ["queued", "processing", "succeeded", "failed"],
    state_pointer: "/status",
    url_pointer: "/content/video_url",
    video_has_model: true,
    decision: "D-PLAT-4",
};
