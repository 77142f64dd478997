//! A replay keeps the verdicts it recorded. Recorded through a proxy
//! that plants a bug (`PUT /api/token/` drops `status` and claims it applied, its JSON written
//! back in another form, so the recording keeps those answers as text), then replayed
//! strictly: before, `token.update.expired-time-forms` and `token.update.given-fields-applied`
//! passed on the target and failed on the replay in about two runs of three (the replay read
//! its clock a second after the recorded run did, and answered the recorded `expired_time`;
//! a request of another time was taken for the same exchange). Now a request matches only a
//! recorded one of the same times (within `TIME_SLACK_SECS`), and the answer echoes the
//! client's times in whatever form it was kept. Each seed is a different draw of times.

use super::planted::Bug;
use super::replay_roundtrip::{assert_same, replay, round_trip_seeded};
use gatecheck_conformance::{SkipCause, Status};
use gatecheck_schemas::Profile;

const CHECKS: [&str; 2] = [
    "token.update.expired-time-forms",
    "token.update.given-fields-applied",
];

/// Whether some recorded answer is kept as text (JSON not in its compact form).
fn has_text_answers(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir.join("exchanges"))
        .expect("exchanges")
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .any(|t| t.contains("\"kind\": \"text\"") && t.contains("expired_time"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strict_replay_of_a_planted_bug_keeps_the_recorded_verdicts_on_every_seed() {
    for seed in [1u64, 2, 5] {
        let name = format!("strict-{seed}");
        let (live, replayed, unmatched, s) = round_trip_seeded(
            Profile::Documented,
            Bug::StatusIgnoredClaimed,
            &CHECKS,
            &name,
            seed,
        )
        .await;
        assert_same(&live, &replayed, &unmatched);
        for id in CHECKS {
            let c = replayed.checks.iter().find(|c| c.id == id).expect("check");
            assert_eq!(
                c.status,
                Status::Passed,
                "seed {seed}: {id} {:?}",
                c.message
            );
        }
        assert!(
            has_text_answers(&s.dir),
            "seed {seed}: no answer kept as text"
        );
        let _ = std::fs::remove_dir_all(&s.dir);
    }
}

/// Moves the times of every recorded key update in `dir` by `by` seconds: the recording is
/// then of updates sent with other `expired_time`s than the replay's client sends.
fn shift_recorded_times(dir: &std::path::Path, by: i64) -> usize {
    let mut shifted = 0;
    for e in std::fs::read_dir(dir.join("exchanges"))
        .expect("exchanges")
        .flatten()
    {
        let text = std::fs::read_to_string(e.path()).expect("exchange");
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let Some(times) = v["request"]["times"].as_array_mut() else {
            continue;
        };
        for t in times.iter_mut() {
            *t = serde_json::json!(t.as_i64().expect("time") + by);
            shifted += 1;
        }
        std::fs::write(e.path(), serde_json::to_string_pretty(&v).expect("json")).expect("write");
    }
    shifted
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_of_other_times_is_not_answered_with_the_recorded_ones() {
    // The updates were recorded with `expired_time`s a day away from the ones the replay's
    // client sends. Before, the strict replay answered them with the recorded exchanges (the
    // check passed on answers nobody recorded for these requests); now they are not in the
    // recording: the check skips `not-in-recording` and the replay says it has no answer.
    let only = ["token.update.expired-time-forms"];
    let (live, _, _, s) = round_trip_seeded(
        Profile::Documented,
        Bug::StatusIgnoredClaimed,
        &only,
        "strict-other",
        3,
    )
    .await;
    assert!(live.ids_with(Status::Passed).contains(&only[0]));
    assert!(shift_recorded_times(&s.dir, 86_400) > 0);
    let (report, unmatched) = replay(Profile::Documented, &s, &only).await;
    let c = report
        .checks
        .iter()
        .find(|c| c.id == only[0])
        .expect("check");
    assert_eq!(
        (c.status, c.skip_cause),
        (Status::Skipped, Some(SkipCause::NotInRecording)),
        "{:?}",
        c.message
    );
    assert!(
        unmatched.iter().any(|u| u == "PUT /api/token/ -> 501"),
        "{unmatched:?}"
    );
    let _ = std::fs::remove_dir_all(&s.dir);
}
