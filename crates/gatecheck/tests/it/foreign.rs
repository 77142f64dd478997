//! The verdicts on LiteLLM, without LiteLLM (docs/foreign-gateways.md): a replay
//! server answers from `fixtures/foreign/litellm/` (recorded by `scripts/foreign-gateway
//! litellm --record fixtures/foreign/litellm`), `gatecheck check` runs against it with the
//! recorded seed and flags and a placeholder key, and its verdicts must equal
//! `expected.json`. Every request must be in the recording.

use super::support::gatecheck_command;
use gatecheck_conformance::recording::{Recording, ReplayServer, Substitutions, Unmatched};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The replay's stand-in for the master key the recording was made with (same shape:
/// `sk-gatecheck-` and 32 hex digits).
const PLACEHOLDER_KEY: &str = "sk-gatecheck-0123456789abcdef0123456789abcdef";
const RERECORD: &str = "re-record with `scripts/foreign-gateway litellm --record \
                        fixtures/foreign/litellm` (docs/foreign-gateways.md)";

/// Checks newer than the recording, each with its issue; empty once re-recorded (the recording
/// of 2026-12-08 holds every check; `images.edits.result` and `images.png-matches-size` are
/// `not-observed` in the replay: their result URL is on the upstream's host, whose answers a
/// recording of the target does not hold).
const NOT_YET_RECORDED: &[&str] = &[];

fn recording_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/foreign/litellm")
}

/// What one replayed run left behind.
struct Replayed {
    report: Value,
    outputs: Vec<(String, Vec<u8>)>,
    unmatched: Vec<Unmatched>,
    took: Duration,
}

