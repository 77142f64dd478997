//! The Markdown summary (`check --report markdown=FILE`), sized for a CI job summary such as
//! GitHub's `$GITHUB_STEP_SUMMARY` (at most 1 MiB a step): the verdict, what the target lacks,
//! the counts, one table row per failure and deviation, and the repro in a collapsed block.
//!
//! Like every report, the caller passes it through the run's redactor as a whole (`check`
//! writes `[redacted]`: Markdown would hide `<redacted>` as an HTML tag).

use super::{CheckResult, Report, Status};
use crate::exit;
use crate::vocab::skip::SkipCause;
use std::fmt::Write as _;

/// Table rows written at most; the rest are counted, and listed in the other reports.
pub const MAX_MARKDOWN_ROWS: usize = 100;
/// Characters of one row's reason at most.
const MAX_REASON_CHARS: usize = 200;
/// Bytes of the collapsed repro block at most (the whole summary stays far below 1 MiB).
const MAX_REPRO_BYTES: usize = 64 * 1024;

/// The report as GitHub-flavoured Markdown.
pub fn to_markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## gatecheck check: {}\n", verdict(report));
    let _ = writeln!(
        out,
        "Target `{}` ({}), expected profile `{}`, seed `{}`, {} requests in {:.1} s.\n",
        code_text(&report.target),
        report_target_kind(report),
        report.expect,
        report.seed,
        report.requests_sent,
        report.duration_ms as f64 / 1000.0
    );
    if let Some(era) = &report.era {
        let _ = writeln!(out, "Task-layer era: {}.\n", one_line(era));
    }
    if let Some(f) = &report.setup_failure {
        let _ = writeln!(
            out,
            "**No check ran:** {} failed ({}): {}\n",
            f.stage,
            f.kind.as_str(),
            one_line(&f.message)
        );
    }
    lacks(&mut out, report);
    counts(&mut out, report);
    findings(&mut out, report);
    repro(&mut out, report);
    crate::terminal::escape_lines(&out).into_owned()
}

/// One line: what the run means for a release gate.
fn verdict(report: &Report) -> String {
    let s = &report.summary;
    let no_credentials = s
        .skipped_by_cause
        .get(&SkipCause::NoCredentials)
        .copied()
        .unwrap_or(0);
    match report.exit_code() {
        exit::INCOMPLETE if no_credentials == 0 => {
            let cut = report.incomplete_skips().values().flat_map(|m| m.values()).sum::<u32>();
            format!("⚠️ incomplete ({cut} checks cut by the run's deadline)")
        }
        exit::INCOMPLETE => {
            format!("⚠️ incomplete ({no_credentials} checks skipped for lack of credentials)")
        }
        exit::PASSED if no_credentials > 0 => format!(
            "✅ passed, with {no_credentials} checks skipped for lack of credentials (allowed by --allow-skip)"
        ),
        exit::PASSED if s.deviations > 0 => {
            format!("✅ passed, with {} deviations", s.deviations)
        }
        exit::PASSED => "✅ passed".to_owned(),
        exit::INTERRUPTED => "⚠️ interrupted".to_owned(),
        _ if report.setup_failure.is_some() => "❌ setup failed".to_owned(),
        _ if report.key_not_restored && s.failed == 0 && s.errors == 0 => {
            "❌ the working key could not be put back".to_owned()
        }
        code => format!("❌ failed (exit {code})"),
    }
}

fn report_target_kind(report: &Report) -> String {
    match &report.mock_profile {
        Some(p) => format!("gatecheck mock, profile `{p}`"),
        None => match report.target_kind {
            super::TargetKind::Mock => "gatecheck mock".to_owned(),
            super::TargetKind::Deployment => "deployment".to_owned(),
            super::TargetKind::Unknown => "not identified".to_owned(),
        },
    }
}

