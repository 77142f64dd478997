//! The card of one failure, deviation or error: the rule, what was expected and seen, the
//! request as curl, the answer, and the other exchanges behind the verdict.

use super::writer::Html;
use super::{anchor, pair, pre_copy};
use crate::evidence::{status_text, Evidence};
use crate::report::CheckResult;

/// One failure, deviation or error: the rule, what was expected and seen, the request as
/// curl, the answer.
pub(super) fn card(h: &mut Html, c: &CheckResult) {
    let status = c.status.as_str();
    let classes = format!("card {status}");
    let id = anchor("check-", &c.id);
    h.el("article", &[("class", &classes), ("id", &id)], |h| {
        h.el("header", &[], |h| {
            h.leaf("span", &[("class", &format!("badge {status}"))], status);
            h.el("h3", &[], |h| h.leaf("code", &[], &c.id));
        });
        h.leaf("p", &[], &c.title);
        h.el("dl", &[], |h| {
            h.leaf("dt", &[], "Rule");
            h.el("dd", &[("class", "rule")], |h| {
                h.text(&c.spec);
                if let Some(row) = c.evidence.as_ref().and_then(|e| e.decision.as_deref()) {
                    h.text(" · ");
                    h.leaf("b", &[], &format!("DECISIONS {row}"));
                    if let Some(d) = gatecheck_schemas::decisions::get(row) {
                        h.text(&format!(": {}. Decided: {}", d.title, d.documented));
                    }
                }
            });
            match &c.evidence {
                Some(e) => evidence_terms(h, e),
                None => pair(h, "What happened", c.message.as_deref().unwrap_or("")),
            }
        });
        if let Some(e) = &c.evidence {
            exchange(h, &id, e);
        }
    });
}

fn evidence_terms(h: &mut Html, e: &Evidence) {
    pair(h, "Expected and seen", &e.message);
    if let Some(case) = &e.case {
        pair(h, "Minimal case", case);
    }
}

/// The request (curl), the answer, and the related exchanges of a verdict.
fn exchange(h: &mut Html, id: &str, e: &Evidence) {
    if let Some(curl) = &e.curl {
        h.leaf("h4", &[], "Request");
        pre_copy(h, &format!("{id}-curl"), curl);
    }
    if e.status.is_some() || e.body.is_some() {
        h.leaf("h4", &[], "Answer");
        let head = match (e.status, &e.content_type) {
            (Some(s), Some(ct)) => format!("{}, {ct}", status_text(s)),
            (Some(s), None) => format!("{}, no content type", status_text(s)),
            (None, _) => "no status".to_owned(),
        };
        h.leaf("p", &[("class", "answer")], &head);
        if let Some(b) = &e.body {
            h.leaf("pre", &[], b);
        }
    }
    if e.related.is_empty() {
        return;
    }
    h.el("details", &[("open", "")], |h| {
        h.leaf(
            "summary",
            &[],
            &format!("Other exchanges behind the verdict ({})", e.related.len()),
        );
        for (i, rel) in e.related.iter().enumerate() {
            h.leaf("h4", &[], &rel.what);
            pre_copy(h, &format!("{id}-related-{i}"), &rel.curl);
            if let Some(s) = rel.status {
                h.leaf("p", &[], &status_text(s));
            }
            if let Some(b) = &rel.body {
                h.leaf("pre", &[], b);
            }
        }
    });
}
