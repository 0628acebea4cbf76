//! The Streamable HTTP transport: rmcp's `StreamableHttpService` at `/mcp`,
//! behind a door ([`edge`]) that checks `Host` and `Origin`, bounds bodies and
//! sessions, and answers malformed JSON-RPC as JSON-RPC 2.0 §5 says.

mod edge;
mod options;
mod origin;
mod session_store;
mod sessions;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use edge::SESSIONS_FULL_RETRY_SECS;
pub use options::{DEFAULT_MAX_BODY_BYTES, HttpOptions};
pub(crate) use origin::DoorPolicy;
pub use origin::PolicyError;
pub use session_store::RedisSessionStore;

use super::FusionServer;
use super::transport::{ServeError, drain, shutdown_signal};
use edge::Edge;
use sessions::{Limits, Sessions};

/// Where an HTTP call came from: the TCP peer, or with `trust_forwarded_for`
/// the last `X-Forwarded-For` address (the one the proxy in front appended).
pub(crate) fn peer_address(parts: &Parts, trust_forwarded_for: bool) -> Option<IpAddr> {
    if trust_forwarded_for {
        let forwarded = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .rfind(|v| !v.trim().is_empty());
        if let Some(address) = forwarded.and_then(|a| a.trim().parse::<IpAddr>().ok()) {
            return Some(address);
        }
    }
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}

impl FusionServer {
    /// The Streamable HTTP endpoint as an axum router with the MCP service at
    /// `/mcp` (rmcp's `StreamableHttpService`: the 2025-11-25 session
    /// handshake and the stateless 2026-07-28 protocol), behind the checks of
    /// [`HttpOptions`]. Cancelling `shutdown` closes its sessions. Must be
    /// called inside a tokio runtime. Serve it with
    /// `into_make_service_with_connect_info::<SocketAddr>()` so that callers
    /// are told apart by address (see [`crate::pipeline::Peer`]).
    pub fn http_router(&self, shutdown: CancellationToken) -> axum::Router {
        let options = &self.inner.http;
        let sessions = Sessions::new(
            Limits {
                max_sessions: options.max_sessions.max(1),
                max_live: options.max_live_sessions.max(1),
                idle: options.session_idle,
            },
            options.session_store.clone(),
            shutdown.clone(),
        );
        let mut config = StreamableHttpServerConfig::default()
            .with_cancellation_token(shutdown)
            .with_max_request_body_bytes(options.max_body_bytes);
        // rmcp checks `Host` against the same list (the door checks it first).
        config = if options.allowed_hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(options.allowed_hosts.clone())
        };
        config.session_store = Some(Arc::new(sessions.clone()));
        let server = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(sessions.clone()),
            config,
        );
        let edge = Arc::new(Edge {
            door: self.inner.door.clone(),
            sessions,
            max_body_bytes: options.max_body_bytes,
        });
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn_with_state(edge, edge::edge))
            .fallback(|| async {
                (
                    axum::http::StatusCode::NOT_FOUND,
                    "Not Found: the MCP endpoint of this server is /mcp",
                )
            })
    }

    /// Serves Streamable HTTP at `http://{addr}/mcp` until Ctrl-C or SIGTERM;
    /// then it stops taking calls and lets calls in progress finish (up to
    /// [`HttpOptions::shutdown_grace`]) before closing.
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
        let grace = self.inner.http.shutdown_grace;
        let closing = token.clone();
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            stop.await;
            tracing::info!("shutting down: letting calls in progress finish");
            drain(&in_flight, grace).await;
            closing.cancel();
        })
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(forwarded: &[&str], peer: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder().uri("/mcp");
        for value in forwarded {
            request = request.header("x-forwarded-for", *value);
        }
        let (mut parts, ()) = request.body(()).expect("a request").into_parts();
        if let Some(peer) = peer {
            parts.extensions.insert(axum::extract::ConnectInfo(
                peer.parse::<SocketAddr>().expect("an address"),
            ));
        }
        parts
    }

    #[test]
    fn the_tcp_peer_unless_forwarded_for_is_trusted() {
        let p = parts(&["203.0.113.9, 198.51.100.7"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p, false),
            Some("10.0.0.2".parse().expect("ip"))
        );
        assert_eq!(
            peer_address(&p, true),
            Some("198.51.100.7".parse().expect("ip"))
        );
        let p = parts(&["203.0.113.9", "2001:db8::1"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p, true),
            Some("2001:db8::1".parse().expect("ip"))
        );
        let p = parts(&["not an address"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p, true),
            Some("10.0.0.2".parse().expect("ip"))
        );
        assert_eq!(peer_address(&parts(&[], None), true), None);
    }
}
