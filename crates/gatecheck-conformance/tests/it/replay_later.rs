//! A replay gives the recorded run's verdicts whenever it is judged, and as fast as the mock.
//! A recording is made "hours ago" by moving every Unix time in it
//! that was read from a clock back (its manifest's `recorded_at`, the answers' `*_time` fields,
//! the recorded request times; not the times the run drew without a clock, which a replay
//! sends again as they were, and which a strict replay matches): no test
//! sleeps. The replay tells the runner the recorded time of each answer
//! (`x-gatecheck-replay-time`), and the runner takes "now" from it; its task states come one
//! per poll, so the runner polls them without waiting.

use super::support::fast_fixtures;
use gatecheck_conformance::recording::{Recorder, RecorderConfig, TargetInfo};
use gatecheck_conformance::{Report, Runner, RunnerConfig, SkipCause, Status, TargetMode};
use gatecheck_mock::replay::ReplayOptions;
use gatecheck_mock::{MockServer, NewKey};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

struct Target {
    key: String,
    token: String,
    user: i64,
    key_id: i64,
}

fn config(
    base: &str,
    t: &Target,
    only: &[&str],
    poll: Duration,
    deadline: Duration,
) -> RunnerConfig {
    let mut c = RunnerConfig::new(base.parse().expect("url"));
    c.scope.cases = 4;
    c.scope.seed = Some(39_05);
    c.limits.deadline = deadline;
    c.limits.video_deadline = Duration::from_secs(60);
    c.limits.concurrency = 1;
    c.known.target_mode = TargetMode::Deployment;
    c.target.api_key = Some(t.key.clone().into());
    c.target.access_token = Some(t.token.clone().into());
    c.target.user_id = Some(t.user);
    c.target.key_id = Some(t.key_id);
    c.scope.only = only.iter().copied().map(String::from).collect();
    c.limits.poll_interval = Some(poll);
    c.progress = false;
    c
}

fn wall_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Records a deployment run of `only` against the mock; the recording's directory, the run's
/// report and the credentials. The working key expires two hours after the recording.
async fn record(name: &str, only: &[&str], poll: Duration) -> (PathBuf, Report, Target) {
    let mock = MockServer::builder()
        .fixtures(fast_fixtures())
        .seed(39)
        .start()
        .await;
    let rec = mock.add_key(NewKey {
        name: Some("expires-in-two-hours".into()),
        expired_time: Some(wall_now() + 7200),
        remain_quota: Some(50_000_000),
        ..NewKey::default()
    });
    let account = mock.demo_account();
    let t = Target {
        key: format!("sk-{}", rec.key.trim_start_matches("sk-")),
        token: account.access_token.clone(),
        user: account.id,
        key_id: rec.id,
    };
    let dir = std::env::temp_dir().join(format!("gatecheck-later-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut rc = RecorderConfig::new(mock.uri().parse().expect("url"), &dir);
    rc.secrets = secrets(&t);
    rc.learn_keys = true;
    rc.mode = "drive".into();
    rc.target = TargetInfo {
        kind: "gatecheck-mock".into(),
        name: name.into(),
    };
    let recorder = Recorder::start(rc).await.expect("recorder");
    let live = Runner::new(config(
        &recorder.base_url(),
        &t,
        only,
        poll,
        Duration::from_secs(120),
    ))
    .run()
    .await
    .expect("live run");
    recorder
        .finish(Duration::from_secs(5))
        .await
        .expect("finish");
    mock.shutdown().await;
    (dir, live, t)
}

fn secrets(t: &Target) -> Vec<(String, String)> {
    vec![
        ("API_KEY".into(), t.key.clone()),
        ("ACCESS_TOKEN".into(), t.token.clone()),
    ]
}

/// Judges the strict replay of the recording in `dir`.
async fn replay(
    dir: &Path,
    t: &Target,
    only: &[&str],
    poll: Duration,
    deadline: Duration,
) -> Report {
    let mut options = ReplayOptions::new(dir).strict(true);
    for (name, value) in secrets(t) {
        options = options.secret(name, value);
    }
    let server = MockServer::builder().replay_options(options).start().await;
    let report = Runner::new(config(&server.uri(), t, only, poll, deadline))
        .run()
        .await
        .expect("replayed run");
    server.shutdown().await;
    report
}

/// Whether a JSON field holds a Unix time (as the recording's normalization reads it).
fn is_time(key: &str, v: &Value) -> bool {
    let timey = key == "time" || key.ends_with("_time") || key.ends_with("_at");
    timey
        && v.as_i64()
            .is_some_and(|n| (1_000_000_000..10_000_000_000).contains(&n))
}

/// Whether recorded time `t` was read from the recording's clock (`origin`, its start): the
/// times a run draws from its clock are within a year and a day of it (the farthest:
/// `token.update.expired-time-forms`' now + 365 days), as are the target's own. The times it
/// draws without the clock (`arbitrary::unix_seconds`, 2000 to 2100: the seed's, the same
/// whenever the run is judged) stay where they are, as they would in a recording made then.
fn on_the_clock(t: i64, origin: i64) -> bool {
    (t - origin).abs() <= 366 * 86_400
}

fn shift_times(v: &mut Value, by: i64, origin: i64) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                if is_time(k, x) {
                    let t = x.as_i64().unwrap_or(0);
                    if on_the_clock(t, origin) {
                        *x = Value::from(t + by);
                    }
                } else {
                    shift_times(x, by, origin);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| shift_times(x, by, origin)),
        _ => {}
    }
}

