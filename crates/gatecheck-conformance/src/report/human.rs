//! The human summary: a table of the checks that did not pass, and the counts.

use super::{CheckResult, Report, Status};
use std::sync::Arc;

/// Called after each check (for progress display).
pub type ProgressFn = Arc<dyn Fn(&CheckResult, usize, usize) + Send + Sync>;

/// The summary table printed at the end of a run.
pub fn summary_table(report: &Report) -> String {
    let mut out = lacks_lines(report);
    let notable: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Passed)
        .collect();
    if !notable.is_empty() {
        let w = notable.iter().map(|c| c.id.len()).max().unwrap_or(8).max(8);
        out.push_str(&format!("{:<10} {:<w$}  {}\n", "STATUS", "CHECK", "DETAIL"));
        for c in &notable {
            let detail = c
                .evidence
                .as_ref()
                .map(|e| e.message.clone())
                .or_else(|| c.message.clone())
                .unwrap_or_default();
            let detail = match c.skip_cause {
                Some(cause) => format!("[{cause}] {detail}"),
                None => detail,
            };
            out.push_str(&format!(
                "{:<10} {:<w$}  {}\n",
                c.status.as_str(),
                c.id,
                first_line(&detail)
            ));
        }
        out.push('\n');
        // Failures and deviations, then the skips that carry the answer they could not judge.
        let judged =
            |c: &&&super::CheckResult| matches!(c.status, Status::Failed | Status::Deviation);
        let unjudged = |c: &&&super::CheckResult| c.status == Status::Skipped;
        for c in notable
            .iter()
            .filter(judged)
            .chain(notable.iter().filter(unjudged))
        {
            if let Some(e) = &c.evidence {
                let kind = match c.skip_cause {
                    Some(cause) => format!("skipped: {cause}"),
                    None => c.kind.to_string(),
                };
                out.push_str(&format!(
                    "── {} ({kind}; {})\n   {}\n",
                    c.id, c.spec, e.message
                ));
                if let Some(case) = &e.case {
                    out.push_str(&format!("   {case}\n"));
                }
                if let Some(curl) = &e.curl {
                    out.push_str(&format!("   reproduce: {curl}\n"));
                }
                if let (Some(s), Some(b)) = (e.status, &e.body) {
                    out.push_str(&format!("   answer: {s} {}\n", first_line(b)));
                }
                for r in &e.related {
                    out.push_str(&format!("   also ({}): {}\n", r.what, r.curl));
                    if let (Some(s), Some(b)) = (r.status, &r.body) {
                        out.push_str(&format!("   answer: {s} {}\n", first_line(b)));
                    }
                }
            }
        }
    }
    for n in &report.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if let Some(f) = &report.setup_failure {
        out.push_str(&format!(
            "SETUP FAILED during {} ({}): {}\nno check ran\n",
            f.stage,
            f.kind.as_str(),
            f.message
        ));
    }
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
        out.push_str("the run's deadline was reached; the remaining checks were skipped\n");
    }
    if report.interrupted {
        out.push_str("interrupted; the working key was restored\n");
    }
    out
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

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default();
    crate::redact::truncate(line, 160)
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
            bar.set_message(format!("{} {}", r.status.as_str(), r.id));
            if done >= total {
                bar.finish_and_clear();
            }
        },
    ))
}
