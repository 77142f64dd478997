//! `gatecheck profiles`: the behaviour profiles and the decision rows where they differ, from
//! `gatecheck_schemas::decisions` (the same table as docs/DECISIONS.md).

use gatecheck_schemas::decisions::{self, Decision, Verdict};
use gatecheck_schemas::NamedProfile;
use std::io::Write;

/// Arguments of `gatecheck profiles`.
#[derive(Debug, clap::Args)]
pub struct ProfilesArgs {
    /// Also list the rows where both profiles behave alike.
    #[arg(long)]
    pub all: bool,
    /// Print the rows as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn rows(all: bool) -> Vec<&'static Decision> {
    decisions::DECISIONS
        .iter()
        .filter(|d| all || d.verdict != Verdict::Same)
        .collect()
}

fn json(rows: &[&Decision]) -> serde_json::Value {
    let rows: Vec<_> = rows
        .iter()
        .map(|d| {
            serde_json::json!({
                "id": d.id, "title": d.title, "source": d.source,
                "documented": d.documented, "new_api": d.new_api,
                "verdict": d.verdict.as_str(),
            })
        })
        .collect();
    let profiles: Vec<_> = NamedProfile::ALL
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.as_str(), "profile": p.profile.as_str(),
                "era": p.effective_era().as_str(), "about": p.about(),
            })
        })
        .collect();
    serde_json::json!({ "profiles": profiles, "rows": rows })
}

/// The text listing.
fn text(rows: &[&Decision]) -> String {
    let mut out = String::from(
        "Profiles (gatecheck serve --profile NAME; gatecheck check --expect PROFILE --era ERA):\n",
    );
    for p in NamedProfile::ALL {
        out.push_str(&format!(
            "  {:<17} era {:<8} {}\n",
            p.as_str(),
            p.effective_era().as_str(),
            p.about()
        ));
    }
    out.push_str("\nRows (docs/DECISIONS.md):\n");
    for d in rows {
        out.push_str(&format!(
            "\n{} [{}] {}\n  documented: {}\n  new-api:    {}\n  source:     {}\n",
            d.id,
            d.verdict.as_str(),
            d.title,
            d.documented,
            d.new_api,
            d.source
        ));
    }
    out
}

/// Runs `gatecheck profiles`; the exit code.
pub fn run(args: ProfilesArgs) -> u8 {
    let rows = rows(args.all);
    let out = if args.json {
        serde_json::to_string_pretty(&json(&rows)).unwrap_or_default()
    } else {
        text(&rows)
    };
    // A closed pipe (`gatecheck profiles | head`) is not an error worth a panic.
    let _ = writeln!(std::io::stdout().lock(), "{out}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_audit_and_profile_row_by_default() {
        let out = text(&rows(false));
        for i in 1..=14 {
            assert!(out.contains(&format!("\nNA{i} [")), "NA{i}");
        }
        for i in 1..=6 {
            assert!(out.contains(&format!("\nP{i} [")), "P{i}");
        }
        assert!(!out.contains("\nD-QUOTA-3 ["), "same rows only with --all");
        assert!(out.contains("  new-api-adaptors  era adaptors"), "{out}");
        assert!(text(&rows(true)).contains("\nD-QUOTA-3 ["));
    }

    #[test]
    fn json_rows_carry_the_verdict() {
        let v = json(&rows(false));
        let na5 = v["rows"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["id"] == "NA5"))
            .cloned()
            .unwrap_or_default();
        assert_eq!(na5["verdict"], "deviation");
    }
}
