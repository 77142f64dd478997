//! One OpenAPI operation per entry of the route table ([`crate::routes::ROUTES`]), by
//! `operationId`. Statuses are the union of both profiles': `documented` and `new-api` (which
//! answers 500 `invalid_request` on audio and image validation and 400 `task_not_exist` for an
//! unknown video task).
//!
//! The operations are built by group (one module each, from the small builders of `build`);
//! [`operation`] picks a row's group by its [`Op`], as the mock picks its handler, so a new
//! `Op` does not compile until it has a group; the group builds the operation of the row's
//! `operationId`.

mod build;
mod key_batch;
mod key_routes;
mod model_routes;
mod public;
mod site;
mod user_routes;

use crate::routes::{Op, Route};
use serde_json::Value;

/// The operation of a row of the table, or `None` for an `operationId` its group lacks (a
/// test of the document fails on it).
pub(super) fn operation(route: &Route) -> Option<Value> {
    let id = route.operation_id;
    match route.op {
        Op::CreateTranslation | Op::CreateTranscription | Op::CreateSpeech => {
            model_routes::audio(id)
        }
        Op::CreateVideo | Op::ListVideos => model_routes::video(id),
        Op::GetVideo | Op::DeleteVideo | Op::GetVideoContent => model_routes::video_task(id),
        Op::CreateImage | Op::CreateImageEdit => model_routes::images(id),
        Op::ListKeyModels | Op::GetKeyModel | Op::ListModels => model_routes::models(id),
        Op::GetTokenUsage | Op::ListTokens | Op::GetToken | Op::GetTokenKey => {
            key_routes::key_reads(id)
        }
        Op::UpdateToken | Op::CreateToken | Op::DeleteToken => key_routes::key_writes(id),
        Op::SearchTokens | Op::DeleteTokenBatch | Op::GetTokenKeysBatch => key_batch::keys(id),
        Op::ListGeminiModels => key_batch::gemini(id),
        Op::MediaImage | Op::MediaEdit | Op::Health => public::media_and_health(id),
        Op::GetPricing | Op::GetStatus => site::site(id),
        Op::GetSelf
        | Op::GetSelfGroups
        | Op::GetUserModels
        | Op::GetSelfLogs
        | Op::GetSelfLogStat
        | Op::GetSelfQuotaData => user_routes::user(id),
        Op::Mj(_) => super::midjourney::operation(id),
        Op::Native(op) => super::native::operation(op),
        Op::RemixVideo
        | Op::CreateVideoGeneration
        | Op::GetVideoGeneration
        | Op::CreateKlingTask
        | Op::GetKlingTask
        | Op::Jimeng => super::tasks::operation(id),
    }
}
