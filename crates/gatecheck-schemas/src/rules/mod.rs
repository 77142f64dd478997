//! The behaviour model of the service: pure functions, no I/O.
//!
//! The mock runs these to decide what to answer; the conformance runner runs the same functions
//! to predict what a target must answer. Keeping one copy means the two cannot drift apart.
//!
//! - [`auth`]: parsing the `Authorization` header of model routes and key-management routes.
//! - [`key`]: admitting a key (status, expiry, quota) and its model limits.
//! - [`ip`]: the `allow_ips` allowlist.
//! - [`quota`]: prices in quota units.
//! - [`token`]: `PUT /api/token/`, check by check, in the order of DECISIONS.md.
//! - [`health`]: the mock's health signature (how a runner recognises the mock).
//! - [`catalog`]: paging and filtering of `GET /api/models`.
//! - [`refund`]: the refund of a task that fails (the state edge every task route calls).
//! - [`rejection`]: every way a request is refused, with its status and code per profile.
//! - [`route`]: the answer to a method and path the service does not route (per profile).
//! - [`image_edit`]: `POST /v1/images/edits` (image parts, a missing image, charging).
//! - [`midjourney`]: the `/mj/*` task routes (actions, key, answers, records, charging).
//! - [`platforms`]: the video platforms behind the unified route (Vidu, Hailuo, Doubao...), one
//!   file each.
//! - [`forwarding`]: the headers an intermediary (replay front, recorder) does not pass on.
//! - [`token_batch`]: key search and the batch routes (limits, messages, matching).
//! - [`model_lists`]: the Anthropic and Gemini shapes of the model lists.
//! - [`openai_video`]: new-api's `openai_video` host protocol in the plugin era (the bodies a
//!   plugin decodes, the host-owned render, the content route).

pub mod auth;
pub mod catalog;
pub mod era;
pub mod forwarding;
pub mod health;
pub mod image_edit;
pub mod ip;
pub mod key;
pub mod media;
pub mod midjourney;
pub mod model_lists;
pub mod openai_video;
pub mod platform_record;
pub mod platforms;
pub mod quota;
pub mod refund;
pub mod rejection;
pub mod route;
pub mod task;
pub mod time;
pub mod token;
pub mod token_batch;
pub mod video;

pub use rejection::Rejection;
