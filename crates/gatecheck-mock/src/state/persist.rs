//! Durable state (`--state-file`): acknowledged writes survive SIGTERM and kill -9.
//!
//! The file holds a whole [`StateSnapshot`], the body of `GET /__mock/state`: accounts, keys,
//! video tasks, the task routes' table (action, platform, remix source, Kling `callback_url`
//! of each task), the Kling callbacks still waiting for their task, Midjourney tasks (with their plans and forced outcomes) and the clock
//! offset. A file written before a field existed still loads (the field starts empty).
//!
//! Every answer to a state-changing request (any method but GET, HEAD and OPTIONS) is held
//! until the state it produced is on disk. Writes are grouped (group commit): the waiting
//! requests take increasing tickets; one writer task takes the newest ticket, snapshots the
//! whole state (which then holds every change of the requests up to that ticket, since each
//! took its ticket after its handler finished), writes it to `<file>.tmp`, fsyncs it, renames
//! it over `<file>` and fsyncs the directory, then releases every request up to the ticket.
//! Each group is thus also a compaction: the file is always one whole, parseable snapshot
//! (rename is atomic), and a crash leaves either the old or the new one. A group whose state
//! serialises to the bytes already on disk is not written again.
//!
//! At start a file that does not parse (corrupt or truncated), or that names a value this
//! mock does not know (a task platform or action, see [`crate::TaskMetaEntry`]), is an error
//! naming the file; it is left untouched. No entry is dropped silently. At shutdown the server stops accepting, drains the open connections and
//! then writes a final snapshot.
//!
//! If a write fails, the requests of its group are answered 500 instead of their answer (their
//! change stays in memory and goes to disk with the next successful write).

use crate::state::StateSnapshot;
use std::fs::{self, File};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{watch, Notify};

/// The durable-state writer of one mock.
#[derive(Debug)]
pub(crate) struct Persist {
    path: PathBuf,
    /// The last ticket handed out.
    requested: AtomicU64,
    /// Wakes the writer task.
    wake: Notify,
    /// Set once the final snapshot is written; the writer task ends.
    closed: AtomicBool,
    /// (every ticket up to this one is settled, whether that write succeeded).
    durable: watch::Sender<(u64, bool)>,
    /// The bytes last written (a group with the same state is not written again), and the
    /// lock that keeps two writes from sharing the temporary file.
    last: parking_lot::Mutex<Vec<u8>>,
}

/// Reads a state file: `None` when it does not exist; an [`io::ErrorKind::InvalidData`]
/// error naming the file when it does not parse (corrupt or truncated) or holds a value the
/// mock does not know.
pub(crate) fn load(path: &Path) -> io::Result<Option<StateSnapshot>> {
    let Some(bytes) = read_state(path)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Data => "does not hold a state this mock can load",
            _ => "is corrupt or truncated",
        };
        // serde's message without the content it would quote (a key's secret).
        let why = gatecheck_recording::files::content_free(&e);
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "state file {} {what} ({why}); it was left as it is: repair or remove it",
                path.display()
            ),
        )
    })
}

/// The largest state file loaded (the state's own bounds keep a real one far below it).
pub const MAX_STATE_FILE_BYTES: u64 = 256 << 20;

/// The bytes of the state file, `None` when there is none: a regular file (a FIFO or a
/// device is refused, not waited on) read through a bounded reader up to
/// [`MAX_STATE_FILE_BYTES`].
fn read_state(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let fail = |kind: io::ErrorKind, why: String| {
        io::Error::new(
            kind,
            format!("cannot read state file {}: {why}", path.display()),
        )
    };
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(e.kind(), e.to_string())),
    };
    if !meta.is_file() {
        return Err(fail(
            io::ErrorKind::InvalidInput,
            "not a regular file".into(),
        ));
    }
    let too_big = || {
        fail(
            io::ErrorKind::InvalidData,
            format!("larger than the cap of {MAX_STATE_FILE_BYTES} bytes"),
        )
    };
    if meta.len() > MAX_STATE_FILE_BYTES {
        return Err(too_big());
    }
    let file = File::open(path).map_err(|e| fail(e.kind(), e.to_string()))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    io::Read::take(file, MAX_STATE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.kind(), e.to_string()))?;
    if bytes.len() as u64 > MAX_STATE_FILE_BYTES {
        return Err(too_big());
    }
    Ok(Some(bytes))
}

impl Persist {
    /// A writer for `path`, with its writer task started. The task takes each state to write
    /// from `snapshot`, and ends when that gives `None` (the mock is gone).
    pub(crate) fn start<F>(path: PathBuf, snapshot: F) -> Arc<Self>
    where
        F: Fn() -> Option<StateSnapshot> + Send + 'static,
    {
        let (durable, _) = watch::channel((0, true));
        let me = Arc::new(Self {
            path,
            requested: AtomicU64::new(0),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            durable,
            last: parking_lot::Mutex::new(Vec::new()),
        });
        tokio::spawn(me.clone().writer(snapshot));
        me
    }

