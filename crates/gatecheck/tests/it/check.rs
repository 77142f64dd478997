//! Tests of `gatecheck check`: the check list, exit codes, dry runs, reports, and the
//! generated `docs/checks.md`.

use super::support::{gatecheck_command, repo_root};
use std::process::{Command, Output};

/// `gatecheck check ARGS` in a clean environment.
fn gatecheck(args: &[&str]) -> Output {
    gatecheck_command(&["check"])
        .args(args)
        .output()
        .expect("run gatecheck check")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn list_prints_the_check_list() {
    let out = gatecheck(&["--list"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("check_list", stdout(&out));
}

#[test]
fn docs_checks_md_matches_the_check_list() {
    let out = gatecheck(&["--list", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0));
    let table = stdout(&out);
    // The file is its prose, then the table the CLI prints: the one generator of the table
    // (`scripts/generate-all` runs this test with GATECHECK_BLESS=1 to rewrite it).
    let path = repo_root().join("docs/checks.md");
    let doc = std::fs::read_to_string(&path).expect("docs/checks.md");
    let prose = doc.split("| Check id |").next().unwrap_or_default();
    let want = format!("{prose}{table}");
    if std::env::var_os("GATECHECK_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write docs/checks.md");
    }
    assert!(
        std::fs::read_to_string(&path).expect("docs/checks.md") == want,
        "docs/checks.md drifted from the check list: regenerate it with scripts/generate-all"
    );
    // The README links docs/checks.md instead of holding a second copy of the table.
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    assert!(
        readme.contains("(docs/checks.md)"),
        "README.md no longer links docs/checks.md"
    );
    assert!(
        !readme.contains("| Check id |"),
        "README.md holds a copy of the check table: link docs/checks.md instead"
    );
}

#[test]
fn the_embedded_mock_passes_and_writes_reports() {
    let dir = std::env::temp_dir().join(format!("gatecheck-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let json = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let html = dir.join("report.html");
    let out = gatecheck(&[
        "--cases",
        "3",
        "--seed",
        "11",
        "--quiet",
        "--report",
        &format!("json={}", json.display()),
        "--junit",
        &junit.display().to_string(),
        "--report",
        &format!("html={}", html.display()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("0 failed"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    assert_eq!(report["seed"], 11);
    assert_eq!(report["summary"]["failed"], 0);
    assert!(std::fs::read_to_string(&junit)
        .expect("junit")
        .contains("<testsuites"));
    // The HTML page: the verdict first, media inline, well under the 2 MB the page may take.
    let page = std::fs::read_to_string(&html).expect("html");
    assert!(page.contains("<h1>gatecheck check: passed</h1>"), "{page}");
    assert!(page.contains("src=\"data:image/png;base64,"));
    assert!(page.contains("<audio controls=\"\" src=\"data:audio/mpeg;base64,"));
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contract_failures_exit_1() {
    // The new-api mock judged by the documented expectations: the spec-pinned differences fail.
    let out = gatecheck(&[
        "--profile",
        "new-api",
        "--expect",
        "documented",
        "--cases",
        "3",
        "--seed",
        "5",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    for id in [
        "token.update.name-50-chars",
        "token.update.status-applied",
        "v1.validation-status-400",
        "video.poll.unknown-id-404",
    ] {
        assert!(text.contains(id), "{id} missing from:\n{text}");
    }
    assert!(text.contains("reproduce: curl "));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        gatecheck(&["--shard", "3/2", "--base-url", "http://127.0.0.1:9"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        gatecheck(&["--base-url", "ftp://example.invalid"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        gatecheck(&["--deadline", "soon", "--base-url", "http://127.0.0.1:9"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        gatecheck(&["--list", "--format", "yaml"]).status.code(),
        Some(2)
    );
    assert_eq!(
        gatecheck(&["--report", "xml=out", "--base-url", "http://127.0.0.1:9"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn an_unreachable_target_exits_3() {
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    let dir = std::env::temp_dir().join(format!("gatecheck-unreachable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (json, junit) = (dir.join("report.json"), dir.join("junit.xml"));
    let out = gatecheck(&[
        "--base-url",
        "http://127.0.0.1:9",
        "--quiet",
        "--timeout",
        "2s",
        "--report",
        &format!("json={}", json.display()),
        "--junit",
        junit.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The report and the JUnit file are written and name the failure.
    let report = std::fs::read_to_string(&json).expect("report written");
    assert!(report.contains("\"setup_failure\""), "{report}");
    assert!(report.contains("\"unreachable\""), "{report}");
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.contains("name=\"target.setup\""), "{xml}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_target_kind_is_a_usage_error() {
    let out = gatecheck(&["--target", "prod", "--base-url", "http://127.0.0.1:9"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn dry_run_lists_planned_requests_with_secrets_redacted() {
    let out = gatecheck(&[
        "--dry-run",
        "--quiet",
        "--only",
        "token.*,auth.*",
        "--access-token",
        "tok-SECRET-123456",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("dry run:"));
    assert!(text.contains("curl -sS -X PUT"));
    assert!(!text.contains("tok-SECRET-123456"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_restores_the_key_and_exits_130() {
    use gatecheck_mock::{Fault, MockServer};
    let server = MockServer::start().await;
    let before = server.key(1).expect("key 1");
    // The first admission probe hangs, after the check has changed the key's allowlist. The
    // first two POST /v1/videos are discovery's route probes (without, then with the key, after
    // the 401): they pass (a zero delay uses them up).
    server.inject(
        Fault::delay(std::time::Duration::ZERO)
            .on("POST /v1/videos")
            .times(2),
    );
    server.inject(Fault::hang().on("POST /v1/videos"));
    let account = server.demo_account();
    let child = gatecheck_command(&[])
        .args([
            "check",
            "--base-url",
            &server.uri(),
            "--no-mock-control",
            "--key-id",
            "1",
        ])
        .args([
            "--access-token",
            &account.access_token,
            "--user-id",
            "1",
            "--api-key",
            &server.demo_key(),
        ])
        .args(["--only", "key.ip-allowlist", "--quiet", "--timeout", "60s"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id().to_string();
    // Wait until the key was changed, then interrupt.
    let start = std::time::Instant::now();
    while server.key(1).expect("key").allow_ips == before.allow_ips {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the check never changed the key"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let status = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(out.status.code(), Some(130), "{}", stdout(&out));
    let after = server.key(1).expect("key 1");
    assert_eq!(after.allow_ips, before.allow_ips);
    assert_eq!(after.status, before.status);
    assert!(stdout(&out).contains("restored"), "{}", stdout(&out));
    server.shutdown().await;
}

#[test]
fn a_bad_base_url_is_refused_alike_by_check_and_diff() {
    let run = |args: &[&str]| {
        gatecheck_command(&[])
            .args(args)
            .env_remove("GATECHECK_BASE_URL")
            .env("NO_COLOR", "1")
            .output()
            .expect("run gatecheck")
    };
    for (args, flag, why) in [
        (
            &["check", "--base-url", "ftp://x"][..],
            "'--base-url <URL>'",
            "the scheme must be http or https, not ftp",
        ),
        (
            &["diff", "--left", "ftp://x", "--right-mock"][..],
            "'--left <URL>'",
            "the scheme must be http or https, not ftp",
        ),
        (
            &["check", "--base-url", "gw.example"][..],
            "'--base-url <URL>'",
            "not an absolute URL: relative URL without a base",
        ),
        (
            &["diff", "--left-mock", "--right", "gw.example"][..],
            "'--right <URL>'",
            "not an absolute URL: relative URL without a base",
        ),
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(why), "{args:?}: {err}");
    }
}
