//! Green means checked: a run that lacks the credentials for most of the contract
//! never exits 0, the exit codes agree everywhere they are written, and an output path that
//! cannot be written stops the run before its first request.

use super::support::{gatecheck, repo_root, scratch, text};
use gatecheck_conformance::exit;

#[test]
fn a_deployment_run_without_credentials_refuses_to_start() {
    // Nothing listens on port 9: had a request been sent, the run would end unreachable (3).
    let out = gatecheck(&[
        "check",
        "--base-url",
        "http://127.0.0.1:9",
        "--target",
        "deployment",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(i32::from(exit::USAGE)));
    insta::assert_snapshot!("deployment_without_credentials", text(&out.stderr));
    // An empty secret (a CI variable that is not set) is no credential either.
    let out = gatecheck(&[
        "check",
        "--base-url",
        "http://127.0.0.1:9",
        "--target",
        "deployment",
        "--api-key",
        "",
    ]);
    assert_eq!(out.status.code(), Some(i32::from(exit::USAGE)));
    // Asked for on purpose, the partial run starts (and here finds nothing listening).
    let out = gatecheck(&[
        "check",
        "--base-url",
        "http://127.0.0.1:9",
        "--target",
        "deployment",
        "--allow-skip",
        "no-credentials",
        "--timeout",
        "2s",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(i32::from(exit::UNREACHABLE)));
    let out = gatecheck(&["check", "--allow-skip", "no-such-cause", "--list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown skip cause"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_skipped_for_want_of_credentials_make_the_run_incomplete() {
    let server = gatecheck_mock::MockServer::start().await;
    let uri = server.uri();
    let key = server.demo_key();
    let run = move |extra: &'static [&'static str]| {
        let (uri, key) = (uri.clone(), key.clone());
        tokio::task::spawn_blocking(move || {
            let mut args = vec![
                "check",
                "--base-url",
                &uri,
                "--target",
                "deployment",
                "--api-key",
                &key,
                "--only",
                "token.update.name-*,auth.missing-key-401",
                "--quiet",
            ];
            args.extend(extra);
            gatecheck(&args)
        })
    };
    // An API key but no access token: the key API's checks skip.
    let out = run(&[]).await.expect("join");
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(i32::from(exit::INCOMPLETE)),
        "{stdout}"
    );
    let note = stdout
        .lines()
        .skip_while(|l| !l.starts_with("incomplete ("))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("incomplete_note", note);
    let out = run(&["--allow-skip", "no-credentials"])
        .await
        .expect("join");
    assert_eq!(
        out.status.code(),
        Some(i32::from(exit::PASSED)),
        "{}",
        text(&out.stdout)
    );
    assert!(!text(&out.stdout).contains("incomplete ("));
    server.shutdown().await;
}

/// The rows `| code | `CONSTANT` | ...` of a markdown table, as `(code, constant)`.
fn table_codes(doc: &str) -> Vec<(u8, String)> {
    doc.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code = cells.get(1)?.parse::<u8>().ok()?;
            let constant = cells.get(2)?.split('`').nth(1)?.to_owned();
            Some((code, constant))
        })
        .collect()
}

#[test]
fn the_exit_codes_agree_in_help_docs_and_code() {
    let want: Vec<(u8, String)> = exit::CHECK_CODES
        .iter()
        .map(|(code, name, _)| (*code, (*name).to_owned()))
        .collect();
    for doc in ["docs/check.md", "docs/verdicts.md"] {
        let text = std::fs::read_to_string(repo_root().join(doc)).expect(doc);
        assert_eq!(table_codes(&text), want, "{doc}'s exit-code table");
    }
    let help = text(&gatecheck(&["check", "--help"]).stdout);
    let top = text(&gatecheck(&["--help"]).stdout);
    for (code, _, meaning) in exit::CHECK_CODES {
        assert!(
            help.contains(&format!("{code} {meaning}")),
            "check --help lacks {code}: {help}"
        );
        assert!(
            top.contains(&format!("{code} ")),
            "--help lacks {code}: {top}"
        );
    }
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    assert!(
        readme.contains("| 4 | `INCOMPLETE` |"),
        "README's exit codes"
    );
}

#[test]
fn an_output_path_that_cannot_be_written_stops_the_run_before_any_request() {
    let dir = scratch("outputs");
    let missing = dir.join("no/such/dir");
    let html = format!("html={}", missing.join("r.html").display());
    let junit = missing.join("r.xml").display().to_string();
    let snaps = dir.join("a-file");
    std::fs::write(&snaps, "not a directory").expect("write");
    let snaps_dir = snaps.join("snaps").display().to_string();
    // Port 9: a request would end the run unreachable (3) or after a failed discovery.
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "check",
            "--base-url",
            "http://127.0.0.1:9",
            "--report",
            &html,
        ],
        vec![
            "check",
            "--base-url",
            "http://127.0.0.1:9",
            "--junit",
            &junit,
        ],
        vec!["diff", "--right", "http://127.0.0.1:9", "--report", &html],
        vec!["diff", "--right", "http://127.0.0.1:9", "--json", &junit],
        vec![
            "snapshot",
            "record",
            "--base-url",
            "http://127.0.0.1:9",
            "--dir",
            &snaps_dir,
        ],
    ];
    let scrub = |s: String| s.replace(&dir.display().to_string(), "[DIR]");
    let mut seen = String::new();
    for args in cases {
        let out = gatecheck(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let err = scrub(text(&out.stderr));
        seen.push_str(&format!("{}: {err}", args[..2].join(" ")));
    }
    assert!(!missing.exists(), "nothing was created");
    insta::assert_snapshot!("unwritable_outputs", seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_report_that_cannot_be_written_at_the_end_still_leaves_the_summary() {
    // /dev/full opens for writing (the check before the run passes) and refuses every write.
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let dir = scratch("late-write");
    let json = dir.join("r.json");
    let out = gatecheck(&[
        "check",
        "--only",
        "catalog.*",
        "--cases",
        "1",
        "--quiet",
        "--report",
        "json=/dev/full",
        "--report",
        &format!("json={}", json.display()),
    ]);
    assert_eq!(out.status.code(), Some(i32::from(exit::USAGE)));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stdout.contains(" checks: "),
        "the summary is printed: {stdout}"
    );
    assert!(
        stderr.contains("not written: writing /dev/full"),
        "the file is named: {stderr}"
    );
    assert!(json.exists(), "the other report is written");
    let _ = std::fs::remove_dir_all(&dir);
}
