//! The Streamable HTTP transport: rmcp's `StreamableHttpService` at `/mcp`,
//! behind a door ([`edge`]) that checks `Host` and `Origin`, bounds bodies and
//! sessions, and answers malformed JSON-RPC as JSON-RPC 2.0 §5 says; around
//! every route, CORS for the origins the door lets in ([`cors`]).

mod answers;
mod auth;
mod bearer;
mod body_limit;
mod cors;
mod door;
mod edge;
#[cfg(feature = "otel")]
mod edge_span;
mod limit_key;
mod listen_streams;
#[cfg(feature = "metrics")]
mod metrics_endpoint;
#[cfg(not(feature = "redis"))]
mod no_session_store;
mod options;
pub(super) mod origin;
mod peer;
mod resource_metadata;
mod session_gate;
mod session_post;
#[cfg(feature = "redis")]
mod session_store;
mod sessions;
mod step_up;
#[cfg(test)]
mod test_support;
mod unread_body;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::http::request::Parts;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

pub use auth::AUTHORIZATION_SERVER_RETRY_SECS;
pub use edge::{LISTEN_FULL_RETRY_SECS, SESSIONS_FULL_RETRY_SECS};
pub use options::{DEFAULT_MAX_BODY_BYTES, HttpOptions, MAX_INITIALIZE_BYTES};
pub(crate) use origin::DoorPolicy;
pub use origin::PolicyError;
use peer::peer_address;
#[cfg(feature = "redis")]
pub use session_store::RedisSessionStore;

use super::error::ServeError;
use super::shutdown::{drain, shutdown_signal};
use crate::handler::Peer;
use crate::server::{FusionServer, UnknownToolError};
use axum::middleware::from_fn_with_state;
use body_limit::BodyLimit;
use edge::Edge;
use sessions::{Limits, Sessions};

impl FusionServer {
    /// [`FusionServer::call`] as if the call came over Streamable HTTP with the
    /// request head `http` (its `Authorization` header reaches the auth guard,
    /// its [`Peer`] extension, else its `ConnectInfo<SocketAddr>` one, the
    /// rate limits), for tests and embedding.
    ///
    /// # Errors
    /// [`UnknownToolError`] when no tool is named `name` (over MCP: -32602).
    pub async fn call_with_http(
        &self,
        name: &str,
        arguments: Value,
        http: Option<Parts>,
    ) -> Result<rmcp::model::CallToolResult, UnknownToolError> {
        let peer = match &http {
            Some(parts) => parts.extensions.get::<Peer>().copied().unwrap_or_else(|| {
                Peer::Http(peer_address(&parts.headers, &parts.extensions, false))
            }),
            None => Peer::Local,
        };
        self.call_in_process(name, arguments, http, peer).await
    }

    /// The Streamable HTTP endpoint as an axum router with the MCP service at
    /// `/mcp` (rmcp's `StreamableHttpService`: the 2025-11-25 session
    /// handshake and the stateless 2026-07-28 protocol), behind the checks of
    /// `options`, and with `HttpOptions::metrics` (feature `metrics`) the Prometheus
    /// exposition at `/metrics`; a page of an allowed origin
    /// ([`HttpOptions::allowed_origins`]) may call every route across
    /// origins (CORS: preflights answered, `Access-Control-Allow-Origin` on
    /// every answer, refusals included). Cancelling `shutdown` closes its
    /// sessions.
    /// Must be called inside a tokio runtime. Serve it with
    /// `into_make_service_with_connect_info::<SocketAddr>()` so that callers
    /// are told apart by address (see [`Peer`]).
    ///
    /// # Errors
    /// [`ServeError::Options`] when an allowed host or origin of `options`
    /// cannot be read.
    pub fn http_router(
        &self,
        options: &HttpOptions,
        shutdown: CancellationToken,
    ) -> Result<axum::Router, ServeError> {
        let door = DoorPolicy::new(&options.allowed_hosts, &options.allowed_origins)
            .map_err(ServeError::Options)?;
        let cors = cors::Cors::new(&door, self.clone());
        #[cfg(feature = "metrics")]
        if options.metrics {
            metrics_endpoint::install();
        }
        let protected = self
            .inner
            .assembly
            .guards
            .verifier
            .as_ref()
            .and_then(|v| v.protected_resource());
        let mut router = self.mcp_endpoint(options, &door, protected.as_ref(), shutdown);
        // An OAuth resource server's metadata (RFC 9728), outside the
        // MCP endpoint's door: a client reads it before it has a token.
        if let Some(resource) = protected {
            router = router.merge(resource_metadata::router(
                door.clone(),
                resource,
                self.clone(),
            ));
        }
        // Merged after the MCP endpoint's door: `/metrics` has its own, the
        // `Host` check alone.
        #[cfg(feature = "metrics")]
        let router = if options.metrics {
            router.merge(metrics_endpoint::router(door))
        } else {
            router
        };
        let router = router.fallback(|| async {
            (
                axum::http::StatusCode::NOT_FOUND,
                "Not Found: the MCP endpoint of this server is /mcp",
            )
        });
        // Outermost, over every route above: a preflight is answered before
        // the door's auth, and the door's refusals carry CORS headers too.
        Ok(router.layer(axum::middleware::from_fn_with_state(cors, cors::cors)))
    }

