//! Serving over stdio and Streamable HTTP, with a clean shutdown on Ctrl-C or
//! SIGTERM that lets calls in progress finish.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use rmcp::ServiceExt;

use super::options::StdioOptions;
use super::stdio::StdioTransport;
use crate::error::BoxError;
use crate::server::FusionServer;

/// After the last call in progress returns, how long its response gets to be
/// written out before the transport closes, in milliseconds.
const FLUSH_MS: u64 = 250;

/// Waits for the calls in progress (at most `grace`), then for their
/// responses to be written.
pub(crate) async fn drain(in_flight: &crate::server::in_flight::InFlight, grace: Duration) {
    in_flight.close();
    let left = in_flight.drain(grace).await;
    if left > 0 {
        // The calls still running end now, each with a result saying so.
        tracing::warn!(
            calls = left,
            "shutting down: stopping the calls still in progress"
        );
        in_flight.stop();
        in_flight.drain(Duration::from_secs(1)).await;
    }
    tokio::time::sleep(Duration::from_millis(FLUSH_MS)).await;
}

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
    Options(#[from] super::http::PolicyError),
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

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

impl FusionServer {
    /// Serves MCP over stdin/stdout until the client closes stdin, or Ctrl-C /
    /// SIGTERM (then calls in progress get up to
    /// [`StdioOptions::shutdown_grace`] to finish). Reads through rmcp's
    /// non-blocking `stdio_pipes()`; a line that is not a JSON-RPC message is
    /// answered as JSON-RPC 2.0 §5 says. Logs must go to stderr. stdio
    /// carries no bearer token: a capability that requires credentials
    /// answers `AUTH_REQUIRED` there.
    ///
    /// # Errors
    /// [`ServeError::Transport`] when the stream fails or does not start as MCP.
    pub async fn serve_stdio(self, options: StdioOptions) -> Result<(), ServeError> {
        let (read, write) = rmcp::transport::stdio_pipes();
        self.serve_streams(read, write, options, shutdown_signal())
            .await
    }

    /// [`FusionServer::serve_stdio`] on any pair of byte streams (a socket, a
    /// pipe to a test) until the reader ends or `stop` resolves.
    ///
    /// # Errors
    /// [`ServeError::Transport`] when the stream fails or does not start as MCP.
    pub async fn serve_streams<R, W>(
        self,
        read: R,
        write: W,
        options: StdioOptions,
        stop: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let in_flight = self.inner.in_flight.clone();
        let grace = options.shutdown_grace;
        let running = match self
            .connection()
            .serve(StdioTransport::new(read, write))
            .await
        {
            Ok(running) => running,
            // The client went away before its handshake: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(ServeError::Transport(Box::new(e))),
        };
        let token = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            result = &mut waiting => {
                result.map_err(|e| ServeError::Transport(Box::new(e)))?;
            }
            () = stop => {
                tracing::info!("shutting down: letting calls in progress finish");
                drain(&in_flight, grace).await;
                token.cancel();
                let _ = waiting.await;
            }
        }
        Ok(())
    }
}
