//! A stateful fake of a new-api model-access gateway.

pub mod media;
pub mod video;
