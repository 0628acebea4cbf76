//! The documentation's pages as doctests (built by `build.rs`): each module
//! below is one Markdown page, so `cargo test -p mcp-fusion-docs --doc`
//! compiles every `rust` block of README.md, examples/README.md, docs/ and
//! docs/guide/, and runs those not marked `no_run`. `tests/fences.rs`
//! refuses a `rust` block marked `ignore` and a block without a language.
#![allow(missing_docs, rustdoc::all)]

include!(concat!(env!("OUT_DIR"), "/pages.rs"));
