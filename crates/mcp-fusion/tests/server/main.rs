//! The server runtime in process: calls through `FusionServer::call` with the
//! exact text the model reads (routing, validation, success, handler errors,
//! middleware, unknown tools), `tools/list` and the schema profiles, handlers
//! as users write them, `#[mcp_fusion::action]` against the builder, startup
//! errors; and checks of the crate itself: README.md's first server and the
//! guide's full one compiled and run (`readme_example`, `guide_example`),
//! and the import layers of `src/` (`layers`).
//!
//! Run one part with its module's name: `cargo test -p mcp-fusion --test
//! server routing::`.

mod server;
use fusion_test_support::library as support;

mod action_macro;
#[expect(dead_code, reason = "the guide's `main` is compiled, not run")]
mod guide_example;
mod handler_errors;
#[cfg(feature = "http")]
mod handlers;
mod layers;
mod listing;
mod middleware;
mod page_blocks;
#[expect(dead_code, reason = "the README's `main` is compiled, not run")]
mod readme_example;
mod routing;
mod schema_profile;
#[cfg(feature = "http")]
mod startup_errors;
mod success;
mod unknown_tool;
mod validation;
