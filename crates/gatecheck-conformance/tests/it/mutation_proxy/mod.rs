//! The mutation proxy: it stands in front of the mock and plants one bug (`planted::Bug`) in
//! what passes through, for the mutation tests (`mutations.rs`) and the stream tests. This file
//! holds the proxy (forwarding, and the bugs that need its whole exchange); each surface's
//! bugs live in their own file (`keys.rs`, `audio.rs`, `images.rs`, `tasks.rs`, `streams.rs`,
//! `routes.rs`, `plugins.rs`, `native.rs`, and `bodies.rs` for the JSON rewrites several share), each with a `request`
//! side (the request changed, or answered in the upstream's place) and a `respond` side (the
//! answer changed, or replaced). A bug is planted by one surface only, so the order in which
//! [`REQUEST_SIDE`] and [`RESPONSE_SIDE`] ask them does not matter.

mod audio;
mod bodies;
mod images;
mod keys;
mod native;
mod plugins;
mod routes;
mod streams;
mod tasks;

use crate::planted::Bug;
use crate::support::with_data;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_conformance::internals::known_capabilities;
use gatecheck_schemas::rules::token::{self, MSG_NAME_TOO_LONG_NEW_API};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;

/// One answer, in the upstream's place or changed.
type Reply = Response<Full<Bytes>>;

/// A request as the request-side bugs see it.
#[derive(Clone, Copy)]
struct Req<'a> {
    path: &'a str,
    query: Option<&'a str>,
    auth: &'a str,
    method: &'a http::Method,
}

/// An answer as the response-side bugs see it: the request's path, method and query, and the
/// answer's status, `/v1` error message and code, `/api/token` failure message.
#[derive(Clone, Copy)]
struct Answer<'a> {
    path: &'a str,
    method: &'a http::Method,
    query: Option<&'a str>,
    auth: &'a str,
    status: u16,
    message: &'a str,
    code: &'a str,
    api_message: &'a str,
    /// A poll of a `/v1/videos` task.
    is_poll: bool,
    /// The request asked for a stream.
    asks_stream: bool,
    /// The image an edit uploaded ([`Bug::EditReturnsUpload`]).
    upload: Option<&'a (Vec<u8>, usize)>,
}

