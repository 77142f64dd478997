//! Verdicts survive the round trip (docs/recording.md): a deployment run recorded
//! through the recorder (drive mode: keys learned, secrets as placeholders) and replayed by
//! the strict replaying mock gives the same verdicts as the recorded run, request for
//! request (nothing unmatched), for the mock in each profile and behind a planted bug (the
//! replay does not hide it). A check the recording does not cover skips `not-in-recording`.

use super::mutation_proxy::start_proxy;
use super::planted::{planted, Bug};
use super::support::fast_fixtures;
use gatecheck_conformance::recording::{Recorder, RecorderConfig, Substitutions, TargetInfo};
use gatecheck_conformance::{Report, Runner, RunnerConfig, SkipCause, Status, TargetMode};
use gatecheck_mock::replay::ReplayOptions;
use gatecheck_mock::MockServer;
use gatecheck_schemas::Profile;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The mock's credentials and a recording directory.
pub(crate) struct Setup {
    key: String,
    token: String,
    user: i64,
    pub(crate) dir: PathBuf,
    pub(crate) seed: u64,
}

/// The runs' deadline: a bound against a hang, far above a round trip's pace on a loaded
/// machine (a whole run took 15 s unloaded, 70-80 s once under load). A recorded run cut by
/// its deadline records only the checks it reached; the replay, fast, runs the rest too, and
/// their requests are not in the recording (that was the `PUT /api/token/ -> 501` of a slow
/// recording, which a 60 s deadline cut).
const RUN_DEADLINE: Duration = Duration::from_secs(300);

fn config(base: &str, s: &Setup, only: &[&str]) -> RunnerConfig {
    let mut c = RunnerConfig::new(base.parse().expect("url"));
    c.scope.cases = std::env::var("GC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    c.scope.seed = Some(s.seed);
    c.limits.deadline = RUN_DEADLINE;
    c.limits.video_deadline = Duration::from_secs(20);
    c.limits.concurrency = 1;
    c.known.target_mode = TargetMode::Deployment;
    c.scope.allow_create_keys = true;
    c.target.api_key = Some(s.key.clone().into());
    c.target.access_token = Some(s.token.clone().into());
    c.target.user_id = Some(s.user);
    c.scope.only = only.iter().copied().map(String::from).collect();
    c.limits.poll_interval = Some(Duration::from_millis(50));
    c.progress = false;
    c
}

fn secrets(s: &Setup) -> Vec<(String, String)> {
    vec![
        ("API_KEY".into(), s.key.clone()),
        ("ACCESS_TOKEN".into(), s.token.clone()),
    ]
}

/// Records a run against the mock of `profile` (behind `bug`), then runs again against the
/// strict replay of the recording: both reports, and the requests the replay did not hold.
pub(crate) async fn round_trip(
    profile: Profile,
    bug: Bug,
    only: &[&str],
    name: &str,
) -> (Report, Report, Vec<String>, Setup) {
    round_trip_seeded(profile, bug, only, name, 2026_1125).await
}

/// [`round_trip`] with the runs' `seed`.
pub(crate) async fn round_trip_seeded(
    profile: Profile,
    bug: Bug,
    only: &[&str],
    name: &str,
    seed: u64,
) -> (Report, Report, Vec<String>, Setup) {
    let mock = MockServer::builder()
        .profile(profile)
        .fixtures(fast_fixtures())
        .seed(5)
        .start()
        .await;
    let account = mock.demo_account();
    let s = Setup {
        key: mock.demo_key(),
        token: account.access_token.clone(),
        user: account.id,
        dir: std::env::temp_dir()
            .join(format!("gatecheck-roundtrip-{name}-{}", std::process::id())),
        seed,
    };
    let _ = std::fs::remove_dir_all(&s.dir);
    let upstream = if bug == Bug::None {
        mock.uri()
    } else {
        start_proxy(mock.uri(), bug).await
    };
    let mut rc = RecorderConfig::new(upstream.parse().expect("url"), &s.dir);
    rc.secrets = secrets(&s);
    rc.learn_keys = true;
    rc.mode = "drive".into();
    rc.profile = Some(profile.to_string());
    rc.target = TargetInfo {
        kind: "gatecheck-mock".into(),
        name: format!("{profile} {bug:?}"),
    };
    let recorder = Recorder::start(rc).await.expect("recorder");
    let live = Runner::new(config(&recorder.base_url(), &s, only))
        .run()
        .await
        .expect("live run");
    assert!(
        !live.deadline_reached,
        "the recorded run reached its {RUN_DEADLINE:?} deadline: the replay would run checks it never recorded"
    );
    recorder
        .finish(Duration::from_secs(5))
        .await
        .expect("finish");
    mock.shutdown().await;
    let (replayed, unmatched) = replay(profile, &s, only).await;
    (live, replayed, unmatched, s)
}

/// Runs `only` (with `s.seed`) against the strict replay of the recording in `s.dir`: the
/// report, and the requests the replay did not hold.
pub(crate) async fn replay(profile: Profile, s: &Setup, only: &[&str]) -> (Report, Vec<String>) {
    let mut options = ReplayOptions::new(&s.dir).strict(true);
    for (name, value) in secrets(s) {
        options = options.secret(name, value);
    }
    let replay = MockServer::builder()
        .profile(profile)
        .replay_options(options)
        .start()
        .await;
    let replayed = Runner::new(config(&replay.uri(), s, only))
        .run()
        .await
        .expect("replayed run");
    let unmatched = replay
        .received_requests()
        .into_iter()
        .filter(|e| e.replay.as_deref() != Some("matched"))
        .map(|e| format!("{} {} -> {}", e.method, e.path, e.status))
        .collect();
    replay.shutdown().await;
    (replayed, unmatched)
}

pub(crate) fn verdicts(r: &Report) -> Vec<(String, Status, Option<SkipCause>)> {
    let mut v: Vec<_> = r
        .checks
        .iter()
        .map(|c| (c.id.clone(), c.status, c.skip_cause))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

pub(crate) fn assert_same(live: &Report, replayed: &Report, unmatched: &[String]) {
    assert!(unmatched.is_empty(), "not in the recording: {unmatched:#?}");
    let (a, b) = (verdicts(live), verdicts(replayed));
    let diff: Vec<String> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| {
            format!(
                "{} live {:?}/{:?}, replayed {:?}/{:?}",
                x.0, x.1, x.2, y.1, y.2
            )
        })
        .collect();
    assert_eq!(a.len(), b.len());
    assert!(diff.is_empty(), "verdicts differ:\n{}", diff.join("\n"));
}

/// Every file of a recording, with no form of the recorded secrets in it.
fn assert_no_secret(dir: &Path, secrets: &[(String, String)]) {
    let mut files = vec![dir.join("manifest.json")];
    files.extend(
        std::fs::read_dir(dir.join("exchanges"))
            .expect("exchanges")
            .flatten()
            .map(|e| e.path()),
    );
    assert!(files.len() > 10, "{} files", files.len());
    for f in files {
        let bytes = std::fs::read(&f).expect("file");
        for (name, value) in secrets {
            for (needle, form) in Substitutions::forms(name, value) {
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                    "{}: {form}",
                    f.display()
                );
            }
        }
    }
}

