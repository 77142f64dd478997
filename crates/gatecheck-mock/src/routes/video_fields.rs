//! The fields of a video create (`POST /v1/videos`, the unified route), from any of its three
//! encodings (multipart, urlencoded, JSON), with what a plugin's `decodeRequest` reads of them
//! (the body's kind, its file parts, every text field).

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::openai_video::BodyKind;
use http::Request;
use hyper::body::Incoming;

/// The create fields, from any of the three encodings.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    pub model: Option<String>,
    pub prompt: Option<String>,
    pub(crate) seconds: Option<String>,
    pub(crate) size: Option<String>,
    /// The JSON body as an object, when the body was JSON (the unified route's platforms read
    /// more of it: `routes/platform.rs`).
    pub raw: Option<serde_json::Map<String, serde_json::Value>>,
    /// How the body came (JSON unless multipart or urlencoded): what a plugin's
    /// `decodeRequest` takes (`routes/plugin_video.rs`).
    pub kind: Option<BodyKind>,
    /// The names of the file parts of a multipart body.
    pub files: Vec<String>,
    /// Every text field of a multipart or urlencoded body, as JSON strings.
    pub form: serde_json::Map<String, serde_json::Value>,
}

impl Fields {
    /// The fields the service reads; any other is ignored.
    const KNOWN: [&'static str; 4] = ["model", "prompt", "seconds", "size"];

    /// The `seconds` field as sent, if any.
    pub(crate) fn seconds_text(&self) -> Option<String> {
        self.seconds.clone()
    }

    fn set(&mut self, name: &str, value: String) {
        if self.raw.is_none() {
            self.form
                .insert(name.to_owned(), serde_json::Value::String(value.clone()));
        }
        match name {
            "model" => self.model = Some(value),
            "prompt" => self.prompt = Some(value),
            "seconds" => self.seconds = Some(value),
            "size" => self.size = Some(value),
            _ => {}
        }
    }
}

pub(crate) async fn read_fields(cx: &Ctx, req: Request<Incoming>) -> Result<Fields, MockResponse> {
    let ct = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut f = Fields::default();
    if ct.starts_with("multipart/form-data") {
        if multer::parse_boundary(&ct).is_err() {
            return Err(response::invalid(
                "multipart/form-data without a boundary",
                None,
            ));
        }
        f.kind = Some(BodyKind::Multipart);
        let mut parts = cx.read_multipart(req).await?;
        let bad = |e: multer::Error| response::invalid(&format!("bad multipart body: {e}"), None);
        while let Some(part) = parts.next_part().await.map_err(bad)? {
            let name = part.name.as_deref().unwrap_or("");
            let (filename, content_type) =
                (part.file_name.as_deref(), part.content_type.as_deref());
            cx.note_part(name, filename, content_type, &part.data);
            if filename.is_some() {
                f.files.push(name.to_owned());
            }
            if name != "input_reference" {
                f.set(name, super::form::text(&part.data));
            }
        }
    } else if ct.starts_with("application/x-www-form-urlencoded") {
        f.kind = Some(BodyKind::Other);
        let body = cx.read_body(req).await?;
        for (k, v) in url::form_urlencoded::parse(&body) {
            f.set(&k, v.into_owned());
        }
    } else {
        let body = cx.read_body(req).await?;
        let v: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| response::invalid(&format!("invalid JSON body: {e}"), None))?;
        let serde_json::Value::Object(obj) = v else {
            return Err(response::invalid("the JSON body must be an object", None));
        };
        f.kind = Some(BodyKind::Json);
        f.raw = Some(serde_json::Map::new());
        for (k, v) in &obj {
            let text = match v {
                serde_json::Value::Null => continue,
                _ if !Fields::KNOWN.contains(&k.as_str()) => continue,
                serde_json::Value::String(s) => s.clone(),
                // `seconds` may be a JSON integer (`8`, also written `8.0`).
                serde_json::Value::Number(n) if k == "seconds" => match n.as_f64() {
                    Some(x) if n.as_i64().is_none() && x.fract() == 0.0 => format!("{x:.0}"),
                    _ => n.to_string(),
                },
                _ if k == "seconds" => {
                    return Err(response::invalid(
                        "seconds must be a string or an integer",
                        None,
                    ))
                }
                _ => return Err(response::invalid(&format!("{k} must be a string"), None)),
            };
            f.set(k, text);
        }
        f.raw = Some(obj);
    }
    Ok(f)
}
