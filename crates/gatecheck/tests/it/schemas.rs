//! Tests of `gatecheck schemas` (list, show, validate, openapi), spawning the binary.

use super::support::{gatecheck_command, scratch};
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

/// Runs `gatecheck schemas <args>` in `dir`, feeding `stdin`.
fn gatecheck(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = gatecheck_command(&[])
        .arg("schemas")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gatecheck");
    if let Some(mut input) = child.stdin.take() {
        // The command may exit before reading; a broken pipe is fine.
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("wait for gatecheck")
}

/// `exit code`, stdout and stderr, with the scratch directory redacted.
fn transcript(dir: &Path, output: &Output) -> String {
    let redact =
        |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&dir.display().to_string(), "[TMP]");
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output
            .status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string()),
        redact(&output.stdout),
        redact(&output.stderr)
    )
}

const RUNNING_AND_101: &str = r#"{
  "id": "task_4fQ9x2LmP0aZ7cV1bN3kD8sT6yH5jR2w",
  "task_id": "task_4fQ9x2LmP0aZ7cV1bN3kD8sT6yH5jR2w",
  "object": "video",
  "model": "sora-2",
  "status": "running",
  "progress": 101,
  "created_at": 1760000000
}"#;

#[test]
fn validate_rejects_a_running_task_with_progress_101_and_names_the_paths() {
    let dir = scratch("running_101");
    std::fs::write(dir.join("some.json"), RUNNING_AND_101).unwrap();
    let output = gatecheck(&dir, &["validate", "video-task", "some.json"], b"");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("/status: "), "{stdout}");
    assert!(stdout.contains("/progress: "), "{stdout}");
    insta::assert_snapshot!(transcript(&dir, &output));
}

#[test]
fn validate_names_the_path_of_each_broken_rule_separately() {
    let dir = scratch("each_rule");
    let only_progress = RUNNING_AND_101.replace("running", "in_progress");
    std::fs::write(dir.join("progress.json"), only_progress).unwrap();
    let output = gatecheck(&dir, &["validate", "video-task", "progress.json"], b"");
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(transcript(&dir, &output));

    let only_status = RUNNING_AND_101.replace("101", "42");
    std::fs::write(dir.join("status.json"), only_status).unwrap();
    let output = gatecheck(&dir, &["validate", "video-task", "status.json"], b"");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("(1 violation)") && stdout.contains("  /status: "),
        "{stdout}"
    );
}

#[test]
fn validate_accepts_a_valid_task_from_a_file_with_an_absolute_path() {
    let dir = scratch("valid");
    let valid = RUNNING_AND_101
        .replace("running", "completed")
        .replace("101", "100");
    let file = dir.join("task.json");
    std::fs::write(&file, valid).unwrap();
    let output = gatecheck(
        &dir,
        &["validate", "video-task", file.to_str().unwrap()],
        b"",
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        transcript(&dir, &output)
    );
    insta::assert_snapshot!(transcript(&dir, &output));
}

#[test]
fn validate_reads_standard_input_for_a_dash() {
    let dir = scratch("stdin");
    let output = gatecheck(
        &dir,
        &["validate", "key-record", "-"],
        br#"{"id": 1, "name": "x"}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(transcript(&dir, &output));

    let output = gatecheck(
        &dir,
        &["validate", "api-failure", "-"],
        br#"{"success": false, "message": "record not found"}"#,
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        transcript(&dir, &output)
    );
}

#[test]
fn validate_reads_the_body_of_a_curl_i_capture() {
    let dir = scratch("curl_i");
    let capture = format!(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
         x-oneapi-request-id: 42\r\n\r\n{RUNNING_AND_101}"
    );
    std::fs::write(dir.join("capture.txt"), capture).unwrap();
    let output = gatecheck(&dir, &["validate", "video-task", "capture.txt"], b"");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        transcript(&dir, &output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("(2 violations)") && stdout.contains("  /progress: "),
        "{stdout}"
    );

    let ok = "HTTP/2 200\ncontent-type: application/json\n\n{\"text\": \"Hello.\"}\n";
    std::fs::write(dir.join("ok.txt"), ok).unwrap();
    let output = gatecheck(&dir, &["validate", "translation-result", "ok.txt"], b"");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        transcript(&dir, &output)
    );
}

#[test]
fn validate_reports_a_body_that_is_not_json_as_invalid() {
    let dir = scratch("not_json");
    std::fs::write(dir.join("body.txt"), "<html>502 Bad Gateway</html>").unwrap();
    let output = gatecheck(&dir, &["validate", "v1-error", "body.txt"], b"");
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(transcript(&dir, &output));
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    std::fs::write(dir.join("x.json"), "{}").unwrap();
    let unknown = gatecheck(&dir, &["validate", "video", "x.json"], b"");
    assert_eq!(unknown.status.code(), Some(2));
    insta::assert_snapshot!("unknown_schema", transcript(&dir, &unknown));

    let missing = gatecheck(&dir, &["validate", "video-task", "missing.json"], b"");
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.starts_with("error: cannot read missing.json: "),
        "{stderr}"
    );

    let show = gatecheck(&dir, &["show", "nope"], b"");
    assert_eq!(show.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&show.stderr).contains("unknown schema \"nope\""));
}

#[test]
fn list_names_every_schema_with_its_title() {
    let dir = scratch("list");
    let output = gatecheck(&dir, &["list"], b"");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, gatecheck_schemas::schema_names());
    insta::assert_snapshot!(stdout);
}

#[test]
fn show_prints_the_schema() {
    let dir = scratch("show");
    let output = gatecheck(&dir, &["show", "video-task"], b"");
    assert_eq!(output.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(Some(&printed), gatecheck_schemas::schema("video-task"));
}

#[test]
fn show_bundled_prints_a_self_contained_schema() {
    let dir = scratch("show_bundled");
    let output = gatecheck(&dir, &["show", "token-update-envelope", "--bundled"], b"");
    assert_eq!(output.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        gatecheck_schemas::bundled("token-update-envelope").unwrap()
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains(".json#"));
}

#[test]
fn openapi_prints_the_committed_document() {
    let dir = scratch("openapi");
    let output = gatecheck(&dir, &["openapi"], b"");
    assert_eq!(output.status.code(), Some(0));
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schemas/openapi.json"
    ))
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), committed);
}
