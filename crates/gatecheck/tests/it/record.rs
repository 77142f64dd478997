//! `gatecheck record --base-url` (drive mode, docs/recording.md) end to end: it records a
//! `check` run of `gatecheck serve` (a deployment run: no `/__mock/*`), writes the run's flags
//! and seed to the manifest and no form of the credentials anywhere; `check` with those flags
//! against `gatecheck serve --replay DIR --replay-strict` gives the same verdicts.

use super::support::gatecheck_command;
use crate::child::wait_bounded;
use crate::serve::start;
use gatecheck_conformance::recording::{Recording, Substitutions};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

const KEY: &str = "sk-B7LQ4DBqHboMSp4DTHEzEDh2QFLVxZXSezhDvt2gl8t7mqaK";
const TOKEN: &str = "8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf";

fn gatecheck(args: &[&str]) -> (Option<i32>, String) {
    let child = gatecheck_command(&[])
        .args(args)
        .env("GATECHECK_API_KEY", KEY)
        .env("GATECHECK_ACCESS_TOKEN", TOKEN)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck");
    let done = wait_bounded(child, Duration::from_secs(120));
    (
        done.status.and_then(|s| s.code()),
        format!("{}\n{}", done.stdout, done.stderr),
    )
}

fn verdicts(path: &Path) -> Vec<(String, String, String)> {
    let report: Value =
        serde_json::from_slice(&std::fs::read(path).expect("report")).expect("json");
    let mut out: Vec<_> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            let f = |k: &str| c[k].as_str().unwrap_or("").to_owned();
            (f("id"), f("status"), f("skip_cause"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn record_drives_check_and_its_replay_gives_the_same_verdicts() {
    let dir = std::env::temp_dir().join(format!("gatecheck-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let rec = dir.join("rec");
    let live_json = dir.join("live.json");
    let mock = start(&[]);
    let (code, out) = gatecheck(&[
        "record",
        "--base-url",
        &mock.base,
        "--user-id",
        "1",
        "--out",
        rec.to_str().expect("path"),
        "--",
        "--only",
        "auth.*,catalog.*",
        // No --key-id: the two checks that need a working key skip, on purpose.
        "--allow-skip",
        "no-credentials",
        "--cases",
        "2",
        "--quiet",
        "--report",
        &format!("json={}", live_json.display()),
    ]);
    assert_eq!(code, Some(0), "{out}");
    drop(mock);
    let recording = Recording::load(&rec).expect("the recording loads");
    let m = &recording.manifest;
    assert_eq!(m.mode, "drive");
    assert_eq!(m.profile.as_deref(), Some("documented"));
    let args: Vec<String> = m.run["args"]
        .as_array()
        .expect("run.args")
        .iter()
        .map(|a| a.as_str().expect("arg").to_owned())
        .collect();
    assert!(
        args.windows(2).any(|w| w == ["--target", "deployment"]),
        "{args:?}"
    );
    assert!(args.iter().any(|a| a == "--seed"), "{args:?}");
    assert!(
        recording.exchanges.len() > 20,
        "{}",
        recording.exchanges.len()
    );
    assert!(
        recording
            .exchanges
            .iter()
            .all(|e| !e.request.path.starts_with("/__mock")),
        "a deployment run sends nothing to /__mock/*"
    );
    let mut files = vec![rec.join("manifest.json")];
    files.extend(
        std::fs::read_dir(rec.join("exchanges"))
            .expect("ls")
            .flatten()
            .map(|e| e.path()),
    );
    for f in &files {
        let bytes = std::fs::read(f).expect("file");
        for (name, value) in [("KEY", KEY), ("TOKEN", TOKEN)] {
            for (needle, form) in Substitutions::forms(name, value) {
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                    "{}: {form}",
                    f.display()
                );
            }
        }
    }

    let replay = start(&[
        "--replay",
        rec.to_str().expect("path"),
        "--replay-strict",
        "--replay-secret",
        &format!("API_KEY={KEY}"),
        "--replay-secret",
        &format!("ACCESS_TOKEN={TOKEN}"),
    ]);
    let replay_json = dir.join("replay.json");
    let report = format!("json={}", replay_json.display());
    let mut check: Vec<&str> = vec!["check", "--base-url", &replay.base, "--user-id", "1"];
    let own: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .take_while(|a| *a != "--report")
        .collect();
    check.extend(own);
    check.extend(["--report", &report]);
    let (code, out) = gatecheck(&check);
    assert_eq!(code, Some(0), "{out}");
    let live = verdicts(&live_json);
    let passed = live.iter().filter(|v| v.1 == "passed").count();
    assert!(passed >= 8, "{passed} checks passed: {live:?}");
    assert_eq!(live, verdicts(&replay_json), "{out}");
    drop(replay);
    let _ = std::fs::remove_dir_all(&dir);
}
