//! The server: [`ServerBuilder`] declares what it is, [`FusionServer`] is the
//! built server every connection shares, and a crate-private `Connection` is
//! one client's connection to it (the rmcp `ServerHandler` adapter: one
//! method per MCP request). How it is served (stdio, Streamable HTTP) is
//! [`crate::transport`]'s. With `client/`, the only module that knows rmcp's
//! protocol types.
//!
//! Its folders, in the order a request meets them:
//!
//! - `building/`: [`ServerBuilder`], [`ToolSet`], the signing keys;
//! - `fusion_server.rs`: [`FusionServer`], the built server, and its one
//!   `impl`; `session.rs`: what it keeps about one connection;
//!   `list_changes.rs`: the list changes it is owed, coalesced and sent by
//!   a task of its own;
//!   `in_flight.rs`: the calls in progress; `revision.rs`: which MCP
//!   revision a request speaks; `tool_search.rs`: the `search_tools`
//!   meta-tool of a server with tool search on;
//! - `adapter/`: the adapter onto rmcp (`Connection`, rmcp's
//!   `ServerHandler`, prompts, resources, completion, pages of lists);
//! - `dispatch/`: the one path a call takes (route, guards, validation,
//!   middleware, handler, envelope);
//! - `rounds/`: the input-required rounds of MCP 2026-07-28;
//! - `listen/`: `subscriptions/listen` streams;
//! - [`tasks`]: tools run as tasks;
//! - `edge/` (feature `http`): what the HTTP edge asks of the server
//!   (scopes, `Mcp-Param-*` headers).
//!
//! Reading and repairing JSON-RPC messages is below, in `crate::wire`.

mod adapter;
mod building;
mod dispatch;
#[cfg(feature = "http")]
pub(crate) mod edge;
mod fusion_server;
#[cfg(test)]
pub(crate) use fusion_server::registry_reads;
pub(crate) mod in_flight;
mod list_changes;
pub(crate) mod listen;
pub(crate) mod mount;
mod revision;
mod rounds;
pub(crate) mod session;
pub mod tasks;
mod tool_search;

pub(crate) use adapter::Connection;
#[cfg(feature = "http")]
pub(crate) use adapter::Served;
pub use adapter::pagination::DEFAULT_PAGE_SIZE;
pub use building::{
    DEFAULT_SIGNING_KEY_ID, MAX_SIGNING_KEY_ID_CHARS, MIN_SIGNING_KEY_BYTES, ServerBuilder,
    SigningKeys, ToolSet,
};
pub use fusion_server::{FusionServer, UnknownToolError, WeakFusionServer};
pub use listen::{LISTEN_QUEUE, MAX_LISTEN_ID_BYTES};
pub use mount::Mount;
pub use session::MAX_SUBSCRIPTIONS;
