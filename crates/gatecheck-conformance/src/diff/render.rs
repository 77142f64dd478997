//! Rendering of a [`DiffReport`]: text (colored on a terminal, plain in files) and JUnit XML;
//! the targets' text in them escaped by [`crate::terminal::escape`].

use super::{DiffReport, StepDiff};
use crate::terminal::{escape, escape_lines};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use similar::{ChangeTag, TextDiff};
use std::fmt::Write as _;

/// How text is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// ANSI colors (for a terminal).
    pub color: bool,
    /// Show the equal steps too.
    pub verbose: bool,
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

fn paint(style: Style, code: &str, text: &str) -> String {
    if style.color {
        format!("{code}{text}{RESET}")
    } else {
        text.to_owned()
    }
}

/// A unified diff of two JSON values pretty-printed, `-` for left and `+` for right.
pub fn unified(left: &serde_json::Value, right: &serde_json::Value, style: Style) -> String {
    let l = serde_json::to_string_pretty(left).unwrap_or_default() + "\n";
    let r = serde_json::to_string_pretty(right).unwrap_or_default() + "\n";
    let diff = TextDiff::from_lines(&l, &r);
    let mut out = String::new();
    for group in diff.grouped_ops(2) {
        let _ = writeln!(out, "{}", paint(style, DIM, "@@"));
        for op in group {
            for change in diff.iter_changes(&op) {
                let (sign, color) = match change.tag() {
                    ChangeTag::Delete => ("-", Some(RED)),
                    ChangeTag::Insert => ("+", Some(GREEN)),
                    ChangeTag::Equal => (" ", None),
                };
                let line = format!("{sign}{}", escape(change.value().trim_end_matches('\n')));
                match color {
                    Some(c) => {
                        let _ = writeln!(out, "{}", paint(style, c, &line));
                    }
                    None => {
                        let _ = writeln!(out, "{line}");
                    }
                }
            }
        }
    }
    out
}

fn render_step(out: &mut String, report: &DiffReport, step: &StepDiff, style: Style) {
    let mark = if step.skipped.is_some() {
        paint(style, DIM, "-")
    } else if step.differs() {
        paint(style, RED, "✗")
    } else {
        paint(style, GREEN, "✓")
    };
    let _ = writeln!(
        out,
        "{mark} {} {}",
        paint(style, BOLD, &step.step),
        paint(
            style,
            DIM,
            &format!("(step {}: {}; {})", step.index, step.request, step.title)
        )
    );
    for (side, error) in [("left", &step.left_error), ("right", &step.right_error)] {
        if let Some(e) = error {
            let _ = writeln!(out, "  {side} request failed: {}", escape(e));
        }
    }
    if let Some(cause) = &step.skipped {
        let _ = writeln!(out, "  skipped on both sides: {}", escape(cause));
    }
    for finding in &step.not_applied {
        let _ = writeln!(out, "  not applied, {}", escape(&finding.to_string()));
    }
    if !step.differs() {
        return;
    }
    for d in &step.differences {
        match &d.known {
            Some(row) => {
                let _ = writeln!(out, "  {}  (known difference {row})", escape(&d.describe()));
            }
            None => {
                let _ = writeln!(out, "  {}", escape(&d.describe()));
            }
        }
    }
    for line in unified(&step.left, &step.right, style).lines() {
        let _ = writeln!(out, "    {line}");
    }
    let confirmed = match step.repro_confirmed {
        Some(true) => " (confirmed alone on reset targets)",
        Some(false) => " (did not reproduce alone on reset targets)",
        None => "",
    };
    let _ = writeln!(
        out,
        "  repro: {}{confirmed}",
        report.repro_command(&step.minimal_steps)
    );
    if let Some(c) = &step.curl_left {
        let _ = writeln!(out, "  left:  {}", escape(c));
    }
    if let Some(c) = &step.curl_right {
        let _ = writeln!(out, "  right: {}", escape(c));
    }
}

