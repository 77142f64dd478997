//! The HTML page of a differential run: the verdict, the counts, and each differing step as a
//! card with the two normalized answers side by side.

use super::writer::Html;
use super::{anchor, pair, pre_copy};
use crate::diff::report::{DiffReport, StepDiff};
use crate::redact::Redactor;
use serde_json::Value;
use similar::{DiffTag, TextDiff};

/// The differential report as one self-contained HTML page, every secret `redactor` knows
/// redacted (in each JSON string before it is shown, and in the page as a whole).
///
/// ```
/// use gatecheck_conformance::diff::DiffReport;
/// let report = DiffReport { seed: 7, left: "mock (documented)".into(), right: "mock (new-api)".into(), notes: vec![], steps: vec![], targets: String::new() };
/// let html = gatecheck_conformance::report::diff_to_html(&report, &gatecheck_conformance::Redactor::new());
/// assert!(html.contains("no difference"));
/// ```
pub fn diff_to_html(report: &DiffReport, redactor: &Redactor) -> String {
    let differing: Vec<&StepDiff> = report.differing().collect();
    let errors = report.has_errors();
    let (verdict, class) = if errors {
        ("incomplete: some requests failed", "error")
    } else if differing.is_empty() {
        ("no difference", "passed")
    } else {
        ("differences", "failed")
    };
    let page = super::page(&format!("gatecheck diff: {verdict}"), |h| {
        let classes = format!("verdict {class}");
        h.el("header", &[("class", &classes), ("id", "verdict")], |h| {
            h.el("div", &[("class", "inner")], |h| {
                h.leaf("h1", &[], &format!("gatecheck diff: {verdict}"));
                h.leaf(
                    "p",
                    &[],
                    &format!(
                        "{} steps: {} differ, {} skipped; {} DECISIONS rows explain some, {} differ unexplained",
                        report.steps.len(),
                        differing.len(),
                        report.skipped().count(),
                        report.known_rows().len(),
                        report.unexplained().len()
                    ),
                );
                h.el("dl", &[("class", "meta")], |h| {
                    pair(h, "Left", &report.left);
                    pair(h, "Right", &report.right);
                    pair(h, "Seed", &report.seed.to_string());
                    for n in &report.notes {
                        pair(h, "Note", n);
                    }
                });
            });
        });
        h.el("main", &[], |h| {
            known_rows(h, report);
            h.leaf("h2", &[("id", "findings")], "Differing steps");
            if differing.is_empty() {
                h.leaf(
                    "p",
                    &[],
                    "None: every step answered the same on both sides.",
                );
            }
            for step in &differing {
                card(h, report, step, redactor);
            }
            steps_table(h, report);
            h.el("footer", &[], |h| {
                h.text(&format!(
                    "replay this run with: {}",
                    report.repro_command(&[])
                ));
            });
        });
    });
    redactor.xml(&page)
}

fn known_rows(h: &mut Html, report: &DiffReport) {
    let rows = report.known_rows();
    if rows.is_empty() {
        return;
    }
    h.leaf("h2", &[("id", "known")], "Differences DECISIONS explains");
    h.el("ul", &[], |h| {
        for k in rows {
            h.el("li", &[], |h| {
                h.leaf("b", &[], k.id);
                h.text(&format!(": {} (reported as {})", k.title, k.verdict));
            });
        }
    });
}

fn card(h: &mut Html, report: &DiffReport, step: &StepDiff, redactor: &Redactor) {
    let id = anchor("step-", &step.step);
    h.el("article", &[("class", "card"), ("id", &id)], |h| {
        h.el("header", &[], |h| {
            h.leaf("span", &[("class", "badge failed")], "differs");
            h.el("h3", &[], |h| h.leaf("code", &[], &step.step));
            h.leaf(
                "span",
                &[("class", "mute")],
                &format!("step {} · check {}", step.index, step.check_id),
            );
        });
        h.leaf("p", &[], &step.title);
        h.el("dl", &[], |h| {
            pair(h, "Request", &step.request);
            for k in &step.known {
                pair(
                    h,
                    "Explained by",
                    &format!("DECISIONS {}: {}", k.id, k.title),
                );
            }
            for n in &step.not_applied {
                pair(h, "Not applied", n);
            }
            for (side, e) in [
                ("Left error", &step.left_error),
                ("Right error", &step.right_error),
            ] {
                if let Some(e) = e {
                    pair(h, side, e);
                }
            }
            if !step.minimal_steps.is_empty() {
                pair(h, "Reproduce", &report.repro_command(&step.minimal_steps));
            }
            if let Some(c) = step.repro_confirmed {
                pair(h, "Reproduction confirmed", if c { "yes" } else { "no" });
            }
        });
        if !step.differences.is_empty() {
            h.el("ul", &[("class", "differences")], |h| {
                for d in &step.differences {
                    h.el("li", &[], |h| {
                        h.leaf("code", &[], &d.describe());
                        if let Some(k) = &d.known {
                            h.text(&format!(" (DECISIONS {k})"));
                        }
                    });
                }
            });
        }
        h.el("div", &[("class", "sbs")], |h| {
            for (side, label, curl) in [
                ("left", &report.left, &step.curl_left),
                ("right", &report.right, &step.curl_right),
            ] {
                h.el("div", &[], |h| {
                    h.leaf("h4", &[], &format!("{side}: {label}"));
                    if let Some(c) = curl {
                        pre_copy(h, &format!("{id}-{side}-curl"), c);
                    }
                });
            }
        });
        side_by_side(h, &step.left, &step.right, redactor);
    });
}