/// Runs `gatecheck check` with the recorded flags against the replay of the recording.
fn replay_run(name: &str) -> Replayed {
    let dir = recording_dir();
    let recording = Recording::load(&dir).expect("the LiteLLM recording loads");
    let mut args: Vec<String> = recording.manifest.run["args"]
        .as_array()
        .expect("the manifest's run.args")
        .iter()
        .map(|a| a.as_str().expect("an argument").to_owned())
        .collect();
    // Checks added after the recording was made send requests it does not hold: they are
    // left out until the lead re-records (RERECORD), each named here with its issue.
    for check in NOT_YET_RECORDED {
        args.extend(["--skip".to_owned(), (*check).to_owned()]);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let secrets = [("LITELLM_MASTER_KEY".to_owned(), PLACEHOLDER_KEY.to_owned())];
    let server = runtime
        .block_on(ReplayServer::start(
            recording,
            "127.0.0.1:0".parse().expect("addr"),
            &secrets,
        ))
        .expect("the replay server starts");
    let out = std::env::temp_dir().join(format!("gatecheck-foreign-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("dir");
    let json = out.join("check.json");
    let junit = out.join("check.xml");
    let started = Instant::now();
    let child = gatecheck_command(&[])
        .arg("check")
        .args(["--base-url", &server.base_url()])
        .args(&args)
        .arg("--report")
        .arg(format!("json={}", json.display()))
        .arg("--junit")
        .arg(&junit)
        .env("GATECHECK_API_KEY", PLACEHOLDER_KEY)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck check");
    let done = super::child::wait_bounded(child, Duration::from_secs(300));
    let took = started.elapsed();
    assert!(done.status.is_some(), "check did not end in 300 s");
    let report: Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the JSON report")).expect("JSON");
    let mut outputs = vec![
        ("stdout".to_owned(), done.stdout.into_bytes()),
        ("stderr".to_owned(), done.stderr.into_bytes()),
        (
            "report.json".to_owned(),
            std::fs::read(&json).expect("json"),
        ),
        (
            "junit.xml".to_owned(),
            std::fs::read(&junit).expect("junit"),
        ),
    ];
    outputs.retain(|(_, bytes)| !bytes.is_empty());
    let unmatched = server.unmatched();
    let _ = std::fs::remove_dir_all(&out);
    Replayed {
        report,
        outputs,
        unmatched,
        took,
    }
}

/// `id -> (status, skip cause)` of a report or of `expected.json`.
fn verdicts(checks: impl Iterator<Item = (String, Value)>) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = checks
        .map(|(id, c)| {
            let field = |k: &str| c[k].as_str().unwrap_or("").to_owned();
            (id, field("status"), field("skip_cause"))
        })
        .collect();
    out.sort();
    out
}

/// `expected.json`'s summary without the checks `left_out` (their status and skip cause no
/// longer counted).
fn summary_without(expected: &Value, left_out: &[&str]) -> Value {
    let mut summary = expected["summary"].clone();
    let dec = |v: &mut Value| *v = Value::from(v.as_u64().unwrap_or(0).saturating_sub(1));
    for id in left_out {
        let c = &expected["checks"][*id];
        let Some(status) = c["status"].as_str() else {
            continue;
        };
        dec(&mut summary["total"]);
        let field = match status {
            "deviation" => "deviations",
            "error" => "errors",
            other => other,
        };
        dec(&mut summary[field]);
        if let Some(cause) = c["skip_cause"].as_str() {
            dec(&mut summary["skipped_by_cause"][cause]);
        }
    }
    summary
}

#[test]
fn the_litellm_replay_gives_the_recorded_verdicts() {
    let run = replay_run("verdicts");
    assert!(
        run.unmatched.is_empty(),
        "{} requests are not in the recording (the runner sends other requests now: {RERECORD}):\n{}",
        run.unmatched.len(),
        run.unmatched.iter().take(10).map(|u| format!("  {u}")).collect::<Vec<_>>().join("\n")
    );
    let expected: Value = serde_json::from_slice(
        &std::fs::read(recording_dir().join("expected.json")).expect("expected.json"),
    )
    .expect("JSON");
    // The checks left out of the run (NOT_YET_RECORDED) are left out of what it must give.
    let recorded = |id: &String| !NOT_YET_RECORDED.contains(&id.as_str());
    let want = verdicts(
        expected["checks"]
            .as_object()
            .expect("checks")
            .iter()
            .filter(|(k, _)| recorded(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let got = verdicts(
        run.report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .map(|c| (c["id"].as_str().unwrap_or("").to_owned(), c.clone())),
    );
    let diff: Vec<String> = want
        .iter()
        .filter(|w| !got.contains(w))
        .map(|w| format!("  expected {w:?}"))
        .chain(
            got.iter()
                .filter(|g| !want.contains(g))
                .map(|g| format!("  got      {g:?}")),
        )
        .collect();
    assert!(
        diff.is_empty(),
        "the verdicts on the LiteLLM replay differ from expected.json (if the change is \
         intended, {RERECORD}):\n{}",
        diff.join("\n")
    );
    assert_eq!(
        run.report["summary"],
        summary_without(&expected, NOT_YET_RECORDED),
        "summary"
    );
    let zero: Vec<&str> = run.report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "passed" && c["cases"].as_u64() == Some(0))
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(zero.is_empty(), "checks passed with 0 cases: {zero:?}");
    let sent = run.report["requests_sent"].as_u64().expect("requests_sent");
    assert!(sent < 1000, "{sent} requests (the bound is 1000)");
    assert!(
        run.took < Duration::from_secs(60),
        "the replayed run took {:?}",
        run.took
    );
}

#[test]
fn the_litellm_replay_leaks_no_form_of_the_key() {
    let run = replay_run("secrets");
    let forms = Substitutions::forms("KEY", PLACEHOLDER_KEY);
    let mut leaks = Vec::new();
    for (file, bytes) in &run.outputs {
        for (needle, placeholder) in &forms {
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                leaks.push(format!("{file}: {placeholder}"));
            }
        }
    }
    assert!(leaks.is_empty(), "the key leaked: {leaks:?}");
}
