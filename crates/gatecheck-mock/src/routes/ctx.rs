//! What a handler knows about its request and the mock: [`Ctx`], and the request helpers every
//! route module shares (body reading, paging parameters, multipart). Route modules and the
//! dispatcher (`routes/mod.rs`) call down into it; it calls no route module.

use super::fields::Fields;
use crate::app::App;
use crate::fixtures::catalog::Catalog;
use crate::fixtures::Fixtures;
use crate::harness::journal::FormPart;
use crate::ids::Ids;
use crate::response::{self, MockResponse};
use crate::state::usage::{self, UsageEntry};
use crate::state::{AuthedKey, Charge};
use crate::tasks::video::VideoStore;
use bytes::Bytes;
use gatecheck_codecs::multipart::{Parts, Rope, Scan};
use gatecheck_schemas::rules::quota::{price_quota_at, Usage};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::ModelCapabilities;
use gatecheck_schemas::Profile;
use http::{HeaderValue, Method, Request};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The most bytes of a textual request body the journal keeps.
pub(crate) const BODY_PREVIEW_BYTES: usize = 2048;

/// The answer to a request whose body did not arrive within the body timeout (a stalled or
/// trickling upload): 408, and the connection is closed.
fn body_timed_out(timeout: std::time::Duration) -> MockResponse {
    let mut resp = response::json(
        408,
        &serde_json::json!({
            "success": false,
            "message": format!("the request body did not arrive within {} s", timeout.as_secs_f64()),
        }),
    );
    resp.headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// What a handler knows about its request and the mock.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) app: Arc<App>,
    /// The TCP peer.
    pub(crate) peer: SocketAddr,
    /// The client IP used for allowlists.
    pub(crate) client_ip: IpAddr,
    /// This request's id.
    pub(crate) request_id: crate::ids::RequestId,
    /// The mock clock when the request arrived (after an injected delay), Unix ms: one
    /// reading serves the whole request ([`Ctx::now`], [`Ctx::now_ms`]).
    pub(crate) at_ms: i64,
    /// The authenticated key (set on `/v1/*`).
    pub(crate) key: Option<AuthedKey>,
    /// The `Host` header, if any (a reference-counted view of the request's header bytes).
    pub(crate) host: Option<HeaderValue>,
    /// Length and (for textual bodies) a preview of the body read, for the journal.
    /// (The preview shares the body's bytes; the journal copies it.)
    pub(crate) body_seen: parking_lot::Mutex<Option<(usize, Option<Bytes>)>>,
    /// The key an `/api/token/` request reads or writes, by id (the journal's key when no
    /// API key authenticated the request).
    pub(crate) key_named: parking_lot::Mutex<Option<i64>>,
    /// The multipart parts read ([`Ctx::note_part`]), for the journal.
    pub(crate) form_seen: parking_lot::Mutex<Option<Vec<FormPart>>>,
    /// The catalog index of the model last priced for the key ([`Ctx::price_with`]): the
    /// model of the usage log's entry of the charge that follows (no copy of its name).
    pub(crate) priced: parking_lot::Mutex<Option<usize>>,
}

impl Ctx {
    /// The behaviour profile.
    pub(crate) fn profile(&self) -> Profile {
        self.app.config.profile
    }

    /// The era of new-api's task layer played (always [`gatecheck_schemas::Era::Adaptors`] on `documented`,
    /// which plays the spec's letter).
    pub(crate) fn era(&self) -> gatecheck_schemas::Era {
        self.app.era
    }

    /// Now on the mock clock, Unix seconds: the request's arrival ([`Ctx::at_ms`]).
    pub(crate) fn now(&self) -> i64 {
        self.at_ms.div_euclid(1000)
    }

    /// Now on the mock clock, Unix milliseconds: the request's arrival ([`Ctx::at_ms`]).
    pub(crate) fn now_ms(&self) -> i64 {
        self.at_ms
    }

