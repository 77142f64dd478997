//! Links the `gatecheck` binary as a position-dependent executable on Linux with glibc.
//!
//! A PIE binary of this size carries about 22 000 relative relocations: at every start the
//! dynamic loader reads them (540 KB) and writes the 390 KB of `.data.rel.ro` they point into,
//! one copy-on-write page fault at a time. Without PIE the linker resolves them once, and
//! `gatecheck serve` reaches its first 200 sooner (BENCHMARKS.md, "Start-up"). The libraries
//! are unaffected: only this package's binaries get the flag.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // `RUSTFLAGS="--cfg gatecheck_system_allocator"`: no jemalloc (see Cargo.toml).
    println!("cargo::rustc-check-cfg=cfg(gatecheck_system_allocator)");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
