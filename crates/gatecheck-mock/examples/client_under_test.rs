//! How another project tests its gateway client against the mock.
//!
//! `VideoModels` stands for the client code of some application: it lists the catalog's video
//! models and checks that its key works. The `#[tokio::test]`s below are what that project
//! would put in its own `tests/`: start a [`MockServer`], point the client at `server.uri()`,
//! inject faults, and read the journal.
//!
//! Run the tests with `cargo test -p gatecheck-mock --example client_under_test`, or the demo
//! with `cargo run -p gatecheck-mock --example client_under_test`.

use bytes::Bytes;
use gatecheck_mock::MockServer;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;

/// The application's client (the code under test).
struct VideoModels {
    base_url: String,
    api_key: String,
    http: Client<HttpConnector, Empty<Bytes>>,
}

impl VideoModels {
    fn new(base_url: &str, api_key: &str) -> Self {
        Self {
            base_url: base_url.to_owned(),
            api_key: api_key.to_owned(),
            http: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    async fn get(&self, path: &str, auth: bool) -> Result<(u16, serde_json::Value), String> {
        let mut req = hyper::Request::get(format!("{}{path}", self.base_url));
        if auth {
            req = req.header("authorization", format!("Bearer {}", self.api_key));
        }
        let req = req.body(Empty::new()).map_err(|e| e.to_string())?;
        let resp = self.http.request(req).await.map_err(|e| e.to_string())?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?;
        let json = serde_json::from_slice(&body.to_bytes()).unwrap_or(serde_json::Value::Null);
        Ok((status, json))
    }

    /// Video model ids from the catalog, retrying once on 5xx.
    async fn video_models(&self) -> Result<Vec<String>, String> {
        for _ in 0..2 {
            let (status, body) = self.get("/api/models?model_type=video", false).await?;
            if status >= 500 {
                continue;
            }
            let ids = body["data"]
                .as_array()
                .ok_or("no data")?
                .iter()
                .filter_map(|m| m["id"].as_str().map(str::to_owned))
                .collect();
            return Ok(ids);
        }
        Err("the catalog kept failing".into())
    }

    /// Whether the key is accepted by the model routes.
    async fn key_works(&self) -> Result<bool, String> {
        Ok(self.get("/v1/models", true).await?.0 == 200)
    }
}

#[tokio::main]
async fn main() {
    let server = MockServer::start().await;
    let client = VideoModels::new(&server.uri(), &server.demo_key());
    println!("video models: {:?}", client.video_models().await);
    println!("demo key works: {:?}", client.key_works().await);
    for call in server.received_requests() {
        println!("  {} {} -> {}", call.method, call.path, call.status);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecheck_mock::{Fault, NewKey};

    #[tokio::test]
    async fn lists_video_models() {
        let server = MockServer::start().await;
        let client = VideoModels::new(&server.uri(), &server.demo_key());
        let models = client.video_models().await.unwrap();
        assert!(models.contains(&"sora-2".to_owned()));
    }

    #[tokio::test]
    async fn retries_once_on_503() {
        let server = MockServer::start().await;
        server.inject(Fault::status(503).on("/api/models").times(1));
        let client = VideoModels::new(&server.uri(), &server.demo_key());
        assert!(client.video_models().await.is_ok());
        let statuses: Vec<u16> = server
            .received_requests()
            .iter()
            .map(|r| r.status)
            .collect();
        assert_eq!(statuses, vec![503, 200]);
    }

    #[tokio::test]
    async fn a_disabled_key_is_reported() {
        let server = MockServer::start().await;
        let disabled = server.add_key(NewKey::new().status(2));
        let client = VideoModels::new(&server.uri(), &format!("sk-{}", disabled.key));
        assert_eq!(client.key_works().await, Ok(false));
    }
}
