//! Vidu (channel type 52; relay/channel/task/vidu/adaptor.go, DECISIONS D-PLAT-2).
//!
//! The upstream task is `{state, err_code, credits, payload, creations:[{id, url, cover_url}]}`;
//! `created`/`queueing` are `SUBMITTED` (10%), `processing` `IN_PROGRESS` (30%), `success`
//! `SUCCESS` with `creations[0].url`, `failed` `FAILURE` with `err_code` as the reason; any
//! other state is a poll error (the task is left as it was). `/v1/videos/{id}` shows no
//! `model`.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Submitted, Success};

/// Vidu.
pub const PLATFORM: Platform = Platform {
    channel_type: "52",
    name: "vidu",
    models: &["viduq2", "viduq1", "vidu2.0", "vidu1.5"],
    states: &[
        state("created", Submitted, 10),
        state("queueing", Submitted, 10),
        state("processing", InProgress, 30),
        state("success", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["queueing", "processing", "success", "failed"],
    state_pointer: "/state",
    url_pointer: "/creations/0/url",
    video_has_model: false,
    decision: "D-PLAT-2",
    data_schema: crate::schemas::names::VIDU_TASK_DATA,
    ratios: super::no_ratios,
};