/// The request side of each surface.
type RequestSide = fn(&Proxy, &Req<'_>, &mut http::request::Parts, &mut Bytes) -> Option<Reply>;
const REQUEST_SIDE: [RequestSide; 6] = [
    keys::request,
    plugins::request,
    audio::request,
    images::request,
    tasks::request,
    streams::request,
];

/// The response side of each surface.
type ResponseSide =
    fn(&Proxy, &Answer<'_>, &mut http::response::Parts, &mut Bytes) -> Option<Reply>;
const RESPONSE_SIDE: [ResponseSide; 9] = [
    keys::respond,
    native::respond,
    plugins::respond,
    images::respond,
    routes::respond,
    audio::respond,
    tasks::respond,
    streams::respond,
    bodies::respond,
];

struct Proxy {
    upstream: String,
    bug: Bug,
    client: Client<HttpConnector, Full<Bytes>>,
    polls: AtomicU64,
    /// What the refund bugs keep of the key's books (`planted_tasks::books`).
    books: std::sync::Mutex<Option<(i64, i64)>>,
    /// What the billing bugs charge on top of the mock (`planted_billing::book`).
    billing: std::sync::Mutex<crate::planted_billing::Books>,
}

pub(crate) async fn start_proxy(upstream: String, bug: Bug) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let proxy = Arc::new(Proxy {
        upstream,
        bug,
        client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
        polls: AtomicU64::new(0),
        books: std::sync::Mutex::new(None),
        billing: Default::default(),
    });
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                break;
            };
            let proxy = proxy.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let proxy = proxy.clone();
                    async move { Ok::<_, std::convert::Infallible>(proxy.handle(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

fn json_response(status: u16, v: &Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("ct"));
    r.headers_mut()
        .insert("x-oneapi-request-id", "proxy".parse().expect("id"));
    r
}

fn admitted_400() -> Response<Full<Bytes>> {
    json_response(
        400,
        &json!({"error": {"message": "invalid request", "type": "new_api_error", "param": null, "code": "invalid_request"}}),
    )
}

impl Proxy {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let (mut parts, body) = req.into_parts();
        let mut body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let path = parts.uri.path().to_string();
        let query = parts.uri.query().map(str::to_owned);
        let auth = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let method = parts.method.clone();
        // What `StatusIgnoredClaimed` claims applied.
        let claimed = (self.bug == Bug::StatusIgnoredClaimed && path == "/api/token/")
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .and_then(|v| v.get("status").cloned());
        let unpublished = matches!(self.bug, Bug::PricingNotServed | Bug::NothingCharged);
        if unpublished && path == "/api/pricing" {
            return json_response(404, &json!({"success": false, "message": "not found"}));
        }
        // Request-side bugs.
        let r = Req {
            path: &path,
            query: query.as_deref(),
            auth: &auth,
            method: &method,
        };
        for request in REQUEST_SIDE {
            if let Some(reply) = request(self, &r, &mut parts, &mut body) {
                return reply;
            }
        }
        let asks_stream = crate::planted_key_routes::asks_stream(&body);
        let upload = (self.bug == Bug::EditReturnsUpload && path == "/v1/images/edits")
            .then(|| crate::planted_image_results::upload(&body))
            .flatten();
        // Forward.
        parts.headers.remove("content-length");
        parts.headers.remove("transfer-encoding");
        let (sent_headers, sent_body) = (parts.headers.clone(), body.clone());
        let uri = format!(
            "{}{}",
            self.upstream,
            parts
                .uri
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or("/")
        );
        parts.uri = uri.parse().expect("uri");
        if crate::planted_billing::sends_twice(self.bug, &path, &body) {
            let mut copy = Request::new(Full::new(body.clone()));
            *copy.method_mut() = parts.method.clone();
            *copy.uri_mut() = parts.uri.clone();
            *copy.headers_mut() = parts.headers.clone();
            if let Ok(r) = self.client.request(copy).await {
                let _ = r.into_body().collect().await;
            }
        }
        let upstream = Request::from_parts(parts, Full::new(body));
        let Ok(resp) = self.client.request(upstream).await else {
            return json_response(
                502,
                &json!({"error": {"message": "proxy: upstream failed", "type": "proxy", "param": null, "code": null}}),
            );
        };
        let (mut rparts, rbody) = resp.into_parts();
        let mut rbody = rbody
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        // A HEAD answer keeps the length of the body it does not carry.
        if method != http::Method::HEAD {
            rparts.headers.remove("content-length");
        }
        rparts.headers.remove("transfer-encoding");
        let status = rparts.status.as_u16();
        if let (Some(status), Some(mut v)) =
            (&claimed, serde_json::from_slice::<Value>(&rbody).ok())
            && v["success"] == true
            && v["data"].is_object()
        {
            v["data"]["status"] = status.clone();
            rbody = Bytes::from(serde_json::to_string_pretty(&v).expect("json"));
        }
        if crate::planted_billing::plants(self.bug) {
            let seen = (&method, path.as_str(), status);
            crate::planted_billing::book(self.bug, seen, &self.billing, &mut rbody);
        }
        let rjson = || serde_json::from_slice::<Value>(&rbody).ok();
        // A `/v1` error's, else a task error's (`{code, message, data}`) at the top level.
        let error_field = |name: &str| {
            rjson()
                .and_then(|v| {
                    v.get("error")
                        .filter(|e| e.is_object())
                        .unwrap_or(&v)
                        .get(name)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_default()
        };
        let message = error_field("message");
        let code = error_field("code");
        // The message of an `/api/token/` failure (`{success:false, message}`).
        let api_message = rjson()
            .filter(|_| path.starts_with("/api/token"))
            .filter(|v| v.get("success") == Some(&json!(false)))
            .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        let is_poll = method == http::Method::GET
            && path.starts_with("/v1/videos/task_")
            && !path.ends_with("/content");
        if crate::planted_tasks::remix_refused_unknown(self.bug, &method, &path, &rbody)
            && let Some((create, b)) = crate::planted_tasks::plain_create(&sent_body)
        {
            return self.send_instead(create, sent_headers, b).await;
        }
        // Response-side bugs.
        let a = Answer {
            path: &path,
            method: &method,
            query: query.as_deref(),
            auth: &auth,
            status,
            message: &message,
            code: &code,
            api_message: &api_message,
            is_poll,
            asks_stream,
            upload: upload.as_ref(),
        };
        for respond in RESPONSE_SIDE {
            if let Some(reply) = respond(self, &a, &mut rparts, &mut rbody) {
                return reply;
            }
        }
        Response::from_parts(rparts, Full::new(rbody))
    }

    /// `POST path` with `headers` and `body` sent upstream in place of the client's request,
    /// its answer relayed as it came.
    async fn send_instead(
        &self,
        path: &str,
        headers: http::HeaderMap,
        body: Bytes,
    ) -> Response<Full<Bytes>> {
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = http::Method::POST;
        *req.uri_mut() = format!("{}{path}", self.upstream).parse().expect("uri");
        *req.headers_mut() = headers;
        req.headers_mut()
            .insert("content-type", "application/json".parse().expect("ct"));
        let Ok(resp) = self.client.request(req).await else {
            return json_response(
                502,
                &json!({"error": {"message": "proxy: upstream failed"}}),
            );
        };
        let (mut rparts, rbody) = resp.into_parts();
        let rbody = rbody
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        rparts.headers.remove("content-length");
        rparts.headers.remove("transfer-encoding");
        Response::from_parts(rparts, Full::new(rbody))
    }
}
