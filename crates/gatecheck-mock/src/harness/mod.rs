//! What a test drives and reads back besides the service itself: the [`clock::Clock`] (real or
//! virtual), the [`faults::Fault`]s it injects, and the [`journal::Journal`] of every request;
//! `polls.rs`, the polls that move a virtual clock (`MockConfig::poll_advance`).

pub(crate) mod clock;
pub(crate) mod faults;
pub(crate) mod journal;
pub(crate) mod polls;