    /// The route `/mcp` (exactly: `/mcp/anything` is the fallback's 404):
    /// rmcp's `StreamableHttpService` on [`Sessions`] behind the endpoint's
    /// layers, outermost first: with the `otel` feature, the request's HTTP
    /// span ([`edge_span`]); `Connection: close` on an answer made
    /// before the body was read ([`unread_body`]), the door ([`door`]: `Host`, `Origin`, the
    /// caller's [`Peer`]), with a token verifier the bearer token
    /// ([`bearer`]), the body limit ([`body_limit`]), the sessions of the
    /// requests without a message ([`session_gate`]: `DELETE`, `GET`), then
    /// a POST's JSON-RPC checks ([`edge`]), which hand a message on a live
    /// session to the session manager already parsed ([`session_post`]).
    fn mcp_endpoint(
        &self,
        options: &HttpOptions,
        door: &DoorPolicy,
        protected: Option<&crate::guard::ProtectedResource>,
        shutdown: CancellationToken,
    ) -> axum::Router {
        #[cfg(feature = "redis")]
        let store = options.session_store.clone();
        #[cfg(not(feature = "redis"))]
        let store = None;
        let sessions = Sessions::new(
            Limits {
                max_sessions: options.max_sessions.max(1),
                max_per_caller: options.sessions_per_caller(),
                max_live: options.max_live_sessions.max(1),
                idle: options.session_idle,
            },
            store,
            shutdown.clone(),
        );
        let (service, keep_alive) = self.rmcp_service(&sessions, shutdown.clone());
        let auth = self.edge_auth(protected);
        let body = BodyLimit {
            max_bytes: options.max_body_bytes,
            read_timeout: options.read_timeout,
        };
        let guards = &self.inner.assembly.guards;
        let step_up = auth
            .as_ref()
            .filter(|_| guards.insufficient_scope() == crate::guard::InsufficientScope::StepUp)
            .map(|auth| (Arc::clone(auth), self.clone()));
        let edge = Arc::new(Edge {
            step_up,
            server: self.clone(),
            sessions: sessions.clone(),
            max_json_values: options.max_json_values,
            in_flight: self.inner.in_flight.clone(),
            listen_streams: listen_streams::ListenStreams::new(
                options.max_listen_streams,
                options.max_listen_streams_per_caller,
            ),
            session_post: session_post::SessionPost {
                sessions: sessions.clone(),
                keep_alive,
                shutdown,
            },
        });
        let mut route = axum::Router::new()
            .route_service("/mcp", service)
            .layer(from_fn_with_state(edge, edge::edge))
            .layer(from_fn_with_state(
                sessions.clone(),
                session_gate::session_gate,
            ))
            .layer(from_fn_with_state(body, body_limit::body_limit));
        if let Some(auth) = auth {
            let bearer = bearer::Bearer {
                auth,
                sessions,
                body,
                max_json_values: options.max_json_values,
            };
            route = route.layer(from_fn_with_state(bearer, bearer::bearer));
        }
        let door = door::Door {
            policy: door.clone(),
            trust_forwarded_for: options.trust_forwarded_for,
        };
        let route = route
            .layer(from_fn_with_state(door, door::door))
            .layer(axum::middleware::from_fn(unread_body::close_unread));
        #[cfg(feature = "otel")]
        let route = match crate::telemetry::enabled() {
            true => route.layer(from_fn_with_state(
                edge_span::tracer(),
                edge_span::edge_span,
            )),
            false => route,
        };
        route
    }