/// The pinned routes the target does not serve, and the skips by cause.
fn lacks(out: &mut String, report: &Report) {
    let routes: Vec<String> = report
        .discovery
        .iter()
        .flat_map(|d| d.lacks())
        .map(|r| format!("`{}` ({})", r.route, r.status))
        .collect();
    let skips: Vec<String> = report
        .summary
        .skipped_by_cause
        .iter()
        .map(|(cause, n)| format!("{cause}: {n}"))
        .collect();
    if routes.is_empty() && skips.is_empty() {
        return;
    }
    out.push_str("### What the target lacks\n\n");
    if !routes.is_empty() {
        let _ = writeln!(out, "- Routes not served: {}", routes.join(", "));
    }
    if !skips.is_empty() {
        let _ = writeln!(out, "- Checks skipped, by cause: {}", skips.join(", "));
    }
    out.push('\n');
}

fn counts(out: &mut String, report: &Report) {
    let s = &report.summary;
    out.push_str("| Checks | Passed | Failed | Deviations | Skipped | Errors |\n");
    out.push_str("|---:|---:|---:|---:|---:|---:|\n");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} |\n",
        s.total, s.passed, s.failed, s.deviations, s.skipped, s.errors
    );
}

/// The checks a release gate reads: failures, errors, then deviations.
fn judged(report: &Report) -> Vec<&CheckResult> {
    let rank = |c: &&CheckResult| match c.status {
        Status::Failed => 0,
        Status::Error => 1,
        Status::Deviation => 2,
        _ => 3,
    };
    let mut judged: Vec<&CheckResult> = report.checks.iter().filter(|c| rank(c) < 3).collect();
    judged.sort_by_key(rank);
    judged
}

fn findings(out: &mut String, report: &Report) {
    let judged = judged(report);
    if judged.is_empty() {
        return;
    }
    out.push_str("| Status | Check | Rule | Reason |\n|---|---|---|---|\n");
    for c in judged.iter().take(MAX_MARKDOWN_ROWS) {
        let rule = match c.evidence.as_ref().and_then(|e| e.decision.as_ref()) {
            Some(d) => format!("{} ({d})", c.spec),
            None => c.spec.clone(),
        };
        let reason = c
            .evidence
            .as_ref()
            .map(|e| e.message.as_str())
            .or(c.message.as_deref())
            .unwrap_or("");
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} |",
            c.status.as_str(),
            code_text(&c.id),
            cell(&rule),
            cell(reason)
        );
    }
    if judged.len() > MAX_MARKDOWN_ROWS {
        let _ = writeln!(
            out,
            "\n{} more not shown here: see the JSON, JUnit or HTML report.",
            judged.len() - MAX_MARKDOWN_ROWS
        );
    }
    out.push('\n');
}

/// The requests behind each finding, and the run's seed, in a collapsed block.
fn repro(out: &mut String, report: &Report) {
    let judged = judged(report);
    if judged.is_empty() {
        return;
    }
    let mut body = String::new();
    let _ = writeln!(
        body,
        "# the same cases again: gatecheck check --base-url {} --seed {} ...",
        report.target, report.seed
    );
    let mut left_out = 0;
    for c in judged.iter().take(MAX_MARKDOWN_ROWS) {
        let Some(e) = &c.evidence else { continue };
        let mut block = format!("\n# {} ({})\n", c.id, c.status.as_str());
        if let Some(case) = &e.case {
            let _ = writeln!(block, "# minimal case: {}", one_line(case));
        }
        if let Some(curl) = &e.curl {
            let _ = writeln!(block, "{curl}");
        }
        for r in &e.related {
            let _ = writeln!(block, "# also ({})\n{}", one_line(&r.what), r.curl);
        }
        if body.len() + block.len() > MAX_REPRO_BYTES {
            left_out += 1;
            continue;
        }
        body.push_str(&block);
    }
    if left_out > 0 {
        let _ = writeln!(body, "\n# {left_out} more in the JSON report");
    }
    let fence = fence_for(&body);
    let _ = writeln!(
        out,
        "<details><summary>Reproduce</summary>\n\n{fence}sh\n{body}{fence}\n\n</details>"
    );
}

