//! Reading and writing a recording's files without leaving its folder: an entry whose
//! resolved path is outside the folder (a symlink, or a symlinked `exchanges/`) is refused,
//! naming the entry and never reading the target; anything but a regular file (a FIFO, a
//! device) is refused before it is opened; each file is read through a bounded reader and
//! refused past its cap; a parse error names the place, never the content. Files are written
//! to a fresh temporary (`create_new`: a planted symlink is not followed), synced, then
//! renamed over the entry: a reader sees the old file or the new one, never half.

use super::{io_error, RecordingError};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The largest `manifest.json` read.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// The largest exchange file read (a recorded answer's body is in it, base64 for media).
pub const MAX_EXCHANGE_BYTES: u64 = 64 << 20;

/// A refused entry.
fn refused(path: &Path, why: &str) -> RecordingError {
    RecordingError::Invalid {
        path: path.to_owned(),
        message: why.to_owned(),
    }
}

/// The recording folder, resolved: every entry must resolve under it.
pub fn root(dir: &Path) -> Result<PathBuf, RecordingError> {
    dir.canonicalize().map_err(|e| io_error(dir, e))
}

/// `entry` (a path under `root`) resolved, when it stays under `root`; refused otherwise.
pub fn inside(root: &Path, entry: &Path) -> Result<PathBuf, RecordingError> {
    let resolved = entry.canonicalize().map_err(|e| io_error(entry, e))?;
    if resolved.starts_with(root) {
        Ok(resolved)
    } else {
        Err(refused(
            entry,
            "refused: it resolves outside the recording folder (a symlink?); nothing was read",
        ))
    }
}

/// The bytes of `entry`, a regular file under `root` of at most `cap` bytes.
pub fn read_capped(root: &Path, entry: &Path, cap: u64) -> Result<Vec<u8>, RecordingError> {
    let resolved = inside(root, entry)?;
    let meta = std::fs::metadata(&resolved).map_err(|e| io_error(entry, e))?;
    if !meta.is_file() {
        return Err(refused(
            entry,
            "refused: not a regular file; nothing was read",
        ));
    }
    let too_big = || {
        refused(
            entry,
            &format!("refused: larger than the cap of {cap} bytes for this file"),
        )
    };
    if meta.len() > cap {
        return Err(too_big());
    }
    let file = std::fs::File::open(&resolved).map_err(|e| io_error(entry, e))?;
    let mut out = Vec::with_capacity(meta.len() as usize);
    // Bounded even if the file grows after the size was read.
    file.take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| io_error(entry, e))?;
    if out.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(out)
}

/// A JSON parse error without the content it would quote (serde's `invalid type: string
/// "..."` may be a secret of a file not meant to be read), with its place.
pub fn parse_error(path: &Path, e: &serde_json::Error) -> RecordingError {
    refused(path, &content_free(e))
}

/// What is wrong with a JSON document, and where, without quoting it: serde's messages that
/// quote the input (`invalid type: string "…"`, `invalid value`, `unknown variant`, `unknown
/// field`, `invalid length`) lose the quoted part; our own messages (an unknown task platform)
/// and the syntax errors, which quote nothing, are kept.
///
/// ```
/// let e = serde_json::from_str::<u32>(r#""TOPSECRET""#).unwrap_err();
/// let told = gatecheck_recording::files::content_free(&e);
/// assert_eq!(told, "invalid type: string …, expected u32 at line 1 column 11");
/// ```
pub fn content_free(e: &serde_json::Error) -> String {
    const QUOTING: [&str; 5] = [
        "invalid type",
        "invalid value",
        "unknown variant",
        "unknown field",
        "invalid length",
    ];
    let full = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&place).unwrap_or(&full);
    if !QUOTING.iter().any(|q| message.starts_with(q)) {
        return format!("{message}{place}");
    }
    // serde's own `, expected ...` comes last; everything quoted before it is the input.
    let (head, tail) = message
        .rfind(", expected")
        .map_or((message, ""), |i| message.split_at(i));
    let head = match head.find(['"', '`', '\'']) {
        Some(i) => format!("{}…", &head[..i]),
        None => head.to_owned(),
    };
    format!("{head}{tail}{place}")
}

/// Writes `bytes` to `path` atomically: a fresh temporary beside it (never an existing file
/// or a planted symlink), synced, renamed over `path` (a symlink at `path` is replaced, not
/// followed).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RecordingError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    // A stale temporary (or a symlink planted there) goes; `remove_file` never follows.
    match std::fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(&tmp, e)),
    }
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(&tmp, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_error(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("gatecheck-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_symlink_out_of_the_folder_is_refused_without_reading_it() {
        let dir = scratch("out");
        let secret = dir.join("secret.txt");
        std::fs::write(&secret, "TOPSECRET").unwrap();
        let rec = dir.join("rec");
        std::fs::create_dir_all(&rec).unwrap();
        std::os::unix::fs::symlink(&secret, rec.join("a.json")).unwrap();
        std::fs::write(rec.join("b.json"), "{}").unwrap();
        std::os::unix::fs::symlink(rec.join("b.json"), rec.join("c.json")).unwrap();
        let root = root(&rec).unwrap();
        let e = read_capped(&root, &rec.join("a.json"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.json") && e.contains("outside"), "{e}");
        assert!(!e.contains("TOPSECRET") && !e.contains("secret.txt"), "{e}");
        // A symlink that stays inside is fine.
        assert_eq!(read_capped(&root, &rec.join("c.json"), 100).unwrap(), b"{}");
    }

    #[test]
    fn a_file_over_its_cap_is_refused_naming_file_and_cap() {
        let dir = scratch("cap");
        std::fs::write(dir.join("big.json"), vec![b' '; 101]).unwrap();
        let root = root(&dir).unwrap();
        let e = read_capped(&root, &dir.join("big.json"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("big.json") && e.contains("100 bytes"), "{e}");
        assert_eq!(
            read_capped(&root, &dir.join("big.json"), 101)
                .unwrap()
                .len(),
            101
        );
    }

    #[test]
    fn writes_replace_a_planted_symlink_instead_of_following_it() {
        let dir = scratch("write");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.join("manifest.json");
        std::os::unix::fs::symlink(&victim, dir.join("manifest.json.tmp")).unwrap();
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        write_atomic(&out, b"{}").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&out).unwrap(), b"{}");
        assert!(!std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_parse_error_does_not_quote_the_content() {
        let e = serde_json::from_str::<u32>("\"TOPSECRET\"").unwrap_err();
        let msg = parse_error(Path::new("x.json"), &e).to_string();
        assert!(
            !msg.contains("TOPSECRET") && msg.contains("line 1"),
            "{msg}"
        );
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        enum Kind {
            A,
        }
        for text in [r#"{"k": "TOPSECRET"}"#, r#""TOP\"SECRET, expected x""#] {
            let e =
                serde_json::from_str::<std::collections::HashMap<String, u8>>(text).unwrap_err();
            assert!(!content_free(&e).contains("SECRET"), "{}", content_free(&e));
        }
        let e = serde_json::from_str::<Kind>(r#""TOPSECRET""#).unwrap_err();
        assert!(!content_free(&e).contains("SECRET"), "{}", content_free(&e));
        let e = serde_json::from_str::<u8>("{").unwrap_err();
        assert!(content_free(&e).contains("line 1"), "{}", content_free(&e));
    }
}
