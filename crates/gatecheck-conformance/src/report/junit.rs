//! JUnit XML: one test case per check; failures and (with `--strict`) deviations fail.

use super::{CheckResult, Report, Status};
use crate::terminal::escape;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// The report as JUnit XML.
pub fn to_junit(report: &Report) -> String {
    let mut junit = quick_junit::Report::new("gatecheck");
    let mut suite = TestSuite::new("gatecheck check");
    suite.set_time(Duration::from_millis(report.duration_ms));
    add_properties(&mut suite, report);
    if let Some(f) = &report.setup_failure {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(format!("{} failed: {}", f.stage, escape(&f.message)));
        s.set_type(format!("setup-{}", f.kind.as_str()));
        s.set_description(format!(
            "target {} failed during {} ({}): {}\nno check ran",
            report.target,
            f.stage,
            f.kind.as_str(),
            escape(&f.message)
        ));
        let mut case = TestCase::new("target.setup", s);
        case.set_classname("gatecheck.target");
        suite.add_test_case(case);
    }
    for c in &report.checks {
        suite.add_test_case(test_case(c, report.strict));
    }
    junit.add_test_suite(suite);
    // A target's control characters escaped: a CI log shows the file, and XML 1.0 holds no C0
    // control but TAB, LF and CR anyway.
    crate::terminal::escape_lines(&junit.to_string().unwrap_or_default()).into_owned()
}

/// The suite's properties: target, seed, the counts as the text and the JSON report give them
/// (JUnit itself counts a deviation as a pass unless --strict, and has no skip causes), and
/// what discovery found lacking.
fn add_properties(suite: &mut TestSuite, report: &Report) {
    suite.add_property(quick_junit::Property::new("target", report.target.as_str()));
    suite.add_property(quick_junit::Property::new("seed", report.seed.to_string()));
    let s = &report.summary;
    for (name, n) in [
        ("checks", s.total),
        ("passed", s.passed),
        ("failed", s.failed),
        ("deviations", s.deviations),
        ("skipped", s.skipped),
        ("errors", s.errors),
    ] {
        suite.add_property(quick_junit::Property::new(name, n.to_string()));
    }
    for (cause, n) in &s.skipped_by_cause {
        suite.add_property(quick_junit::Property::new(
            format!("skipped.{}", cause.as_str()),
            n.to_string(),
        ));
    }
    for v in &report.repro_variables {
        suite.add_property(quick_junit::Property::new(
            format!("repro.${}", v.name),
            v.source.as_str(),
        ));
    }
    if let Some(d) = &report.discovery {
        for r in d.lacks() {
            suite.add_property(quick_junit::Property::new(
                "lacks",
                format!("{} ({})", r.route, r.status),
            ));
        }
        suite.add_property(quick_junit::Property::new(
            "models_source",
            d.models_source.as_str(),
        ));
    }
}

/// The check's message, or its evidence: the request as curl, the status, the body, the
/// minimal case and the related exchanges; each field escaped ([`escape`]: quick-junit would
/// drop an ANSI sequence silently, and a line feed would forge a line).
fn describe(c: &CheckResult) -> String {
    let mut text = escape(c.message.as_deref().unwrap_or_default()).into_owned();
    if let Some(e) = &c.evidence {
        text = escape(&e.message).into_owned();
        if let Some(curl) = &e.curl {
            text.push_str(&format!("\nreproduce: {}", escape(curl)));
        }
        if let Some(s) = e.status {
            text.push_str(&format!("\nstatus: {s}"));
        }
        if let Some(b) = &e.body {
            text.push_str(&format!("\nbody: {}", escape(b)));
        }
        if let Some(case) = &e.case {
            text.push_str(&format!("\nminimal case: {}", escape(case)));
        }
        for r in &e.related {
            text.push_str(&format!(
                "\nalso ({}): {}",
                escape(&r.what),
                escape(&r.curl)
            ));
            if let Some(s) = r.status {
                text.push_str(&format!("\nstatus: {s}"));
            }
        }
    }
    text
}

/// One check as a test case: failures and (with `strict`) deviations fail.
fn test_case(c: &CheckResult, strict: bool) -> TestCase {
    let status = match c.status {
        Status::Passed => TestCaseStatus::success(),
        Status::Skipped => {
            let mut s = TestCaseStatus::skipped();
            let cause = c.skip_cause.map(|k| k.as_str()).unwrap_or("no-case");
            s.set_message(format!(
                "[{cause}] {}",
                escape(c.message.as_deref().unwrap_or_default())
            ));
            s.set_type(cause);
            if c.evidence.is_some() {
                s.set_description(describe(c));
            }
            s
        }
        Status::Deviation if !strict => {
            // Reported, not failing: a passing case with the evidence on stdout.
            TestCaseStatus::success()
        }
        Status::Failed | Status::Deviation => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!(
                "{}: {}",
                c.status.as_str(),
                escape(c.evidence.as_ref().map_or("", |e| e.message.as_str()))
            ));
            s.set_type(c.kind.as_str());
            s.set_description(describe(c));
            s
        }
        Status::Error => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(escape(c.message.as_deref().unwrap_or_default()));
            s
        }
    };
    let mut case = TestCase::new(c.id.as_str(), status);
    case.set_classname(format!(
        "gatecheck.{}",
        c.id.split('.').next().unwrap_or("check")
    ));
    case.set_time(Duration::from_millis(c.duration_ms));
    if c.status == Status::Deviation && !strict {
        case.set_system_out(format!("deviation: {}", describe(c)));
    }
    case
}
