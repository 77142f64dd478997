//! `gatecheck serve --state-file` under kill -TERM and kill -9 with 200 concurrent writers:
//! no acknowledged write is lost. Rounds: `GATECHECK_DURABILITY_ROUNDS` (default 1; the
//! acceptance run uses 20, see RELIABILITY.md).

use super::support::gatecheck_command;
use crate::serve::start;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// One blocking request; `None` when the connection fails (the server is gone).
fn try_request(addr: &str, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(20))).ok();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\ncontent-type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned())?;
    Some((status, body))
}

fn state_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gatecheck-dur-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join("state.json")
}

/// How many acknowledged writes the kill waits for: one per writer, so the writers are in
/// full flow, with writes in flight at the kill, however slowly a loaded machine got them
/// going (the 700 ms the test used to sleep gave 130-500 under load, none at worst).
const ACKED_BEFORE_KILL: usize = 200;

/// Runs 200 writers creating keys until the server dies by `signal`, sent once
/// [`ACKED_BEFORE_KILL`] writes were acknowledged (an event, not a wall-clock pause: on a
/// loaded machine the first acknowledgement can come later than any fixed sleep); returns
/// the names of the keys whose creation was acknowledged (201).
fn writers_until_killed(state: &Path, signal: &str, round: usize) -> Vec<String> {
    let mut served = start(&["--state-file", state.to_str().expect("utf-8 path")]);
    let addr = served.base.trim_start_matches("http://").to_owned();
    let acked = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for w in 0..200 {
        let (addr, acked, stop) = (addr.clone(), acked.clone(), stop.clone());
        let tag = signal.trim_start_matches('-').to_owned();
        threads.push(std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let name = format!("{tag}-r{round}-w{w}-{n}");
                n += 1;
                let body = format!("{{\"name\":\"{name}\",\"remain_quota\":{n}}}");
                match try_request(&addr, "POST", "/__mock/keys", &body) {
                    Some((201, _)) => {
                        acked.0.lock().expect("lock").push(name);
                        acked.1.notify_all();
                    }
                    Some(_) => {}
                    None => return,
                }
            }
        }));
    }
    wait_for_acks(&acked, ACKED_BEFORE_KILL, signal);
    let pid = served.child.id().to_string();
    let status = Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    while served.child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "serve did not exit on {signal}");
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    acked.0.lock().expect("lock").clone()
}

/// Blocks until `n` writes were acknowledged; panics, naming `signal`, when the writers do
/// not get that far in a minute (the server stalls or died: a finding, not load).
fn wait_for_acks(acked: &(Mutex<Vec<String>>, Condvar), n: usize, signal: &str) {
    let (names, cond) = acked;
    let (names, timeout) = cond
        .wait_timeout_while(
            names.lock().expect("lock"),
            Duration::from_secs(60),
            |names| names.len() < n,
        )
        .expect("lock");
    assert!(
        !timeout.timed_out(),
        "only {} writes acknowledged in 60 s before {signal}",
        names.len()
    );
}

fn assert_all_survive(state: &Path, acked: &[String], what: &str) {
    let served = start(&["--state-file", state.to_str().expect("utf-8 path")]);
    let addr = served.base.trim_start_matches("http://").to_owned();
    let (status, body) = try_request(&addr, "GET", "/__mock/keys", "").expect("keys");
    assert_eq!(status, 200);
    let keys: Vec<serde_json::Value> = serde_json::from_str(&body).expect("keys JSON");
    let present: std::collections::HashSet<&str> =
        keys.iter().filter_map(|k| k["name"].as_str()).collect();
    let lost: Vec<&String> = acked
        .iter()
        .filter(|n| !present.contains(n.as_str()))
        .collect();
    eprintln!(
        "{what}: {} acknowledged, {} lost, {} keys on restart",
        acked.len(),
        lost.len(),
        keys.len()
    );
    assert!(
        lost.is_empty(),
        "{what}: {} acknowledged writes lost, e.g. {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
}

#[test]
fn no_acknowledged_write_is_lost_on_term_or_kill() {
    let rounds: usize = std::env::var("GATECHECK_DURABILITY_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for round in 0..rounds {
        for signal in ["-TERM", "-KILL"] {
            let state = state_path(&format!("{}{round}", &signal[1..]));
            let acked = writers_until_killed(&state, signal, round);
            assert!(
                !acked.is_empty(),
                "no write was acknowledged before {signal}"
            );
            assert_all_survive(&state, &acked, &format!("round {round} kill {signal}"));
        }
    }
}

#[test]
fn a_truncated_state_file_is_reported_and_kept() {
    let state = state_path("truncated");
    std::fs::write(&state, b"{\"accounts\": [{\"id\": 1").expect("write");
    let out = gatecheck_command(&[])
        .args(["serve", "--port", "0", "--state-file"])
        .arg(&state)
        .output()
        .expect("run serve");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("corrupt or truncated"), "{stderr}");
    assert_eq!(
        std::fs::read(&state).expect("read"),
        b"{\"accounts\": [{\"id\": 1"
    );
}
