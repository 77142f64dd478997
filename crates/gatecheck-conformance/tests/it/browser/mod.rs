//! Tests in headless Chromium (Debian's `chromium` package): the HTML report and the mock's
//! live dashboard, asserted on the rendered DOM. One browser launch per test.
//!
//! Without Chromium (or Node, which drives the dashboard through the DevTools protocol:
//! `tests/browser/`) a test prints a note and passes, unless `GATECHECK_BROWSER=1` (set by
//! `.ci/run`) makes the missing tool a failure.

mod dashboard;
mod report;

use crate::support::temp_dir;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The flags of every launch: no sandbox (CI runs as root), no GPU, nothing fetched in the
/// background, a fresh profile each time (added by the caller).
pub(crate) const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The most a browser run may take before the test fails.
const TIMEOUT: Duration = Duration::from_secs(45);

/// `name` on the `PATH`, or the path `$var` names.
fn find(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The tool, or `None` with a printed note; a panic when `GATECHECK_BROWSER=1`.
fn need(what: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    if std::env::var("GATECHECK_BROWSER").as_deref() == Ok("1") {
        panic!("GATECHECK_BROWSER=1 but {what} was not found (install Debian's `chromium` and `nodejs`)");
    }
    eprintln!("note: {what} not found: browser test skipped (set GATECHECK_BROWSER=1 to make this a failure)");
    None
}

/// Chromium (`$GATECHECK_CHROMIUM`, else `chromium` on the `PATH`).
pub(crate) fn chromium() -> Option<PathBuf> {
    need("chromium", find("GATECHECK_CHROMIUM", "chromium"))
}

/// Node (`$GATECHECK_NODE`, else `node` on the `PATH`).
pub(crate) fn node() -> Option<PathBuf> {
    need("node", find("GATECHECK_NODE", "node"))
}

/// Runs `cmd` to its end (at most [`TIMEOUT`]) and returns its standard output; panics with
/// its standard error when it fails.
pub(crate) fn run(mut cmd: Command) -> String {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {cmd:?}: {e}"));
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} took over {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().expect("stdout reader");
    let stderr = err_reader.join().expect("stderr reader");
    assert!(status.success(), "{cmd:?} failed ({status}):\n{stderr}");
    stdout
}

/// The DOM of `url` after its scripts ran (`--dump-dom`), in a fresh profile.
pub(crate) fn dump_dom(chromium: &Path, url: &str) -> String {
    let profile = temp_dir("chromium-profile");
    let mut cmd = Command::new(chromium);
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", url]);
    let dom = run(cmd);
    let _ = std::fs::remove_dir_all(&profile);
    dom
}

/// Text as Chromium serializes a text node (`&`, `<`, `>` and no-break spaces escaped).
pub(crate) fn dom_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}
