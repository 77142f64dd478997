//! Running a child process to completion with a deadline, for the tests that drive other
//! programs (the SDK script, the example suites).

use std::io::Read;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// What a bounded child printed, and how it ended (`None`: killed at the deadline).
pub struct Finished {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
}

/// Waits for `child` (spawned with piped stdout and stderr) for at most `timeout`, killing it
/// then. Both pipes are drained on threads, so a chatty child never blocks on a full pipe.
pub fn wait_bounded(mut child: Child, timeout: Duration) -> Finished {
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}
