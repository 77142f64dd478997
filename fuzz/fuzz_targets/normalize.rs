//! Fuzz target `normalize`: see `normalize` in `fuzz/drivers.rs`.
#![no_main]

#[path = "../drivers.rs"]
#[allow(dead_code)]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::normalize(data));
