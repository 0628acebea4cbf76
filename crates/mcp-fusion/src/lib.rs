//! # mcp-fusion
//!
//! MCP servers whose failures are written for the language model that reads
//! them. A failed tool call becomes a structured `<tool_error>` envelope (code,
//! severity, message, recovery, available actions, details, retry-after) or a
//! per-field `<validation_error>`, as `docs/wire-contract.md` defines.
//!
//! The path of a call: [`transport`] → [`server`] → routing ([`capability`])
//! → [`guard`]s → [`validation`] → middleware ([`pipeline`]) → [`handler`] →
//! [`envelope`]. [`contract`] holds the contracts, lockfiles and diffs, and
//! the self-healing deltas.
//!
//! The crate root re-exports what a server's code names first: the
//! capabilities ([`Action`], [`Group`], [`Prompt`], [`Resource`],
//! [`ResourceTemplate`], [`Skills`], [`CompletionRequest`]) and their macros, the server
//! ([`ServerBuilder`], [`FusionServer`], [`BuildError`], [`SchemaProfile`]),
//! the handler's parts ([`CallContext`], [`State`], [`Json`], [`NoArgs`],
//! [`ToolOutput`], [`Handler`], [`FromCallContext`]), its failure
//! ([`ToolError`], [`ErrorCode`], [`Severity`], [`BoxError`]), middleware
//! ([`from_fn`], [`Next`], [`Call`]), guards ([`RateLimit`], [`StaticTokens`],
//! `JwtVerifier`, [`TokenVerifier`], [`Principal`]) and the client
//! (`FusionClient`, `ClientOptions`, `FusionClientError`; a server's tests
//! connect one in memory with `FusionServer::connect_in_memory`).
//! Everything else is reached through its module: `mcp_fusion::transport::HttpOptions`,
//! `mcp_fusion::error::ValidationFailure`, `mcp_fusion::contract::Lockfile`, …
//!
//! Layers, lowest first: the leaf helpers (single files at the crate root:
//! `json`, `listing`, `meta_keys`, `metrics_names`, `named`, `redact`, `redis_connection`, `schema`,
//! `suggest`, `text`, `tool_meta`) → [`error`] →
//! [`envelope`], [`validation`] → `wire` (reading and repairing JSON-RPC
//! messages) → [`handler`] → [`present`] → `telemetry` (feature `otel`) →
//! [`pipeline`], `client` →
//! [`guard`] → [`capability`] → [`contract`] → [`server`],
//! [`router_contract`] → [`testing`] → [`transport`] → `gateway`. A module imports only
//! from its own files and the layers below it; modules that share a layer
//! (`envelope` and `validation`; `handler` and `present`; `pipeline` and `client`; `server` and
//! `router_contract`, the two ways to serve) do not import each other, and a leaf helper imports only other leaf helpers. Inside a folder,
//! files do not import each other in a circle: what two files share goes in a
//! file both import. `tests/server/layers.rs` keeps this true.
//!
//! ## Cargo features
//!
//! All seven are on by default. Without them (`default-features = false`) the
//! crate serves over stdio and in process ([`FusionServer::call`]), with
//! every guard but the Redis store, JWTs and OAuth.
//!
//! | feature | enables | dependencies |
//! |---|---|---|
//! | `http` | the Streamable HTTP server: `FusionServer::serve_http`, `serve_http_on`, `http_router`, `call_with_http`, the `Host`/`Origin` checks, CORS for the allowed origins | `axum`, `hyper`, `hyper-util`, `http-body-util`, `async-trait`, `tower-http` (`cors`); rmcp's `transport-streamable-http-server` |
//! | `client` | the `client` module: `FusionClient`, over a child process or Streamable HTTP, with OAuth (`ClientOptions::oauth`), or in memory to a server of this process (`FusionServer::connect_in_memory`, for tests) | `reqwest`, `url`, `hyper`, `hyper-util`, `http-body-util`, `sse-stream`; rmcp's `client`, `auth`, `transport-child-process`, `transport-streamable-http-client-reqwest`, `reqwest` |
//! | `redis` | `guard::RedisRateLimitStore` (rate limits shared in Redis, `ServerBuilder::rate_limit_store`); with `http`, `transport::RedisSessionStore` (`HttpOptions::session_store`) | `redis`, `url` |
//! | `jwt` | `JwtVerifier` | `jsonwebtoken` |
//! | `oauth` (implies `jwt`) | `OAuthResourceServer`: the server as an OAuth 2.1 resource server (authorization server discovery, JWKS, audience-bound JWT access tokens, RFC 7662 introspection); with `http`, its RFC 9728 metadata and challenges | `reqwest`, `url`; rmcp's `reqwest` (TLS) |
//! | `metrics` (implies `http`) | `GET /metrics`, a Prometheus text exposition, when `HttpOptions::metrics` is on | `metrics-exporter-prometheus` (without its own HTTP listener) |
//! | `otel` | the `telemetry` module: a SERVER span per request and a CLIENT span per request sent, on the OpenTelemetry MCP semantic conventions, trace context in `params._meta`, the `mcp.*.operation.duration` histograms, `telemetry::Otel` (OTLP over HTTP from the `OTEL_*` variables) | `opentelemetry`, `opentelemetry_sdk`, `opentelemetry-otlp`, `opentelemetry-http`, `tracing-opentelemetry`, `tracing-subscriber` |
//! | `gateway` (implies `client`) | the `gateway` module: upstream MCP servers mounted under namespaces behind a server, the `HANDOFF_*` codes | `toml`, `humantime` |
//!
//! ## Metrics
//!
//! In every build the crate records through the [`metrics`](https://docs.rs/metrics)
//! facade, which costs next to nothing until a recorder is installed: a
//! program may install its own, or turn on `HttpOptions::metrics` (feature
//! `metrics`) to have the first such server of the process install the
//! Prometheus exporter as the global recorder (once per process; later
//! servers share it) and serve it at `/metrics`. The series, durations in
//! seconds: `mcp_fusion_tool_calls_total{tool, action, outcome, code}`
//! (outcome `ok`, `error` or `warning`; code the error code, the first
//! warning's code, or `""`; a call naming no action of a known tool counts
//! with `action=""`; a call a fallback answers counts under the fallback
//! action's name, a tool added at run time under its own), `mcp_fusion_tool_call_duration_seconds{tool, action}`,
//! `mcp_fusion_guard_active` and `mcp_fusion_guard_queued{tool, action}`,
//! `mcp_fusion_sheds_total`, `mcp_fusion_rate_limited_total` and
//! `mcp_fusion_timeouts_total{tool, action}`, and over HTTP
//! `mcp_fusion_sessions_open`, `mcp_fusion_sessions_live` and
//! `mcp_fusion_sessions_parked`.
//!
//! How a server is served is given when serving: [`transport::StdioOptions`]
//! in every build, `transport::HttpOptions` with the `http` feature.
//! [`CallContext::http`] is there in every build: the request head is the
//! `http` crate's type, `None` without the feature.

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, Cargo.toml's `package.metadata.docs.rs`): every
// item behind a feature is labelled with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod capability;
#[cfg(feature = "client")]
pub mod client;
pub mod contract;
pub mod envelope;
pub mod error;
#[cfg(feature = "gateway")]
pub mod gateway;
pub mod guard;
pub mod handler;
mod json;
mod listing;
mod meta_keys;
mod metrics_names;
#[cfg(any(feature = "client", feature = "otel"))]
mod named;
pub mod pipeline;
pub mod present;
#[cfg(any(feature = "client", feature = "redis"))]
mod redact;
#[cfg(feature = "redis")]
mod redis_connection;
pub mod router_contract;
mod schema;
pub mod server;
mod suggest;
#[cfg(feature = "otel")]
pub mod telemetry;
pub mod testing;
mod text;
mod tool_meta;
pub mod transport;
pub mod validation;
mod wire;

