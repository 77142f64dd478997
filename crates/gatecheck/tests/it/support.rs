//! The helpers the CLI's test modules share, each written once: the repository's root and
//! the text of a command's output.

use std::path::{Path, PathBuf};

/// The repository's root (two levels above this crate).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Output bytes as text (lossy).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
