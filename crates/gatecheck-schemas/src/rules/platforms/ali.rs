//! Ali Wan / DashScope (channel type 17; relay/channel/task/ali/adaptor.go@9ba13cd0,
//! DECISIONS D-PLAT-8).
//!
//! The upstream task is DashScope's `{request_id, output:{task_id, task_status, submit_time,
//! scheduled_time, end_time, orig_prompt, actual_prompt, video_url, code, message},
//! usage:{duration, video_count, SR}}`. `PENDING` is `QUEUED` (20%), `RUNNING` `IN_PROGRESS`
//! (30%), `SUCCEEDED` `SUCCESS` with `output.video_url`, `FAILED`/`CANCELED`/`UNKNOWN`
//! `FAILURE`; any other state is `QUEUED` at 20%. The submit answer's `status` is Ali's own
//! `output.task_status` through [`video_status`] (`convertAliStatus`), and the submit's billing
//! ratios are `seconds` plus a per-model `resolution-<R>` ([`resolution_ratio`]).

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};

/// Ali Wan (the Wan models of new-api's Ali task adaptor; HappyHorse and Bailian-Kling take
/// other converters and are not served here).
pub const PLATFORM: Platform = Platform {
    channel_type: "17",
    name: "ali",
    models: &[
        "wan2.7-t2v",
        "wan2.7-i2v",
        "wan2.5-i2v-preview",
        "wan2.2-i2v-flash",
        "wan2.2-i2v-plus",
        "wanx2.1-i2v-plus",
        "wanx2.1-i2v-turbo",
    ],
    states: &[
        state("PENDING", Queued, 20),
        state("RUNNING", InProgress, 30),
        state("SUCCEEDED", Success, 100),
        state("FAILED", Failure, 100),
        state("CANCELED", Failure, 100),
        state("UNKNOWN", Failure, 100),
    ],
    other: Some((Queued, 20)),
    words: ["PENDING", "RUNNING", "SUCCEEDED", "FAILED"],
    state_pointer: "/output/task_status",
    url_pointer: "/output/video_url",
    video_has_model: true,
    decision: "D-PLAT-8",
};

/// new-api's `convertAliStatus`: the OpenAI video status of an Ali `task_status` (the submit
/// answer and `/v1/videos/{id}` both read Ali's own word, not the task row).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::video_status;
/// assert_eq!(video_status("PENDING"), "queued");
/// assert_eq!(video_status("CANCELED"), "failed");
/// assert_eq!(video_status("SUSPENDED"), "unknown");
/// ```
pub fn video_status(word: &str) -> &'static str {
    match word {
        "PENDING" => "queued",
        "RUNNING" => "in_progress",
        "SUCCEEDED" => "completed",
        "FAILED" | "CANCELED" | "UNKNOWN" => "failed",
        _ => "unknown",
    }
}

/// `ProcessAliOtherRatios`' table: the `resolution-<R>` billing ratio of an upstream model at
/// a resolution (`480P`, `720P`, `1080P`), if the adaptor has one.
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::resolution_ratio;
/// assert_eq!(resolution_ratio("wan2.5-i2v-preview", "720P"), Some(2.0));
/// assert_eq!(resolution_ratio("wan2.7-t2v", "720P"), None);
/// ```
pub fn resolution_ratio(model: &str, resolution: &str) -> Option<f64> {
    let table: &[(&str, f64)] = match model {
        "wan2.6-i2v" => &[("720P", 1.0), ("1080P", 1.0 / 0.6)],
        "wan2.5-t2v-preview" | "wan2.5-i2v-preview" => {
            &[("480P", 1.0), ("720P", 2.0), ("1080P", 1.0 / 0.3)]
        }
        "wan2.2-t2v-plus" | "wan2.2-i2v-plus" => &[("480P", 1.0), ("1080P", 0.7 / 0.14)],
        "wan2.2-kf2v-flash" => &[("480P", 1.0), ("720P", 2.0), ("1080P", 4.8)],
        "wan2.2-i2v-flash" => &[("480P", 1.0), ("720P", 2.0)],
        "wan2.2-s2v" => &[("480P", 1.0), ("720P", 0.9 / 0.5)],
        _ => &[],
    };
    let r = resolution.to_ascii_uppercase();
    table.iter().find(|(k, _)| *k == r).map(|(_, v)| *v)
}

/// `sizeToResolution`: the resolution of a DashScope size (`1280*720`), if it is one.
pub fn size_resolution(size: &str) -> Option<&'static str> {
    const P480: [&str; 3] = ["832*480", "480*832", "624*624"];
    const P720: [&str; 5] = ["1280*720", "720*1280", "960*960", "1088*832", "832*1088"];
    const P1080: [&str; 5] = [
        "1920*1080",
        "1080*1920",
        "1440*1440",
        "1632*1248",
        "1248*1632",
    ];
    if P480.contains(&size) {
        Some("480P")
    } else if P720.contains(&size) {
        Some("720P")
    } else if P1080.contains(&size) {
        Some("1080P")
    } else {
        None
    }
}