/// The report as text: a header, each differing step (each step with `verbose`) with its
/// differences by JSON path, a unified diff of the normalized responses and a reproduction;
/// then a summary.
pub fn render_text(report: &DiffReport, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "gatecheck diff  seed {}\n  left:  {}\n  right: {}",
        report.seed, report.left, report.right
    );
    if let Some((side, label, error)) = report.unreachable_side() {
        let _ = writeln!(
            out,
            "the {side} target ({label}) could not be reached: {}\n  \
             is the URL right, and is the target up? try: curl -sS '{label}'\n\
             {} steps not compared: no request to the {side} target got an answer",
            escape(error),
            report.steps.len()
        );
        return out;
    }
    for note in &report.notes {
        let _ = writeln!(out, "  {}", escape(note));
    }
    out.push('\n');
    if style.verbose {
        for step in &report.steps {
            render_step(&mut out, report, step, style);
        }
        out.push('\n');
    }
    for (check, steps) in report.groups() {
        let about = match crate::registry::find(check) {
            Some(info) => format!(" [{}] {}", info.kind, info.title),
            None => String::new(),
        };
        let _ = writeln!(out, "── check {}{about}", paint(style, BOLD, check));
        for step in steps {
            render_step(&mut out, report, step, style);
        }
    }
    render_counts(&mut out, report);
    let rows = report.known_rows();
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "known differences shown (docs/DECISIONS.md rows): {}",
            rows.len()
        );
        for k in rows {
            let _ = writeln!(out, "  - {} [{}] {}", k.id, k.verdict, k.title);
        }
    }
    let failed: Vec<String> = report
        .steps
        .iter()
        .filter(|s| s.left_error.is_some() || s.right_error.is_some())
        .map(|s| s.step.clone())
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "requests that failed (the comparison is incomplete): {}",
            failed.join(", ")
        );
        for step in report.steps.iter().filter(|s| !s.differs()) {
            for (side, error) in [("left", &step.left_error), ("right", &step.right_error)] {
                if let Some(e) = error {
                    let _ = writeln!(out, "  {} ({side}): {}", step.step, escape(e));
                }
            }
        }
    }
    let unexplained = report.unexplained();
    if !unexplained.is_empty() {
        let _ = writeln!(out, "other differences: {}", unexplained.join(", "));
    }
    out
}

/// The counts, then the steps skipped on both sides and the writes not applied.
fn render_counts(out: &mut String, report: &DiffReport) {
    let differing = report.differing().count();
    let skipped: Vec<&StepDiff> = report.skipped().collect();
    let equal = report.steps.len() - differing - skipped.len();
    let _ = write!(
        out,
        "\n{} steps, {equal} equal, {differing} differ",
        report.steps.len(),
    );
    if skipped.is_empty() {
        out.push('\n');
    } else {
        let _ = writeln!(
            out,
            ", {} skipped (a precondition was not met)",
            skipped.len()
        );
        for step in skipped {
            let cause = step.skipped.as_deref().unwrap_or_default();
            let _ = writeln!(out, "  - {}: {}", step.step, escape(cause));
        }
    }
    let unapplied: Vec<&StepDiff> = report
        .steps
        .iter()
        .filter(|s| !s.not_applied.is_empty())
        .collect();
    if !unapplied.is_empty() {
        let _ = writeln!(out, "writes acknowledged but not applied:");
        for step in unapplied {
            for finding in &step.not_applied {
                let _ = writeln!(out, "  - {}, {}", step.step, escape(&finding.to_string()));
            }
        }
    }
}

/// The report as JUnit XML: one test case per step; a differing step is a failure whose
/// message lists the differing paths.
pub fn to_junit(report: &DiffReport) -> String {
    let mut suite = TestSuite::new("gatecheck diff");
    suite.add_property(("seed", report.seed.to_string().as_str()));
    suite.add_property(("left", report.left.as_str()));
    suite.add_property(("right", report.right.as_str()));
    for step in &report.steps {
        let status = if let Some(cause) = &step.skipped {
            let mut s = TestCaseStatus::skipped();
            s.set_message(format!("skipped on both sides: {}", escape(cause)));
            s
        } else if step.differs() {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let paths: Vec<&str> = step.differences.iter().map(|d| d.path.as_str()).collect();
            let mut message = Vec::new();
            if !paths.is_empty() {
                message.push(format!("differs at {}", paths.join(", ")));
            }
            message.extend(
                step.not_applied
                    .iter()
                    .map(|f| format!("not applied, {}", escape(&f.to_string()))),
            );
            s.set_message(message.join("; "));
            let ids: Vec<&str> = step.known.iter().map(|k| k.id).collect();
            s.set_type(if !step.not_applied.is_empty() {
                "not-applied".to_owned()
            } else if step.differences.iter().all(|d| d.known.is_some()) {
                format!("known-difference ({})", ids.join(", "))
            } else if ids.is_empty() {
                "difference".to_owned()
            } else {
                format!("difference, partly known ({})", ids.join(", "))
            });
            let mut text = String::new();
            render_step(&mut text, report, step, Style::default());
            s.set_description(text);
            s
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new(step.step.clone(), status);
        case.set_classname(step.check_id.clone());
        suite.add_test_case(case);
    }
    let mut junit = Report::new("gatecheck");
    junit.add_test_suite(suite);
    escape_lines(&junit.to_string().unwrap_or_default()).into_owned()
}
