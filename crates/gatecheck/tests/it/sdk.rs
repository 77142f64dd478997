//! The official OpenAI Python SDK against `gatecheck serve --clock virtual`:
//! `tests/sdk/test_sdk.py` (translations in five formats, transcription, speech to a file,
//! images in b64 and url modes, video create/poll/retrieve/download, a bad key, a 429 retry).
//!
//! The Python comes from `GATECHECK_SDK_PYTHON` (`.ci/run` points it at a virtualenv with the
//! SDK from PyPI), else `python3` when it can import `openai`; without either the test prints
//! a `skipped:` line and passes.

use crate::child::wait_bounded;
use crate::serve::start;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long the whole script may run.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(180);

pub(crate) fn python() -> Option<String> {
    if let Some(p) = std::env::var_os("GATECHECK_SDK_PYTHON").filter(|p| !p.is_empty()) {
        return Some(p.to_string_lossy().into_owned());
    }
    let has_sdk = Command::new("python3")
        .args(["-c", "import openai"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    has_sdk.then(|| "python3".to_owned())
}

#[test]
fn openai_python_sdk_works_against_serve_unchanged() {
    let Some(python) = python() else {
        eprintln!(
            "skipped: no GATECHECK_SDK_PYTHON and python3 cannot import openai \
             (pip install -r tests/sdk/requirements.txt, or run .ci/run)"
        );
        return;
    };
    let served = start(&["--clock", "virtual"]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/sdk/test_sdk.py");
    let child = Command::new(&python)
        .arg(script)
        .args(["--base-url", &served.base])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let done = wait_bounded(child, SCRIPT_TIMEOUT);
    let (status, out, err) = (done.status, done.stdout, done.stderr);
    println!("{out}");
    let status = status.unwrap_or_else(|| panic!("the SDK script timed out\n{out}\n{err}"));
    assert!(
        status.success(),
        "the SDK script failed ({status})\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(out.contains("all SDK checks passed"), "{out}");
}