    /// Notes a multipart part the route read, for the journal (at most
    /// [`MAX_FORM_PARTS`](crate::harness::journal::MAX_FORM_PARTS) of them).
    pub(crate) fn note_part(
        &self,
        name: &str,
        filename: Option<&str>,
        content_type: Option<&str>,
        data: &Rope,
    ) {
        let mut seen = self.form_seen.lock();
        let parts = seen.get_or_insert_with(Vec::new);
        if parts.len() < crate::harness::journal::MAX_FORM_PARTS {
            parts.push(FormPart::of(name, filename, content_type, data));
        }
    }

    /// Notes the key an `/api/token/` request names, for the journal.
    pub(crate) fn name_key(&self, id: i64) {
        *self.key_named.lock() = Some(id);
    }

    /// The model catalog and capabilities.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.app.catalog
    }

    /// All fixture data.
    pub(crate) fn fixtures(&self) -> &Fixtures {
        &self.app.config.fixtures
    }

    /// The seeded id source.
    pub(crate) fn ids(&self) -> &Ids {
        &self.app.ids
    }

    /// The video task store.
    pub(crate) fn videos(&self) -> &VideoStore {
        &self.app.tasks.videos
    }

    /// This request's id (also sent as `X-Oneapi-Request-Id`).
    #[allow(dead_code)] // part of the handler contract
    pub(crate) fn request_id(&self) -> &str {
        self.request_id.as_str()
    }

    /// The authenticated key; `None` only outside `/v1/*`.
    pub(crate) fn key(&self) -> Option<AuthedKey> {
        self.key
    }

    /// `http://<Host header>` (or the peer-facing address), for result URLs.
    pub(crate) fn base_url(&self) -> String {
        let mut url = String::new();
        self.push_base_url(&mut url);
        url
    }

    /// Appends [`Ctx::base_url`] to `out` (a result URL is built in one buffer).
    pub(crate) fn push_base_url(&self, out: &mut String) {
        out.push_str("http://");
        out.push_str(
            self.host
                .as_ref()
                .and_then(|h| h.to_str().ok())
                .unwrap_or("127.0.0.1"),
        );
    }

    /// A `/v1` 404 ([`response::not_found`]: new-api's own body in the `new-api` profile).
    pub(crate) fn not_found(&self, method: &Method, path: &str) -> MockResponse {
        let mut resp = response::not_found(self.profile(), method.as_str(), path);
        // The plugin era's `RelayNotFound` forbids caching (DECISIONS D-ERA-5).
        if self.plays_plugins() {
            for (name, value) in gatecheck_schemas::rules::era::NOT_FOUND_NO_STORE {
                resp.headers_mut().insert(
                    http::HeaderName::from_static(name),
                    http::HeaderValue::from_static(value),
                );
            }
        }
        resp
    }

    /// Whether the mock plays new-api's task plugins (the `new-api` profile in its default
    /// era; never `documented` nor `new-api-adaptors`).
    pub(crate) fn plays_plugins(&self) -> bool {
        self.profile() == Profile::NewApi && self.era() == gatecheck_schemas::Era::Plugins
    }

    /// Answers `resp` to `req` without reading its body, as Go's server does (reads a short
    /// rest first so that the client can finish sending; see [`crate::routes::linger`]). Every answer
    /// given before the body is read goes through here. A request without a body costs one
    /// check (no allocation).
    pub(crate) async fn refuse(&self, req: Request<Incoming>, resp: MockResponse) -> MockResponse {
        if hyper::body::Body::is_end_stream(req.body()) {
            return resp;
        }
        // Boxed: the rare path's state stays out of the callers' futures.
        Box::pin(crate::routes::linger::answer_unread(&self.app, req, resp)).await
    }

    /// Reads the whole body, at most the upload limit: 413 up front when `Content-Length` is
    /// over it, or as soon as the streamed body passes it. After a 413 the rest of the body
    /// is drained in the background (bounded; see [`crate::routes::linger`]) so that the connection
    /// closes without a reset that could destroy the answer; the 413 says `Connection:
    /// close` on HTTP/1.
    pub(crate) async fn read_body(&self, req: Request<Incoming>) -> Result<Bytes, MockResponse> {
        Ok(self.read_pieces(req, |_| {}).await?.into_bytes())
    }

    /// [`Ctx::read_body`] without joining the frames the body came in (an upload is read
    /// where hyper put it: BENCHMARKS.md), each frame handed to `on_frame` as it
    /// arrives.
    async fn read_pieces(
        &self,
        req: Request<Incoming>,
        mut on_frame: impl FnMut(&[u8]),
    ) -> Result<Rope, MockResponse> {
        let limit = self.app.config.max_body_bytes;
        let http1 = req.version() < http::Version::HTTP_2;
        let too_large = || {
            let mut resp = response::rejection(
                self.profile(),
                Rejection::BodyTooLarge,
                &format!("request body is larger than the limit of {limit} bytes"),
            );
            if http1 {
                resp.headers_mut()
                    .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
            }
            resp
        };
        let declared = req
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let textual = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| {
                ct.starts_with("application/json")
                    || ct.starts_with("application/x-www-form-urlencoded")
                    || ct.starts_with("text/")
            });
        // Drained also when the request says `Expect: 100-continue`: a client may send the
        // body without waiting (a proxy forwarding the header does), and hyper answers
        // `100 Continue` only while no final answer has been written, which clients handle.
        let mut body = req.into_body();
        let linger = |body: Incoming| {
            crate::routes::linger::drain_in_background(body, self.app.shutdown.clone())
        };
        if declared.is_some_and(|n| n > limit as u64) {
            linger(body);
            return Err(too_large());
        }
        let mut chunks: Vec<Bytes> = Vec::new();
        let mut len = 0usize;
        // One timer for the whole body, registered at its first wait and kept, not one per
        // frame: a megabyte comes in 8 frames or more.
        let deadline = tokio::time::sleep(self.app.config.body_timeout);
        let mut deadline = std::pin::pin!(deadline);
        loop {
            let frame = tokio::select! {
                biased;
                frame = body.frame() => frame,
                () = &mut deadline => {
                    return Err(body_timed_out(self.app.config.body_timeout));
                }
            };
            let Some(frame) = frame else { break };
            let frame = match frame {
                Ok(f) => f,
                Err(e) => {
                    return Err(response::invalid(
                        &format!("cannot read the body: {e}"),
                        None,
                    ))
                }
            };
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            len = len.saturating_add(data.len());
            if len > limit {
                drop(chunks);
                linger(body);
                return Err(too_large());
            }
            if !data.is_empty() {
                on_frame(&data);
                chunks.push(data);
            }
        }
        let body = Rope::from_chunks(chunks);
        let preview = textual.then(|| body.prefix_bytes(BODY_PREVIEW_BYTES));
        *self.body_seen.lock() = Some((body.len(), preview));
        Ok(body)
    }

    /// Reads a `multipart/form-data` body (bounded as [`Ctx::read_body`]) and splits it into
    /// its parts: the frames hyper read are kept as they came (not joined), the boundaries
    /// found in them in one scan, and each part's data is a slice of them.
    /// A missing or wrong content type is a validation error (see [`response::validation`]).
    pub(crate) async fn read_multipart(
        &self,
        req: Request<Incoming>,
    ) -> Result<Parts, MockResponse> {
        let boundary = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|ct| multer::parse_boundary(ct).ok());
        let Some(boundary) = boundary else {
            let resp =
                response::validation(self.profile(), "expected a multipart/form-data body", None);
            return Err(self.refuse(req, resp).await);
        };
        // The parts' ends are searched frame by frame, as the frames arrive (`Scan`).
        let mut ends = Scan::new(&boundary);
        let body = self.read_pieces(req, |frame| ends.feed(frame)).await?;
        Ok(Parts::scanned(body, boundary, ends))
    }

    /// Model limits of the key: 403 when the key may not use `model`.
    pub(crate) fn check_model(&self, model: &str) -> Result<(), MockResponse> {
        let Some(key) = self.key else { return Ok(()) };
        if self.app.state.model_allowed(key.id, model, self.profile()) {
            Ok(())
        } else {
            Err(response::rejection(
                self.profile(),
                Rejection::ModelNotAllowed,
                &format!("This token has no access to model {model}"),
            ))
        }
    }

    /// `new-api` only: a model the catalog does not know has no channel, and new-api's
    /// distributor answers 503 `model_not_found` (DECISIONS NA5). `documented` leaves the
    /// model to the route's own validation (400).
    pub(crate) fn check_channel(&self, model: &str) -> Result<(), MockResponse> {
        if self.profile() != Profile::NewApi || self.catalog().model(model).is_some() {
            return Ok(());
        }
        let r = Rejection::UnknownModel;
        let message = gatecheck_schemas::rules::rejection::unknown_model_message(
            self.profile(),
            model,
            "default",
        );
        Err(response::v1_error(
            r.http_status(self.profile()),
            &message,
            r.code(self.profile()),
            None,
        ))
    }

    /// The `model` of a request, trimmed and required (a [`response::validation`] "model is
    /// required" otherwise), then checked against the key's model limits
    /// ([`Ctx::check_model`], 403).
    pub(crate) fn required_model(&self, raw: Option<&str>) -> Result<String, MockResponse> {
        let model = match raw.map(str::trim) {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => {
                return Err(response::validation(
                    self.profile(),
                    "model is required",
                    Some("model"),
                ))
            }
        };
        self.check_model(&model)?;
        self.check_channel(&model)?;
        Ok(model)
    }

    /// Step 2 of a JSON model route (speech, image generation), after step 1 (the handler's
    /// [`Ctx::read_body`]), in this order: parse the body as JSON (a [`response::validation`]
    /// "invalid JSON body" otherwise) into its top-level [`Fields`], borrowed from `body`;
    /// take its `model` ([`Ctx::required_model`]: required, then model limits), then look up
    /// the model's capability with `capability`; a model without one is a
    /// [`response::validation`] "model {model} is not {not_a}" on `model`.
    pub(crate) fn json_model<'a, 'b, T: 'a>(
        &'a self,
        body: &'b [u8],
        capability: impl FnOnce(&'a ModelCapabilities) -> Option<&'a T>,
        not_a: &str,
    ) -> Result<(Fields<'b>, String, &'a T), MockResponse> {
        let v = Fields::parse(body).map_err(|e| {
            response::validation(self.profile(), &format!("invalid JSON body: {e}"), None)
        })?;
        let model = self.required_model(v.get("model").and_then(|x| x.as_str()))?;
        let Some(cap) = self.catalog().capabilities(&model).and_then(capability) else {
            return Err(response::validation(
                self.profile(),
                &format!("model {model} is not {not_a}"),
                Some("model"),
            ));
        };
        Ok((v, model, cap))
    }

    /// The price of `usage` on `model` in quota units for this request's key: the catalog
    /// price times the ratio of the key's group (new-api's `price x model ratio x group ratio`,
    /// `rules::quota::price_quota_at`; 0 for a model not in the catalog).
    pub(crate) fn price(&self, model: &str, usage: Usage) -> i64 {
        self.price_with(model, usage, price_quota_at)
    }

    /// The price of `usage` on `model` by `quota(pricing, usage, group ratio)` (0 for a model
    /// not in the catalog).
    pub(crate) fn price_with(
        &self,
        model: &str,
        usage: Usage,
        quota: impl FnOnce(&gatecheck_schemas::types::Pricing, Usage, f64) -> i64,
    ) -> i64 {
        let catalog = self.catalog();
        let index = catalog.index(model);
        if self.key.is_some() {
            *self.priced.lock() = index;
        }
        let fixtures = self.fixtures();
        let ratio = self
            .key
            .and_then(|k| {
                self.app
                    .state
                    .with_key_group(k.id, |g| fixtures.group_ratio_of(g))
            })
            .unwrap_or(1.0);
        index
            .and_then(|i| catalog.models().get(i))
            .map(|m| quota(&m.pricing, usage, ratio))
            .unwrap_or(0)
    }

    /// Charges `price` to the key atomically: 403 `pre_consume_token_quota_failed` when its
    /// remaining quota is lower.
    pub(crate) fn charge(&self, price: i64) -> Result<Charge, MockResponse> {
        let Some(key) = self.key else {
            return Ok(Charge {
                price: 0,
                remain_quota: 0,
                used_quota: 0,
                log_id: 0,
            });
        };
        let logged = |mut charge: Charge| {
            let model = self.priced.lock().take();
            charge.log_id = self.app.usage.push(UsageEntry {
                id: 0,
                user_id: key.user_id,
                key_id: key.id,
                created_at: self.now(),
                kind: usage::TYPE_CONSUME,
                model,
                quota: charge.price,
                request_id: Some(self.request_id),
            });
            charge
        };
        self.app
            .state
            .charge(key.id, price, self.now())
            .map(logged)
            .map_err(|r| {
                let msg =
                    match r {
                        Rejection::InsufficientQuota => format!(
                        "token quota is not enough, token remain quota: {}, need quota: {price}",
                        self.app.state.key(key.id).map(|k| k.remain_quota).unwrap_or(0)
                    ),
                        other => other.default_message().to_owned(),
                    };
                response::rejection(self.profile(), r, &msg)
            })
    }

    /// A streamed answer to `POST path` for `model` of `events`, paced by the configured gap
    /// (on wall time or the mock's clock), with the stream fault that fires for it (seeded
    /// like the others). `buffered`: built whole and sent with its length (a gateway that
    /// reads the stream whole before relaying it). A stream script installed for the route
    /// and model plays instead of `events`.
    pub(crate) fn stream(
        &self,
        path: &str,
        model: &str,
        events: impl Iterator<Item = crate::response::sse::Event> + Send + 'static,
        framing: crate::response::sse::Framing,
        done_marker: bool,
        buffered: bool,
    ) -> MockResponse {
        use crate::response::sse::{Pacing, SseBody};
        let fault = self.app.faults.pick_stream("POST", path);
        let script = self.app.scripts.take("POST", path, model);
        let paced_by = script
            .as_ref()
            .and_then(|s| s.pacing)
            .unwrap_or(self.app.config.stream_pacing);
        let pacing = Pacing {
            framing,
            done_marker,
            gap: self.app.config.stream_event_gap,
            buffered,
            clock: (paced_by == crate::StreamPacing::Clock).then(|| self.app.clock.clone()),
        };
        let body = match script {
            Some(playing) => SseBody::scripted(playing, pacing, fault),
            None => SseBody::new(events, pacing, fault),
        };
        response::stream_response(body)
    }

    /// Gives back a charge made by [`Ctx::charge`].
    pub(crate) fn refund(&self, charge: &Charge) {
        if let Some(key) = self.key {
            self.app.state.refund(key.id, charge.price);
            // new-api logs a consume once the request has succeeded: a charge given back
            // before the answer leaves no entry.
            self.app.usage.remove(charge.log_id);
        }
    }

    /// Admits the request's key as on `/v1/*`: authenticated (401, 403; set as
    /// [`Ctx::key`]), then within its rate limit (429 with `Retry-After`).
    pub(crate) fn admit_key(&mut self, headers: &http::HeaderMap) -> Result<(), MockResponse> {
        let key =
            crate::routes::auth::authenticate_key(&self.app, headers, self.client_ip, self.now())?;
        self.key = Some(key);
        if let Err(retry) = self.app.ratelimit.check(key.id, self.now_ms()) {
            let mut resp = response::rejection(
                self.profile(),
                Rejection::RateLimited,
                "Too many requests for this key, please retry later",
            );
            if let Ok(v) = HeaderValue::from_str(&retry.to_string()) {
                resp.headers_mut().insert(http::header::RETRY_AFTER, v);
            }
            return Err(resp);
        }
        Ok(())
    }

    /// [`Ctx::check_model`] then [`Ctx::charge`].
    #[allow(dead_code)] // part of the handler contract
    pub(crate) fn admit_model_request(
        &self,
        model: &str,
        price: i64,
    ) -> Result<Charge, MockResponse> {
        self.check_model(model)?;
        self.charge(price)
    }
}

/// The paging parameters of a listing (`GET /api/models`, `GET /api/token/`): in the
/// documented profile an out-of-range or non-numeric one is 400 with the `/api` failure
/// envelope; new-api normalises them.
pub(crate) fn paging_ok(cx: &Ctx, query: &str) -> Result<(), MockResponse> {
    if cx.profile() == Profile::NewApi {
        return Ok(());
    }
    gatecheck_schemas::rules::catalog::check_paging(query)
        .map_err(|msg| response::api_failure_status(400, &msg))
}
