//! `GET /api/models`: envelope, paging, filters, both `endpoints` forms.

use crate::support::*;
use gatecheck_mock::MockServer;
use gatecheck_schemas::types::{CatalogEnvelope, Endpoints};

async fn catalog(server: &MockServer, query: &str) -> CatalogEnvelope {
    let resp = Http::new(server.uri())
        .get(&format!("/api/models{query}"), &[])
        .await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    serde_json::from_slice(&resp.body).expect("catalog envelope")
}

#[tokio::test]
async fn catalog_needs_no_auth_and_answers_the_envelope() {
    let server = MockServer::start().await;
    let env = catalog(&server, "").await;
    assert!(env.success);
    assert_eq!(env.page, 1);
    // 11 models of the spec's kinds, the 10 Midjourney models (DECISIONS D-MJ-7) and the provider
    // routes' (D-TASK-8); the first page holds the default page size.
    let n = gatecheck_mock::Fixtures::embedded().catalog.len() as i64;
    assert!(n >= 21);
    assert_eq!(env.total, n);
    assert_eq!(
        env.data.len() as i64,
        n.min(gatecheck_schemas::rules::catalog::DEFAULT_PAGE_SIZE)
    );
    for m in &env.data {
        assert_eq!(m.id, m.code);
        assert!(["video", "audio", "image"].contains(&m.model_type.as_str()));
    }
}

#[tokio::test]
async fn catalog_pages_with_p_or_page_and_page_size() {
    let server = MockServer::start().await;
    let all = catalog(&server, "").await.data;
    let p2 = catalog(&server, "?p=2&page_size=3").await;
    let n = gatecheck_mock::Fixtures::embedded().catalog.len() as i64;
    assert_eq!((p2.page, p2.page_size, p2.total), (2, 3, n));
    assert_eq!(p2.data, all[3..6].to_vec());
    let page2 = catalog(&server, "?page=2&page_size=3").await;
    assert_eq!(page2.data, p2.data);
    let beyond = catalog(&server, &format!("?p={}&page_size=3", n / 3 + 2)).await;
    assert!(beyond.data.is_empty());
    assert_eq!(beyond.total, n);
}

#[tokio::test]
async fn catalog_filters_by_model_type_and_provider_code() {
    let server = MockServer::start().await;
    let video = catalog(&server, "?model_type=video").await;
    let videos = gatecheck_mock::Fixtures::embedded()
        .catalog
        .iter()
        .filter(|m| m.model_type == "video")
        .count() as i64;
    assert_eq!((video.total, videos), (11, 11));
    assert!(video.data.iter().all(|m| m.model_type == "video"));
    let openai_images = catalog(&server, "?model_type=image&provider_code=openai").await;
    let ids: Vec<_> = openai_images.data.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, vec!["gpt-image-1", "dall-e-3"]);
    assert_eq!(catalog(&server, "?provider_code=nobody").await.total, 0);
}

#[tokio::test]
async fn catalog_has_both_endpoints_forms_and_null_prices() {
    let server = MockServer::start().await;
    let env = catalog(&server, "").await;
    assert!(env
        .data
        .iter()
        .any(|m| matches!(m.endpoints, Endpoints::Formats(_))));
    assert!(env
        .data
        .iter()
        .any(|m| matches!(m.endpoints, Endpoints::Encoded(_)) && m.endpoints.decode().is_some()));
    assert!(env.data.iter().any(|m| m.pricing.per_request.is_none()));
}

#[tokio::test]
async fn catalog_answers_are_stable_across_calls() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let a = http.get("/api/models?p=1&page_size=2", &[]).await.body;
    let b = http.get("/api/models?p=1&page_size=2", &[]).await.body;
    assert_eq!(a, b);
}
