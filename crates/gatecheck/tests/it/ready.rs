//! `gatecheck serve --ready-json` / `--ready-file`: one JSON object, once listening, that a
//! harness in any language reads instead of scraping the banner.

use super::support::gatecheck_command;
use crate::serve::request;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child killed on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(extra: &[&str]) -> Killed {
    let child = gatecheck_command(&[])
        .args(["serve", "--port", "0"])
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck serve");
    Killed(child)
}

/// Checks the ready object against the running server: every key it lists answers as labelled.
fn assert_ready_object(ready: &Value) {
    assert_eq!(ready["event"], "ready", "{ready}");
    let base = ready["base_url"].as_str().expect("base_url");
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_ne!(base, "http://127.0.0.1:0");
    assert_eq!(ready["user_id"], 1);
    assert_eq!(ready["profile"], "documented");
    let token = ready["access_token"].as_str().expect("access_token");
    let demo_key = ready["demo_key"].as_str().expect("demo_key");
    assert!(demo_key.starts_with("sk-"));
    let keys = ready["keys"].as_array().expect("keys");
    assert!(keys.len() >= 2, "{ready}");
    let label = |l: &str| {
        keys.iter()
            .find(|k| k["label"] == l)
            .and_then(|k| k["key"].as_str())
            .unwrap_or_else(|| panic!("no key labelled {l} in {ready}"))
    };
    assert_eq!(label("demo-enabled"), demo_key);

    // The demo key works, the disabled one is refused, the access token manages keys.
    let body = r#"{"model":"dall-e-3","prompt":"a lighthouse","size":"1024x1024"}"#;
    let json = ("Content-Type", "application/json");
    let ok = format!("Bearer {demo_key}");
    let (status, _) = request(
        base,
        "POST",
        "/v1/images/generations",
        &[("Authorization", &ok), json],
        body,
    );
    assert_eq!(status, 200);
    let disabled = format!("Bearer {}", label("demo-disabled"));
    let (status, _) = request(
        base,
        "POST",
        "/v1/images/generations",
        &[("Authorization", &disabled), json],
        body,
    );
    assert_eq!(status, 401);
    let user = ready["user_id"].to_string();
    let (status, listed) = request(
        base,
        "GET",
        "/api/token/?p=1&size=10",
        &[("Authorization", token), ("New-Api-User", &user)],
        "",
    );
    assert_eq!(status, 200, "{listed}");
    assert!(listed.contains("\"success\":true"), "{listed}");
}

#[test]
fn ready_json_prints_exactly_one_json_line_on_stdout() {
    let mut served = spawn(&["--ready-json"]);
    let stdout = served.0.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).expect("read the ready line");
    let ready: Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("the first stdout line is not JSON ({e}): {line:?}"));
    assert!(line.ends_with('\n') && line.trim_end().lines().count() == 1);
    assert_ready_object(&ready);

    // The human banner went to stderr; nothing else is on stdout.
    let _ = served.0.kill();
    let _ = served.0.wait();
    let mut rest = String::new();
    reader.read_to_string(&mut rest).expect("rest of stdout");
    assert_eq!(rest, "", "stdout holds only the ready line");
    let mut stderr = String::new();
    served
        .0
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    assert!(stderr.contains("Demo key"), "{stderr}");
}

#[test]
fn ready_file_appears_complete_once_listening() {
    let dir = std::env::temp_dir().join(format!("gatecheck-ready-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("ready.json");
    let _ = std::fs::remove_file(&path);
    let path_arg = path.to_str().expect("utf-8 temp path");
    let mut served = spawn(&["--ready-file", path_arg, "--seed", "3"]);
    // Drain both pipes so the child never blocks.
    for pipe in [
        served
            .0
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        served
            .0
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let mut pipe = pipe;
            let _ = pipe.read_to_end(&mut sink);
        });
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    let text = loop {
        if let Ok(text) = std::fs::read_to_string(&path) {
            break text;
        }
        assert!(
            served.0.try_wait().expect("try_wait").is_none(),
            "serve exited before writing the ready file"
        );
        assert!(Instant::now() < deadline, "no ready file in time");
        std::thread::sleep(Duration::from_millis(20));
    };
    let ready: Value = serde_json::from_str(&text).expect("ready file JSON");
    assert_ready_object(&ready);
    drop(served);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ready_file_in_a_missing_directory_is_a_clear_error() {
    let out = gatecheck_command(&[])
        .args([
            "serve",
            "--port",
            "0",
            "--ready-file",
            "/nonexistent-gatecheck-dir/ready.json",
        ])
        .env("RUST_LOG", "warn")
        .output()
        .expect("run gatecheck serve");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write the ready file"), "{stderr}");
}

/// Whether process `pid` still runs (a zombie, dead but not yet reaped by its new parent, does
/// not).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) if std::path::Path::new("/proc/self").exists() => false,
        Err(_) => Command::new("kill")
            .args(["-0", &pid.to_string()])
            .status()
            .is_ok_and(|s| s.success()),
    }
}

/// `--exit-with-parent`: a mock whose parent is killed with SIGKILL stops within a second or
/// so, and `--remove-on-exit` leaves no folder behind.
#[cfg(unix)]
#[test]
fn a_mock_whose_parent_is_killed_exits_and_removes_its_folder() {
    let work = std::env::temp_dir().join(format!("gatecheck-parent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir(&work).expect("mkdir");
    let ready = work.join("ready.json");
    // The parent: a shell that starts the mock in the background, says its pid and waits.
    let script = format!(
        "'{bin}' serve --port 0 --exit-with-parent --remove-on-exit '{w}' --ready-file '{r}' \
         >'{w}/serve.log' 2>&1 </dev/null & echo $!; wait",
        bin = env!("CARGO_BIN_EXE_gatecheck"),
        w = work.display(),
        r = ready.display(),
    );
    let mut parent = Command::new("sh")
        .args(["-c", &script])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the parent shell");
    let mut line = String::new();
    BufReader::new(parent.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the mock's pid");
    let pid: u32 = line.trim().parse().expect("a pid");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready.exists() {
        assert!(Instant::now() < deadline, "the mock was not ready in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    parent.kill().expect("SIGKILL the parent");
    parent.wait().expect("reap the parent");
    let killed = Instant::now();
    while running(pid) || work.exists() {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "5 s after its parent was killed: running {}, folder left {}",
            running(pid),
            work.exists()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    println!("the mock exited {:?} after its parent", killed.elapsed());
}
