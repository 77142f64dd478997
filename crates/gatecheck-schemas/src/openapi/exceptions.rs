//! The refusals of a schema-valid request that the document knowingly cannot rule out: the
//! D-OAS rows of DECISIONS.md, each with the reasons its refusals name. The document carries
//! them (`x-gatecheck-exceptions`), `scripts/peer-summary.py` matches Schemathesis' findings
//! with them, and the mock's test `openapi_bodies` its refusals of generated bodies: one table.

use crate::decisions::id;
use serde_json::{json, Value};

/// A known refusal: the D-OAS row and the texts its refusals name (any one of them, as a
/// plain substring of the answer's body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownRefusal {
    /// The DECISIONS.md row id (`D-OAS-4`).
    pub row: crate::decisions::Id,
    /// What the refusal's body names; one is enough.
    pub reasons: &'static [&'static str],
}

/// Every known refusal, by row.
pub const KNOWN_REFUSALS: &[KnownRefusal] = &[
    KnownRefusal {
        row: id::D_OAS_1,
        // The documented profile's message, then new-api's (NA10).
        reasons: &["the video is not ready", "Task is not completed yet"],
    },
    KnownRefusal {
        row: id::D_OAS_4,
        reasons: &[
            "task_no_found",
            "midjourney_task_not_found",
            "task_not_found",
            "task_status_not_success",
            "task_not_exist",
            "fail_to_fetch_task",
            "task_id is required for CVSync2AsyncGetResult",
            "no such media file",
        ],
    },
    KnownRefusal {
        row: id::D_OAS_5,
        reasons: &["not a valid PNG"],
    },
    KnownRefusal {
        row: id::D_OAS_6,
        reasons: &["bind_request_body_failed"],
    },
];

/// The D-OAS row whose reason the refusal `body` names, if any.
///
/// ```
/// use gatecheck_schemas::decisions::id;
/// use gatecheck_schemas::openapi::exceptions::known_refusal;
/// assert_eq!(known_refusal(r#"{"code":"task_not_exist"}"#), Some(id::D_OAS_4));
/// assert_eq!(known_refusal(r#"{"error":{"message":"n must be 1 when streaming"}}"#), None);
/// ```
pub fn known_refusal(body: &str) -> Option<crate::decisions::Id> {
    KNOWN_REFUSALS
        .iter()
        .find(|k| k.reasons.iter().any(|r| body.contains(r)))
        .map(|k| k.row)
}

/// [`KNOWN_REFUSALS`] as the document's `x-gatecheck-exceptions`.
pub(super) fn extension() -> Value {
    let rows: Vec<Value> = KNOWN_REFUSALS
        .iter()
        .map(|k| json!({ "row": k.row, "reasons": k.reasons }))
        .collect();
    json!({
        "description": "Refusals of a schema-valid request that no schema can rule out (a task that must exist or be finished, a PNG's bytes, Go's int): the D-OAS rows of DECISIONS.md, each with the texts its refusals name. A refusal naming none of them is a finding.",
        "refusals": rows
    })
}
