//! How a server is served: over stdio ([`FusionServer::serve_stdio`],
//! `serve_streams`) and (feature `http`) over Streamable HTTP
//! (`FusionServer::serve_http`, `serve_http_on`, `http_router`), with a clean
//! shutdown on Ctrl-C or SIGTERM that lets calls in progress finish. The
//! options of each are given when serving ([`StdioOptions`],
//! `HttpOptions`), apart from what the server is. With the `client`
//! feature, `FusionServer::connect_in_memory` connects a `FusionClient` to
//! the server in the same process (for tests), served as over stdio.
//!
//! [`FusionServer::serve_stdio`]: crate::FusionServer::serve_stdio

mod error;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "client")]
mod in_memory;
mod options;
mod serve;
mod shutdown;
mod stdio;
mod stdout_closed;

pub use error::ServeError;
#[cfg(all(feature = "http", feature = "redis"))]
pub use http::RedisSessionStore;
#[cfg(feature = "http")]
pub use http::{
    AUTHORIZATION_SERVER_RETRY_SECS, LISTEN_FULL_RETRY_SECS, PolicyError, SESSIONS_FULL_RETRY_SECS,
};
#[cfg(feature = "http")]
pub use http::{DEFAULT_MAX_BODY_BYTES, HttpOptions, MAX_INITIALIZE_BYTES};
pub use options::{DEFAULT_MAX_JSON_VALUES, DEFAULT_SHUTDOWN_GRACE, StdioOptions};
pub use shutdown::shutdown_signal;
pub use stdio::MAX_LINE_BYTES;
