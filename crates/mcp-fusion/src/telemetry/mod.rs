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
//! Spans and metrics go to the global OpenTelemetry providers: the
//! application's, or those [`Otel::install`] sets up from the `OTEL_*`
//! environment variables. Without the feature, none of this is compiled.

pub(crate) mod carrier;
#[cfg(feature = "client")]
pub(crate) mod client;
pub mod conventions;
pub(crate) mod instruments;
pub(crate) mod operation;
mod otel;
pub(crate) mod server;

pub use otel::{Otel, OtelError, OtelMode};