    /// rmcp's service on `sessions`, and the interval of its SSE keep-alive
    /// comments.
    fn rmcp_service(
        &self,
        sessions: &Sessions,
        shutdown: CancellationToken,
    ) -> (
        StreamableHttpService<crate::server::Served, Sessions>,
        Option<Duration>,
    ) {
        // The body-limit layer bounds and reads every body rmcp reads: the
        // limit is applied there, once.
        let mut config = StreamableHttpServerConfig::default()
            .with_cancellation_token(shutdown)
            .with_max_request_body_bytes(usize::MAX);
        // The door checks `Host` before rmcp sees a request, knowing every
        // spelling of an address (`[0:0:0:0:0:0:0:1]` is `::1`) and naming
        // the fix when it refuses; rmcp's own check would refuse some
        // spellings the door accepts, with a bare 403.
        config = config.disable_allowed_hosts();
        config.session_store = Some(Arc::new(sessions.clone()));
        let keep_alive = config.sse_keep_alive;
        let server = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.served(true)),
            Arc::new(sessions.clone()),
            config,
        );
        (service, keep_alive)
    }

    /// With a token verifier: what the bearer layer checks with, and, for
    /// an OAuth resource server (`protected`), what its challenges carry.
    fn edge_auth(
        &self,
        protected: Option<&crate::guard::ProtectedResource>,
    ) -> Option<Arc<auth::EdgeAuth>> {
        let guards = &self.inner.assembly.guards;
        guards.verifier.as_ref().map(|verifier| {
            Arc::new(auth::EdgeAuth {
                verifier: Arc::clone(verifier),
                allow_anonymous: guards.allow_anonymous,
                oauth: protected.map(|resource| auth::OAuthChallenge {
                    metadata_url: resource_metadata::metadata_url(&resource.resource),
                    server: self.clone(),
                    challenge_scopes: resource.challenge_scopes.clone(),
                }),
            })
        })
    }

    /// Serves Streamable HTTP at `http://{addr}/mcp` with `options` until
    /// Ctrl-C or SIGTERM; then it stops taking calls and lets calls in
    /// progress finish (up to [`HttpOptions::shutdown_grace`]) before closing.
    ///
    /// # Errors
    /// [`ServeError::Options`] when `options` cannot be used;
    /// [`ServeError::Bind`] when `addr` cannot be bound.
    pub async fn serve_http(
        self,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        self.serve_http_on(listener, options, shutdown_signal())
            .await
    }

    /// Serves Streamable HTTP on an already bound `listener` until `stop`
    /// resolves, then drains calls in progress as [`FusionServer::serve_http`]
    /// does. Connections are served by hyper over HTTP/1.1 with a time limit
    /// on reading a request's headers, counted from the moment a connection
    /// is accepted or finished its previous request
    /// ([`HttpOptions::read_timeout`]): a
    /// connection that says nothing is closed then. After the drain,
    /// connections still open (a client that never finishes its request) are
    /// closed within a second.
    ///
    /// # Errors
    /// [`ServeError::Options`] when `options` cannot be used.
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let token = CancellationToken::new();
        let app = self.http_router(&options, token.child_token())?;
        if let Ok(addr) = listener.local_addr() {
            tracing::info!("serving MCP over Streamable HTTP at http://{addr}/mcp");
        }
        let in_flight = self.inner.in_flight.clone();
        let grace = options.shutdown_grace;
        // HTTP/1.1 only: the version sniffing of hyper-util's `auto` waits
        // for a client's first bytes with no time limit, so silent
        // connections would pile up until the process runs out of file
        // descriptors; `header_read_timeout` bounds them from the moment a
        // connection is accepted (and between requests of a kept-alive one).
        let mut builder =
            hyper_util::server::conn::auto::Builder::new(TokioExecutor::new()).http1_only();
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(options.read_timeout);
        let connections = GracefulShutdown::new();
        // Connections are accepted until the drain is over: a call that
        // arrives meanwhile is answered (refused with SERVER_BUSY), not left
        // waiting in the listen queue.
        let shutdown = async move {
            stop.await;
            tracing::info!("shutting down: letting calls in progress finish");
            drain(&in_flight, grace).await;
        };
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, go on.
                        tracing::warn!("cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            // Answers are small writes (an SSE event, then the end of the
            // chunked body): with Nagle's algorithm each would wait for the
            // client's delayed ACK, about 40 ms per request.
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!("cannot set TCP_NODELAY: {e}");
            }
            let service =
                app.clone()
                    .map_request(move |mut request: axum::extract::Request<Incoming>| {
                        request
                            .extensions_mut()
                            .insert(axum::extract::ConnectInfo(peer));
                        request.map(axum::body::Body::new)
                    });
            let connection =
                builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            let connection = connections.watch(connection.into_owned());
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!("connection ended: {e}");
                }
            });
        }
        token.cancel();
        if tokio::time::timeout(Duration::from_secs(1), connections.shutdown())
            .await
            .is_err()
        {
            tracing::debug!("closing connections that did not finish");
        }
        Ok(())
    }
}
