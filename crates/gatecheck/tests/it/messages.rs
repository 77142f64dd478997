//! The messages a person reads: a verdict shown the same everywhere, the cause of
//! a stopped run first with a hint, skips grouped by cause, flags refused before anything
//! starts, colour only on a terminal, repro lines that run as printed. Error messages and
//! summaries are insta snapshots after their run-dependent parts (ports, times) are redacted.

use super::support::{gatecheck, gatecheck_command, scratch, text};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs a command that must end by itself (a `serve` that should refuse to start): killed
/// after 20 s, which fails the test instead of hanging it.
fn gatecheck_ending(args: &[&str]) -> Output {
    let mut child = gatecheck_command(&[])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().ok().flatten().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!("{args:?} did not stop: {}", text(&out.stderr));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// The run's wall time (`·  2.4s  ·`) as `<time>`: the one part of a summary that moves.
fn redact_time(s: &str) -> String {
    s.lines()
        .map(|line| {
            line.split("  ·  ")
                .map(|part| {
                    let t = part.trim_end_matches('s');
                    if part.ends_with('s') && t.parse::<f64>().is_ok() {
                        "<time>".to_owned()
                    } else {
                        part.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("  ·  ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A closed port: bound, then released.
fn closed_port_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}

#[test]
fn every_report_says_the_verdict_each_check_got() {
    let dir = scratch("verdicts");
    let (json, junit) = (dir.join("r.json"), dir.join("j.xml"));
    let out = gatecheck(&[
        "check",
        "--profile",
        "new-api",
        "--expect",
        "documented",
        "--seed",
        "1",
        "--cases",
        "4",
        "--quiet",
        "--only",
        "audio.translation.bad-request-rejected,key.state.matches-model,token.update.*",
        "--report",
        &format!("json={}", json.display()),
        "--junit",
        &junit.display().to_string(),
    ]);
    let stdout = text(&out.stdout);
    // The table's verdicts, by check.
    let table: BTreeMap<String, String> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("STATUS"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((
                w.nth(1)?.to_owned(),
                l.split_whitespace().next()?.to_owned(),
            ))
        })
        .collect();
    assert!(
        table.values().any(|v| v == "deviation"),
        "a check that may fail gave a deviation:\n{stdout}"
    );
    // Each evidence block is headed by the verdict of its row.
    let mut blocks = 0;
    for line in stdout.lines().filter(|l| l.starts_with("── ")) {
        let (id, rest) = line["── ".len()..].split_once(" (").expect("heading");
        let verdict = rest.split(';').next().expect("verdict");
        if verdict.starts_with("skipped") {
            continue;
        }
        assert_eq!(Some(&verdict.to_owned()), table.get(id), "{line}\n{stdout}");
        blocks += 1;
    }
    assert!(blocks >= 3, "{stdout}");
    // The JSON report's kind agrees with its status.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    for c in report["checks"].as_array().expect("checks") {
        match c["status"].as_str() {
            Some("deviation") => assert_eq!(c["kind"], "deviation", "{c}"),
            Some("failed") => assert_eq!(c["kind"], "failure", "{c}"),
            _ => {}
        }
        if let Some(status) = table.get(c["id"].as_str().unwrap_or_default()) {
            assert_eq!(c["status"].as_str(), Some(status.as_str()), "{c}");
        }
    }
    // JUnit: a deviation passes (without --strict) and says so; a failure is typed `failure`.
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(
        xml.contains("name=\"repro.$GATECHECK_SCRATCH_KEY\""),
        "the repro variables are properties"
    );
    for (id, verdict) in &table {
        let at = xml
            .find(&format!("name=\"{id}\""))
            .unwrap_or_else(|| panic!("{id} in JUnit"));
        let case = &xml[at..];
        let case = &case[..case.find("</testcase>").unwrap_or(case.len())];
        match verdict.as_str() {
            "deviation" => {
                assert!(case.contains("deviation: "), "{case}");
                assert!(!case.contains("<failure"), "{case}");
            }
            "failed" => assert!(case.contains("type=\"failure\""), "{case}"),
            _ => {}
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_unreachable_target_says_why_first_with_a_hint_and_one_line_for_the_rest() {
    let url = closed_port_url();
    let out = gatecheck(&["check", "--base-url", &url, "--quiet", "--seed", "7"]);
    assert_eq!(out.status.code(), Some(3));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("SETUP FAILED"), "{stdout}");
    assert!(stdout.lines().count() < 12, "{stdout}");
    let shown = redact_time(&stdout.replace(&url, "http://127.0.0.1:PORT"));
    insta::assert_snapshot!("unreachable_check", shown);

    let out = gatecheck(&["diff", "--left-mock", "--right", &url, "--seed", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().count() < 10, "{stdout}");
    insta::assert_snapshot!(
        "unreachable_diff",
        stdout.replace(&url, "http://127.0.0.1:PORT")
    );
}

#[test]
fn a_base_url_ending_in_v1_is_named_first() {
    let served = super::serve::start(&["--clock", "virtual"]);
    let out = gatecheck(&[
        "check",
        "--base-url",
        &format!("{}/v1", served.base),
        "--quiet",
        "--only",
        "route.*",
    ]);
    let stdout = text(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    insta::assert_snapshot!(
        "base_url_v1",
        first.replace(&served.base, "http://127.0.0.1:PORT")
    );
}

/// A static file server: 404 to every GET, 501 to anything else (as `python3 -m http.server`).
fn static_file_server() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", l.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut head = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                let status = if head.starts_with("GET ") {
                    "404 File not found"
                } else {
                    "501 Unsupported method"
                };
                let page = "<!DOCTYPE HTML><html><body>Error</body></html>";
                let _ = (&stream).write_all(
                    format!(
                        "HTTP/1.0 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{page}",
                        page.len()
                    )
                    .as_bytes(),
                );
            });
        }
    });
    url
}

#[test]
fn a_static_file_server_gets_its_failures_first_and_its_skips_grouped_by_cause() {
    let url = static_file_server();
    let out = gatecheck(&["check", "--base-url", &url, "--api-key", "sk-x", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    // The table holds the verdicts only; the skips come after, one heading per cause.
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("STATUS"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(table.iter().all(|l| l.starts_with("failed")), "{stdout}");
    assert!(table.len() >= 5, "{stdout}");
    let group = stdout
        .find("skipped, route not served (")
        .expect("a group of route-not-served skips");
    assert!(group > stdout.find("STATUS").unwrap_or(0), "{stdout}");
    // Each reason once: far fewer lines than skipped checks.
    let skipped = stdout.matches("[route not served]").count();
    assert_eq!(skipped, 0, "no per-check skip rows:\n{stdout}");
    let mentions = stdout
        .lines()
        .filter(|l| l.contains("route not served"))
        .count();
    assert_eq!(
        mentions, 2,
        "the group's heading and the count by cause:\n{stdout}"
    );
}

#[test]
fn bad_inputs_are_refused_before_anything_starts_naming_the_flag() {
    let mut shown = String::new();
    for args in [
        &["check", "--deadline", "banana"][..],
        &["check", "--timeout", "5d"],
        &["diff", "--left-mock", "--right-mock", "--timeout", "soon"],
        &[
            "serve",
            "--port",
            "0",
            "--state-file",
            "/no/such/dir/state.json",
        ],
        &["serve", "--port", "0", "--fixtures", "/no/such/dir"],
    ] {
        let out = gatecheck_ending(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            !stderr.contains("embedded mock"),
            "nothing started: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        shown.push_str(&format!("$ gatecheck {}\n{stderr}\n", args.join(" ")));
    }
    insta::assert_snapshot!("refused_inputs", shown);
    // DURATION everywhere: the diff's timeout takes a unit like check's.
    let out = gatecheck(&["diff", "--help"]);
    assert!(text(&out.stdout).contains("--timeout <DURATION>"));
}

/// Starts `gatecheck serve` with `env`, stderr to a file; returns the child and the banner.
fn serve_logging(env: &[(&str, &str)], log: &Path) -> (std::process::Child, String) {
    let mut cmd = gatecheck_command(&[]);
    cmd.args(["serve", "--port", "0"])
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).expect("log file"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn serve");
    let reader = BufReader::new(child.stdout.take().expect("stdout"));
    // Lines through a channel, so a banner without the line looked for cannot block the test.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut banner = String::new();
    while !banner.contains("Control API") || !banner.contains("Dashboard") {
        match rx.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(line) => banner.push_str(&(line + "\n")),
            Err(_) => break,
        }
    }
    (child, banner)
}

#[test]
fn serve_logs_without_colour_off_a_terminal_and_names_its_dashboard() {
    for env in [&[][..], &[("NO_COLOR", "1")]] {
        let dir = scratch("log");
        let log = dir.join("serve.log");
        let (mut child, banner) = serve_logging(env, &log);
        let base = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("base URL")
            .to_owned();
        assert!(
            banner.contains(&format!("Dashboard      {base}/__mock/ui")),
            "{banner}"
        );
        let (status, _) = super::serve::request(&base, "HEAD", "/__mock/ui", &[], "");
        assert_eq!(status, 200, "HEAD /__mock/ui");
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let _ = child.wait();
        let written = std::fs::read_to_string(&log).expect("log");
        assert!(written.contains("shutting down"), "{written}");
        assert!(
            !written.contains('\x1b'),
            "ANSI escapes in a log file: {written:?}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn the_journal_names_the_key_an_api_token_write_touches() {
    let served = super::serve::start(&["--clock", "virtual"]);
    let token = served
        .banner
        .lines()
        .find(|l| l.trim_start().starts_with("Access token"))
        .and_then(|l| l.split_whitespace().nth(2))
        .expect("access token")
        .to_owned();
    let (status, _) = super::serve::request(
        &served.base,
        "PUT",
        "/api/token/?status_only=1",
        &[
            ("Authorization", &token),
            ("New-Api-User", "1"),
            ("Content-Type", "application/json"),
        ],
        r#"{"id":7,"status":1}"#,
    );
    assert_eq!(status, 200);
    let (_, journal) = super::serve::request(&served.base, "GET", "/__mock/requests", &[], "");
    let journal: serde_json::Value = serde_json::from_str(&journal).expect("journal JSON");
    let put = journal["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| r["method"] == "PUT")
        .expect("the PUT is journaled");
    assert_eq!(put["key_id"], 7, "{put}");
}

/// Runs a shell command line as printed, with `vars` exported; returns (exit code, stdout).
fn run_printed(line: &str, vars: &[(&str, String)], cwd: &Path) -> (Option<i32>, String) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(line).current_dir(cwd);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("sh");
    (out.status.code(), text(&out.stdout))
}

#[test]
fn printed_repros_run_once_their_variables_are_exported() {
    if Command::new("curl").arg("--version").output().is_err() {
        eprintln!("skipped: no curl on this machine");
        return;
    }
    let served = super::serve::start(&["--profile", "new-api", "--clock", "virtual"]);
    let dir = scratch("repros");
    let json = dir.join("report.json");
    let out = gatecheck(&[
        "check",
        "--base-url",
        &served.base,
        "--expect",
        "documented",
        "--seed",
        "3",
        "--cases",
        "4",
        "--quiet",
        "--only",
        "audio.translation.bad-request-rejected,v1.validation-status-400,token.update.status-applied",
        "--report",
        &format!("json={}", json.display()),
    ]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("JSON report written to"), "{stderr}");
    assert!(!stdout.contains("left in the mock as"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    // Every variable a repro names is explained, in the report and in the summary.
    let explained: Vec<String> = report["repro_variables"]
        .as_array()
        .expect("repro_variables")
        .iter()
        .map(|v| v["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    let mut repros: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("reproduce: "))
        .collect();
    // Key writes last: they may change the key the other repros use.
    repros.sort_by_key(|r| r.contains("/api/token/"));
    assert!(repros.len() >= 3, "{stdout}");
    for r in &repros {
        for part in r.split('$').skip(1) {
            let name: String = part
                .trim_start_matches('{')
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            assert!(
                explained.contains(&name),
                "${name} is not explained:\n{stdout}"
            );
            assert!(stdout.contains(&format!("  ${name}: ")), "{stdout}");
        }
    }
    assert!(
        explained.contains(&"GATECHECK_UPLOADS".to_owned()),
        "{explained:?}"
    );
    // The values, from where the report says: the banner, the mock's key list, the run.
    let token = served
        .banner
        .lines()
        .find(|l| l.trim_start().starts_with("Access token"))
        .and_then(|l| l.split_whitespace().nth(2))
        .expect("access token")
        .to_owned();
    let (_, keys) = super::serve::request(&served.base, "GET", "/__mock/keys", &[], "");
    let keys: serde_json::Value = serde_json::from_str(&keys).expect("keys");
    let scratch = keys
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["name"] == "gatecheck-work")
        .and_then(|k| k["key"].as_str())
        .expect("the run's key");
    let vars = [
        ("GATECHECK_ACCESS_TOKEN", token),
        ("GATECHECK_SCRATCH_KEY", format!("sk-{scratch}")),
        (
            "GATECHECK_UPLOADS",
            dir.join("gatecheck-uploads").display().to_string(),
        ),
    ];
    // From another directory: the repro needs nothing but its variables.
    let elsewhere = super::support::scratch("elsewhere");
    let mut uploads = 0;
    for r in &repros {
        let line = format!("{r} -o /dev/null -w '%{{http_code}}'");
        let (code, status) = run_printed(&line, &vars, &elsewhere);
        assert_eq!(code, Some(0), "{r}: curl failed");
        let status: u16 = status.trim().parse().unwrap_or(0);
        assert!(status >= 200, "{r}: no answer");
        assert_ne!(status, 401, "{r}: the credentials did not work");
        uploads += usize::from(r.contains("=@$GATECHECK_UPLOADS/"));
    }
    assert!(uploads >= 1, "an upload repro ran:\n{stdout}");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(elsewhere);
}

#[test]
fn the_embedded_mock_leaves_no_key_behind_to_mention() {
    let out = gatecheck(&[
        "check",
        "--quiet",
        "--seed",
        "2",
        "--cases",
        "2",
        "--only",
        "token.update.*",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("left in the mock"), "{stdout}");
}

#[test]
fn without_any_model_the_skips_say_once_why_discovery_found_none() {
    // A gateway like Portkey: no catalog (404), a model list that fails (500).
    let served = super::serve::start(&[
        "--clock",
        "virtual",
        "--fault",
        r#"{"route":"/api/models","kind":"status","status":404}"#,
        "--fault",
        r#"{"route":"/v1/models","kind":"status","status":500}"#,
    ]);
    let key = served
        .banner
        .lines()
        .find(|l| l.trim_start().starts_with("Demo key"))
        .and_then(|l| l.split_whitespace().nth(2))
        .expect("demo key")
        .to_owned();
    let out = gatecheck(&[
        "check",
        "--base-url",
        &served.base,
        "--target",
        "deployment",
        "--api-key",
        &key,
        "--quiet",
        "--only",
        "audio.*,images.*",
    ]);
    let stdout = text(&out.stdout);
    let group: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("skipped, no model ("))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    let reasons: Vec<&&str> = group.iter().filter(|l| !l.starts_with("    ")).collect();
    assert_eq!(
        reasons.len(),
        1,
        "one reason for every no-model skip:\n{stdout}"
    );
    insta::assert_snapshot!("no_model_cause", reasons[0].trim());
}
