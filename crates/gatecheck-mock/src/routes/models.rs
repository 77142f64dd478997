//! The model lists: `GET /v1/models` and `GET /v1/models/{model}` (the key's models, in
//! OpenAI's shapes), and `GET /api/models` (the site's catalog, paged).

use super::ctx::{paging_ok, Ctx};
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::Rejection;
use http::Method;

/// `GET /v1/models`: the models the key may use, OpenAI's list shape (admitted).
pub(crate) fn list(cx: &Ctx) -> MockResponse {
    let Some(key) = cx.key else {
        return cx.not_found(&Method::GET, "/v1/models");
    };
    let data: Vec<_> = cx
        .catalog()
        .models()
        .iter()
        .filter(|m| cx.app.state.model_allowed(key.id, &m.id, cx.profile()))
        .map(crate::fixtures::catalog::model_object)
        .collect();
    response::json(
        ACCEPTED,
        &serde_json::json!({"object": "list", "data": data}),
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
