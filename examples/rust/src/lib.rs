//! The code under test: a tiny client of the gateway, as your application would have.

use serde_json::Value;

/// A client of the model-access gateway.
pub struct Gateway {
    base_url: String,
    api_key: String,
    http: reqwest::Client,
}

impl Gateway {
    /// A client of the gateway at `base_url` (no trailing `/`) using `api_key` (`sk-...`).
    pub fn new(base_url: &str, api_key: &str) -> Self {
        Self {
            base_url: base_url.to_owned(),
            api_key: api_key.to_owned(),
            http: reqwest::Client::new(),
        }
    }

    /// The ids of the catalog's video models (the catalog needs no key).
    pub async fn video_models(&self) -> reqwest::Result<Vec<String>> {
        let url = format!("{}/api/models?model_type=video", self.base_url);
        let body: Value = self.http.get(url).send().await?.json().await?;
        Ok(body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["id"].as_str().map(str::to_owned))
            .collect())
    }

    /// Starts a video task; returns its id, or the HTTP status the gateway refused it with.
    pub async fn create_video(
        &self,
        model: &str,
        prompt: &str,
    ) -> reqwest::Result<Result<String, u16>> {
        let response = self
            .http
            .post(format!("{}/v1/videos", self.base_url))
            .bearer_auth(&self.api_key)
            .json(&serde_json::json!({ "model": model, "prompt": prompt }))
            .send()
            .await?;
        if !response.status().is_success() {
            return Ok(Err(response.status().as_u16()));
        }
        let task: Value = response.json().await?;
        Ok(Ok(task["id"].as_str().unwrap_or_default().to_owned()))
    }
}
