//! Fuzz target `allow_ips`: see `allow_ips` in `fuzz/drivers.rs`.
#![no_main]

#[path = "../drivers.rs"]
#[allow(dead_code)]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::allow_ips(data));
