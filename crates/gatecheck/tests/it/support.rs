//! The helpers the CLI's test modules share, each written once: the repository's root, this
//! build's `gatecheck` in a clean environment, and the text of a command's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root (two levels above this crate).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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
