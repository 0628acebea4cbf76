//! Serving over stdio and Streamable HTTP, with a clean shutdown on Ctrl-C or
//! SIGTERM that lets calls in progress finish.

use std::net::SocketAddr;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::FusionServer;

/// How long a shutdown waits for calls in progress, in seconds.
pub const SHUTDOWN_GRACE_SECS: u64 = 10;

/// After the last call in progress returns, how long its response gets to be
/// written out before the transport closes, in milliseconds.
const FLUSH_MS: u64 = 250;

/// Waits for the calls in progress (at most [`SHUTDOWN_GRACE_SECS`]), then for
/// their responses to be written.
async fn drain(in_flight: &super::in_flight::InFlight) {
    in_flight.close();
    let left = in_flight
        .drain(Duration::from_secs(SHUTDOWN_GRACE_SECS))
        .await;
    if left > 0 {
        tracing::warn!(calls = left, "shutting down with calls still in progress");
    }
    tokio::time::sleep(Duration::from_millis(FLUSH_MS)).await;
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
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
    /// a valid MCP start).
    #[error("transport error: {0}")]
    Transport(String),
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

/// Answers a session's `DELETE` with 204 No Content where rmcp says 202
/// Accepted: the session is gone by then, and clients such as the official
/// Python SDK treat 202 as a failed termination.
async fn session_end_no_content(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
    }
    response
}

impl FusionServer {
    /// Serves MCP over stdin/stdout until the client closes stdin, or Ctrl-C /
    /// SIGTERM (then calls in progress get up to [`SHUTDOWN_GRACE_SECS`]
    /// seconds to finish). Uses rmcp's non-blocking `stdio_pipes()`. Logs must go
    /// to stderr.
    ///
    /// # Errors
    /// [`ServeError::Transport`] when the stream fails or does not start as MCP.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let in_flight = self.inner.in_flight.clone();
        let running = self
            .serve(rmcp::transport::stdio_pipes())
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        let token = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            result = &mut waiting => {
                result.map_err(|e| ServeError::Transport(e.to_string()))?;
            }
            () = shutdown_signal() => {
                tracing::info!("shutting down: letting calls in progress finish");
                drain(&in_flight).await;
                token.cancel();
                let _ = waiting.await;
            }
        }
        Ok(())
    }

    /// The Streamable HTTP endpoint as an axum router with the MCP service at
    /// `/mcp` (rmcp's `StreamableHttpService`: the 2025-11-25 session handshake
    /// and the stateless 2026-07-28 protocol; `Host` limited to localhost
    /// names, others get HTTP 403). Cancelling `shutdown` closes its sessions.
    pub fn http_router(&self, shutdown: CancellationToken) -> axum::Router {
        let server = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default().with_cancellation_token(shutdown),
        );
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(session_end_no_content))
    }

    /// Serves Streamable HTTP at `http://{addr}/mcp` until Ctrl-C or SIGTERM;
    /// then it stops taking calls and lets calls in progress finish (up to
    /// [`SHUTDOWN_GRACE_SECS`] seconds) before closing.
    ///
    /// # Errors
    /// [`ServeError::Bind`] when `addr` cannot be bound; [`ServeError::Transport`]
    /// when the server fails while running.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        self.serve_http_on(listener, shutdown_signal()).await
    }

    /// Serves Streamable HTTP on an already bound `listener` until `stop`
    /// resolves, then drains calls in progress as [`FusionServer::serve_http`] does.
    ///
    /// # Errors
    /// [`ServeError::Transport`] when the server fails while running.
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let token = CancellationToken::new();
        let app = self.http_router(token.child_token());
        let in_flight = self.inner.in_flight.clone();
        let closing = token.clone();
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                stop.await;
                tracing::info!("shutting down: letting calls in progress finish");
                drain(&in_flight).await;
                closing.cancel();
            })
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))
    }
}
