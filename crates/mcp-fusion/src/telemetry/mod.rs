//! OpenTelemetry (feature `otel`), on the MCP semantic conventions
//! (semantic-conventions-genai, `docs/gen-ai/mcp.md`, status Development).
//!
//! - **Spans.** A server makes one SERVER span per request, for every
//!   method, named `{mcp.method.name} {target}` (`tools/call billing`,
//!   `prompts/get summarize`, `resources/read`), with `mcp.method.name`,
//!   `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`,
//!   `gen_ai.tool.name`, `gen_ai.operation.name` (`execute_tool`),
//!   `gen_ai.prompt.name`, `mcp.resource.uri`, `network.transport` (`pipe`,
//!   `tcp`) and, when it fails, `error.type` (the JSON-RPC code, `tool_error`
//!   for an `isError` result, `cancelled`) with the span's status `ERROR`.
//!   The contract adds, under [`PREFIX`](conventions::PREFIX),
//!   `mcp_fusion.error.code` (the envelope's code) and `mcp_fusion.action`
//!   (the action a grouped tool's call reached). A
//!   [`FusionClient`](crate::client::FusionClient) makes one CLIENT span per
//!   request it sends. Argument values, results and credentials are never
//!   recorded.
//! - **Propagation** (MCP SEP-414). The server's span takes its parent from
//!   `params._meta.traceparent` / `tracestate`, else from the HTTP
//!   `traceparent` header; the HTTP contexts it does not take as parent are
//!   linked. The client writes its span's context into `params._meta`, so a
//!   gateway's upstream calls carry the trace on.
//! - **Metrics.** `mcp.server.operation.duration` and
//!   `mcp.client.operation.duration` histograms (seconds, the conventions'
//!   bucket boundaries) with the low-cardinality attributes above.
//!
//! Spans and metrics go to the global OpenTelemetry providers: those
//! [`Otel::install`] sets up from the `OTEL_*` environment variables, or,
//! after [`enable`], the application's own. Until then servers and clients
//! record nothing and do no added work per request; without the feature,
//! none of this is compiled.
//!
//! A server over stdio exporting its spans (with `tracing-subscriber`'s
//! `env-filter` feature; logs go to stderr, stdout being the transport's);
//! the handler's own span joins the call's trace (docs/telemetry.md):
//!
//! ```no_run
//! use mcp_fusion::telemetry::{Otel, OtelMode};
//! use mcp_fusion::transport::StdioOptions;
//! use mcp_fusion::{Action, FusionServer, ToolError};
//! use tracing_subscriber::prelude::*;
//! use tracing_subscriber::{EnvFilter, fmt};
//!
//! async fn greet() -> Result<String, ToolError> {
//!     let _span = tracing::info_span!("compose_greeting").entered();
//!     Ok("hello".into())
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let otel = Otel::install(OtelMode::Export, "greeter")?;
//!     let log = fmt::layer()
//!         .with_writer(std::io::stderr)
//!         .with_filter(EnvFilter::from_default_env());
//!     tracing_subscriber::registry().with(log).with(otel.layer()).init();
//!     let server = FusionServer::builder("greeter", "1.0.0")
//!         .tool(Action::new("greet", greet))
//!         .build()?;
//!     server.serve_stdio(StdioOptions::default()).await?;
//!     otel.shutdown(); // sends what is buffered; blocks up to the export timeout
//!     Ok(())
//! }
//! ```

pub(crate) mod carrier;
#[cfg(feature = "client")]
pub(crate) mod client;
pub mod conventions;
pub(crate) mod instruments;
pub(crate) mod operation;
mod otel;
pub(crate) mod server;

pub use otel::{Otel, OtelError, OtelMode};

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether servers and clients made from now on record (see [`enable`]).
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Makes the servers and clients made from now on record spans and
/// metrics into the global OpenTelemetry providers and propagator, for an
/// application that installs its own; [`Otel::install`] calls it. Before
/// it, a server serves each request without a span (no added work), and a
/// client sends no trace context. A connection made before keeps what it
/// was made with.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Whether [`enable`] was called in this process.
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}