/// The two values pretty-printed in two columns, changed lines marked, equal runs cut to
/// three lines of context.
fn side_by_side(h: &mut Html, left: &Value, right: &Value, redactor: &Redactor) {
    let pretty =
        |v: &Value| serde_json::to_string_pretty(&redactor.json_strings(v)).unwrap_or_default();
    let (l, r) = (pretty(left), pretty(right));
    let (ll, rl): (Vec<&str>, Vec<&str>) = (l.lines().collect(), r.lines().collect());
    let diff = TextDiff::from_slices(&ll, &rl);
    h.el("div", &[("class", "scroll")], |h| {
        h.el("table", &[("class", "diff")], |h| {
            h.raw("<colgroup><col><col></colgroup><thead><tr><th>left</th><th>right</th></tr></thead>");
            h.el("tbody", &[], |h| {
                for (g, group) in diff.grouped_ops(3).iter().enumerate() {
                    if g > 0 {
                        h.raw("<tr><td class=\"gap\">…</td><td class=\"gap\">…</td></tr>");
                    }
                    for op in group {
                        let (tag, lr, rr) = op.as_tag_tuple();
                        let n = lr.len().max(rr.len());
                        for i in 0..n {
                            let lline = (i < lr.len()).then(|| ll[lr.start + i]);
                            let rline = (i < rr.len()).then(|| rl[rr.start + i]);
                            let (lc, rc) = match tag {
                                DiffTag::Equal => ("", ""),
                                _ => ("del", "ins"),
                            };
                            h.el("tr", &[], |h| {
                                cell(h, lline, lc);
                                cell(h, rline, rc);
                            });
                        }
                    }
                }
            });
        });
    });
}

fn cell(h: &mut Html, line: Option<&str>, class: &'static str) {
    match line {
        Some(text) => h.leaf("td", &[("class", class)], text),
        None => h.leaf("td", &[("class", "gap")], ""),
    }
}

fn steps_table(h: &mut Html, report: &DiffReport) {
    h.leaf("h2", &[("id", "steps")], "Every step");
    h.void(
        "input",
        &[
            ("class", "filter"),
            ("type", "search"),
            ("placeholder", "Filter steps"),
            ("data-table", "step-table"),
            ("aria-label", "Filter steps"),
        ],
    );
    h.el("div", &[("class", "scroll")], |h| {
        h.el("table", &[("id", "step-table")], |h| {
            h.raw("<thead><tr><th>#</th><th>Step</th><th>Request</th><th>Result</th></tr></thead>");
            h.el("tbody", &[], |h| {
                for s in &report.steps {
                    let (result, class) = if let Some(why) = &s.skipped {
                        (format!("skipped: {why}"), "skipped")
                    } else if s.differs() {
                        (
                            format!("{} differences", s.differences.len() + s.not_applied.len()),
                            "failed",
                        )
                    } else {
                        ("equal".to_owned(), "passed")
                    };
                    h.el("tr", &[("data-result", class)], |h| {
                        h.leaf("td", &[], &s.index.to_string());
                        h.el("td", &[], |h| h.leaf("code", &[], &s.step));
                        h.leaf("td", &[], &s.request);
                        h.el("td", &[], |h| {
                            h.leaf("span", &[("class", &format!("badge {class}"))], class);
                            h.text(" ");
                            h.text(&result);
                        });
                    });
                }
            });
        });
    });
}
