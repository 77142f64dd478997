//! The mock under attack: the control API answers only a loopback `Host` (DNS
//! rebinding), a replay folder is never left, stalled streams stay small, and callback URLs
//! never show their credentials.

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};

const REBIND: &str = "rebind.attacker.example:3000";

#[tokio::test]
async fn the_control_api_refuses_a_rebound_host_and_changes_nothing() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let http = Http::new(server.uri());
    let before = http.get("/__mock/clock", &[]).await.text();
    let host = [("host", REBIND)];
    for path in [
        "/__mock/keys",
        "/__mock/ui",
        "/__mock/ui/app.js",
        "/__mock",
        "/__mock/state",
    ] {
        let r = http.get(path, &host).await;
        assert_eq!(r.status, 403, "{path}: {}", r.text());
        assert!(!r.text().contains(KEY_ENABLED), "{path} leaked a key");
        let message = r.json()["message"].as_str().unwrap_or("").to_owned();
        assert!(
            message.contains("Host") && !message.contains('\n'),
            "{message}"
        );
    }
    // The issue's repro: a same-origin page on the rebound name.
    let same_origin = [
        ("host", REBIND),
        ("origin", "http://rebind.attacker.example:3000"),
        ("sec-fetch-site", "same-origin"),
        ("content-type", "application/json"),
    ];
    for (method, path, body) in [
        ("POST", "/__mock/clock/advance", r#"{"seconds":5}"#),
        ("POST", "/__mock/reset", ""),
        ("POST", "/__mock/keys", r#"{"name":"x"}"#),
        ("DELETE", "/__mock/faults", ""),
        ("PUT", "/__mock/state", "{}"),
    ] {
        let r = http.send(method, path, &same_origin, body).await;
        assert_eq!(r.status, 403, "{method} {path}: {}", r.text());
    }
    assert_eq!(http.get("/__mock/clock", &[]).await.text(), before);
    assert_eq!(http.get("/__mock/keys", &[]).await.status, 200);
    // Two Host headers (no browser sends them) are refused, whichever comes first.
    let r = http
        .get("/__mock/keys", &[("host", "localhost"), ("host", REBIND)])
        .await;
    assert_eq!(r.status, 403, "{}", r.text());
    // The model routes answer any Host.
    let r = http
        .get(
            "/v1/models",
            &[("host", REBIND), ("authorization", &bearer(KEY_ENABLED))],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

#[tokio::test]
async fn loopback_hosts_and_allowed_names_are_answered() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    for host in [
        "localhost:3000",
        "app.localhost",
        "127.0.0.1",
        "127.1.2.3:9",
        "[::1]:3000",
    ] {
        let r = http.get("/__mock/health", &[("host", host)]).await;
        assert_eq!(r.status, 200, "{host}: {}", r.text());
    }
    for host in ["mock:3000", "localhost.attacker.example", "10.0.0.1:3000"] {
        let r = http.get("/__mock/health", &[("host", host)]).await;
        assert_eq!(r.status, 403, "{host}");
    }
    let named = MockServer::builder()
        .allowed_host("mock")
        .control_token("s3cret")
        .start()
        .await;
    let http = Http::new(named.uri());
    assert_eq!(
        http.get("/__mock/health", &[("host", "mock:3000")])
            .await
            .status,
        200
    );
    assert_eq!(
        http.get("/__mock/health", &[("host", "mock2:3000")])
            .await
            .status,
        403
    );
}

#[tokio::test]
async fn a_replay_front_judges_the_clients_host_and_peer() {
    let dir = crate::replay::recording("security-host");
    let server = MockServer::builder().replay(&dir).start().await;
    let http = Http::new(server.uri());
    assert_eq!(http.get("/__mock/health", &[]).await.status, 200);
    let r = http.get("/__mock/keys", &[("host", REBIND)]).await;
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(!r.text().contains(KEY_ENABLED));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scratch folder with a secret file beside a recording made by the replay tests' helper.
fn recording_with_a_secret(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let rec = crate::replay::recording(name);
    let secret = rec.with_extension("secret");
    let _ = std::fs::remove_dir_all(&secret);
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("token.json"), r#""TOPSECRET-4242""#).unwrap();
    (rec, secret)
}

async fn replay_error(dir: &std::path::Path) -> String {
    match MockServer::builder().replay(dir).try_start().await {
        Ok(_) => panic!("{} was replayed", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_replay_never_reads_outside_its_folder() {
    // A symlinked exchange that leaves the folder: refused, named, its content unread.
    let (rec, secret) = recording_with_a_secret("security-link");
    std::os::unix::fs::symlink(secret.join("token.json"), rec.join("exchanges/99999.json"))
        .unwrap();
    let e = replay_error(&rec).await;
    assert!(e.contains("99999.json") && e.contains("outside"), "{e}");
    assert!(!e.contains("TOPSECRET") && !e.contains("token.json"), "{e}");
    // A symlinked exchanges/ folder.
    std::fs::remove_dir_all(rec.join("exchanges")).unwrap();
    std::fs::copy(secret.join("token.json"), secret.join("00001.json")).unwrap();
    std::os::unix::fs::symlink(&secret, rec.join("exchanges")).unwrap();
    let e = replay_error(&rec).await;
    assert!(e.contains("exchanges") && e.contains("outside"), "{e}");
    assert!(!e.contains("TOPSECRET"), "{e}");
    // A file inside the folder that is not an exchange: its content is not quoted either.
    std::fs::remove_file(rec.join("exchanges")).unwrap();
    std::fs::create_dir_all(rec.join("exchanges")).unwrap();
    std::fs::copy(secret.join("token.json"), rec.join("exchanges/00001.json")).unwrap();
    let e = replay_error(&rec).await;
    assert!(e.contains("00001.json") && e.contains("line 1"), "{e}");
    assert!(!e.contains("TOPSECRET"), "{e}");
    let _ = std::fs::remove_dir_all(&rec);
    let _ = std::fs::remove_dir_all(&secret);
}

#[tokio::test]
async fn a_replay_refuses_a_file_over_its_cap_and_a_fifo_without_reading() {
    use gatecheck_mock::replay::format::files::MAX_EXCHANGE_BYTES;
    let rec = crate::replay::recording("security-cap");
    // Sparse: the cap is judged by the size, the file is never read.
    let big = std::fs::File::create(rec.join("exchanges/99999.json")).unwrap();
    big.set_len(MAX_EXCHANGE_BYTES + 1).unwrap();
    let e = replay_error(&rec).await;
    assert!(
        e.contains("99999.json") && e.contains(&MAX_EXCHANGE_BYTES.to_string()),
        "{e}"
    );
    std::fs::remove_file(rec.join("exchanges/99999.json")).unwrap();
    // A FIFO would block a reader for ever.
    let fifo = rec.join("exchanges/99998.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = tokio::time::timeout(std::time::Duration::from_secs(10), replay_error(&rec))
            .await
            .expect("a FIFO is refused, not waited on");
        assert!(
            e.contains("99998.json") && e.contains("regular file"),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&rec);
}

/// A loopback receiver that answers 200 and keeps each request's head.
async fn head_receiver() -> (u16, std::sync::Arc<parking_lot::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let keep = heads.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let mut buf = vec![0u8; 16 * 1024];
            let mut got = Vec::new();
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                if got.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            keep.lock().push(String::from_utf8_lossy(&got).into_owned());
            let ok = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
            let _ = s.write_all(ok.as_bytes()).await;
        }
    });
    (port, heads)
}

#[tokio::test]
async fn callback_credentials_are_sent_but_never_shown_or_stored() {
    let dir = std::env::temp_dir().join(format!("gatecheck-sec-cb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let state_file = dir.join("state.json");
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .state_file(&state_file)
        .start()
        .await;
    let (port, heads) = head_receiver().await;
    let url = format!("http://cbuser:Pa55w0rdXYZ@127.0.0.1:{port}/hook");
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let body = serde_json::json!({"model_name": "kling-v2-master", "prompt": "a heron",
                                  "callback_url": url});
    let r = http
        .json(
            "POST",
            "/kling/v1/videos/text2video",
            &[("authorization", &auth)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let leaks = |what: &str, text: &str| {
        assert!(
            !text.contains("Pa55w0rdXYZ") && !text.contains("cbuser"),
            "{what} shows the callback's credentials: {text}"
        );
    };
    // Waiting: the state file, GET /__mock/state and the journal hold no credentials.
    leaks(
        "GET /__mock/state",
        &http.get("/__mock/state", &[]).await.text(),
    );
    leaks(
        "the state file",
        &std::fs::read_to_string(&state_file).unwrap_or_default(),
    );
    leaks(
        "GET /__mock/requests",
        &http.get("/__mock/requests", &[]).await.text(),
    );
    let r = http
        .json(
            "POST",
            "/__mock/clock/advance",
            &[],
            serde_json::json!({"seconds": 300}),
        )
        .await;
    assert_eq!(r.status, 200);
    let mut records = Vec::new();
    for _ in 0..200 {
        records = server.callbacks();
        if !records.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(
        matches!(
            records[0].result,
            gatecheck_mock::callbacks::CallbackResult::Delivered { .. }
        ),
        "{records:?}"
    );
    assert_eq!(records[0].url, format!("http://***@127.0.0.1:{port}/hook"));
    // Delivered with the credentials, as Basic auth ("cbuser:Pa55w0rdXYZ").
    let head = heads.lock().first().cloned().unwrap_or_default();
    assert!(
        head.to_ascii_lowercase()
            .contains("authorization: basic y2j1c2vyolbhntv3mhjkwfla"),
        "{head}"
    );
    assert!(head.starts_with("POST /hook "), "{head}");
    leaks("the journal", &format!("{:?}", server.received_requests()));
    leaks(
        "GET /__mock/requests",
        &http.get("/__mock/requests", &[]).await.text(),
    );
    leaks(
        "GET /__mock/state",
        &http.get("/__mock/state", &[]).await.text(),
    );
    leaks("the callback records", &format!("{records:?}"));
    drop(server);
    leaks(
        "the state file",
        &std::fs::read_to_string(&state_file).unwrap_or_default(),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
