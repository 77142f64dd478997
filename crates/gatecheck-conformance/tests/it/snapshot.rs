//! Snapshots: record, then verify against the same target passes; a planted change fails and
//! names the step and the JSON path; `.snap.new` files appear for `cargo insta review`.

use super::support::temp_dir;
use gatecheck_conformance::diff::Style;
use gatecheck_conformance::normalize::Normalizer;
use gatecheck_conformance::sequence::{
    mock_target, PollSettings, Sequence, SequenceOptions, SideRunner,
};
use gatecheck_conformance::snapshot::{self, Recorded, SnapFile, UpdateMode};
use gatecheck_conformance::{Client, ClientConfig};
use gatecheck_mock::{ClockMode, Fixtures, MockServer};
use gatecheck_schemas::Profile;
use std::path::PathBuf;

async fn record_against(server: &MockServer, seed: u64) -> Vec<Recorded> {
    let mut config = ClientConfig::new(mock_target(server).unwrap());
    config.use_env_proxy = false;
    let mut runner = SideRunner::new(Client::new(config).unwrap(), PollSettings::default())
        .with_mock_control(true);
    let sequence = Sequence::standard(seed, &SequenceOptions::default());
    snapshot::run_sequence(&sequence, &mut runner, &Normalizer::builtin()).await
}

async fn mock(seed: u64, fixtures: Option<Fixtures>, profile: Profile) -> MockServer {
    let mut builder = MockServer::builder()
        .seed(seed)
        .profile(profile)
        .clock(ClockMode::virtual_default());
    if let Some(f) = fixtures {
        builder = builder.fixtures(f);
    }
    builder.start().await
}

