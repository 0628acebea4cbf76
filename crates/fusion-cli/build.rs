//! Lays out the release `fusion` binary so that the functions its start-up
//! runs sit side by side: the linker places the symbols listed in
//! `startup.order` (one mangled name per line, `#` starts a comment) first,
//! in that order (lld's `--symbol-ordering-file`). The thousand or so pages
//! of code start-up touches then sit together instead of spread over the
//! whole text, and the kernel's fault-around, which maps the 64 KiB around
//! every page touched, maps little else: an idle `fusion serve --stdio`
//! stays under 10 MiB resident instead of about 20.
//!
//! Only where the linker is rust-lld, the default of Rust 1.90 and later on
//! x86_64-unknown-linux-gnu, and only for a release build; a linker chosen
//! in the Cargo configuration (`RUSTC_LINKER`) or in the rustc flags turns
//! it off. Names the binary no longer has are skipped without a warning, so
//! a stale list costs only memory: `benches/load/startup-order.sh` writes
//! it again.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=startup.order");
    println!("cargo:rerun-if-changed=build.rs");
    if !orders_startup() {
        return;
    }
    let Some(dir) = env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = std::path::Path::new(&dir).join("startup.order");
    if !order.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=fusion=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=fusion=-Wl,--no-warn-symbol-ordering");
}

/// A release build for x86_64-unknown-linux-gnu by a rustc that links with
/// its own lld, with no other linker asked for.
fn orders_startup() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    let other_linker = env::var_os("RUSTC_LINKER").is_some()
        || ["linker", "fuse-ld", "link-self-contained"]
            .iter()
            .any(|flag| var("CARGO_ENCODED_RUSTFLAGS").contains(flag));
    var("PROFILE") == "release"
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && !other_linker
        && rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the rustc building this crate (`rustc 1.95.0 …` → 95).
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}
