//! The official OpenAI Python SDK recorded and replayed (docs/recording.md):
//! `tests/sdk/test_sdk.py` runs every route through `gatecheck record --proxy` in front of
//! `gatecheck serve --clock virtual`, then again against `gatecheck serve --replay DIR
//! --replay-strict` (unmatched requests would get 404/501 and fail the script), and passes
//! both times. No recorded file holds any encoding of the key the SDK used.
//!
//! The Python is found as in `sdk.rs` (`GATECHECK_SDK_PYTHON`); without it the test prints a
//! `skipped:` line and passes.

use super::support::gatecheck_command;
use crate::child::wait_bounded;
use crate::serve::start;
use gatecheck_conformance::recording::Substitutions;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SCRIPT_TIMEOUT: Duration = Duration::from_secs(180);

/// The fixtures' demo key (key id 1).
const KEY: &str = "sk-B7LQ4DBqHboMSp4DTHEzEDh2QFLVxZXSezhDvt2gl8t7mqaK";

fn run_script(python: &str, base: &str) -> (bool, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/sdk/test_sdk.py");
    let child = Command::new(python)
        .arg(script)
        .args(["--base-url", base, "--api-key", KEY])
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let done = wait_bounded(child, SCRIPT_TIMEOUT);
    let passed =
        done.status.is_some_and(|s| s.success()) && done.stdout.contains("all SDK checks passed");
    (
        passed,
        format!("stdout:\n{}\nstderr:\n{}", done.stdout, done.stderr),
    )
}

fn assert_no_key(dir: &Path) {
    let mut files = vec![dir.join("manifest.json")];
    files.extend(
        std::fs::read_dir(dir.join("exchanges"))
            .expect("exchanges")
            .flatten()
            .map(|e| e.path()),
    );
    let forms = Substitutions::forms("KEY", KEY);
    assert!(forms.len() >= 8, "{forms:?}");
    for f in &files {
        let bytes = std::fs::read(f).expect("file");
        for (needle, form) in &forms {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{}: the key as {form}",
                f.display()
            );
        }
    }
}

#[test]
fn the_sdk_passes_against_the_replay_of_its_own_recording() {
    let Some(python) = crate::sdk::python() else {
        eprintln!("skipped: no GATECHECK_SDK_PYTHON and python3 cannot import openai");
        return;
    };
    let dir = std::env::temp_dir().join(format!("gatecheck-sdk-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let rec = dir.join("rec");
    let ready = dir.join("ready.json");
    let mock = start(&["--clock", "virtual"]);
    let recorder = gatecheck_command(&[])
        .args(["record", "--proxy", "--upstream", &mock.base, "--out"])
        .arg(&rec)
        .args(["--secret-env", "API_KEY=GATECHECK_TEST_KEY", "--ready-file"])
        .arg(&ready)
        .args([
            "--target-kind",
            "gatecheck-mock",
            "--target-name",
            "gatecheck serve",
        ])
        .env("GATECHECK_TEST_KEY", KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck record");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready.exists() {
        assert!(Instant::now() < deadline, "the recorder did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ready: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&ready).expect("ready")).expect("json");
    let through = ready["base_url"].as_str().expect("base_url").to_owned();
    let (passed, out) = run_script(&python, &through);
    let _ = Command::new("kill")
        .args(["-TERM", &recorder.id().to_string()])
        .status();
    let stopped = wait_bounded(recorder, Duration::from_secs(30));
    assert!(passed, "the SDK failed through the recorder\n{out}");
    assert!(
        stopped.status.is_some_and(|s| s.success()),
        "the recorder: {}",
        stopped.stderr
    );
    drop(mock);
    assert_no_key(&rec);

    // The fixtures' demo key is public: on the command line it hides nothing.
    let replay = start(&[
        "--clock",
        "virtual",
        "--replay",
        rec.to_str().expect("utf-8 path"),
        "--replay-strict",
        "--replay-secret",
        &format!("API_KEY={KEY}"),
    ]);
    let (passed, out) = run_script(&python, &replay.base);
    assert!(passed, "the SDK failed against the replay\n{out}");
    drop(replay);
    let _ = std::fs::remove_dir_all(&dir);
}
