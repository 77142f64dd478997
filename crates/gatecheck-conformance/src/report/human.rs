//! The human summary: a table of the checks that did not pass, and the counts.

use super::{CheckResult, Report, Status};
use crate::terminal::{escape, escape_lines};
use std::sync::Arc;

/// Called after each check (for progress display).
pub type ProgressFn = Arc<dyn Fn(&CheckResult, usize, usize) + Send + Sync>;

/// The summary printed at the end of a run: what stopped the run (if anything) first, the
/// failures, deviations and errors with their evidence, then the skips grouped by cause, then
/// the counts.
pub fn summary_table(report: &Report) -> String {
    let mut out = setup_failure_lines(report);
    out.push_str(&base_url_hint(report));
    out.push_str(&lacks_lines(report));
    let judged: Vec<&CheckResult> = report
        .checks
        .iter()
        .filter(|c| matches!(c.status, Status::Failed | Status::Deviation | Status::Error))
        .collect();
    if !judged.is_empty() {
        out.push_str(&table(&judged));
        out.push('\n');
        for c in &judged {
            evidence_block(&mut out, c);
        }
    }
    out.push_str(&skip_groups(report));
    for c in report.checks.iter().filter(|c| c.status == Status::Skipped) {
        evidence_block(&mut out, c);
    }
    if !report.repro_variables.is_empty() {
        out.push_str("the reproduce lines name these variables (export them, then a line runs as printed):\n");
        for v in &report.repro_variables {
            out.push_str(&format!("  ${}: {}\n", v.name, escape(&v.source)));
        }
    }
    for n in &report.notes {
        out.push_str(&format!("note: {}\n", escape(n)));
    }
    counts(&mut out, report);
    escape_lines(&out).into_owned()
}

/// The rows of the checks that got a verdict other than `passed` (skips are grouped apart).
fn table(rows: &[&CheckResult]) -> String {
    let w = rows.iter().map(|c| c.id.len()).max().unwrap_or(8).max(8);
    let mut out = format!("{:<10} {:<w$}  {}\n", "STATUS", "CHECK", "DETAIL");
    for c in rows {
        let detail = c
            .evidence
            .as_ref()
            .map(|e| e.message.clone())
            .or_else(|| c.message.clone())
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<10} {:<w$}  {}\n",
            c.status.as_str(),
            c.id,
            first_line(&detail)
        ));
    }
    out
}

/// The block of one check with evidence, headed by the verdict it got (`failed`,
/// `deviation`, `skipped: <cause>`): the message, the case, the repro and the answer.
fn evidence_block(out: &mut String, c: &CheckResult) {
    let Some(e) = &c.evidence else {
        return;
    };
    let verdict = match c.skip_cause {
        Some(cause) => format!("skipped: {cause}"),
        None => c.status.as_str().to_owned(),
    };
    out.push_str(&format!(
        "── {} ({verdict}; {})\n   {}\n",
        c.id,
        c.spec,
        escape(&e.message)
    ));
    if let Some(case) = &e.case {
        out.push_str(&format!("   {}\n", escape(case)));
    }
    if let Some(curl) = &e.curl {
        out.push_str(&format!("   reproduce: {}\n", escape(curl)));
    }
    if let (Some(s), Some(b)) = (e.status, &e.body) {
        out.push_str(&format!("   answer: {s} {}\n", first_line(b)));
    }
    for r in &e.related {
        out.push_str(&format!(
            "   also ({}): {}\n",
            escape(&r.what),
            escape(&r.curl)
        ));
        if let (Some(s), Some(b)) = (r.status, &r.body) {
            out.push_str(&format!("   answer: {s} {}\n", first_line(b)));
        }
    }
}

/// Most check ids listed under one reason of a skip group.
const IDS_PER_REASON: usize = 12;

/// The skips, grouped by cause, then by reason: each reason once, with the checks it holds.
/// After a failed setup, one line: every check was skipped for the cause printed first.
fn skip_groups(report: &Report) -> String {
    let skipped: Vec<&CheckResult> = report
        .checks
        .iter()
        .filter(|c| c.status == Status::Skipped)
        .collect();
    if skipped.is_empty() {
        return String::new();
    }
    if report.setup_failure.is_some() {
        return format!(
            "no check ran: {} check{} skipped (setup failed)\n",
            skipped.len(),
            plural(skipped.len())
        );
    }
    let mut out = String::new();
    for cause in crate::vocab::skip::SkipCause::ALL {
        let of_cause: Vec<&&CheckResult> = skipped
            .iter()
            .filter(|c| {
                c.skip_cause
                    .unwrap_or(crate::vocab::skip::SkipCause::NoCase)
                    == cause
            })
            .collect();
        if of_cause.is_empty() {
            continue;
        }
        out.push_str(&format!("skipped, {cause} ({}):\n", of_cause.len()));
        let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
        for c in of_cause {
            let why = first_line(c.message.as_deref().unwrap_or(""));
            match reasons.iter_mut().find(|(r, _)| *r == why) {
                Some((_, ids)) => ids.push(&c.id),
                None => reasons.push((why, vec![&c.id])),
            }
        }
        for (why, ids) in reasons {
            out.push_str(&format!("  {why}\n    {}\n", id_list(&ids)));
        }
    }
    out.push('\n');
    out
}

