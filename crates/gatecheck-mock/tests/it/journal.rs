//! The request journal stays bounded.

use crate::support::*;
use gatecheck_mock::MockServer;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journal_holds_its_limit_after_100k_requests() {
    const TOTAL: usize = 100_000;
    const CONNECTIONS: usize = 16;
    let server = MockServer::builder().journal_capacity(1000).start().await;
    let http = Arc::new(Http::new(server.uri()));
    let mut tasks = Vec::new();
    for _ in 0..CONNECTIONS {
        let http = http.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..TOTAL / CONNECTIONS {
                let r = http.get("/api/models?page_size=1", &[]).await;
                assert_eq!(r.status, 200);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let journal = server.received_requests();
    assert_eq!(journal.len(), 1000);
    assert_eq!(journal.last().unwrap().seq, TOTAL as u64);
    assert_eq!(journal.first().unwrap().seq, (TOTAL - 999) as u64);
    let v = Http::new(server.uri())
        .get("/__mock/requests?limit=5", &[])
        .await
        .json();
    assert_eq!(v["held"], 1000);
    assert_eq!(v["total"], TOTAL as u64);
}
