//! The mock's parsers of untrusted request input, as public entry points for fuzzing
//! (`fuzz/`) and regression tests. Each is the function the handlers call, not a copy: they
//! live in `gatecheck-schemas`, so that the instrumented fuzz build compiles them without the
//! server around them.

pub use gatecheck_codecs::multipart::{read as read_multipart, MultipartField};
pub use gatecheck_schemas::rules::media::parse_size;
pub use gatecheck_schemas::rules::token::parse_update_body;
