//! The files the repro lines upload (`-F "file=@$GATECHECK_UPLOADS/…"`), written where the
//! report says: next to the first report file, else in the temporary directory.

use gatecheck_conformance::Report;
use std::path::{Path, PathBuf};

/// Writes the report's uploads to `gatecheck-uploads/` beside `near` (the first report file),
/// else to `$TMPDIR/gatecheck-uploads/` (the names are content hashes: runs share the files,
/// and the directory grows only with new content), and records the directory in the report's
/// `$GATECHECK_UPLOADS`. A write that fails is said on stderr; the run goes on.
pub(crate) fn write(command: &str, report: &mut Report, near: Option<&Path>) {
    if report.uploads().is_empty() {
        return;
    }
    let dir: PathBuf = match near.and_then(Path::parent) {
        Some(p) => {
            let p = if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            };
            p.join("gatecheck-uploads")
        }
        None => std::env::temp_dir().join("gatecheck-uploads"),
    };
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        report
            .uploads()
            .iter()
            .try_for_each(|u| std::fs::write(dir.join(&u.name), &u.bytes))
    });
    match written {
        Ok(()) => {
            report.set_uploads_dir(&dir);
            eprintln!(
                "gatecheck {command}: the files the repros upload were written to {} \
                 (export GATECHECK_UPLOADS={})",
                dir.display(),
                shell_word(&dir.display().to_string())
            );
        }
        Err(e) => eprintln!(
            "gatecheck {command}: cannot write the files the repros upload to {}: {e}",
            dir.display()
        ),
    }
}

/// `s` as one shell word: as it is when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
