//! The client against the mock: start it, point the client at it, assert.

use gatecheck_example::Gateway;
use gatecheck_mock::{Fault, MockServer};

#[tokio::test]
async fn creates_a_video_task_with_the_demo_key() {
    let server = MockServer::start().await; // a free loopback port, the embedded fixtures
    let gateway = Gateway::new(&server.uri(), &server.demo_key());

    let models = gateway.video_models().await.expect("catalog");
    assert!(models.iter().any(|m| m == "sora-2"), "{models:?}");
    let task = gateway
        .create_video("sora-2", "a calm lake")
        .await
        .expect("request");
    assert!(task.expect("accepted").starts_with("task_"));

    // The mock recorded what the client sent.
    let calls = server.received_requests();
    assert!(calls
        .iter()
        .any(|c| c.method == "POST" && c.path == "/v1/videos"));
}

#[tokio::test]
async fn reports_the_status_of_a_refused_request() {
    let server = MockServer::start().await;
    server.inject(Fault::status(503).on("POST /v1/videos").times(1));
    let gateway = Gateway::new(&server.uri(), &server.demo_key());
    let refused = gateway
        .create_video("sora-2", "a calm lake")
        .await
        .expect("request");
    assert_eq!(refused, Err(503));
}
