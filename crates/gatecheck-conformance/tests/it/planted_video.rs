//! The planted bugs of OpenAI's video routes (`video.*`): creation, polling, progress,
//! content and the decided fields of a task.

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::ProgressRegresses,
            "video.progress.monotone",
            Status::Failed,
            "video::check_transition",
        ),
        (
            Bug::CompletedAt99,
            "video.completed.progress-100",
            Status::Failed,
            "video::check_task (progress_100_iff_completed)",
        ),
        (
            Bug::UnknownTask400,
            "video.poll.unknown-id-404",
            Status::Failed,
            "Rejection::TaskNotFound",
        ),
        (
            Bug::TaskIdMismatch,
            "video.create.queued",
            Status::Failed,
            "video::check_task_decisions (task_id)",
        ),
        (
            Bug::EmptyPromptAccepted,
            "video.create.empty-prompt-400",
            Status::Failed,
            "Rejection::Validation",
        ),
        (
            Bug::ContentNotMp4,
            "video.content.mp4",
            Status::Deviation,
            "media::parse_mp4",
        ),
        (
            Bug::ContentServedEarly,
            "video.content.not-ready-400",
            Status::Deviation,
            "video::content_rejection",
        ),
        (
            Bug::CreatedInProgress,
            "video.create.queued",
            Status::Failed,
            "video::check_created",
        ),
        (
            Bug::CompletedBeforeCreated,
            "video.completed.timestamps",
            Status::Failed,
            "video::check_task (completed_at)",
        ),
        (
            Bug::ProgressOver100,
            "video.progress.range",
            Status::Failed,
            "video::check_task (progress_range)",
        ),
        (
            Bug::CompletedWithoutUrl,
            "video.task.decided-fields",
            Status::Deviation,
            "video::check_task_decisions",
        ),
        (
            Bug::UnknownModelAccepted,
            "video.create.unknown-model-rejected",
            Status::Failed,
            "Rejection::ModelNotFound",
        ),
    ]
}
