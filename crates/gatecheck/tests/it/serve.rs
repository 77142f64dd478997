//! Tests of `gatecheck serve`: credentials printed, state file across SIGTERM, `--no-control`,
//! `--threads`.

use super::support::gatecheck_command;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `gatecheck serve`, killed on drop.
pub(crate) struct Served {
    pub(crate) child: Child,
    /// `http://127.0.0.1:<port>`.
    pub(crate) base: String,
    /// Everything printed on stdout up to the end of the banner.
    pub(crate) banner: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `gatecheck serve --port 0 <extra>` and waits for its banner.
pub(crate) fn start(extra: &[&str]) -> Served {
    let mut child = gatecheck_command(&[])
        .args(["serve", "--port", "0"])
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn gatecheck serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut banner = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).expect("read banner");
        assert!(
            n > 0,
            "gatecheck serve exited early; banner so far:\n{banner}"
        );
        banner.push_str(&line);
        if line.contains("Control API") {
            break;
        }
        assert!(Instant::now() < deadline, "no banner in time");
    }
    // Keep draining stdout so the child never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = reader.read_to_end(&mut sink);
    });
    let base = banner
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("base URL in banner")
        .to_owned();
    Served {
        child,
        base,
        banner,
    }
}

/// A minimal blocking HTTP/1.1 request; returns (status, body).
pub(crate) fn request(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).expect("write");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn temp_path(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("gatecheck-{name}-{}-{nanos}", std::process::id()))
}

fn terminate(served: &mut Served) {
    let pid = served.child.id().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(code) = served.child.try_wait().expect("wait") {
            assert!(code.success(), "serve exited with {code}");
            return;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn serve_prints_the_demo_credentials() {
    let served = start(&[]);
    let fixtures = gatecheck_mock::Fixtures::embedded();
    let account = fixtures.demo_account().expect("demo account");
    assert!(
        served.banner.contains(&account.access_token),
        "{}",
        served.banner
    );
    for key in fixtures.keys.iter().filter(|k| k.user_id == account.id) {
        assert!(
            served.banner.contains(&format!("sk-{}", key.key)),
            "key {} missing",
            key.id
        );
    }
    for state in [
        "enabled",
        "disabled",
        "expired",
        "exhausted",
        "IP-restricted",
        "models:",
    ] {
        assert!(served.banner.contains(state), "{state} missing");
    }
    let (status, _) = request(&served.base, "GET", "/__mock/health", &[], "");
    assert_eq!(status, 200);
}

#[test]
fn serve_state_file_keeps_keys_across_sigterm() {
    let state = temp_path("state.json");
    let state_arg = state.to_string_lossy().into_owned();
    let mut first = start(&["--state-file", &state_arg]);
    let (status, body) = request(
        &first.base,
        "POST",
        "/__mock/keys",
        &[("Content-Type", "application/json")],
        r#"{"name":"survivor","remain_quota":1234}"#,
    );
    assert_eq!(status, 201, "{body}");
    let created: serde_json::Value = serde_json::from_str(&body).expect("key JSON");
    terminate(&mut first);
    assert!(state.exists(), "state file not written");

    let second = start(&["--state-file", &state_arg]);
    let (_, keys) = request(&second.base, "GET", "/__mock/keys", &[], "");
    let keys: serde_json::Value = serde_json::from_str(&keys).expect("keys JSON");
    let survivor = keys
        .as_array()
        .expect("array")
        .iter()
        .find(|k| k["name"] == "survivor")
        .expect("the key survived the restart");
    assert_eq!(survivor["key"], created["key"]);
    assert_eq!(survivor["remain_quota"], 1234);
    let _ = std::fs::remove_file(&state);
}

#[test]
fn serve_no_control_turns_the_control_api_off() {
    let served = start(&["--no-control"]);
    let (status, _) = request(&served.base, "GET", "/__mock/health", &[], "");
    assert_eq!(status, 404);
    let (status, _) = request(&served.base, "GET", "/api/models", &[], "");
    assert_eq!(status, 200);
}

#[test]
fn serve_profile_new_api_changes_behaviour() {
    let served = start(&["--profile", "new-api"]);
    let (status, body) = request(
        &served.base,
        "PUT",
        "/api/token/",
        &[("Authorization", "wrong-token"), ("New-Api-User", "1")],
        r#"{"id":1}"#,
    );
    // The plugin era's new-api (past 31d70fca): 401 `AUTH_UNAUTHORIZED` (DECISIONS D-AUTH-9),
    // where the documented profile's 401 carries no code.
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("\"success\":false"));
    assert!(body.contains("\"code\":\"AUTH_UNAUTHORIZED\""), "{body}");
}

#[test]
fn serve_virtual_clock_moves_only_through_the_control_api() {
    let served = start(&["--clock", "virtual:2000000000", "--seed", "7"]);
    let (_, body) = request(&served.base, "GET", "/__mock/clock", &[], "");
    let clock: serde_json::Value = serde_json::from_str(&body).expect("clock JSON");
    assert_eq!(clock["mode"], "virtual");
    assert_eq!(clock["now"], 2_000_000_000i64);
    let (status, body) = request(
        &served.base,
        "POST",
        "/__mock/clock/advance",
        &[("Content-Type", "application/json")],
        r#"{"seconds":60}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("2000000060"), "{body}");
}

#[test]
fn serve_rejects_an_unknown_clock() {
    let out = gatecheck_command(&[])
        .args(["serve", "--port", "0", "--clock", "sundial"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown clock"));
}

#[test]
fn serve_installs_faults_from_the_command_line() {
    let served = start(&[
        "--fault",
        r#"{"route":"GET /api/models","kind":"status","status":503,"times":1}"#,
    ]);
    let (status, _) = request(&served.base, "GET", "/api/models", &[], "");
    assert_eq!(status, 503);
    let (status, _) = request(&served.base, "GET", "/api/models", &[], "");
    assert_eq!(status, 200);
    let bad = gatecheck_command(&[])
        .args(["serve", "--port", "0", "--fault", "{not json"])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn serve_reports_a_port_in_use() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = gatecheck_command(&[])
        .args(["serve", "--port", &port])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "gatecheck serve: cannot listen on 127.0.0.1:{port}: "
        )),
        "{stderr}"
    );
}

#[test]
fn serve_runs_on_the_threads_it_is_given() {
    // 1 (the default, every other test here) serves on the main thread; 0 and 3 start a
    // multi-threaded runtime. Concurrent clients are answered either way.
    for threads in ["0", "3"] {
        let served = start(&["--threads", threads]);
        let clients: Vec<_> = (0..8)
            .map(|_| {
                let base = served.base.clone();
                std::thread::spawn(move || request(&base, "GET", "/api/models", &[], "").0)
            })
            .collect();
        for client in clients {
            assert_eq!(
                client.join().expect("client thread"),
                200,
                "--threads {threads}"
            );
        }
    }
    let out = gatecheck_command(&[])
        .args(["serve", "--port", "0", "--threads", "5000"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--threads"), "{stderr}");
}
