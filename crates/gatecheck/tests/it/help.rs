//! `gatecheck --help` and the help of the commands whose flags are shared or generated
//! (`diff`'s `--left-*`/`--right-*` come from one declaration) are snapshot-tested: a changed
//! flag shows up in review.

use super::support::gatecheck_command;

fn help(args: &[&str]) -> String {
    let out = gatecheck_command(&[])
        .args(args)
        .arg("--help")
        .env_remove("GATECHECK_LEFT_API_KEY")
        .env_remove("GATECHECK_RIGHT_API_KEY")
        .output()
        .expect("run gatecheck --help");
    assert_eq!(out.status.code(), Some(0), "{args:?} --help");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

#[test]
fn top_level_help() {
    insta::assert_snapshot!(help(&[]));
}

#[test]
fn diff_help() {
    insta::assert_snapshot!(help(&["diff"]));
}

#[test]
fn snapshot_record_help() {
    insta::assert_snapshot!(help(&["snapshot", "record"]));
}

#[test]
fn schemas_help() {
    insta::assert_snapshot!(help(&["schemas"]));
}

#[test]
fn left_and_right_flags_mirror_each_other() {
    let text = help(&["diff"]);
    let flags = |side: &str| -> Vec<String> {
        text.split_whitespace()
            .filter(|w| w.starts_with(&format!("--{side}")))
            .map(|w| w.trim_end_matches(',').replacen(side, "SIDE", 1))
            .collect()
    };
    let left = flags("left");
    assert!(left.len() >= 9, "{left:?}");
    assert_eq!(left, flags("right"));
}

#[test]
fn profiles_help() {
    insta::assert_snapshot!(help(&["profiles"]));
}

#[test]
fn fixtures_pull_help() {
    insta::assert_snapshot!(help(&["fixtures", "pull"]));
}
