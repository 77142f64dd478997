//! Every task of the mock, in one room: the task models and the one [`TaskStore`] that owns
//! all task state.
//!
//! - `video.rs`: video tasks ([`video::StoredVideo`], [`video::VideoStore`]): `/v1/videos`,
//!   and every task of the task routes (one state machine on one clock, with the settlement
//!   of failed tasks' charges).
//! - `unified.rs`: what new-api's task routes add to a video task (action, platform, remix
//!   source, Kling `callback_url`; DECISIONS D-TASK), and its entries in the state dump.
//! - `platforms/`: the video platforms, one hooks file each: those behind the unified route
//!   and the channels that serve them (DECISIONS D-PLAT), and those outside it (Kling's and
//!   Jimeng's native routes with their providers' own task objects, the OpenAI-video task).
//! - `midjourney.rs`: Midjourney tasks (DECISIONS D-MJ).
//! - `callbacks.rs`: Kling's callbacks (D-TASK-9): the wait list, the outcomes, one POST.
//! - `store.rs`: [`TaskStore`], which holds all of the above for one mock, and its lock
//!   discipline.
//!
//! Nothing here imports the app, the routes or the server: registering a callback is the app's
//! ([`crate::app::App::register_callback`]), sending them the server's
//! ([`crate::server::delivery`]).

pub mod callbacks;
pub mod midjourney;
pub mod platforms;
mod store;
pub(crate) mod unified;
pub mod video;

pub(crate) use store::{TaskDump, TaskStore};
pub use unified::TaskMetaEntry;