/// A code fence longer than any run of backticks in `body`.
fn fence_for(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// Text for a table cell: one line, pipes and backticks escaped, HTML neutralized, bounded.
fn cell(text: &str) -> String {
    let line = one_line(text);
    let mut short: String = line.chars().take(MAX_REASON_CHARS).collect();
    if line.chars().count() > MAX_REASON_CHARS {
        short.push('…');
    }
    short
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace('`', "\\`")
}

/// Text inside single backticks: no backtick or newline can end it early.
fn code_text(text: &str) -> String {
    one_line(text).replace('`', "'")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Evidence, Kind, Related};
    use crate::report::{Artifacts, Summary, TargetKind};
    use crate::vocab::discovery::{DiscoveryReport, RouteSeen};
    use crate::Redactor;

    const SECRET: &str = "sk-SecretSecretSecretSecretSecretSecretSecret0000";

    fn check(id: &str, kind: Kind, status: Status, evidence: Option<Evidence>) -> CheckResult {
        CheckResult {
            id: id.to_owned(),
            title: format!("the {id} check"),
            spec: format!("spec §{}", id.len()),
            kind,
            status,
            cases: 3,
            duration_ms: 12,
            message: None,
            skip_cause: (status == Status::Skipped).then_some(SkipCause::NoCredentials),
            evidence,
        }
    }

    /// A run with a failure (a secret in its request, a pipe and markup in its reason), a
    /// deviation, a pass and a skip for lack of credentials, on a target lacking a route.
    fn report() -> Report {
        let failure = Evidence {
            message: "status 500 | expected <400>\nsecond line".into(),
            curl: Some(format!(
                "curl -X POST http://127.0.0.1:3000/v1/videos -H 'Authorization: Bearer {SECRET}' -d '{{\"model\":\"sora-2\"}}'"
            )),
            status: Some(500),
            case: Some("{\"seconds\": \"4\"}".into()),
            related: vec![Related {
                what: "the task fetched".into(),
                curl: "curl http://127.0.0.1:3000/v1/videos/task_1".into(),
                status: Some(200),
                ..Related::default()
            }],
            ..Evidence::default()
        };
        let deviation = Evidence {
            message: "error body is not new-api's shape ``` fenced".into(),
            decision: Some("D-ERRORS".into()),
            curl: Some("curl http://127.0.0.1:3000/v1/models/nope".into()),
            ..Evidence::default()
        };
        let mut report = Report {
            gatecheck_version: "0.1.0".into(),
            target: "http://127.0.0.1:3000".into(),
            mock_profile: Some("new-api".into()),
            target_kind: TargetKind::Mock,
            expect: "documented".into(),
            era: None,
            notes: Vec::new(),
            discovery: Some(DiscoveryReport {
                routes: vec![RouteSeen {
                    route: "POST /v1/audio/translations".into(),
                    pinned: true,
                    served: false,
                    status: 404,
                }],
                models_source: "GET /api/models".into(),
                models: 5,
            }),
            setup_failure: None,
            seed: 7,
            cases: 16,
            strict: false,
            allowed_skips: Vec::new(),
            repro_variables: Vec::new(),
            planned_uploads: Vec::new(),
            shard: None,
            started_at: 0,
            duration_ms: 2500,
            requests_sent: 42,
            retries: 0,
            retry_budget: 10,
            shrink_steps: 0,
            shrink_budget: 10,
            quota_spent: 0,
            interrupted: false,
            deadline_reached: false,
            dry_run: false,
            key_cleanup: None,
            key_not_restored: false,
            summary: Summary::default(),
            checks: vec![
                check(
                    "errors.shape",
                    Kind::Deviation,
                    Status::Deviation,
                    Some(deviation),
                ),
                check("video.create", Kind::Failure, Status::Failed, Some(failure)),
                check("models.list", Kind::Failure, Status::Passed, None),
                check("keys.update", Kind::Failure, Status::Skipped, None),
            ],
            planned: Vec::new(),
            artifacts: Artifacts::default(),
        };
        report.recount();
        report
    }

    #[test]
    fn the_summary_of_a_failing_run() {
        let redactor = Redactor::new();
        redactor.add(SECRET);
        let markdown = redactor.text_with(&to_markdown(&report()), "[redacted]");
        assert!(!redactor.leaks(&markdown), "{markdown}");
        insta::assert_snapshot!(markdown);
    }

    #[test]
    fn a_green_run_without_credentials_is_incomplete_and_a_clean_one_passes() {
        let mut r = report();
        r.checks.retain(|c| c.status != Status::Failed);
        r.recount();
        assert!(to_markdown(&r).starts_with("## gatecheck check: ⚠️ incomplete"));
        r.checks.retain(|c| c.status == Status::Passed);
        r.discovery = None;
        r.recount();
        let md = to_markdown(&r);
        assert!(md.starts_with("## gatecheck check: ✅ passed\n"), "{md}");
        assert!(!md.contains("What the target lacks") && !md.contains("| Status |"));
        assert!(!md.contains("<details>"), "nothing to reproduce: {md}");
    }

    /// A target's control characters (`ESC ] 0 ; pwned BEL`, `ESC [ 2 J`,
    /// CR, backspace, DEL, U+009B also inside a JSON string, and a line feed that would start
    /// a CI workflow command) reach no human output raw.
    #[test]
    fn every_human_output_escapes_a_targets_control_characters() {
        use crate::terminal::{has_controls, tests::HOSTILE};
        let hostile = format!("{HOSTILE}\n::error::forged");
        let mut r = report();
        r.notes.push(hostile.clone());
        let e = r.checks[1].evidence.as_mut().unwrap();
        e.message = format!("answered {hostile}");
        e.body = Some(serde_json::json!({ "error": { "message": hostile } }).to_string());
        e.case = Some(hostile.clone());
        e.related[0].body = Some(hostile.clone());
        r.checks[3].message = Some(hostile.clone());
        let outputs = [
            ("summary", crate::report::summary_table(&r)),
            ("markdown", to_markdown(&r)),
            ("junit", crate::report::to_junit(&r)),
            ("html", crate::report::to_html(&r)),
            ("json", r.to_json()),
        ];
        for (name, text) in outputs {
            assert!(!has_controls(&text), "{name}: {text}");
            assert!(text.contains("\\u001b]0;pwned\\u0007"), "{name}: {text}");
            assert!(
                !text
                    .lines()
                    .any(|l| l.trim_start().starts_with("::error::")),
                "{name}: {text}"
            );
        }
        let back: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(
            back["notes"][0],
            hostile.as_str(),
            "the JSON keeps the value"
        );
    }

    /// A run whose checks the deadline cut is incomplete (exit 4) unless
    /// `--allow-skip deadline`, and one that could not put the key back fails (exit 1).
    #[test]
    fn a_run_cut_by_its_deadline_or_that_left_the_key_changed_is_not_green() {
        let mut r = report();
        r.checks.retain(|c| c.status == Status::Passed);
        r.checks.push(CheckResult {
            skip_cause: Some(SkipCause::Deadline),
            message: Some("the run's deadline passed".into()),
            ..check(
                "key.disabled-rejected",
                Kind::Failure,
                Status::Skipped,
                None,
            )
        });
        r.recount();
        assert_eq!(r.exit_code(), exit::INCOMPLETE);
        let note = r.incomplete_note().unwrap();
        assert!(note.contains("cut by the run's deadline"), "{note}");
        assert!(to_markdown(&r).contains("cut by the run's deadline"));
        r.allowed_skips.push(SkipCause::Deadline);
        assert_eq!(r.exit_code(), exit::PASSED);
        r.key_not_restored = true;
        r.key_cleanup = Some("key 1 could NOT be restored: the run's deadline passed".into());
        assert_eq!(r.exit_code(), exit::CONTRACT_FAILURES);
        assert!(crate::report::summary_table(&r).contains("could NOT be put back"));
    }

    #[test]
    fn many_findings_stay_small() {
        let mut r = report();
        let failed = r.checks[1].clone();
        r.checks = (0..5000)
            .map(|i| CheckResult {
                id: format!("c{i}"),
                ..failed.clone()
            })
            .collect();
        r.recount();
        let md = to_markdown(&r);
        assert!(md.len() < 200 * 1024, "{} bytes", md.len());
        assert!(md.contains(&format!("{} more not shown", 5000 - MAX_MARKDOWN_ROWS)));
    }
}
