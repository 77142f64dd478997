//! Differential runs against embedded mocks: profile differences, and nothing volatile.

use gatecheck_conformance::diff::{render_text, DiffReport, DiffRun, Style};
use gatecheck_conformance::normalize::Normalizer;
use gatecheck_conformance::sequence::{
    mock_target, PollSettings, Sequence, SequenceOptions, SideRunner,
};
use gatecheck_conformance::{Client, ClientConfig, Redactor};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::Profile;

fn runner(server: &MockServer) -> SideRunner {
    let target = mock_target(server).unwrap();
    let mut config = ClientConfig::new(target);
    config.use_env_proxy = false;
    SideRunner::new(Client::new(config).unwrap(), PollSettings::default()).with_mock_control(true)
}

async fn diff(left: &MockServer, right: &MockServer, seed: u64) -> DiffReport {
    diff_confirmed(left, right, seed, false).await
}

async fn diff_confirmed(
    left: &MockServer,
    right: &MockServer,
    seed: u64,
    confirm: bool,
) -> DiffReport {
    let sequence = Sequence::standard(seed, &SequenceOptions::default());
    let normalizer = Normalizer::builtin();
    let redactor = Redactor::new();
    let run = DiffRun {
        sequence: &sequence,
        left_label: format!("mock ({})", left.profile()),
        right_label: format!("mock ({})", right.profile()),
        normalizer: &normalizer,
        redactor: &redactor,
    };
    let (mut l, mut r) = (runner(left), runner(right));
    let mut report = run.run(&mut l, &mut r).await;
    if confirm {
        run.confirm(&mut report, &mut l, &mut r).await.unwrap();
    }
    report
}

#[tokio::test]
async fn documented_vs_new_api_shows_exactly_the_profile_differences() {
    let left = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let right = super::support::adaptors_mock(Profile::NewApi).await;
    let report = diff_confirmed(&left, &right, 7, true).await;
    println!("{}", render_text(&report, Style::default()));
    assert!(
        report.unexplained().is_empty(),
        "unexplained: {:?}",
        report.unexplained()
    );
    let mut rows: Vec<&str> = report.known_rows().iter().map(|k| k.id).collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            "D-ROUTE-4",
            "D-TASK-2",
            "NA10",
            "NA12",
            "NA13",
            "NA15",
            "NA2",
            "NA3",
            "NA9",
            "P1",
            "P2",
            "P3",
            "P4",
            "P5",
            "P6"
        ]
    );
    // Every difference carries the id of the row that explains it, in the text too.
    let text = render_text(&report, Style::default());
    for step in report.differing() {
        for d in &step.differences {
            let row = d.known.as_deref().unwrap_or_default();
            assert!(
                text.contains(&format!("{}  (known difference {row})", d.describe())),
                "{}",
                d.describe()
            );
        }
    }
    assert!(!report.has_errors());
    // Every difference reproduces with its minimal steps alone; no secret in the repro lines.
    for step in report.differing() {
        assert_eq!(step.repro_confirmed, Some(true), "{}", step.step);
        let curl = step.curl_left.as_deref().unwrap_or_default();
        assert!(!curl.contains("8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf"), "{curl}");
    }
}

#[tokio::test]
async fn mock_against_itself_with_other_ids_and_times_is_empty() {
    let left = MockServer::builder()
        .seed(1)
        .clock(ClockMode::Virtual {
            epoch: 1_763_683_200,
        })
        .start()
        .await;
    let right = MockServer::builder()
        .seed(2)
        .clock(ClockMode::Virtual {
            epoch: 1_800_000_000,
        })
        .start()
        .await;
    let report = diff(&left, &right, 11).await;
    println!(
        "{}",
        render_text(
            &report,
            Style {
                color: false,
                verbose: true
            }
        )
    );
    assert!(
        report.is_empty(),
        "{}",
        render_text(&report, Style::default())
    );
}

#[test]
fn every_step_names_a_check_of_the_catalog() {
    let sequence = Sequence::standard(1, &SequenceOptions::default());
    let own = [
        "sequence.setup",
        "sequence.restore",
        "auth.token.new-api-user-optional",
    ];
    for step in &sequence.steps {
        assert!(
            gatecheck_conformance::internals::find(&step.check).is_some()
                || own.contains(&step.check.as_str()),
            "step {} names unknown check {}",
            step.id,
            step.check
        );
    }
    let mut ids: Vec<&str> = sequence.steps.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), sequence.steps.len(), "step ids are unique");
}

