//! Integration tests of the mock over real HTTP (one module per area; one test per rule).

mod auth;
mod catalog;
mod control;
mod journal;
mod library;
mod limits;
mod media_audio;
mod media_edits;
mod media_formats;
mod media_images;
mod media_util;
mod media_video;
mod midjourney;
mod profiles;
mod quota;
mod reliability;
mod replay;
mod routes;
mod stream_script;
mod streams;
mod support;
mod tasks;
mod token_api;
mod ui;
mod unread;
mod video_resource;
