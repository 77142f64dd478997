//! The non-Rust examples run against this build of `gatecheck`:
//!
//! - `examples/python/` (a pytest fixture and the OpenAI Python SDK), with the Python of
//!   `GATECHECK_SDK_PYTHON` (`.ci/run` installs `tests/sdk/requirements.txt`, which holds pytest
//!   and the SDK), else `python3` when it can import both; otherwise a `skipped:` line;
//! - `examples/node/` (a `node:test` fixture and the OpenAI Node SDK), when `node` is on the PATH
//!   and `examples/node/node_modules` holds the SDK (`npm install` there; `.ci/run` does it and
//!   then sets `GATECHECK_NODE_EXAMPLE=1`, which turns a missing piece into a failure);
//!   otherwise a `skipped:` line.

use crate::child::wait_bounded;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one example suite may run.
const SUITE_TIMEOUT: Duration = Duration::from_secs(180);

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a suite to completion (or kills it after [`SUITE_TIMEOUT`]); returns whether it passed
/// and everything it printed.
fn run_suite(mut command: Command) -> (bool, String) {
    command
        .env("GATECHECK_BIN", env!("CARGO_BIN_EXE_gatecheck"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let done = wait_bounded(child, SUITE_TIMEOUT);
    let text = format!("{}{}", done.stdout, done.stderr);
    match done.status {
        Some(s) => (s.success(), text),
        None => (false, format!("timed out after {SUITE_TIMEOUT:?}\n{text}")),
    }
}

#[test]
fn python_pytest_fixture_example_passes() {
    let python = match std::env::var("GATECHECK_SDK_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ if succeeds("python3", &["-c", "import openai, pytest"]) => "python3".to_owned(),
        _ => {
            eprintln!(
                "skipped: no GATECHECK_SDK_PYTHON and python3 cannot import openai and pytest \
                 (pip install -r tests/sdk/requirements.txt, or run .ci/run)"
            );
            return;
        }
    };
    let mut command = Command::new(&python);
    command
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(examples_dir().join("python"));
    let (passed, output) = run_suite(command);
    assert!(passed, "examples/python failed:\n{output}");
    assert!(output.contains("3 passed"), "{output}");
}

#[test]
fn node_fixture_example_passes() {
    let required = std::env::var_os("GATECHECK_NODE_EXAMPLE").is_some_and(|v| v == "1");
    let dir = examples_dir().join("node");
    let missing = if !succeeds("node", &["--version"]) {
        Some("node is not on the PATH")
    } else if !dir.join("node_modules/openai/package.json").is_file() {
        Some("examples/node/node_modules has no openai (run `npm install` there)")
    } else {
        None
    };
    if let Some(reason) = missing {
        assert!(!required, "GATECHECK_NODE_EXAMPLE=1 but {reason}");
        eprintln!("skipped: {reason}");
        return;
    }
    let mut command = Command::new("node");
    command.arg("--test").current_dir(&dir);
    let (passed, output) = run_suite(command);
    assert!(passed, "examples/node failed:\n{output}");
    assert!(output.contains("# pass 6"), "{output}");
}