fn arb_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(Value::from),
        "[ab/~]{0,2}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[ab/~]{1,2}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    /// The structural diff is empty exactly when the values are equal, and every difference's
    /// path points, on each side that has it, at the value it reports.
    #[test]
    fn structural_diff_is_exact(a in arb_value(), b in arb_value()) {
        use gatecheck_conformance::diff::diff_values;
        let d = diff_values(&a, &b);
        proptest::prop_assert_eq!(d.is_empty(), a == b);
        proptest::prop_assert!(diff_values(&a, &a).is_empty());
        for diff in &d {
            let pointer = if diff.path == "/" { "" } else { diff.path.as_str() };
            proptest::prop_assert_eq!(a.pointer(pointer), diff.left.as_ref());
            proptest::prop_assert_eq!(b.pointer(pointer), diff.right.as_ref());
        }
    }
}

/// A difference no DECISIONS row explains (here a renamed catalog model) stays plain and is
/// listed under "other differences"; the profile differences keep their row ids.
#[tokio::test]
async fn a_difference_no_row_explains_stays_plain() {
    let mut fixtures = gatecheck_mock::Fixtures::embedded();
    fixtures.catalog[0].name = "Renamed by the test".into();
    let left = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let right = super::support::adaptors_mock_with(Profile::NewApi, fixtures).await;
    let report = diff(&left, &right, 7).await;
    let text = render_text(&report, Style::default());
    let renamed: Vec<_> = report
        .differing()
        .flat_map(|s| &s.differences)
        .filter(|d| d.right.as_ref().and_then(|v| v.as_str()) == Some("Renamed by the test"))
        .collect();
    assert!(!renamed.is_empty(), "{text}");
    for d in renamed {
        assert_eq!(d.known, None);
        assert!(text.contains(&format!("  {}\n", d.describe())), "{text}");
    }
    assert!(!report.unexplained().is_empty());
    assert!(text.contains("other differences: "), "{text}");
    assert!(text.contains("(known difference P3)"), "{text}");
}

/// The standard sequence's streamed steps alone (compared event by event).
fn stream_sequence(seed: u64) -> Sequence {
    let options = SequenceOptions {
        streams: true,
        ..SequenceOptions::default()
    };
    let mut sequence = Sequence::standard(seed, &options);
    sequence.steps.retain(|s| s.id.starts_with("stream."));
    assert_eq!(sequence.steps.len(), 4);
    sequence
}

async fn diff_streams(left: &MockServer, right: &MockServer, seed: u64) -> DiffReport {
    let sequence = stream_sequence(seed);
    let (normalizer, redactor) = (Normalizer::builtin(), Redactor::new());
    let run = DiffRun {
        sequence: &sequence,
        left_label: "left".into(),
        right_label: "right".into(),
        normalizer: &normalizer,
        redactor: &redactor,
    };
    run.run(&mut runner(left), &mut runner(right)).await
}

/// Streams are compared event by event: two mocks with other ids, times and images' bytes
/// give no difference; the profiles differ only where a D-STREAM row says; a malformed event
/// shows at its index.
#[tokio::test]
async fn streams_are_compared_event_by_event() {
    let mock = |seed: u64, epoch: i64, profile: Profile| {
        MockServer::builder()
            .seed(seed)
            .profile(profile)
            // The Go-adaptor era's expectations (new-api-adaptors).
            .era(gatecheck_schemas::Era::Adaptors)
            .clock(ClockMode::Virtual { epoch })
            .stream_event_gap(std::time::Duration::ZERO)
            .start()
    };
    let left = mock(1, 1_763_683_200, Profile::Documented).await;
    let right = mock(2, 1_800_000_000, Profile::Documented).await;
    let report = diff_streams(&left, &right, 5).await;
    assert!(
        report.is_empty(),
        "{}",
        render_text(&report, Style::default())
    );
    assert!(report
        .steps
        .iter()
        .all(|s| s.left["events"].is_array() || s.step == "stream.speech.unsupported-model"));

    let new_api = mock(3, 1_763_683_200, Profile::NewApi).await;
    let report = diff_streams(&left, &new_api, 5).await;
    assert!(
        report.unexplained().is_empty(),
        "{:?}",
        report.unexplained()
    );
    let mut rows: Vec<&str> = report.known_rows().iter().map(|k| k.id).collect();
    rows.sort();
    assert_eq!(rows, ["D-STREAM-1", "D-STREAM-3", "NA13", "P2"]);

    right.inject(gatecheck_mock::Fault::stream_malformed(1).on("POST /v1/images/generations"));
    let report = diff_streams(&left, &right, 5).await;
    let steps: Vec<&str> = report.differing().map(|s| s.step.as_str()).collect();
    assert_eq!(steps, ["stream.images.partials"]);
    let step = report.differing().next().unwrap();
    assert_eq!(step.differences.len(), 1, "{:?}", step.differences);
    assert_eq!(step.differences[0].path, "/events/1/data");
}
