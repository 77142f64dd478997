//! What a test drives and reads back besides the service itself: the [`clock::Clock`] (real or
//! virtual), the [`faults::Fault`]s it injects, and the [`journal::Journal`] of every request.

pub(crate) mod clock;
pub(crate) mod faults;
pub(crate) mod journal;
