//! [`StdioOptions`]: how a server is served over stdio, given to
//! `FusionServer::serve_stdio` and `serve_streams`, apart from what the
//! server is ([`ServerBuilder`](crate::ServerBuilder)).

use std::time::Duration;

/// How long calls in progress may go on after Ctrl-C or SIGTERM, by default:
/// 10 seconds.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The settings of the stdio transport, given to
/// `FusionServer::serve_stdio` and `serve_streams`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioOptions {
    /// On Ctrl-C or SIGTERM (or the `stop` future of `serve_streams`), how
    /// long calls in progress may go on before the server closes anyway; the
    /// calls still running then end with a `SERVER_BUSY` result saying the
    /// server shut down. Default: [`DEFAULT_SHUTDOWN_GRACE`].
    pub shutdown_grace: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

impl StdioOptions {
    /// Sets [`shutdown_grace`](Self::shutdown_grace).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
}
