//! Puts `memory.x` where cortex-m-rt's `link.x` finds it, and adds defmt's
//! linker script when the `defmt` feature is on.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x");
    // cortex-m-rt's `device` feature includes `device.x` (no handlers here:
    // the firmware's one interrupt vector is `hw::__INTERRUPTS`).
    fs::copy("device.x", out.join("device.x")).expect("copy device.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=device.x");
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
    }
}
