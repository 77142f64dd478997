//! How an asynchronous task is billed, as new-api bills it: charged in full when it is
//! submitted, and refunded in full, once, when it ends in failure (DECISIONS D-ROUTE-5).
//!
//! new-api pre-consumes the task's price at submit and keeps it as `task.Quota`. Its poller
//! (service/task_polling.go `updateVideoSingleTask`, `updateSunoTasks`) and its timeout sweep
//! (`sweepTimedOutTasks`: a task unfinished after `TaskTimeoutMinutes` becomes `FAILURE`) call
//! service/task_billing.go `RefundTaskQuota` on the edge into `FAILURE`, which gives the whole
//! `task.Quota` back to the user and to the key (`IncreaseTokenQuota`: remaining quota up, used
//! quota down). The edge is taken once: the status change is a compare-and-swap
//! (`UpdateWithStatus`), and a task already terminal is skipped. A task that succeeds keeps its
//! charge (the per-call and unadjusted cases; token re-pricing is not reproduced).
//!
//! Every task route calls [`refund_on_edge`] when it sees a task's status change: the video
//! tasks of `/v1/videos`, and the task routes that map their provider's statuses onto
//! [`VideoStatus`] (`SUCCESS` → `Completed`, `FAILURE` → `Failed`, the rest non-terminal).

use crate::types::VideoStatus;

/// The quota to give back when a task charged `charged` moves from status `from` to status
/// `to`: the whole charge on the edge from a non-terminal status into a failed terminal one
/// (`failed`, `error`; a timeout is such an edge), nothing otherwise (success, a repeated
/// observation of a terminal status, a negative charge).
///
/// ```
/// use gatecheck_schemas::rules::refund::refund_on_edge;
/// use gatecheck_schemas::types::VideoStatus::*;
/// assert_eq!(refund_on_edge(InProgress, Failed, 700), 700);
/// assert_eq!(refund_on_edge(Queued, Error, 700), 700);
/// assert_eq!(refund_on_edge(InProgress, Completed, 700), 0);
/// assert_eq!(refund_on_edge(Failed, Failed, 700), 0, "once");
/// assert_eq!(refund_on_edge(Queued, InProgress, 700), 0);
/// ```
pub fn refund_on_edge(from: VideoStatus, to: VideoStatus, charged: i64) -> i64 {
    let fails = matches!(to, VideoStatus::Failed | VideoStatus::Error);
    if !from.is_terminal() && fails {
        charged.max(0)
    } else {
        0
    }
}
