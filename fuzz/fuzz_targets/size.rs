//! Fuzz target `size`: see `size` in `fuzz/drivers.rs`.
#![no_main]

#[path = "../drivers.rs"]
#[allow(dead_code)]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::size(data));
