//! Reports: the JSON report validates against `schemas/report.schema.json`, the JUnit report of
//! a failing run parses, and no secret reaches any output.

use super::against_mock::run_against;
use gatecheck_conformance::report::{summary_table, to_junit};
use gatecheck_conformance::Status;
use gatecheck_schemas::Profile;
use quick_xml::events::Event;
use serde_json::Value;

fn report_schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schemas/report.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("schema file")).expect("schema json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_of_a_failing_run_validate_and_parse() {
    let report = run_against(Profile::NewApi).await;
    assert!(report.summary.failed > 0);

    // JSON, against the committed schema.
    let json: Value = serde_json::from_str(&report.to_json()).expect("report json");
    let validator = jsonschema::validator_for(&report_schema()).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // JUnit: well-formed XML, one testcase per check, a <failure> per failed check.
    let xml = to_junit(&report);
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures, mut suites) = (0, 0, 0);
    let mut failed_names = Vec::new();
    let mut current = String::new();
    loop {
        match reader.read_event().expect("well-formed JUnit XML") {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"testsuite" => suites += 1,
                b"testcase" => {
                    cases += 1;
                    current = e
                        .attributes()
                        .filter_map(Result::ok)
                        .find(|a| a.key.as_ref() == b"name")
                        .map(|a| String::from_utf8_lossy(&a.value).into_owned())
                        .unwrap_or_default();
                }
                b"failure" => {
                    failures += 1;
                    failed_names.push(current.clone());
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(suites, 1);
    assert_eq!(cases, report.checks.len());
    assert_eq!(failures as u32, report.summary.failed);
    failed_names.sort();
    let mut expected: Vec<String> = report
        .ids_with(Status::Failed)
        .iter()
        .map(|s| s.to_string())
        .collect();
    expected.sort();
    assert_eq!(failed_names, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_of_a_failing_run_has_a_card_per_finding() {
    let report = run_against(Profile::NewApi).await;
    assert!(report.summary.failed > 0 && report.summary.deviations > 0);
    let html = gatecheck_conformance::report::to_html(&report);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<h1>gatecheck check: failed</h1>"));
    for c in &report.checks {
        let card = format!(
            "<article class=\"card {}\" id=\"check-{}\"",
            c.status.as_str(),
            c.id
        );
        let finding = matches!(c.status, Status::Failed | Status::Deviation);
        assert_eq!(html.contains(&card), finding, "{} {:?}", c.id, c.status);
        if let Some(e) = c.evidence.as_ref().filter(|_| finding) {
            let mut curl = String::new();
            escape(&mut curl, e.curl.as_deref().expect("curl"));
            assert!(html.contains(&curl), "{}: {curl}", c.id);
            if let Some(row) = &e.decision {
                assert!(html.contains(&format!("<b>DECISIONS {row}</b>")), "{row}");
            }
        }
    }
    // Every task followed has a timeline; the media are inline; nothing is fetched.
    assert!(html.contains("data-kind=\"video\"") && html.contains("data-state=\"completed\""));
    assert!(!report.artifacts.media.is_empty());
    for needle in ["src=\"http", "href=\"http", "<link", "@import", "url("] {
        assert!(!html.contains(needle), "{needle}");
    }
    // One page script, one style sheet: nothing of the target's is markup.
    assert_eq!(html.matches("<script").count(), 1);
    assert_eq!(html.matches("<style").count(), 1);
}

/// HTML escaping, as the report writes text.
fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_appears_in_any_output() {
    let server = super::support::adaptors_mock(Profile::NewApi).await;
    let report = gatecheck_conformance::Runner::new(super::support::config(&server.uri()))
        .run()
        .await
        .expect("run");
    let state = server.state();
    let mut secrets: Vec<String> = state.keys.iter().map(|k| k.key.clone()).collect();
    secrets.extend(state.accounts.iter().map(|a| a.access_token.clone()));
    server.shutdown().await;
    // The HTML page before the command's last redaction pass: its data is redacted already.
    let outputs = [
        report.to_json(),
        to_junit(&report),
        summary_table(&report),
        gatecheck_conformance::report::to_html(&report),
    ];
    for out in &outputs {
        for s in &secrets {
            assert!(!out.contains(s.as_str()), "a secret leaked into the output");
        }
    }
    // The failing evidence still shows the request, with the secrets as variables.
    assert!(outputs[0].contains("$GATECHECK_ACCESS_TOKEN"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_diff_shows_each_differing_step_side_by_side() {
    use gatecheck_conformance::diff::DiffRun;
    use gatecheck_conformance::normalize::Normalizer;
    use gatecheck_conformance::sequence::{
        mock_target, PollSettings, Sequence, SequenceOptions, SideRunner,
    };
    use gatecheck_conformance::{Client, ClientConfig, Redactor};
    use gatecheck_mock::{ClockMode, MockServer};
    let start = |profile| {
        MockServer::builder()
            .profile(profile)
            // The Go-adaptor era's expectations (new-api-adaptors).
            .era(gatecheck_schemas::Era::Adaptors)
            .clock(ClockMode::virtual_default())
            .start()
    };
    let (left, right) = (
        start(Profile::Documented).await,
        start(Profile::NewApi).await,
    );
    let runner = |server: &MockServer| {
        let mut config = ClientConfig::new(mock_target(server).expect("target"));
        config.use_env_proxy = false;
        SideRunner::new(
            Client::new(config).expect("client"),
            PollSettings::default(),
        )
        .with_mock_control(true)
    };
    let sequence = Sequence::standard(7, &SequenceOptions::default());
    let (normalizer, redactor) = (Normalizer::builtin(), Redactor::new());
    let run = DiffRun {
        sequence: &sequence,
        left_label: "mock (documented)".into(),
        right_label: "mock (new-api)".into(),
        normalizer: &normalizer,
        redactor: &redactor,
    };
    let report = run.run(&mut runner(&left), &mut runner(&right)).await;
    let demo_key = left.demo_key();
    left.shutdown().await;
    right.shutdown().await;

    let html = gatecheck_conformance::report::diff_to_html(&report, &redactor);
    assert!(html.contains("<h1>gatecheck diff: differences</h1>"));
    let differing: Vec<_> = report.differing().collect();
    assert!(!differing.is_empty());
    for step in &differing {
        assert!(
            html.contains(&format!(
                "<article class=\"card\" id=\"step-{}\">",
                step.step
            )),
            "{}",
            step.step
        );
    }
    assert_eq!(
        html.matches("<table class=\"diff\">").count(),
        differing.len()
    );
    assert!(html.contains("<td class=\"del\">") && html.contains("<td class=\"ins\">"));
    for k in report.known_rows() {
        assert!(html.contains(&format!("<b>{}</b>", k.id)), "{}", k.id);
    }
    let bare = demo_key.trim_start_matches("sk-");
    assert!(!html.contains(bare), "the demo key leaked into the page");
    assert_eq!(html.matches("<script").count(), 1);
}
