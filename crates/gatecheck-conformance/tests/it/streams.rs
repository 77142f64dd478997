//! The stream checks (`stream.*`, DECISIONS D-STREAM) against the mock: they pass in both
//! profiles, with and without `--expect`; the mock's stream faults (a cut, a stall that
//! outlasts the stream deadline, a malformed event) are failures of the stream protocol
//! (D-STREAM-6), reported at the deadline rather than hung; a target that answers stream
//! requests with plain bodies is skipped with a cause, not failed; every planted bug of the
//! stream and media surface fails the run (exit 1).

use super::mutation_proxy::start_proxy;
use super::planted::Bug;
use super::support::{config, show};
use gatecheck_conformance::{Report, Runner, SkipCause, Status};
use gatecheck_mock::{ClockMode, Fault, MockServer};
use gatecheck_schemas::Profile;
use std::time::{Duration, Instant};

fn status_of(report: &Report, id: &str) -> Status {
    report
        .checks
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.status)
        .unwrap_or_else(|| panic!("no check {id}\n{}", show(report)))
}

async fn run_streams(server: &MockServer, expect: Option<Profile>) -> Report {
    run_streams_within(server, expect, Duration::from_secs(2)).await
}

/// [`run_streams`] with the stream deadline `deadline`.
async fn run_streams_within(
    server: &MockServer,
    expect: Option<Profile>,
    deadline: Duration,
) -> Report {
    let mut cfg = config(&server.uri());
    cfg.scope.only = vec!["stream.*".into()];
    cfg.limits.stream_deadline = Some(deadline);
    if let Some(p) = expect {
        cfg.judging.expect = p;
    }
    Runner::new(cfg).run().await.expect("run")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_checks_pass_on_the_mock_in_both_profiles() {
    for profile in Profile::ALL {
        for expect in [None, Some(profile)] {
            let server = MockServer::builder()
                .profile(profile)
                .clock(ClockMode::virtual_default())
                .start()
                .await;
            // A stream past its deadline fails (D-STREAM-6): a loaded CI machine gets room.
            let report = run_streams_within(&server, expect, Duration::from_secs(20)).await;
            server.shutdown().await;
            assert_eq!(report.checks.len(), 4, "{}", show(&report));
            for c in &report.checks {
                assert_eq!(c.status, Status::Passed, "{profile}\n{}", show(&report));
            }
        }
    }
}

/// Runs the stream checks against a mock with `fault` on `route`; returns the report and
/// how long the run took.
async fn with_fault(fault: Fault) -> (Report, Duration) {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .stream_event_gap(Duration::from_millis(2))
        .fault(fault)
        .start()
        .await;
    let start = Instant::now();
    let report = run_streams(&server, None).await;
    let took = start.elapsed();
    server.shutdown().await;
    (report, took)
}

/// The message of `id`'s failure, with its curl reproduction, and the run's exit code 1.
fn failure_message(report: &Report, id: &str) -> String {
    let c = report.checks.iter().find(|c| c.id == id).expect("check");
    assert_eq!(c.status, Status::Failed, "{}", show(report));
    let ev = c.evidence.as_ref().expect("evidence");
    assert!(ev.curl.as_deref().is_some_and(|c| c.starts_with("curl ")));
    assert_eq!(
        report.exit_code(),
        gatecheck_conformance::exit::CONTRACT_FAILURES
    );
    ev.message.clone()
}

fn deviation_message(report: &Report, id: &str, row: &str) -> String {
    let c = report.checks.iter().find(|c| c.id == id).expect("check");
    assert_eq!(c.status, Status::Deviation, "{}", show(report));
    let ev = c.evidence.as_ref().expect("evidence");
    assert_eq!(ev.decision.as_deref(), Some(row));
    assert!(ev.curl.as_deref().is_some_and(|c| c.starts_with("curl ")));
    ev.message.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_never_ends_is_reported_at_the_deadline_not_hung() {
    let stall = Fault::stream_stall(2, Duration::from_secs(600)).on("POST /v1/audio/speech");
    let (report, took) = with_fault(stall).await;
    let msg = failure_message(&report, "stream.speech");
    assert!(msg.contains("did not end within 2.0 s"), "{msg}");
    assert!(msg.contains("after 2 events"), "{msg}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_eq!(status_of(&report, "stream.images"), Status::Passed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_stream_and_a_malformed_event_are_failures() {
    let cut = Fault::stream_cut(1).on("POST /v1/images/generations");
    let (report, _) = with_fault(cut).await;
    let msg = failure_message(&report, "stream.images");
    assert!(msg.contains("the stream was cut"), "{msg}");
    assert!(msg.contains("D-STREAM-6"), "{msg}");
    let bad = Fault::stream_malformed(0).on("POST /v1/audio/transcriptions");
    let (report, _) = with_fault(bad).await;
    let msg = failure_message(&report, "stream.transcription");
    assert!(
        msg.contains("event 1 of") && msg.contains("is not JSON"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_does_not_stream_is_skipped_not_failed() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = start_proxy(server.uri(), Bug::StreamIgnored).await;
    let mut cfg = config(&proxy);
    cfg.scope.only = vec!["stream.*".into()];
    let report = Runner::new(cfg).run().await.expect("run");
    server.shutdown().await;
    for id in ["stream.speech", "stream.transcription", "stream.images"] {
        let c = report.checks.iter().find(|c| c.id == id).expect("check");
        assert_eq!(c.status, Status::Skipped, "{}", show(&report));
        assert_eq!(c.skip_cause, Some(SkipCause::NotObserved));
        let msg = c.message.as_deref().unwrap_or("");
        assert!(msg.contains("does not stream"), "{msg}");
    }
    assert_eq!(report.summary.failed + report.summary.deviations, 0);
}

/// A mock whose catalog has a diarization model, `gpt-4o-transcribe-diarize`.
async fn diarizing_mock() -> MockServer {
    let mut fixtures = gatecheck_mock::Fixtures::embedded();
    let base = "gpt-4o-mini-transcribe";
    let mut model = fixtures
        .catalog
        .iter()
        .find(|m| m.id == base)
        .cloned()
        .unwrap();
    model.id = "gpt-4o-transcribe-diarize".into();
    let caps = fixtures.capabilities[base].clone();
    fixtures.capabilities.insert(model.id.clone(), caps);
    fixtures.catalog.push(model);
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .stream_event_gap(Duration::ZERO)
        .fixtures(fixtures)
        .start()
        .await
}

/// With a diarization model in the catalog, `stream.transcription` also asks it for
/// `diarized_json` and validates the `transcript.text.segment` events (D-STREAM-5): the mock
/// passes; a diarized stream without segments, or with a segment that ends before it starts
/// (scripted through the library), is a deviation citing D-STREAM-5.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diarized_transcription_streams_have_valid_segments() {
    use gatecheck_mock::StreamScript;
    use serde_json::json;
    // The runner knows the model's capabilities as `--capabilities` would tell it.
    let mut caps = gatecheck_conformance::internals::known_capabilities();
    let base = caps["gpt-4o-mini-transcribe"].clone();
    caps.insert("gpt-4o-transcribe-diarize".into(), base);
    let run = |server: &MockServer| {
        let mut cfg = config(&server.uri());
        cfg.scope.only = vec!["stream.transcription".into()];
        cfg.limits.stream_deadline = Some(Duration::from_secs(2));
        cfg.known.capabilities = Some(caps.clone());
        Runner::new(cfg).run()
    };
    let server = diarizing_mock().await;
    let report = run(&server).await.expect("run");
    let c = &report.checks[0];
    assert_eq!(c.status, Status::Passed, "{}", show(&report));
    assert_eq!(c.cases, 2, "{}", show(&report));

    let delta = json!({"type": "transcript.text.delta", "delta": "hello", "segment_id": "seg_001"});
    let done = json!({"type": "transcript.text.done", "text": "hello"});
    let bad_segment = json!({"type": "transcript.text.segment", "id": "seg_001", "start": 2.0,
                             "end": 1.0, "text": "hello", "speaker": "A"});
    for (segment, expected) in [
        (None, "streamed no transcript.text.segment"),
        (Some(bad_segment), "starts at 2 s, after its end 1 s"),
    ] {
        server.reset();
        let mut script = StreamScript::new("POST /v1/audio/transcriptions")
            .model("gpt-4o-transcribe-diarize")
            .event("transcript.text.delta", &delta);
        if let Some(segment) = &segment {
            script = script.event("transcript.text.segment", segment);
        }
        server.script_stream(script.event("transcript.text.done", &done));
        let report = run(&server).await.expect("run");
        let message = deviation_message(&report, "stream.transcription", "D-STREAM-5");
        assert!(message.contains(expected), "{message}");
    }
}

/// Every planted bug of the stream and media surface (`planted_streams.rs`, and the stream
/// bugs planted before it) fails a run of the stream, usage and image checks: exit 1, with the
/// check the table names among the failures. The bugs are split into three tests that take
/// every third bug each (the same runs and assertions as one test, which was the conformance
/// binary's longest and ran alone at its end; BENCHMARKS.md, "CI time").
async fn stream_and_media_bugs_fail_the_run(part: usize) {
    use futures_util::StreamExt as _;
    let all: Vec<_> = super::planted::planted()
        .into_iter()
        .filter(|(b, id, _, _)| {
            super::planted_streams::plants(*b)
                || (id.starts_with("stream.") && *id != "stream.speech.unsupported-model")
                || *id == "images.edits.result"
        })
        .collect();
    assert!(all.len() >= 15, "{} bugs", all.len());
    let bugs: Vec<_> = all
        .into_iter()
        .skip(part)
        .step_by(STREAM_BUG_PARTS)
        .collect();
    let runs = bugs.iter().map(|&(bug, ..)| {
        tokio::spawn(async move {
            let server = MockServer::builder()
                .clock(ClockMode::virtual_default())
                .start()
                .await;
            let proxy = start_proxy(server.uri(), bug).await;
            let mut cfg = config(&proxy);
            cfg.scope.only = vec!["stream.*".into(), "usage.*".into(), "images.*".into()];
            let report = Runner::new(cfg).run().await.expect("run");
            server.shutdown().await;
            report
        })
    });
    let reports: Vec<Report> = futures_util::stream::iter(runs)
        .buffered(2)
        .map(|r| r.expect("a run panicked"))
        .collect()
        .await;
    let mut missed = Vec::new();
    for ((bug, id, ..), report) in bugs.iter().zip(&reports) {
        let failed = report.ids_with(Status::Failed);
        let exit = report.exit_code();
        if exit != gatecheck_conformance::exit::CONTRACT_FAILURES || !failed.contains(id) {
            missed.push(format!(
                "{bug:?}: exit {exit}, failed {failed:?}\n{}",
                show(report)
            ));
        }
    }
    println!(
        "stream and media bugs, part {} of {STREAM_BUG_PARTS}: {} of {} fail the run",
        part + 1,
        bugs.len() - missed.len(),
        bugs.len()
    );
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// The tests [`stream_and_media_bugs_fail_the_run`] is split into.
const STREAM_BUG_PARTS: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_and_media_bug_fails_the_run_part_1() {
    stream_and_media_bugs_fail_the_run(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_and_media_bug_fails_the_run_part_2() {
    stream_and_media_bugs_fail_the_run(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_and_media_bug_fails_the_run_part_3() {
    stream_and_media_bugs_fail_the_run(2).await;
}

/// `images.edits.result` judges a mask on every run: with one drawn case (masked or not, by
/// the seed), an upstream that edits everywhere because the mask was dropped fails the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_ignores_its_mask_fails_whatever_the_drawn_cases() {
    let mut extra_case = 0;
    for seed in [1, 2, 3, 4, 5, 6] {
        let server = MockServer::builder()
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let proxy = start_proxy(server.uri(), Bug::EditIgnoresMask).await;
        let mut cfg = config(&proxy);
        cfg.scope.cases = 1;
        cfg.scope.seed = Some(seed);
        cfg.scope.only = vec!["images.edits.result".into()];
        let report = Runner::new(cfg).run().await.expect("run");
        server.shutdown().await;
        let msg = failure_message(&report, "images.edits.result");
        assert!(msg.contains("changed the area its mask keeps"), "{msg}");
        // A drawn case's failure names its case; the masked case added after them does not.
        let c = report.checks.iter().find(|c| c.id == "images.edits.result");
        extra_case += usize::from(c.and_then(|c| c.evidence.as_ref()?.case.as_ref()).is_none());
    }
    assert!(
        extra_case > 0,
        "every seed drew a masked case: the added one was not run"
    );
}
