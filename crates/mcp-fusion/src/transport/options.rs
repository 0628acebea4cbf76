//! [`StdioOptions`]: how a server is served over stdio, given to
//! `FusionServer::serve_stdio` and `serve_streams`, apart from what the
//! server is ([`ServerBuilder`](crate::ServerBuilder)).

use std::time::Duration;

/// How long calls in progress may go on after Ctrl-C or SIGTERM, by default:
/// 10 seconds.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The most JSON values one message may hold, by default: 100 000 (every
/// object, array, string, number, boolean and `null` counts one; keys do
/// not). A server holds each value of a message several times while it reads
/// and checks it (about 100 bytes a copy), and a value that misses the
/// schema costs the validator an error with its path: a few MiB at this
/// limit, where the 3.9 MB text `[{},{},…]` (1.3 million values) would cost
/// gigabytes.
pub const DEFAULT_MAX_JSON_VALUES: usize = 100_000;

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
    /// The most JSON values one message may hold (see
    /// [`DEFAULT_MAX_JSON_VALUES`] for what counts), checked on the text before
    /// it is parsed. A `tools/call` over it gets a tool result with a
    /// `<validation_error>` saying so (wire contract §4); another request gets
    /// `-32600` Invalid Request (JSON-RPC 2.0 §5); a notification is dropped.
    /// Default: [`DEFAULT_MAX_JSON_VALUES`].
    pub max_json_values: usize,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            max_json_values: DEFAULT_MAX_JSON_VALUES,
        }
    }
}

impl StdioOptions {
    /// Sets [`shutdown_grace`](Self::shutdown_grace).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Sets [`max_json_values`](Self::max_json_values) (at least 1).
    pub fn max_json_values(mut self, max: usize) -> Self {
        self.max_json_values = max.max(1);
        self
    }
}
