//! [`ServeError`]: why serving stopped with an error.

use std::fmt;
use std::net::SocketAddr;

use crate::error::BoxError;

/// Why serving stopped with an error.
///
/// Its `Debug` is its `Display` sentence, followed by one `caused by: …`
/// line per cause in its [`source`](std::error::Error::source) chain that
/// the line above does not already end with, so that a `main` returning
/// `Result<(), Box<dyn Error>>` prints `Error: transport error: …`, not
/// the variant's fields. New variants may be added in a minor release.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The listening socket could not be bound (address in use, no permission…).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The transport failed (I/O error, or the client's first message was not
    /// a valid MCP start). The cause is kept as the error's `source()`: over
    /// stdio (and `serve_streams`) rmcp's `ServerInitializeError` when the
    /// start failed, a `tokio::task::JoinError` when the service's task did.
    #[error("transport error: {0}")]
    Transport(#[source] BoxError),
    /// A serving option cannot be used (an allowed host or origin of
    /// `HttpOptions` that cannot be read).
    #[cfg(feature = "http")]
    #[error(transparent)]
    Options(#[from] super::http::origin::PolicyError),
}

impl fmt::Debug for ServeError {
    /// The `Display` sentence, then the causes below it on their own lines
    /// (`caused by: …`); a cause whose text ends the line above (the sentence
    /// already says it) is not repeated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut above = self.to_string();
        f.write_str(&above)?;
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            let text = error.to_string();
            if !above.ends_with(&text) {
                write!(f, "\ncaused by: {text}")?;
            }
            above = text;
            cause = error.source();
        }
        Ok(())
    }
}
