//! Serving over stdio: [`FusionServer::serve_stdio`] and `serve_streams`,
//! with a clean shutdown on Ctrl-C or SIGTERM that lets calls in progress
//! finish.

use rmcp::ServiceExt;

use super::error::ServeError;
use super::options::StdioOptions;
use super::shutdown::{drain, shutdown_signal};
use super::stdio::StdioTransport;
use super::stdout_closed::stdout_closed;
use crate::server::FusionServer;

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
        self.serve_until(read, write, options, shutdown_signal(), stdout_closed())
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
        self.serve_until(read, write, options, stop, std::future::pending())
            .await
    }

    /// Serves `read`/`write` until the reader ends, `stop` resolves (the
    /// calls in progress get their grace), or `gone` resolves: the client
    /// went away, and the calls in progress are cancelled at once.
    pub(super) async fn serve_until<R, W>(
        self,
        read: R,
        write: W,
        options: StdioOptions,
        stop: impl std::future::Future<Output = ()> + Send,
        gone: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let in_flight = self.inner.in_flight.clone();
        let grace = options.shutdown_grace;
        let connection = self.served(false);
        let dropped = connection.session.dropped();
        let running = match connection
            .serve(StdioTransport::new(read, write, options.max_json_values))
            .await
        {
            Ok(running) => running,
            // The client went away before its handshake: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(ServeError::Transport(Box::new(e))),
        };
        // The client went away, or stopped reading (`list_changes`).
        let gone = async {
            tokio::select! {
                () = gone => tracing::info!("the client went away: cancelling the calls in progress"),
                () = dropped.cancelled() => {}
            }
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
            () = gone => {
                token.cancel();
                let _ = waiting.await;
            }
        }
        Ok(())
    }
}