/// Moves the recording `by` seconds in time: as if it had been made then.
fn shift_recording(dir: &Path, by: i64) {
    let read = |p: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(p).expect("read")).expect("JSON")
    };
    let manifest_path = dir.join("manifest.json");
    let mut manifest = read(&manifest_path);
    let at = manifest["recorded_at"].as_str().expect("recorded_at");
    let origin = gatecheck_schemas::rules::time::parse_utc(at).expect("a UTC time");
    let secs = origin + by;
    let (y, mo, d, h, mi, s) = gatecheck_schemas::rules::time::utc_parts(secs);
    manifest["recorded_at"] = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z").into();
    std::fs::write(&manifest_path, manifest.to_string()).expect("write");
    for entry in std::fs::read_dir(dir.join("exchanges"))
        .expect("exchanges")
        .flatten()
    {
        let mut ex = read(&entry.path());
        if let Some(times) = ex
            .get_mut("request")
            .and_then(|r| r.get_mut("times"))
            .and_then(Value::as_array_mut)
        {
            for t in times
                .iter_mut()
                .filter(|t| on_the_clock(t.as_i64().unwrap_or(0), origin))
            {
                *t = Value::from(t.as_i64().unwrap_or(0) + by);
            }
        }
        if let Some(body) = ex.get_mut("response").and_then(|r| r.get_mut("body")) {
            shift_times(body, by, origin);
        }
        std::fs::write(entry.path(), ex.to_string()).expect("write");
    }
}

fn verdicts(r: &Report) -> Vec<(String, Status, Option<SkipCause>, u32)> {
    let mut v: Vec<_> = r
        .checks
        .iter()
        .map(|c| (c.id.clone(), c.status, c.skip_cause, c.cases))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_judged_hours_later_gives_the_recorded_verdicts() {
    let only = ["token.update.*", "key.state.*", "key.use-marks-status"];
    let poll = Duration::from_millis(50);
    let (dir, live, t) = record("hours", &only, poll).await;
    let passed = live.ids_with(Status::Passed).len();
    assert!(
        passed >= 10,
        "{}",
        gatecheck_conformance::report::summary_table(&live)
    );
    // Made three hours ago: the working key, which expired two hours after the recording,
    // has expired by the wall clock; the expiries the run drew from its clock are hours off.
    shift_recording(&dir, -3 * 3600);
    let later = replay(&dir, &t, &only, poll, Duration::from_secs(120)).await;
    assert_eq!(
        verdicts(&later),
        verdicts(&live),
        "{}",
        gatecheck_conformance::report::summary_table(&later)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_serves_recorded_task_states_as_fast_as_they_are_polled() {
    // The recorded run polls its video tasks two seconds apart, in real time: at least three
    // polls each (until the end, and twice after it).
    let only = ["video.task.schema", "video.task.decided-fields"];
    let poll = Duration::from_secs(2);
    let (dir, live, t) = record("pace", &only, poll).await;
    assert_eq!(live.ids_with(Status::Passed).len(), 2);
    let polls = std::fs::read_dir(dir.join("exchanges"))
        .expect("exchanges")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("GET-v1-videos-"))
        .count();
    assert!(polls >= 3, "{polls} polls recorded");
    // Judged with a deadline shorter than the recorded polls took: a replay paced like the
    // recorded target would run out of time (and skip `deadline`).
    let deadline = Duration::from_secs(polls as u64);
    let replayed = replay(&dir, &t, &only, poll, deadline).await;
    assert_eq!(
        verdicts(&replayed),
        verdicts(&live),
        "{}",
        gatecheck_conformance::report::summary_table(&replayed)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