// The crate root holds what a user writes first; everything else is reached
// through its module (`mcp_fusion::transport::HttpOptions`,
// `mcp_fusion::error::ValidationFailure`, `mcp_fusion::contract::Lockfile`, …).
// The capabilities are here only: `capability` itself holds the rest of what
// a server offers (listings, annotations, the `_meta` keys).
pub use capability::{
    build_error::BuildError,
    completion::CompletionRequest,
    prompt::Prompt,
    resource::{Resource, ResourceTemplate},
    skills::Skills,
    tool::{Action, Group, TaskSupport},
};
#[cfg(feature = "client")]
pub use client::{ClientOptions, FusionClient, FusionClientError};
pub use error::{BoxError, ErrorCode, Severity, ToolError};
#[cfg(feature = "jwt")]
pub use guard::JwtVerifier;
#[cfg(feature = "oauth")]
pub use guard::OAuthResourceServer;
pub use guard::{RateLimit, StaticTokens, TokenVerifier};
pub use handler::{
    CallContext, FromCallContext, Handler, Json, NoArgs, Principal, State, ToolOutput,
};
/// `#[action]`: an `async fn` becomes an [`Action`], named after the function
/// and described by its doc comment; `name::action()` builds it. Its
/// arguments are the builder's settings (`read_only`, `timeout = "2s"`,
/// `requires_scopes("billing:read")`, …).
pub use mcp_fusion_macros::action;
/// `#[prompt]`: an `async fn` becomes a [`Prompt`], named after the function
/// and described by its doc comment; `name::prompt()` builds it. Its
/// arguments: `name`, `title`, `description`.
pub use mcp_fusion_macros::prompt;
/// `#[resource(uri = "docs://readme")]`: an `async fn` becomes a
/// [`Resource`] at that URI, named after the function and described by its
/// doc comment; `name::resource()` builds it. Its other arguments: `name`,
/// `title`, `description`, `mime_type`.
pub use mcp_fusion_macros::resource;
/// `#[resource_template(uri = "billing://invoices/{id}")]`: an `async fn`
/// becomes a [`ResourceTemplate`] for that URI template, named after the
/// function and described by its doc comment; `name::resource_template()`
/// builds it. Its other arguments are those of [`macro@resource`].
pub use mcp_fusion_macros::resource_template;
pub use pipeline::{Call, Next, from_fn};
/// The MCP model types that handlers, prompts, resources and the client
/// exchange, rmcp's, named as the specification names them. JSON-RPC's own
/// error types (rmcp's `ErrorCode`, `ErrorData`) are not among them: the
/// crate's one error code is [`ErrorCode`].
pub mod model {
    // Tools and content.
    pub use rmcp::model::{
        CallToolRequestParams, CallToolResult, ContentBlock, JsonObject, ListToolsResult,
        MetaObject, Tool, ToolAnnotations,
    };
    // Prompts.
    pub use rmcp::model::{
        GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage, Role,
    };
    // Resources.
    pub use rmcp::model::{
        ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents,
        ResourceTemplate, SubscribeRequestParams, UnsubscribeRequestParams,
    };
    // Caching hints of cacheable results (SEP-2549).
    pub use rmcp::model::CacheScope;
    // Skills (SEP-2640).
    pub use rmcp::model::{
        GetSkillRequestParams, GetSkillResult, ListSkillsResult,
        ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, Skill, SkillFrontmatter,
        SkillResource, SkillResources,
    };
    // Completion.
    pub use rmcp::model::{CompleteRequestParams, CompletionInfo, Reference};
    // What a handler asks of the client: elicitation, sampling, roots, logging
    // (the last three deprecated by the 2026-07-28 revision, SEP-2577).
    #[allow(deprecated)]
    pub use rmcp::model::{
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        ElicitationAction, ElicitationSchema, ListRootsResult, LoggingLevel, Root, SamplingMessage,
        SetLevelRequestParams,
    };
    // Tasks and the 2026-07-28 input rounds.
    pub use rmcp::model::{DetailedTask, InputResponses, Task, TaskPayload, TaskStatus};
    // Capabilities and whole messages.
    pub use rmcp::model::{
        ClientCapabilities, ClientRequest, Implementation, ServerCapabilities, ServerNotification,
    };
}
pub use schema::SchemaProfile;
pub use server::{FusionServer, ServerBuilder};
