//! Tests of `gatecheck snapshot`: record, verify passes on the same target, verify fails on
//! drift naming the step and the JSON path, and leaves `.snap.new` files for review.

use super::support::gatecheck;

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
    // The plugin era's new-api takes the access token without `New-Api-User` as the
    // documented contract does (DECISIONS D-AUTH-9): that step no longer differs.
    assert!(xml.contains("failures=\"20\""), "{xml}");
    assert!(xml.contains("drifted at /body/data/status"), "{xml}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--header` goes with every request and its value reaches no snapshot; `--target` is taken.
#[test]
fn record_with_a_header_and_an_explicit_target() {
    let dir = std::env::temp_dir().join(format!("gatecheck-cli-snap-h-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let served = super::serve::start(&["--clock", "virtual"]);
    let secret = "team-routing-value-5f3a9c";
    let out = gatecheck(&[
        "snapshot",
        "record",
        "--base-url",
        &served.base,
        "--dir",
        dir.to_str().unwrap(),
        "--target",
        "mock",
        "-H",
        &format!("X-Team-Route: {secret}"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(
            !text.contains(secret),
            "a snapshot holds the header's value"
        );
        files += 1;
    }
    assert!(files > 10, "only {files} files recorded");
    // A malformed header is the user's error (2), before anything is sent.
    let out = gatecheck(&["snapshot", "record", "--dir", "x", "-H", "no colon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected 'Name: value'"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A listener that answers every request 404 and keeps each request head it read.
fn head_catcher() -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { return };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            if tx
                .send(String::from_utf8_lossy(&head).into_owned())
                .is_err()
            {
                return;
            }
        }
    });
    (base, rx)
}

/// `--target deployment` sends nothing under `/__mock`, and `--header` goes with every request.
#[test]
fn a_deployment_target_gets_the_header_and_no_control_request() {
    let (base, heads) = head_catcher();
    let dir = std::env::temp_dir().join(format!("gatecheck-cli-snap-dep-{}", std::process::id()));
    let out = gatecheck(&[
        "snapshot",
        "record",
        "--base-url",
        &base,
        "--dir",
        dir.to_str().unwrap(),
        "--target",
        "deployment",
        "--api-key",
        "sk-snapshotheadertestkey",
        "-H",
        "X-Team-Route: blue",
        "--timeout",
        "2",
    ]);
    // Every answer is a 404, which a snapshot records as it is.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let heads: Vec<String> = heads.try_iter().collect();
    assert!(!heads.is_empty());
    for head in &heads {
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains("\r\nx-team-route: blue\r\n"), "{head}");
        assert!(!lower.contains(" /__mock"), "{head}");
    }
}

#[test]
fn verify_without_a_recording_is_an_error() {
    let dir = std::env::temp_dir().join(format!("gatecheck-cli-empty-{}", std::process::id()));
    let out = gatecheck(&["snapshot", "verify", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("record first"));
}
