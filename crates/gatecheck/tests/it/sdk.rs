//! The official OpenAI Python SDK against `gatecheck serve --clock virtual`:
//! `tests/sdk/test_sdk.py` (translations in five formats, transcription, speech to a file,
//! images in b64 and url modes, video create/poll/retrieve/download, a bad key, a 429 retry).
//!
//! The Python comes from `GATECHECK_SDK_PYTHON` (`.ci/run` points it at a virtualenv with the
//! SDK from PyPI), else `python3` when it can import `openai`; without either the test prints
//! a `skipped:` line and passes.

use crate::serve::start;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the whole script may run.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(180);

fn python() -> Option<String> {
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
    let mut child = Command::new(&python)
        .arg(script)
        .args(["--base-url", &served.base])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    // Drain both pipes on threads so a chatty script never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out_thread = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_thread = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + SCRIPT_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the SDK script") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = out_thread.join().unwrap_or_default();
    let err = err_thread.join().unwrap_or_default();
    println!("{out}");
    let status = status.unwrap_or_else(|| panic!("the SDK script timed out\n{out}\n{err}"));
    assert!(
        status.success(),
        "the SDK script failed ({status})\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(out.contains("all SDK checks passed"), "{out}");
}
