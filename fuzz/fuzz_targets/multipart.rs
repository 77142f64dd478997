//! Fuzz target `multipart`: see `multipart` in `fuzz/drivers.rs`.
#![no_main]

#[path = "../drivers.rs"]
#[allow(dead_code)]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::multipart(data));
