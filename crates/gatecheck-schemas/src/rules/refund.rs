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

/// What a key's books show across a task that failed: read before the submit, after it, and
/// after the failure was observed (DECISIONS D-ROUTE-5, D-TASK-13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundSeen {
    /// The whole charge went back: `remain_quota` and `used_quota` as before the submit.
    Refunded,
    /// The charge stayed, consistently: both fields as after the submit (new-api's policy
    /// refunds; a deployment may keep the charge: a deviation).
    Kept,
    /// The books do not balance (a failure): part of the charge, more than the charge, or one
    /// field given back without the other. The description says which.
    Unbalanced(String),
}

/// Judges the key's `(remain_quota, used_quota)` `before` a task's submit, after it
/// (`charged`) and `after` its failure. A charge moves both fields by the same amount
/// (new-api's `DecreaseTokenQuota`), and so does a refund (`IncreaseTokenQuota`).
///
/// ```
/// use gatecheck_schemas::rules::refund::{judge_refund, RefundSeen};
/// assert_eq!(judge_refund((1000, 0), (300, 700), (1000, 0)), RefundSeen::Refunded);
/// assert_eq!(judge_refund((1000, 0), (300, 700), (300, 700)), RefundSeen::Kept);
/// assert!(matches!(judge_refund((1000, 0), (300, 700), (1000, 700)), RefundSeen::Unbalanced(_)));
/// assert!(matches!(judge_refund((1000, 0), (300, 700), (1700, -700)), RefundSeen::Unbalanced(_)));
/// ```
pub fn judge_refund(before: (i64, i64), charged: (i64, i64), after: (i64, i64)) -> RefundSeen {
    if after == before {
        return RefundSeen::Refunded;
    }
    if after == charged {
        return RefundSeen::Kept;
    }
    let charge = charged.1 - before.1;
    let (back_remain, back_used) = (after.0 - charged.0, charged.1 - after.1);
    RefundSeen::Unbalanced(format!(
        "charged {charge} at submit (remain_quota {} -> {}, used_quota {} -> {}); after the \
         failure remain_quota {} and used_quota {}: {back_remain} given back to remain_quota, \
         {back_used} taken off used_quota (a refund gives the whole charge back to both, or \
         none)",
        before.0, charged.0, before.1, charged.1, after.0, after.1
    ))
}
