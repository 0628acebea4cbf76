//! The adapter onto rmcp: a [`Connection`] is one client's connection to a
//! [`FusionServer`](crate::server::FusionServer), and what rmcp serves.
//!
//! - [`connection`]: the type and its one `impl` (where a request came
//!   from, its client link, what the server advertises);
//! - [`server_handler`]: rmcp's `ServerHandler`, one method per MCP request;
//! - [`surface`]: prompts, resources, completion and subscriptions, through
//!   the call path; [`skills`]: the SEP-2640 skills requests, through it too; [`pagination`]: every list cut into pages;
//! - [`link`]: the connection back to the client of one request;
//!   [`caller`]: whom per-caller state belongs to; [`client_requirements`]:
//!   the client capabilities a `tools/call` needs; [`cache_hints`]: the
//!   SEP-2549 `ttlMs` and `cacheScope` of the cacheable results;
//! - [`traced`] (feature `otel`): the connection wrapped so that every
//!   request runs in its OpenTelemetry SERVER span.

pub(crate) mod cache_hints;
pub(crate) mod caller;
pub(crate) mod client_requirements;
pub(crate) mod connection;
mod gated;
pub(crate) mod link;
pub(crate) mod pagination;
mod server_handler;
pub(crate) mod skills;
pub(crate) mod surface;
#[cfg(feature = "otel")]
pub(crate) mod traced;

pub(crate) use connection::Connection;
#[cfg(feature = "otel")]
pub(crate) use traced::Traced;

/// What rmcp serves for one connection: with the `otel` feature, the
/// [`Connection`] in its [`Traced`] wrapper.
#[cfg(feature = "otel")]
pub(crate) type Served = Traced;
/// What rmcp serves for one connection: the [`Connection`] itself.
#[cfg(not(feature = "otel"))]
pub(crate) type Served = Connection;
