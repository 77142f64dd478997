//! No output of a run holds the API key or the access token: stdout, stderr, the JSON
//! report, JUnit, and snapshots (`check` and `snapshot record` against a served mock
//! in the `new-api` profile, where checks fail and print evidence). Nor in any encoded form:
//! inside base64 (`Basic base64("KEY:")`), percent-encoded or JSON-escaped.

use super::support::gatecheck_command;
use std::path::Path;

fn files_under(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push((
                path.display().to_string(),
                std::fs::read(&path).expect("read"),
            ));
        }
    }
}

#[test]
fn no_output_of_a_run_holds_the_key_or_the_token() {
    let fixtures = gatecheck_mock::Fixtures::embedded();
    let account = fixtures.demo_account().expect("demo account").clone();
    let key = gatecheck_mock::demo_key_of(&fixtures)
        .expect("demo key")
        .clone();
    let served = super::serve::start(&["--clock", "virtual", "--profile", "new-api"]);
    let dir = std::env::temp_dir().join(format!("gatecheck-secrets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let api_key = format!("sk-{}", key.key);
    let creds = [
        "--base-url",
        served.base.as_str(),
        "--api-key",
        api_key.as_str(),
        "--access-token",
        account.access_token.as_str(),
        "--user-id",
        "1",
        "--key-id",
        "1",
    ];
    let json = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let mut check = vec!["check", "--cases", "2", "--seed", "3"];
    check.extend(creds);
    let report_json = format!("json={}", json.display());
    let junit_arg = junit.display().to_string();
    check.extend(["--report", &report_json]);
    check.extend(["--junit", &junit_arg]);
    let snaps = dir.join("snaps");
    let snaps_arg = snaps.display().to_string();
    let mut record = vec!["snapshot", "record", "--dir", &snaps_arg, "--seed", "3"];
    record.extend(creds);
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();
    for args in [check, record] {
        let out = gatecheck_command(&[])
            .args(&args)
            .env_remove("GATECHECK_API_KEY")
            .env_remove("GATECHECK_ACCESS_TOKEN")
            .env("NO_COLOR", "1")
            .output()
            .expect("run gatecheck");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?} exited {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push((format!("{} stdout", args[0]), out.stdout));
        outputs.push((format!("{} stderr", args[0]), out.stderr));
    }
    files_under(&dir, &mut outputs);
    assert!(
        outputs.len() >= 6,
        "expected reports, JUnit and snapshots: {:?}",
        outputs.iter().map(|o| &o.0).collect::<Vec<_>>()
    );
    // Every form the redactor knows (its own tests check each encoding independently).
    let forms = gatecheck_conformance::Redactor::new();
    forms.add(&api_key);
    forms.add(&account.access_token);
    let mut looked = 0;
    for (name, bytes) in &outputs {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(&key.key), "the API key leaked into {name}");
        assert!(
            !text.contains(&account.access_token),
            "the access token leaked into {name}"
        );
        assert!(
            !forms.leaks(&text),
            "an encoded form of the key or the token leaked into {name}:\n{text}"
        );
        looked += bytes.len();
    }
    assert!(looked > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
