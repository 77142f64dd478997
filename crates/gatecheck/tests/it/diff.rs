//! Tests of `gatecheck diff`: the embedded mock against a served `new-api` mock shows exactly
//! the profile differences; a mock against itself shows nothing; reports and repro lines.

use super::support::gatecheck;

fn temp_file(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("gatecheck-cli-diff-{}-{name}", std::process::id()))
}

#[test]
fn left_mock_against_a_new_api_mock_reports_the_profile_differences() {
    let served = super::serve::start(&["--profile", "new-api-adaptors", "--clock", "virtual"]);
    let (json, junit) = (temp_file("report.json"), temp_file("report.xml"));
    let out = gatecheck(&[
        "diff",
        "--left-mock",
        "--right",
        &served.base,
        "--seed",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains('\x1b'), "no colors when not on a terminal");
    assert!(
        stdout.contains("known differences shown (docs/DECISIONS.md rows): 15"),
        "{stdout}"
    );
    assert!(!stdout.contains("other differences"), "{stdout}");
    assert!(
        stdout.contains("── check token.update.name-50-chars"),
        "{stdout}"
    );
    assert!(
        stdout.contains("/status: 404 → 400  (known difference P3)"),
        "{stdout}"
    );
    assert!(stdout.contains("(known difference NA13)"), "{stdout}");
    // The repro line runs alone: it names both targets again.
    assert!(
        stdout.contains(&format!(
            "repro: gatecheck diff --left-mock --left-profile documented --left-mock-seed 1 --right '{}' --seed 3 --only ",
            served.base
        )),
        "{stdout}"
    );
    // No secret reaches the output.
    assert!(
        !stdout.contains("8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf"),
        "{stdout}"
    );

    let json_text = std::fs::read_to_string(&json).unwrap();
    assert!(
        !json_text.contains("8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf"),
        "{json_text}"
    );
    let report: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    // The notes say what each side was taken for.
    let notes = report["notes"].to_string();
    assert!(notes.contains("left is the embedded mock"), "{notes}");
    assert!(notes.contains("gatecheck mock signature seen"), "{notes}");
    let differing: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["differences"].as_array().unwrap().is_empty())
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(differing.len(), 21, "{differing:?}");
    // In the JSON every difference names its row.
    for step in report["steps"].as_array().unwrap() {
        for d in step["differences"].as_array().unwrap() {
            assert!(d["known"].is_string(), "{d}");
        }
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(!xml.contains("8HlrwYMfvea9lkxwkkMxzwwM5hpA6eEf"), "{xml}");
    assert!(xml.contains("failures=\"21\""), "{xml}");
    assert!(xml.contains("known-difference (P3)"), "{xml}");
    assert!(
        xml.contains("classname=\"video.poll.unknown-id-404\""),
        "{xml}"
    );
    let _ = std::fs::remove_file(json);
    let _ = std::fs::remove_file(junit);

    // The repro line runs just that step (and what it needs).
    let out = gatecheck(&[
        "diff",
        "--left-mock",
        "--right",
        &served.base,
        "--seed",
        "3",
        "--only",
        "26",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("video.poll.unknown-id-404 (step 26"),
        "{stdout}"
    );
    assert!(stdout.contains("1 steps, 0 equal, 1 differ"), "{stdout}");
}

#[test]
fn a_mock_against_itself_is_empty() {
    let out = gatecheck(&[
        "diff",
        "--left-mock",
        "--right-mock",
        "--seed",
        "8",
        "--left-mock-seed",
        "11",
        "--right-mock-seed",
        "12",
        "--right-mock-epoch",
        "1900000000",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 differ"), "{stdout}");
}

#[test]
fn usage_errors_exit_2() {
    let out = gatecheck(&["diff", "--left-mock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("right target"));
    let out = gatecheck(&["diff", "--left-mock", "--right-mock", "--only", "999"]);
    assert_eq!(out.status.code(), Some(2));
    let out = gatecheck(&["diff", "--left", "ftp://x", "--right-mock"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unreachable_target_is_an_error_not_an_empty_diff() {
    // A port nobody listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = gatecheck(&[
        "diff",
        "--left",
        &url,
        "--right",
        &url,
        "--seed",
        "1",
        "--only",
        "0",
        "--timeout",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    // The cause first, with a hint, and one line for the steps not compared.
    assert!(
        stdout.contains("target (http://127.0.0.1:") && stdout.contains("could not be reached"),
        "{stdout}"
    );
    assert!(stdout.contains("is the URL right"), "{stdout}");
}

#[test]
fn rules_files_extend_the_normalization() {
    let served = super::serve::start(&["--profile", "new-api-adaptors", "--clock", "virtual"]);
    let rules = temp_file("rules.json");
    std::fs::write(
        &rules,
        r#"[{"path": "/error", "action": "drop"}, {"path": "/code", "action": "drop"},
            {"path": "/message", "action": "drop"}, {"path": "/data", "action": "drop"}]"#,
    )
    .unwrap();
    let args = [
        "diff",
        "--left-mock",
        "--right",
        &served.base,
        "--seed",
        "3",
        "--only",
        "26",
    ];
    let mut with_rules = args.to_vec();
    with_rules.extend(["--rules", rules.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&gatecheck(&with_rules).stdout).into_owned();
    assert!(stdout.contains("/status: 404 → 400"), "{stdout}");
    assert!(!stdout.contains("/body/code"), "{stdout}");
    std::fs::write(&rules, r#"[{"path": "nope", "action": "drop"}]"#).unwrap();
    let out = gatecheck(&with_rules);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    let _ = std::fs::remove_file(rules);
}

#[test]
fn a_missing_rules_file_names_its_cause_once() {
    let missing = temp_file("no-such-rules.json");
    let out = gatecheck(&[
        "diff",
        "--left-mock",
        "--right-mock",
        "--rules",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot read rules file"), "{stderr}");
    // The cause is the error's source, printed once by the chain, not also in its message.
    assert_eq!(stderr.matches("os error 2").count(), 1, "{stderr}");
}

#[test]
fn confirm_refuses_a_side_not_proven_the_mock() {
    let served = super::serve::start(&["--profile", "new-api-adaptors", "--clock", "virtual"]);
    for flags in [
        &["--right-target", "deployment"][..],
        &["--target", "deployment"][..],
    ] {
        let mut args = vec![
            "diff",
            "--left-mock",
            "--right",
            &served.base,
            "--seed",
            "3",
            "--only",
            "26",
            "--confirm",
        ];
        args.extend(flags);
        let out = gatecheck(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--confirm resets both targets through the mock control API"),
            "{stderr}"
        );
        assert!(
            stderr.contains("the right target") && stderr.contains("nothing was sent"),
            "{stderr}"
        );
        // Nothing ran.
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn target_deployment_uses_no_control_api_on_a_served_mock() {
    let served = super::serve::start(&["--profile", "new-api-adaptors", "--clock", "virtual"]);
    let out = gatecheck(&[
        "diff",
        "--left-mock",
        "--right",
        &served.base,
        "--target",
        "deployment",
        "--seed",
        "3",
        "--only",
        "26",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("right is --target deployment: nothing is sent to /__mock/*"),
        "{stderr}"
    );
    // Without the control API, no credentials were discovered: the step skips on the right.
    assert!(stdout.contains("needs an API key"), "{stdout}");
    assert!(
        !stdout.contains("Some(") && !stdout.contains("None"),
        "{stdout}"
    );
    // The embedded left side is the mock whatever --target says.
    assert!(stderr.contains("left is the embedded mock"), "{stderr}");
}
