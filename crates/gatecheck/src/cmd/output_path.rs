//! Output paths, checked before the first request: a run is not thrown away at its end
//! because a report cannot be written (`--report html=/no/such/dir/r.html`).

use anyhow::{bail, Context as _};
use std::path::{Path, PathBuf};

/// Fails unless `path` can be written as a file: its directory exists and takes a file, and
/// the path is not a directory. Nothing is left behind: a file that did not exist is removed.
pub fn check_file(flag: &str, path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("{flag} {}: is a directory, not a file", path.display());
    }
    let parent = parent_of(path);
    if !parent.is_dir() {
        bail!(
            "{flag} {}: the directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("{flag} {}: cannot be written", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Fails unless `dir` can hold files: it is a directory that takes a file, or it does not
/// exist yet and its nearest existing ancestor is such a directory (it is created later).
pub fn check_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    let mut existing = dir.to_path_buf();
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
    }
    if !existing.is_dir() {
        bail!(
            "{flag} {}: {} is not a directory",
            dir.display(),
            existing.display()
        );
    }
    probe_dir(&existing).with_context(|| {
        format!(
            "{flag} {}: cannot write in {}",
            dir.display(),
            existing.display()
        )
    })
}

/// Creates and removes a probe file in `dir`: whether a file can be made there.
pub fn probe_dir(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".gatecheck-write-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The directory a file path is written in (`.` for a bare file name).
pub fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_or_a_directory_is_refused_and_a_good_path_left_untouched() {
        let dir = std::env::temp_dir().join(format!("gatecheck-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let e = check_file("--junit", &dir.join("no/such/r.xml")).unwrap_err();
        assert!(format!("{e:#}").contains("does not exist"), "{e:#}");
        let e = check_file("--junit", &dir).unwrap_err();
        assert!(format!("{e:#}").contains("is a directory"), "{e:#}");
        let good = dir.join("r.xml");
        check_file("--junit", &good).expect("writable");
        assert!(!good.exists(), "the probe leaves nothing behind");
        check_dir("--dir", &dir.join("new/deeper")).expect("creatable");
        let file = dir.join("plain");
        std::fs::write(&file, "x").expect("write");
        let e = check_dir("--dir", &file.join("sub")).unwrap_err();
        assert!(format!("{e:#}").contains("is not a directory"), "{e:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