    /// Waits until every state change made before the call is on disk; false when the write
    /// failed.
    pub(crate) async fn sync(&self) -> bool {
        let mut rx = self.durable.subscribe();
        let ticket = self.requested.fetch_add(1, Ordering::AcqRel) + 1;
        self.wake.notify_one();
        let settled = rx.wait_for(|(upto, _)| *upto >= ticket).await.map(|v| v.1);
        settled.unwrap_or(false)
    }

    async fn writer<F>(self: Arc<Self>, snapshot_of: F)
    where
        F: Fn() -> Option<StateSnapshot>,
    {
        let mut done = 0u64;
        loop {
            self.wake.notified().await;
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            let upto = self.requested.load(Ordering::Acquire);
            if upto <= done {
                continue;
            }
            let Some(snapshot) = snapshot_of() else {
                return;
            };
            let me = self.clone();
            let ok = match tokio::task::spawn_blocking(move || me.write(&snapshot)).await {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    tracing::error!(path = %self.path.display(), error = %e, "cannot write the state file");
                    false
                }
                Err(e) => {
                    tracing::error!(error = %e, "state writer failed");
                    false
                }
            };
            done = upto;
            self.durable.send_replace((upto, ok));
        }
    }

    /// Writes the final snapshot (after the connections are drained) and ends the writer.
    pub(crate) async fn write_final(self: &Arc<Self>, snapshot: StateSnapshot) -> io::Result<()> {
        let me = self.clone();
        let result = tokio::task::spawn_blocking(move || me.write(&snapshot))
            .await
            .unwrap_or_else(|e| Err(io::Error::other(e)));
        self.close(result.is_ok());
        result
    }

    /// Ends the writer task and settles every waiter (`ok` says whether their changes are
    /// on disk).
    pub(crate) fn close(&self, ok: bool) {
        self.closed.store(true, Ordering::Release);
        self.durable.send_replace((u64::MAX, ok));
        self.wake.notify_one();
    }

    /// Serialises `snapshot` and, unless those bytes are already on disk, writes them by
    /// write, fsync, rename, directory fsync.
    fn write(&self, snapshot: &StateSnapshot) -> io::Result<()> {
        let json = serde_json::to_vec_pretty(snapshot).map_err(io::Error::other)?;
        let mut last = self.last.lock();
        if *last == json {
            return Ok(());
        }
        write_atomically(&self.path, &json)?;
        *last = json;
        Ok(())
    }
}

/// Replaces `path` with `bytes` durably: `<path>.tmp` written and fsynced, renamed over
/// `path`, then the directory fsynced.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let ctx = |what: &str, p: &Path, e: io::Error| {
        io::Error::new(e.kind(), format!("cannot {what} {}: {e}", p.display()))
    };
    // A stale temporary, or a symlink planted in its place, goes first (`remove_file` never
    // follows a link), and the new one must be new: nothing outside is ever written through.
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(ctx("remove", &tmp, e)),
        _ => {}
    }
    {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| ctx("create", &tmp, e))?;
        f.write_all(bytes).map_err(|e| ctx("write", &tmp, e))?;
        f.sync_all().map_err(|e| ctx("fsync", &tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| ctx("rename onto", path, e))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Directories cannot be opened for syncing everywhere; the rename is done either way.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Whether a request of this method may change the state (and so waits for durability).
pub(crate) fn may_write(method: &http::Method) -> bool {
    !matches!(
        *method,
        http::Method::GET | http::Method::HEAD | http::Method::OPTIONS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_and_corrupt_files_are_errors_and_left_alone() {
        let dir = std::env::temp_dir().join(format!("gatecheck-persist-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let full = serde_json::to_vec(&StateSnapshot::default()).unwrap();
        for bad in [&full[..full.len() / 2], b"", b"\x00\x01garbage"] {
            fs::write(&path, bad).unwrap();
            let err = load(&path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            assert!(err.to_string().contains("corrupt or truncated"), "{err}");
            assert_eq!(fs::read(&path).unwrap(), bad);
        }
        write_atomically(&path, &full).unwrap();
        assert!(load(&path).unwrap().is_some());
        // A known shape with an unknown task platform: refused, by name, and kept.
        let mut v = serde_json::to_value(StateSnapshot::default()).unwrap();
        v["task_meta"] = serde_json::json!([{"id": "task_a", "created_at_ms": 0, "owner": 1,
            "action": "textGenerate", "platform": "99"}]);
        let odd = serde_json::to_vec(&v).unwrap();
        fs::write(&path, &odd).unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown task platform \"99\""), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert_eq!(fs::read(&path).unwrap(), odd);
        assert!(load(&dir.join("absent.json")).unwrap().is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
