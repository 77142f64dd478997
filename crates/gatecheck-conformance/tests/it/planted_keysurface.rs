//! The planted bugs of new-api's key search and batch routes and of the model lists in other
//! clients' shapes (DECISIONS D-TOKEN-6, D-TOKEN-8, D-MODELS-1,
//! D-MODELS-3): each passes the runner without `token.batch.*` and `models.*` and fails it
//! with them.

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use serde_json::{json, Value};

/// This surface's rows of [`planted`](super::planted::planted).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::BatchKeysDiscloseOther,
            "token.batch.keys-own-only",
            Status::Failed,
            "token_batch::BATCH_KEYS_MAX (GetTokenKeysByIds: the caller's ids only)",
        ),
        (
            Bug::SearchMissesKey,
            "token.batch.search-finds-key",
            Status::Failed,
            "token_batch::search_matches (sanitize_like_pattern, like_matches)",
        ),
        (
            Bug::ListShowsAnotherKey,
            "token.list.key-masked",
            Status::Failed,
            "auth::mask_key (GetAllTokens/GetToken's buildMaskedTokenResponse, NA6)",
        ),
        (
            Bug::AnthropicFirstIdWrong,
            "models.anthropic-list",
            Status::Failed,
            "model_lists::anthropic_list (list_shape, X_API_KEY, ANTHROPIC_VERSION, rfc3339)",
        ),
        (
            Bug::GeminiListDropsModel,
            "models.gemini-list",
            Status::Failed,
            "model_lists::gemini_list (GEMINI_MODELS_PATH, X_GOOG_API_KEY, list_credential)",
        ),
    ]
}

/// Whether `bug` is one of this surface's.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::BatchKeysDiscloseOther
            | Bug::SearchMissesKey
            | Bug::AnthropicFirstIdWrong
            | Bug::GeminiListDropsModel
            | Bug::ListShowsAnotherKey
    )
}

/// Plants `bug` in the JSON answer of `path`.
pub(crate) fn rewrite(bug: Bug, path: &str, body: &mut Bytes) {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let changed = match bug {
        Bug::BatchKeysDiscloseOther if path == "/api/token/batch/keys" => v
            .pointer_mut("/data/keys")
            .and_then(Value::as_object_mut)
            .map(|k| k.insert("424242".into(), json!("someone-elses-key")))
            .is_some(),
        Bug::SearchMissesKey if path == "/api/token/search" => v
            .get_mut("data")
            .and_then(Value::as_object_mut)
            .map(|d| {
                d.insert("items".into(), json!([]));
                d.insert("total".into(), json!(0));
            })
            .is_some(),
        // Each key shown, in the listing or alone, as another key (whole).
        Bug::ListShowsAnotherKey
            if path.starts_with("/api/token/") && path != "/api/token/search" =>
        {
            let items = match v.pointer_mut("/data/items") {
                Some(Value::Array(items)) => items.iter_mut().collect::<Vec<_>>(),
                _ => v.get_mut("data").into_iter().collect(),
            };
            let mut changed = false;
            for item in items {
                if item.get("key").is_some_and(Value::is_string) {
                    item["key"] = json!("someoneElsesKey0123456789abcdef0123456789abcdef");
                    changed = true;
                }
            }
            changed
        }
        Bug::AnthropicFirstIdWrong if path == "/v1/models" && v.get("first_id").is_some() => {
            v["first_id"] = json!("not-a-model");
            true
        }
        Bug::GeminiListDropsModel if path == "/v1beta/models" => v
            .get_mut("models")
            .and_then(Value::as_array_mut)
            .and_then(Vec::pop)
            .is_some(),
        _ => false,
    };
    if changed {
        *body = Bytes::from(v.to_string());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_faithful_proxy_passes_and_each_bug_fails_its_check() {
    use super::mutations::run_checks;
    let ids: Vec<String> = rows().iter().map(|r| r.1.to_owned()).collect();
    let (clean, _) = run_checks(Bug::None, ids).await;
    for (_, id, _, _) in rows() {
        let got = clean.checks.iter().find(|c| c.id == id).map(|c| c.status);
        assert_eq!(got, Some(Status::Passed), "{id} on the faithful proxy");
    }
    for (bug, id, want, _) in rows() {
        let (report, _) = run_checks(bug, vec![id.to_owned()]).await;
        let got = report.checks.iter().find(|c| c.id == id).map(|c| c.status);
        assert_eq!(
            got,
            Some(want),
            "{bug:?}: {}",
            gatecheck_conformance::report::summary_table(&report)
        );
    }
}

/// `token.list.key-masked` by profile (controller/token.go@823e263 GetAllTokens
/// and GetToken answer buildMaskedTokenResponse): a runner that expects new-api fails a
/// target that lists full keys (the documented mock), and passes new-api's masked ones; a
/// runner that expects the documented profile passes both (NA6: the documented column is the
/// full key, and new-api's mask is accepted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_of_full_keys_fails_when_new_api_is_expected() {
    use gatecheck_conformance::Runner;
    use gatecheck_mock::{ClockMode, MockServer};
    use gatecheck_schemas::Profile;
    let check = "token.list.key-masked";
    let mut wrong = Vec::new();
    for (mock, expect, want) in [
        (Profile::Documented, Profile::NewApi, Status::Failed),
        (Profile::NewApi, Profile::NewApi, Status::Passed),
        (Profile::Documented, Profile::Documented, Status::Passed),
        (Profile::NewApi, Profile::Documented, Status::Passed),
    ] {
        let server = MockServer::builder()
            .profile(mock)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let mut config = super::support::config(&server.uri());
        config.judging.expect = expect;
        config.scope.only = vec![check.to_owned()];
        let report = Runner::new(config).run().await.expect("run");
        server.shutdown().await;
        let got = report.checks.iter().find(|c| c.id == check);
        if got.map(|c| c.status) != Some(want) {
            wrong.push(format!(
                "mock {mock:?}, expecting {expect:?}: {:?}, not {want:?} ({:?})",
                got.map(|c| c.status),
                got.and_then(|c| c.evidence.as_ref())
                    .map(|e| e.message.clone())
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
