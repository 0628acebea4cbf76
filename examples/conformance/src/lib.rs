//! The conformance example: a mcp-fusion server serving every fixture the
//! official MCP conformance suite (`@modelcontextprotocol/conformance`
//! 0.1.16, default server suite; 0.2's `server-stateless` diagnostics)
//! calls by name — tools, resources, a template, prompts, completion,
//! logging, progress, sampling, elicitation, and hooks that change the
//! tool and prompt lists; and (src/input_required.rs) the handlers that ask
//! the client which the 0.2 line's `input-required-result-*` scenarios (MCP
//! 2026-07-28) call. `fusion serve --example conformance` serves it;
//! `scripts/conformance` runs the suite against it. The crate's binary
//! `conformance-client` (src/bin/conformance-client.rs) is the other side:
//! the client the suite's `client` mode runs in its `auth/*` scenarios.
//!
//! The texts are the ones the suite's scenarios describe
//! (`tests/conformance/README.md`). `test_error_handling` fails the way the
//! wire contract says: a `<tool_error>` envelope with `isError: true`.

mod content;
mod custom_headers;
mod input_required;
mod json_schema;
mod prompts;
mod resources;
mod stateless;
mod tasks;
mod tools;

use mcp_fusion::{BuildError, FusionServer, ServerBuilder};

/// The URI whose subscribers [`touch_watched_resource`] notifies.
pub const WATCHED_RESOURCE: &str = "test://watched-resource";

/// The conformance server's builder, with every fixture registered; add
/// settings (HTTP options, guards) before building it.
pub fn builder() -> ServerBuilder {
    let builder = FusionServer::builder("mcp-fusion-conformance", env!("CARGO_PKG_VERSION"))
        .instructions("The fixtures of the MCP conformance suite, served by mcp-fusion.");
    let builder = tools::register(builder);
    let builder = resources::register(builder);
    let builder = stateless::register(builder);
    let builder = custom_headers::register(builder);
    let builder = tasks::register(builder);
    let builder = json_schema::register(builder);
    let builder = prompts::register(builder);
    input_required::register(builder)
}

/// The conformance server, built.
///
/// # Errors
/// Never in practice: a [`BuildError`] would mean a fixture is declared
/// wrongly (a test builds it).
pub fn server() -> Result<FusionServer, BuildError> {
    builder().build()
}

/// Tells the subscribers of [`WATCHED_RESOURCE`] that it changed; returns how
/// many were told.
pub async fn touch_watched_resource(server: &FusionServer) -> usize {
    server.notify_resource_updated(WATCHED_RESOURCE).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fixture_builds() {
        let server = super::server().expect("the fixtures build");
        let names: Vec<String> = server.listings().into_iter().map(|l| l.name).collect();
        assert!(names.contains(&String::from("test_simple_text")));
        assert!(names.contains(&String::from("test_elicitation_sep1330_enums")));
    }
}