#[tokio::test]
async fn record_then_verify_passes_and_a_planted_change_is_named() {
    let dir = temp_dir("plant");
    let first = mock(1, None, Profile::Documented).await;
    let recorded = record_against(&first, 3).await;
    snapshot::record(&dir, 3, &recorded).unwrap();
    assert_eq!(
        snapshot::read_manifest(&dir).unwrap().unwrap().steps.len(),
        recorded.len()
    );

    // The same target again (another mock instance, other ids): passes.
    let again = mock(99, None, Profile::Documented).await;
    let report = snapshot::verify(&dir, &record_against(&again, 3).await, UpdateMode::New).unwrap();
    assert!(report.passed(), "{}", report.render(Style::default()));
    assert_eq!(report.matched, recorded.len());

    // A target whose catalog changed one field: fails, naming the step and the JSON path.
    let mut fixtures = Fixtures::embedded();
    fixtures.catalog[0].name = "Sora Two".into();
    let planted = mock(1, Some(fixtures), Profile::Documented).await;
    let report =
        snapshot::verify(&dir, &record_against(&planted, 3).await, UpdateMode::New).unwrap();
    assert!(!report.passed());
    let text = report.render(Style::default());
    println!("{text}");
    let ids: Vec<&str> = report.mismatches.iter().map(|m| m.step.as_str()).collect();
    assert_eq!(ids, ["catalog.list.page", "catalog.list.video"]);
    let m = &report.mismatches[0];
    assert_eq!(m.differences.len(), 1);
    assert_eq!(m.differences[0].path, "/body/data/0/name");
    assert!(text.contains("catalog.list.page"));
    assert!(text.contains("/body/data/0/name: \"Sora 2\" → \"Sora Two\""));
    // The pending snapshot sits beside the file, in insta's format.
    let pending = dir.join("catalog.list.page.snap.new");
    let snap = SnapFile::parse(&std::fs::read_to_string(&pending).unwrap()).unwrap();
    assert_eq!(snap.metadata["expression"], "catalog.list.page");
    assert!(snap.content.contains("Sora Two"));

    // A planted change in a snapshot file is found the same way.
    let file = dir.join("video.poll.terminal.snap");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("\"completed\"", "\"failed\"")).unwrap();
    let report = snapshot::verify(&dir, &record_against(&again, 3).await, UpdateMode::No).unwrap();
    let m = report
        .mismatches
        .iter()
        .find(|m| m.step == "video.poll.terminal")
        .expect("the edited step fails");
    assert_eq!(m.differences[0].path, "/body/status");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn verify_against_the_other_profile_names_the_profile_differences() {
    let dir = temp_dir("profile");
    let documented = mock(1, None, Profile::Documented).await;
    snapshot::record(&dir, 5, &record_against(&documented, 5).await).unwrap();
    let new_api = mock(1, None, Profile::NewApi).await;
    let report =
        snapshot::verify(&dir, &record_against(&new_api, 5).await, UpdateMode::No).unwrap();
    let failing: Vec<(&str, &str)> = report
        .mismatches
        .iter()
        .map(|m| (m.step.as_str(), m.differences[0].path.as_str()))
        .collect();
    assert!(failing.contains(&("video.poll.unknown-id-404", "/status")));
    assert!(failing.contains(&(
        "token.update.status-without-status-only",
        "/body/data/status"
    )));
    assert!(!dir.join("video.poll.unknown-id-404.snap.new").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn insta_reads_the_golden_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../snapshots/documented");
    for name in [
        "video.poll.terminal",
        "token.update.name-20-multibyte",
        "audio.translation.srt",
    ] {
        let path = dir.join(format!("{name}.snap"));
        let ours = SnapFile::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let theirs = insta::Snapshot::from_file(&path).expect("insta parses the file");
        assert_eq!(theirs.metadata().expression(), Some(name));
        assert_eq!(theirs.metadata().source(), Some(snapshot::SOURCE));
        assert_eq!(
            theirs.metadata().description(),
            ours.metadata.get("description").map(String::as_str)
        );
        match theirs.contents() {
            insta::internals::SnapshotContents::Text(text) => {
                assert_eq!(text.to_string(), ours.content)
            }
            other => panic!("unexpected contents {other:?}"),
        }
    }
}

/// Streamed steps snapshot event by event: they verify against another mock (other ids,
/// times and image bytes), and a changed event is named by its index.
#[tokio::test]
async fn streamed_steps_verify_and_a_changed_event_is_named() {
    async fn streams(server: &MockServer) -> Vec<Recorded> {
        let mut config = ClientConfig::new(mock_target(server).unwrap());
        config.use_env_proxy = false;
        let mut runner = SideRunner::new(Client::new(config).unwrap(), PollSettings::default());
        let options = SequenceOptions {
            streams: true,
            ..SequenceOptions::default()
        };
        let mut sequence = Sequence::standard(4, &options);
        sequence.steps.retain(|s| s.id.starts_with("stream."));
        snapshot::run_sequence(&sequence, &mut runner, &Normalizer::builtin()).await
    }
    let dir = temp_dir("streams");
    let first = mock(1, None, Profile::NewApi).await;
    snapshot::record(&dir, 4, &streams(&first).await).unwrap();
    let other = mock(77, None, Profile::NewApi).await;
    other
        .clock()
        .advance(std::time::Duration::from_secs(86_400));
    let report = snapshot::verify(&dir, &streams(&other).await, UpdateMode::No).unwrap();
    assert!(report.passed(), "{}", report.render(Style::default()));
    assert_eq!(report.matched, 4);

    other.inject(gatecheck_mock::Fault::stream_malformed(2).on("POST /v1/audio/speech"));
    let report = snapshot::verify(&dir, &streams(&other).await, UpdateMode::No).unwrap();
    let drifted: Vec<(&str, &str)> = report
        .mismatches
        .iter()
        .flat_map(|m| {
            m.differences
                .iter()
                .map(|d| (m.step.as_str(), d.path.as_str()))
        })
        .collect();
    assert_eq!(drifted, [("stream.speech.sse", "/events/2/data")]);
    let _ = std::fs::remove_dir_all(&dir);
}
