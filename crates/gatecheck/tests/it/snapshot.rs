//! Tests of `gatecheck snapshot`: record, verify passes on the same target, verify fails on
//! drift naming the step and the JSON path, and leaves `.snap.new` files for review.

use std::process::{Command, Output};

fn gatecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatecheck"))
        .args(args)
        .env_remove("GATECHECK_API_KEY")
        .env_remove("GATECHECK_ACCESS_TOKEN")
        .env_remove("INSTA_UPDATE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run gatecheck")
}

#[test]
fn record_verify_and_drift() {
    let dir = std::env::temp_dir().join(format!("gatecheck-cli-snap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();

    // Record against a served mock; verify against the same target (its state has moved on:
    // quota spent, tasks made), then against the embedded mock: both pass.
    let served = super::serve::start(&["--clock", "virtual"]);
    let out = gatecheck(&[
        "snapshot",
        "record",
        "--base-url",
        &served.base,
        "--dir",
        d,
        "--seed",
        "4",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("video.poll.terminal.snap").exists());
    for target in [vec!["--base-url", served.base.as_str()], vec![]] {
        let mut args = vec!["snapshot", "verify", "--dir", d];
        args.extend(target);
        let out = gatecheck(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("0 differ"), "{stdout}");
    }

    // A target with other behaviour: fails, names step and path, writes .snap.new.
    let drifted = super::serve::start(&["--clock", "virtual", "--profile", "new-api"]);
    let junit = dir.join("verify.xml");
    let out = gatecheck(&[
        "snapshot",
        "verify",
        "--base-url",
        &drifted.base,
        "--dir",
        d,
        "--update",
        "new",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("token.update.status-without-status-only"),
        "{stdout}"
    );
    assert!(stdout.contains("/body/data/status: 2 → 1"), "{stdout}");
    assert!(dir
        .join("token.update.status-without-status-only.snap.new")
        .exists());
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"20\""), "{xml}");
    assert!(xml.contains("drifted at /body/data/status"), "{xml}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_without_a_recording_is_an_error() {
    let dir = std::env::temp_dir().join(format!("gatecheck-cli-empty-{}", std::process::id()));
    let out = gatecheck(&["snapshot", "verify", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("record first"));
}