/// The replay of the mock in `profile` gives the same verdicts, request for request. One test
/// per profile (they were one loop; apart, the two round trips run side by side).
async fn the_replay_of_the_mock_gives_the_same_verdicts(profile: Profile) {
    let started = Instant::now();
    let (live, replayed, unmatched, s) =
        round_trip(profile, Bug::None, &[], &profile.to_string()).await;
    assert_same(&live, &replayed, &unmatched);
    let ran = live
        .checks
        .iter()
        .filter(|c| c.status != Status::Skipped)
        .count();
    assert!(ran > 40, "{profile}: only {ran} checks ran");
    assert!(live.ids_with(Status::Passed).len() > 40);
    assert_no_secret(&s.dir, &secrets(&s));
    let manifest = std::fs::read_to_string(s.dir.join("manifest.json")).expect("manifest");
    assert!(
        manifest.contains("\"KEY_3\""),
        "the created keys are learned: {manifest}"
    );
    eprintln!("{profile}: round trip in {:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_of_the_mock_gives_the_same_verdicts_in_the_documented_profile() {
    the_replay_of_the_mock_gives_the_same_verdicts(Profile::Documented).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_of_the_mock_gives_the_same_verdicts_in_the_new_api_profile() {
    the_replay_of_the_mock_gives_the_same_verdicts(Profile::NewApi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_of_a_planted_bug_finds_the_same_failure() {
    let wanted = [
        Bug::DisabledKeyAccepted,
        Bug::Status401To403,
        Bug::CompletedAt99,
        Bug::WrongSpeechContentType,
    ];
    for (bug, id, status, _) in planted().into_iter().filter(|b| wanted.contains(&b.0)) {
        let (live, replayed, unmatched, s) =
            round_trip(Profile::Documented, bug, &[id], &format!("{bug:?}")).await;
        assert_same(&live, &replayed, &unmatched);
        let got = |r: &Report| r.checks.iter().find(|c| c.id == id).map(|c| c.status);
        assert_eq!(got(&live), Some(status), "{bug:?} live");
        assert_eq!(
            got(&replayed),
            Some(status),
            "{bug:?}: the replay hides the bug"
        );
        let _ = std::fs::remove_dir_all(&s.dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_the_recording_does_not_cover_skip_not_in_recording() {
    let (live, _, _, s) =
        round_trip(Profile::Documented, Bug::None, &["audio.speech.*"], "cover").await;
    assert!(live.ids_with(Status::Passed).len() >= 2);
    let mut options = ReplayOptions::new(&s.dir).strict(true);
    for (name, value) in secrets(&s) {
        options = options.secret(name, value);
    }
    let replay = MockServer::builder().replay_options(options).start().await;
    let report = Runner::new(config(&replay.uri(), &s, &["audio.speech.*", "images.*"]))
        .run()
        .await
        .expect("run");
    let skipped: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.id.starts_with("images."))
        .map(|c| (c.id.as_str(), c.status, c.skip_cause))
        .collect();
    assert!(!skipped.is_empty());
    for (id, status, cause) in &skipped {
        let route_skip = *cause == Some(SkipCause::RouteNotServed);
        assert!(
            *status == Status::Skipped && (*cause == Some(SkipCause::NotInRecording) || route_skip),
            "{id}: {status:?} {cause:?}"
        );
    }
    assert!(
        skipped
            .iter()
            .any(|c| c.2 == Some(SkipCause::NotInRecording)),
        "{skipped:?}"
    );
    let speech = report
        .checks
        .iter()
        .filter(|c| c.id.starts_with("audio.speech."));
    assert!(
        speech.clone().all(|c| c.status == Status::Passed),
        "{:?}",
        speech.map(|c| (&c.id, c.status)).collect::<Vec<_>>()
    );
    assert!(report
        .summary
        .skipped_by_cause
        .contains_key(&SkipCause::NotInRecording));
    replay.shutdown().await;
    let _ = std::fs::remove_dir_all(&s.dir);
}
