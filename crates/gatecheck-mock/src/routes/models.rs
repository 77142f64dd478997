//! The model lists: `GET /v1/models` and `GET /v1/models/{model}` (the key's models, in
//! OpenAI's shapes, or Anthropic's for its clients), `GET /v1beta/models` (Gemini's shape) and
//! `GET /api/models` (the site's catalog, paged).

use super::ctx::{paging_ok, Ctx};
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::model_lists::{
    self as lists, ListShape, ANTHROPIC_VERSION, KEY_QUERY, X_API_KEY, X_GOOG_API_KEY,
};
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::ModelRecord;
use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderValue, Method};
use std::borrow::Cow;

/// The value of a header, `None` when absent or not text.
fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The value of `?key=`.
fn query_key(query: &str) -> Option<String> {
    gatecheck_schemas::rules::catalog::query_pairs(query)
        .into_iter()
        .find(|(k, _)| k == KEY_QUERY)
        .map(|(_, v)| v)
}

/// The headers a model list is admitted with: the key of `x-goog-api-key`, `?key=` or (on
/// `/v1/models`) `x-api-key` as `Authorization`, as new-api's TokenAuth reads it there
/// (DECISIONS D-MODELS-1, D-MODELS-3). Borrowed as they are when none is sent.
pub(crate) fn list_headers<'h>(
    headers: &'h HeaderMap,
    query: &str,
    v1: bool,
) -> Cow<'h, HeaderMap> {
    let key = query_key(query);
    let (x_api, goog) = (header(headers, X_API_KEY), header(headers, X_GOOG_API_KEY));
    if x_api.is_none() && goog.is_none() && key.is_none() {
        return Cow::Borrowed(headers);
    }
    let value = lists::list_credential(
        header(headers, "authorization"),
        x_api,
        goog,
        key.as_deref(),
        v1,
    );
    let mut out = headers.clone();
    match HeaderValue::from_str(&value) {
        Ok(v) => {
            out.insert(AUTHORIZATION, v);
        }
        Err(_) => {
            out.remove(AUTHORIZATION);
        }
    }
    Cow::Owned(out)
}

/// The models of the admitted key, in the catalog's order.
fn key_models(cx: &Ctx) -> Option<Vec<&ModelRecord>> {
    let key = cx.key?;
    Some(
        cx.catalog()
            .models()
            .iter()
            .filter(|m| cx.app.state.model_allowed(key.id, &m.id, cx.profile()))
            .collect(),
    )
}

/// `GET /v1/models`: the models the key may use, in OpenAI's list shape, or in the shape the
/// client's headers ask for (admitted; `rules::model_lists::list_shape`).
pub(crate) fn list(cx: &Ctx, headers: &HeaderMap, query: &str) -> MockResponse {
    let Some(models) = key_models(cx) else {
        return cx.not_found(&Method::GET, "/v1/models");
    };
    let given = |name: &str| header(headers, name).is_some_and(|v| !v.is_empty());
    let shape = lists::list_shape(
        given(X_API_KEY),
        given(ANTHROPIC_VERSION),
        given(X_GOOG_API_KEY),
        query_key(query).is_some_and(|k| !k.is_empty()),
    );
    let body = match shape {
        ListShape::Anthropic => {
            lists::anthropic_list(models.iter().map(|m| (m.id.as_str(), m.created)))
        }
        ListShape::GeminiRetrieve => lists::empty_model_error(""),
        ListShape::OpenAi => {
            let data: Vec<_> = models
                .into_iter()
                .map(crate::fixtures::catalog::model_object)
                .collect();
            serde_json::json!({"object": "list", "data": data})
        }
    };
    response::json(ACCEPTED, &body)
}

/// `GET /v1beta/models`: the models the key may use, in Gemini's list shape (admitted).
pub(crate) fn gemini(cx: &Ctx) -> MockResponse {
    let Some(models) = key_models(cx) else {
        return cx.not_found(&Method::GET, lists::GEMINI_MODELS_PATH);
    };
    response::json(
        ACCEPTED,
        &lists::gemini_list(models.iter().map(|m| m.id.as_str())),
    )
}

/// `GET /v1/models/{model}` (admitted): the model, if the key may use it.
pub(crate) fn get(cx: &Ctx, id: &str) -> MockResponse {
    if let Err(resp) = cx.check_model(id) {
        return resp;
    }
    match cx.catalog().model_body(id) {
        Some(body) => response::json_bytes(ACCEPTED, body),
        None => {
            let r = Rejection::ModelNotFound;
            response::v1_error(
                r.http_status(cx.profile()),
                &format!("The model `{id}` does not exist"),
                r.code(cx.profile()),
                Some("model"),
            )
        }
    }
}

/// `GET /api/models?p=&page_size=`: a page of the catalog.
pub(crate) fn catalog_page(cx: &Ctx, query: &str) -> MockResponse {
    if let Err(msg) = paging_ok(cx, query) {
        return msg;
    }
    response::json_bytes(ACCEPTED, cx.catalog().page_bytes(query))
}
