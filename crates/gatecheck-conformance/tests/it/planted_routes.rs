//! The planted bugs of routing and the model catalog: `/v1` errors and unknown paths
//! (`v1.*`), and `/api/models` (`catalog.*`).

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::CatalogWithoutTotal,
            "catalog.envelope-schema",
            Status::Failed,
            "schemas catalog-envelope",
        ),
        (
            Bug::NoRequestId,
            "v1.request-id-header",
            Status::Deviation,
            "D-ERR REQUEST_ID_HEADER (X-Oneapi-Request-Id)",
        ),
        (
            Bug::UnknownPathDashboard,
            "v1.unknown-path-404",
            Status::Failed,
            "Rejection::UnknownPath",
        ),
        (
            Bug::MediaValidation422,
            "v1.validation-status-400",
            Status::Failed,
            "Rejection::MediaValidation",
        ),
        (
            Bug::CatalogTotalOffByOne,
            "catalog.paging",
            Status::Deviation,
            "catalog::page (total)",
        ),
        (
            Bug::UnknownPathOtherBody,
            "v1.unknown-path-404",
            Status::Deviation,
            "schemas v1-error on the not-found body (D-ROUTE-3)",
        ),
        (
            Bug::SubpathServedAsPoll,
            "v1.unknown-subpath-404",
            Status::Failed,
            "Rejection::UnknownPath under a task (D-TASK-15)",
        ),
    ]
}
