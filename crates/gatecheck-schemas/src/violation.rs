//! What a failed validation reports: [`Violation`] (one broken rule) and [`ValidationError`].
//!
//! A leaf: the validators (`validate.rs`), the content checks and the schema registry all
//! report through these types, and this module imports none of them.

use crate::schemas;
use std::fmt;

/// At most this many violations are reported for one instance (the rest are counted).
pub const MAX_VIOLATIONS: usize = 100;

/// One rule an instance breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer to the offending value inside the instance (`""` is the whole instance).
    pub instance_path: String,
    /// The schema keyword whose rule is broken: `required`, `maximum`, `enum`, `type`...
    pub keyword: String,
    /// JSON pointer to that keyword inside the resource schema, through `$ref`s
    /// (e.g. `/properties/status/$ref/enum`).
    pub schema_path: String,
    /// The absolute URI of that keyword in the document that holds it
    /// (e.g. `https://gatecheck.dev/schemas/common.json#/$defs/video_status/enum`).
    pub keyword_location: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(f, "at {path}: {} [{}]", self.message, self.keyword)
    }
}

/// Why [`validate`](crate::validate()) refused an instance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationError {
    /// No resource schema has this name.
    #[error("unknown schema {name:?}; known schemas: {}", schemas::schema_names().join(", "))]
    UnknownSchema {
        /// The name asked for.
        name: String,
    },
    /// The instance breaks one or more rules of the schema.
    #[error("{}", invalid_message(schema, violations, *omitted))]
    Invalid {
        /// The resource name.
        schema: &'static str,
        /// Each broken rule (at most [`MAX_VIOLATIONS`]).
        violations: Vec<Violation>,
        /// How many further violations were not recorded.
        omitted: usize,
    },
    /// An embedded schema does not compile (a defect of this crate, caught by its tests).
    #[error("the embedded schema {name:?} is broken: {reason}")]
    BrokenSchema {
        /// The resource name.
        name: String,
        /// The compiler's reason.
        reason: String,
    },
}

impl ValidationError {
    /// The violations, empty unless the error is [`ValidationError::Invalid`].
    pub fn violations(&self) -> &[Violation] {
        match self {
            Self::Invalid { violations, .. } => violations,
            _ => &[],
        }
    }
}

fn invalid_message(schema: &str, violations: &[Violation], omitted: usize) -> String {
    let total = violations.len() + omitted;
    let mut out = format!(
        "not a valid {schema}: {total} violation{}",
        if total == 1 { "" } else { "s" }
    );
    for v in violations {
        out.push_str("\n  ");
        out.push_str(&v.to_string());
    }
    if omitted > 0 {
        out.push_str(&format!("\n  ... and {omitted} more"));
    }
    out
}
