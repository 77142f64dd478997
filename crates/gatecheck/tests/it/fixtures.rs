//! `gatecheck fixtures pull` from a served mock with a modified catalog, then `gatecheck serve
//! --fixtures` of the pulled directory: the catalogs answer alike, only GETs were sent, and the
//! pulled files hold no secret.

use super::serve::{request, start};
use super::support::{gatecheck_command, repo_root, scratch};
use serde_json::Value;

fn repo_fixture(name: &str) -> Value {
    let path = repo_root().join("fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

/// Every secret of the embedded fixtures: access tokens and key secrets.
fn fixture_secrets() -> Vec<String> {
    let mut out = Vec::new();
    for a in repo_fixture("accounts.json")["accounts"]
        .as_array()
        .expect("accounts")
    {
        out.extend(a["access_token"].as_str().map(str::to_owned));
    }
    for k in repo_fixture("keys.json")["keys"].as_array().expect("keys") {
        out.extend(k["key"].as_str().map(str::to_owned));
    }
    out
}

fn catalog(base: &str, query: &str) -> Value {
    let (status, body) = request(base, "GET", &format!("/api/models?{query}"), &[], "");
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("catalog JSON")
}

#[test]
fn pulled_fixtures_serve_the_same_catalog_and_hold_no_secret() {
    // A deployment with its own catalog: a renamed, repriced model and one gatecheck does not
    // know.
    let src = scratch("src");
    let mut cat = repo_fixture("catalog.json");
    let models = cat["models"].as_array_mut().expect("models");
    models[0]["name"] = "Deployment's own name".into();
    models[0]["pricing"]["per_second"] = 0.37.into();
    let mut extra = models[0].clone();
    extra["id"] = "house-video-1".into();
    extra["code"] = "house-video-1".into();
    models.push(extra);
    std::fs::write(src.join("catalog.json"), cat.to_string()).expect("write catalog");
    let deployment = start(&["--fixtures", src.to_str().expect("path")]);

    let out_dir = scratch("out");
    let accounts = repo_fixture("accounts.json");
    let token = accounts["accounts"][0]["access_token"]
        .as_str()
        .expect("token");
    let keys = repo_fixture("keys.json");
    let api_key = keys["keys"][0]["key"].as_str().expect("key");
    let out = gatecheck_command(&[])
        .args(["fixtures", "pull", "--base-url", &deployment.base])
        .args(["--access-token", token, "--user-id", "1", "--key-id", "1"])
        .args([
            "--api-key",
            api_key,
            "--out",
            out_dir.to_str().expect("path"),
        ])
        .output()
        .expect("run gatecheck fixtures pull");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("no capabilities known for house-video-1"),
        "{stderr}"
    );
    for secret in fixture_secrets() {
        assert!(!stdout.contains(&secret) && !stderr.contains(&secret));
    }

    // Read-only: every request the deployment received from the pull was a GET.
    let (_, journal) = request(&deployment.base, "GET", "/__mock/requests", &[], "");
    let journal: Value = serde_json::from_str(&journal).expect("journal");
    let methods: Vec<&str> = journal["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| !r["path"].as_str().unwrap_or("").starts_with("/__mock"))
        .map(|r| r["method"].as_str().unwrap_or(""))
        .collect();
    assert!(!methods.is_empty());
    assert!(methods.iter().all(|m| *m == "GET"), "{methods:?}");

    // No secret in any pulled file.
    let mut files = 0;
    for entry in std::fs::read_dir(&out_dir).expect("pulled dir") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        for secret in fixture_secrets() {
            assert!(!text.contains(&secret), "a secret was written");
        }
        files += 1;
    }
    assert_eq!(files, 3, "catalog.json, capabilities.json, keys.json");

    // Served from the pulled directory, the catalog answers as the deployment's does.
    let served = start(&["--fixtures", out_dir.to_str().expect("path")]);
    for query in ["p=1&page_size=100", "p=2&page_size=3", "model_type=video"] {
        assert_eq!(
            catalog(&served.base, query),
            catalog(&deployment.base, query),
            "{query}"
        );
    }
    let page = catalog(&served.base, "p=1&page_size=100");
    assert!(page.to_string().contains("Deployment's own name"));
    assert!(page.to_string().contains("house-video-1"));

    // The pulled key answers in the served mock with its new local secret.
    let pulled_keys: Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("keys.json")).expect("keys.json"),
    )
    .expect("JSON");
    let local = pulled_keys["keys"][0]["key"]
        .as_str()
        .expect("local secret");
    assert_ne!(local, api_key);
    let auth = format!("Bearer {local}");
    let (status, body) = request(
        &served.base,
        "GET",
        "/v1/models",
        &[("Authorization", &auth)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    let _ = std::fs::remove_dir_all(src);
    let _ = std::fs::remove_dir_all(out_dir);
}
