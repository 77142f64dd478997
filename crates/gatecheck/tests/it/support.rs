//! The helpers the CLI's test modules share, each written once: the repository's root, a
//! fresh scratch directory, this build's `gatecheck` in a clean environment, and the text of a
//! command's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root (two levels above this crate).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty directory of this test process under cargo's temporary directory for tests,
/// named by `tag` and a counter (two calls never share one).
pub(crate) fn scratch(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gatecheck-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// Output bytes as text (lossy).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// This build's `gatecheck` with `args`, in a clean environment: none of the caller's
/// `GATECHECK_*` variables (the CLI reads its base URLs, keys, tokens and headers from them),
/// no `NO_COLOR` and no `INSTA_UPDATE`. A test sets what it needs on the returned command.
pub(crate) fn gatecheck_command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatecheck"));
    cmd.args(args);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GATECHECK_") {
            cmd.env_remove(name);
        }
    }
    cmd.env_remove("NO_COLOR").env_remove("INSTA_UPDATE");
    cmd
}

/// Runs [`gatecheck_command`] to its end: its output.
pub(crate) fn gatecheck(args: &[&str]) -> Output {
    gatecheck_command(args)
        .output()
        .expect("run this build's gatecheck")
}