fn id_list(ids: &[&str]) -> String {
    let shown = ids[..ids.len().min(IDS_PER_REASON)].join(", ");
    match ids.len().saturating_sub(IDS_PER_REASON) {
        0 => shown,
        more => format!("{shown}, and {more} more (the reports list every check)"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The counts, the skips by cause, and how the run ended.
fn counts(out: &mut String, report: &Report) {
    let s = &report.summary;
    out.push_str(&format!(
        "\n{} checks: {} passed, {} failed, {} deviations, {} skipped, {} errors  ·  {} requests, {} retries (of {}), {} shrink steps (of {}), ~{} quota  ·  {:.1}s  ·  seed {}\n",
        s.total, s.passed, s.failed, s.deviations, s.skipped, s.errors,
        report.requests_sent, report.retries, report.retry_budget,
        report.shrink_steps, report.shrink_budget, report.quota_spent,
        report.duration_ms as f64 / 1000.0, report.seed
    ));
    if !s.skipped_by_cause.is_empty() {
        let causes: Vec<String> = s
            .skipped_by_cause
            .iter()
            .map(|(cause, n)| format!("{n} {cause}"))
            .collect();
        out.push_str(&format!("skipped by cause: {}\n", causes.join(", ")));
    }
    if report.deadline_reached {
        out.push_str(
            "the run's deadline was reached; the remaining checks were skipped (the run is \
             incomplete unless --allow-skip deadline)\n",
        );
    }
    if report.key_not_restored {
        out.push_str(&format!(
            "the working key could NOT be put back as the run found it ({}): the run is not green\n",
            report.key_cleanup.as_deref().unwrap_or("no cleanup")
        ));
    }
    if report.interrupted {
        out.push_str("interrupted; the working key was restored\n");
    }
}

/// What stopped the run before any check, first, with a hint when the target could not be
/// reached. Empty when the setup went through.
fn setup_failure_lines(report: &Report) -> String {
    let Some(f) = &report.setup_failure else {
        return String::new();
    };
    let mut out = format!(
        "SETUP FAILED during {} ({}): {}\n",
        f.stage,
        f.kind.as_str(),
        escape(&f.message)
    );
    if f.kind == super::SetupFailureKind::Unreachable {
        out.push_str(&format!(
            "  is the URL right ({}), and is the target up? try: curl -sS '{}'\n",
            report.target, report.target
        ));
    }
    out.push('\n');
    out
}

/// A base URL ending in `/v1`: the runner adds `/v1` (and `/api`) itself, so the requests
/// went to `/v1/v1/...` and `/v1/api/...`, and the routes look missing or refused. Said
/// before anything else.
fn base_url_hint(report: &Report) -> String {
    let trimmed = report.target.trim_end_matches('/');
    let Some(root) = trimmed.strip_suffix("/v1") else {
        return String::new();
    };
    format!(
        "the base URL ends in /v1, and gatecheck adds /v1 itself: the requests went to \
         {trimmed}/v1/...; give the root instead: --base-url {root}\n\n"
    )
}

/// The summary's opening: the pinned routes the target does not serve, and where the models
/// came from. Empty when discovery did not run.
fn lacks_lines(report: &Report) -> String {
    let Some(d) = &report.discovery else {
        return String::new();
    };
    let mut out = String::new();
    let lacks = d.lacks();
    if lacks.is_empty() {
        out.push_str("the target serves every route the spec pins\n");
    } else {
        out.push_str(&format!(
            "the target lacks {} route{} the spec pins:\n",
            lacks.len(),
            if lacks.len() == 1 { "" } else { "s" }
        ));
        for r in lacks {
            out.push_str(&format!("  {} (answered {})\n", r.route, r.status));
        }
    }
    out.push_str(&format!(
        "models: {} from {}\n\n",
        d.models, d.models_source
    ));
    out
}

/// The first line of a target's text, escaped ([`escape`]) and cut to 160 characters.
fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default();
    crate::redact::truncate(&escape(line), 160)
}

/// A progress display for [`crate::Runner::on_progress`]: an indicatif bar on a terminal
/// (stderr), nothing otherwise.
pub fn progress_bar(total: usize) -> Option<ProgressFn> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} checks  {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(std::sync::Arc::new(
        move |r: &super::CheckResult, done: usize, total: usize| {
            bar.set_position(done as u64);
            bar.set_message(format!("{} {}", r.status.as_str(), escape(&r.id)));
            if done >= total {
                bar.finish_and_clear();
            }
        },
    ))
}
