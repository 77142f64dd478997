//! The codecs gatecheck's mock and conformance runner share, none of them about the contract:
//! what a body must hold and how the service behaves are `gatecheck-schemas`; this crate reads
//! and writes bytes.
//!
//! - [`scan`]: byte scans eight bytes at a time (a path segment's end, a byte that JSON
//!   escapes), which the schema crate's route lookup and key rules call.
//! - [`json`]: JSON writers of the hand-written serializers (strings, integers, booleans), byte
//!   for byte what `serde_json` writes.
//! - [`sse`]: `text/event-stream` framing, bytes in, events out, as the WHATWG parser reads
//!   them.
//! - `multipart` (feature `multipart`): `multipart/form-data` bodies read as the service reads
//!   them, in place from the frames they came in.
//! - `draw` (feature `draw`): seeded draws that a seed keeps the same in every release.
//! - `png` (feature `png`): the PNG codec of seeded images, decoding and edits.
//!
//! It depends on no other gatecheck crate.

#[cfg(feature = "draw")]
pub mod draw;
pub mod json;
#[cfg(feature = "multipart")]
pub mod multipart;
#[cfg(feature = "png")]
pub mod png;
pub mod scan;
pub mod sse;
