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

/// The alphanumeric runs of `secret` of at least `min` characters.
fn runs_of(secret: &str, min: usize) -> Vec<&str> {
    secret
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|r| r.len() >= min)
        .collect()
}

/// A key and an access token made of URL, JSON, HTML and XML metacharacters around
/// alphanumeric runs: a target's answers and the runner's own requests cut such
/// a secret at `#`, `?`, `&` or `=`, decode its `+` and `%`, or escape its quotes, so the
/// whole secret is never written, only its pieces. No piece of 8 or more alphanumerics (nor
/// any encoding of the whole secret) may reach stdout, stderr, report.json, report.html or
/// the JUnit file.
#[test]
fn no_output_holds_a_run_of_a_key_or_token_made_of_metacharacters() {
    const MIN_RUN: usize = 8;
    let key = r#"Zq7Xw2Lp9Rt+/=%"\<&>'?#Mv4Kc8Hs#?&Bn6Jd3Fy5Gt1=%2F+Pu8Wq3Ze"#;
    let token = r#"Tk9Pw3Qz7Lm"\<&>'Ys2Ud6Ex4Ho8?#=+/%Wa1Rb5NcQ7"#;
    let dir = std::env::temp_dir().join(format!("gatecheck-metachar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let fixtures = dir.join("fixtures");
    std::fs::create_dir_all(&fixtures).expect("dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    for (file, field, from, to) in [
        (
            "keys.json",
            "keys",
            gatecheck_mock::demo_key_of(&gatecheck_mock::Fixtures::embedded())
                .expect("demo key")
                .key
                .clone(),
            key,
        ),
        (
            "accounts.json",
            "accounts",
            gatecheck_mock::Fixtures::embedded()
                .demo_account()
                .expect("demo account")
                .access_token
                .clone(),
            token,
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("fixture");
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
        let secret_field = if field == "keys" {
            "key"
        } else {
            "access_token"
        };
        for item in v[field].as_array_mut().expect("list") {
            if item[secret_field] == serde_json::json!(from) {
                item[secret_field] = serde_json::json!(to);
            }
        }
        std::fs::write(fixtures.join(file), v.to_string()).expect("write fixture");
    }
    let fixtures_arg = fixtures.display().to_string();
    let served = super::serve::start(&[
        "--clock",
        "virtual",
        "--profile",
        "new-api",
        "--fixtures",
        &fixtures_arg,
    ]);
    let api_key = format!("sk-{key}");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).expect("dir");
    let json = format!("json={}", out_dir.join("report.json").display());
    let html = format!("html={}", out_dir.join("report.html").display());
    let junit = out_dir.join("report.xml").display().to_string();
    let args = [
        "check",
        "--cases",
        "2",
        "--seed",
        "3",
        "--base-url",
        served.base.as_str(),
        "--api-key",
        api_key.as_str(),
        "--access-token",
        token,
        "--user-id",
        "1",
        "--key-id",
        "1",
        "--report",
        &json,
        "--report",
        &html,
        "--junit",
        &junit,
    ];
    let out = gatecheck_command(&[])
        .args(args)
        .env_remove("GATECHECK_API_KEY")
        .env_remove("GATECHECK_ACCESS_TOKEN")
        .env("NO_COLOR", "1")
        .output()
        .expect("run gatecheck");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut outputs = vec![
        ("stdout".to_owned(), out.stdout),
        ("stderr".to_owned(), out.stderr),
    ];
    files_under(&out_dir, &mut outputs);
    let names: Vec<&String> = outputs.iter().map(|o| &o.0).collect();
    for want in ["report.json", "report.html", "report.xml"] {
        assert!(
            names.iter().any(|n| n.ends_with(want)),
            "no {want}: {names:?}"
        );
    }
    // The run did use both secrets: its evidence shows them, redacted.
    let report_json = outputs
        .iter()
        .find(|o| o.0.ends_with("report.json"))
        .map(|o| String::from_utf8_lossy(&o.1).into_owned())
        .unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(&report_json).expect("report JSON");
    assert!(report_json.contains("<redacted>"), "{report_json}");
    assert!(
        report["summary"]["passed"].as_u64().unwrap_or(0) > 10,
        "{}",
        report["summary"]
    );
    let forms = gatecheck_conformance::Redactor::new();
    forms.add(&api_key);
    forms.add(token);
    let runs: Vec<&str> = runs_of(key, MIN_RUN)
        .into_iter()
        .chain(runs_of(token, MIN_RUN))
        .collect();
    assert_eq!(runs.len(), 7, "{runs:?}");
    for (name, bytes) in &outputs {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.is_empty() || name == "stderr", "{name} is empty");
        for run in &runs {
            if let Some(at) = text.find(run) {
                let from = text[..at]
                    .char_indices()
                    .rev()
                    .nth(80)
                    .map_or(0, |(i, _)| i);
                let around: String = text[from..].chars().take(200).collect();
                panic!("{name} holds the run {run:?} of a secret: …{around}…");
            }
        }
        assert!(
            !forms.leaks(&text),
            "an encoded form of the key or the token leaked into {name}"
        );
    }
    drop(served);
    let _ = std::fs::remove_dir_all(&dir);
}
