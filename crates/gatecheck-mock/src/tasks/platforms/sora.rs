//! Sora / OpenAI video (channel types 55 and 1): the generic OpenAI-video task's hooks
//! (relay/channel/task/sora/adaptor.go; DECISIONS D-TASK-1). Its routes are `/v1/videos` and
//! the unified route for a model no platform's channel serves (`routes/video.rs`); its
//! record's `data` is the video object, which those routes render, and its plugin's facts
//! (bodies, refusals, ratios) are its description's.

use super::room::TaskRoom;
use gatecheck_schemas::rules::platforms::sora::PLATFORM;

/// Sora / OpenAI video.
pub const ROOM: TaskRoom = TaskRoom {
    rules: &PLATFORM,
    upstream: None,
    read: None,
    native: None,
    callbacks: false,
};
