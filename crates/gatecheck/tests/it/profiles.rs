//! `gatecheck profiles`: the profiles and their DECISIONS rows, from the decisions table.

use super::support::gatecheck_command;
use gatecheck_schemas::decisions::{self, Verdict};

fn profiles(args: &[&str]) -> String {
    let out = gatecheck_command(&[])
        .arg("profiles")
        .args(args)
        .output()
        .expect("run gatecheck profiles");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn json_lists_both_profiles_and_every_differing_row_as_the_table_says() {
    let v: serde_json::Value = serde_json::from_str(&profiles(&["--json"])).expect("JSON");
    let names: Vec<_> = v["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .map(|p| p["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["documented", "new-api", "new-api-adaptors"]);
    let rows = v["rows"].as_array().expect("rows");
    let differing = decisions::DECISIONS
        .iter()
        .filter(|d| d.verdict != Verdict::Same)
        .count();
    assert_eq!(rows.len(), differing);
    for i in 1..=14 {
        let id = format!("NA{i}");
        let row = rows.iter().find(|r| r["id"] == id.as_str()).expect(&id);
        let d = decisions::get(&id).expect(&id);
        assert_eq!(row["verdict"], d.verdict.as_str(), "{id}");
        assert_eq!(row["new_api"], d.new_api, "{id}");
        assert_eq!(row["source"], d.source, "{id}");
    }
}

#[test]
fn all_adds_the_rows_where_the_profiles_agree() {
    let text = profiles(&[]);
    assert!(text.contains("\nNA5 [deviation]"), "{text}");
    assert!(!text.contains("\nD-QUOTA-1 ["), "{text}");
    let all = profiles(&["--all"]);
    assert!(all.contains("\nD-QUOTA-1 [same]"), "{all}");
}
