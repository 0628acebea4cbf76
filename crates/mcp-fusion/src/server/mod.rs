//! The server: [`ServerBuilder`] declares what it is, [`FusionServer`] is the
//! built server every connection shares, and a crate-private `Connection` is
//! one client's connection to it (the rmcp `ServerHandler` adapter: one
//! method per MCP request). How it is served (stdio, Streamable HTTP) is
//! [`crate::transport`]'s. With `client/`, the only module that knows rmcp's
//! protocol types.

mod adapter;
mod build;
mod dispatch;
#[cfg(feature = "http")]
pub(crate) mod edge;
mod fusion_server;
pub(crate) mod in_flight;
pub(crate) mod listen;
mod revision;
mod rounds;
mod session;
pub mod tasks;

pub(crate) use adapter::Connection;
pub use adapter::pagination::DEFAULT_PAGE_SIZE;
pub use build::{MIN_SIGNING_KEY_BYTES, ServerBuilder, ToolSet};
pub use fusion_server::{FusionServer, UnknownToolError, WeakFusionServer};
pub use listen::{LISTEN_QUEUE, MAX_LISTEN_ID_BYTES};
pub use session::MAX_SUBSCRIPTIONS;
