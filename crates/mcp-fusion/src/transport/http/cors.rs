//! Cross-origin access (CORS, the Fetch standard's "CORS protocol") for the
//! browser origins the door lets in: a page of an allowed origin
//! ([`HttpOptions::allowed_origins`](super::HttpOptions::allowed_origins),
//! or a same-origin page of a loopback server) may `fetch()` every route of
//! the HTTP router: the MCP endpoint and whatever is merged beside it.
//!
//! It wraps the whole router, outside the door ([`super::edge`]), and uses
//! tower-http's [`CorsLayer`] for a request whose `Origin` passes the door's
//! `Host` and `Origin` check ([`DoorPolicy::check`]):
//! - a preflight (`OPTIONS`) is answered here, `200` with an empty body,
//!   before the bearer-token check (a browser sends no `Authorization` with
//!   it), allowing the methods of [`ALLOWED_METHODS`] and the request headers
//!   of [`ALLOWED_HEADERS`] followed by the `Mcp-Param-*` headers the
//!   server's tools declare (`x-mcp-header` in their input schemas, MCP
//!   2026-07-28 Streamable HTTP), read from the tools listed at that
//!   moment (tools added at run time included); tower-http's layer takes a
//!   list, so the list is made per preflight rather than mirroring whatever
//!   a page asks for;
//! - every other response, refusals of the edge included (a `401` with its
//!   `WWW-Authenticate` challenge, a `404`, a `413`, a JSON-RPC `400`),
//!   carries `Access-Control-Allow-Origin: <that origin>` (never `*`) and
//!   `Access-Control-Expose-Headers` naming [`EXPOSED_HEADERS`].
//!
//! Every response to such a request carries `Vary: Origin`. A request
//! without `Origin`, or whose `Origin` or `Host` the door refuses, passes
//! through untouched: the edge answers the latter `403` (or `400`), with no
//! CORS header, so the browser refuses to show it to the page.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderName, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use tower::{Layer, ServiceExt};
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::origin::DoorPolicy;
use crate::server::FusionServer;

/// The methods a cross-origin page may use (`Access-Control-Allow-Methods`):
/// the Streamable HTTP transport's `POST` (messages), `GET` (the session's
/// stream) and `DELETE` (ending a session), and `OPTIONS`.
pub(crate) const ALLOWED_METHODS: [Method; 4] =
    [Method::GET, Method::POST, Method::DELETE, Method::OPTIONS];

/// The request headers a cross-origin page may send
/// (`Access-Control-Allow-Headers`): `Content-Type`, `Accept`,
/// `Authorization` (the bearer token, MCP basic/authorization), and the
/// Streamable HTTP transport's `Mcp-Session-Id`, `Mcp-Protocol-Version`,
/// `Last-Event-ID` (resuming a stream) and the 2026-07-28 protocol's
/// `Mcp-Method` and `Mcp-Name`.
pub(crate) const ALLOWED_HEADERS: [HeaderName; 8] = [
    header::CONTENT_TYPE,
    header::AUTHORIZATION,
    header::ACCEPT,
    HeaderName::from_static("mcp-session-id"),
    HeaderName::from_static("mcp-protocol-version"),
    HeaderName::from_static("last-event-id"),
    HeaderName::from_static("mcp-method"),
    HeaderName::from_static("mcp-name"),
];

/// The response headers a cross-origin page may read
/// (`Access-Control-Expose-Headers`) beside the CORS-safelisted ones: the
/// session an `initialize` opened (`Mcp-Session-Id`), the challenge of a
/// `401` (`WWW-Authenticate`, RFC 6750 §3) and `Mcp-Protocol-Version`.
pub(crate) const EXPOSED_HEADERS: [HeaderName; 3] = [
    HeaderName::from_static("mcp-session-id"),
    header::WWW_AUTHENTICATE,
    HeaderName::from_static("mcp-protocol-version"),
];

/// What the CORS middleware decides with: the door's rules, the CORS
/// layer for the origins they allow, and the server whose tools name the
/// `Mcp-Param-*` headers a preflight allows.
pub(crate) struct Cors {
    door: DoorPolicy,
    layer: CorsLayer,
    server: FusionServer,
}

impl Cors {
    /// The CORS rules of `server`'s router whose door is `door`.
    pub(crate) fn new(door: &DoorPolicy, server: FusionServer) -> Arc<Self> {
        let allowed = door.clone();
        let layer = CorsLayer::new()
            // The request's own origin, when the door lets it in.
            .allow_origin(AllowOrigin::predicate(move |_origin, parts| {
                allowed.check(&parts.uri, &parts.headers).is_ok()
            }))
            .allow_methods(ALLOWED_METHODS)
            .allow_headers(ALLOWED_HEADERS)
            .expose_headers(EXPOSED_HEADERS)
            // The answer depends on the origin alone: the allowed methods
            // and headers are the same whatever a preflight asks for.
            .vary([header::ORIGIN]);
        Arc::new(Cors {
            door: door.clone(),
            layer,
            server,
        })
    }

    /// The layer for `request`: a preflight's allows the fixed headers and
    /// the `Mcp-Param-*` ones the tools declare now.
    fn layer_for(&self, request: &Request) -> CorsLayer {
        let params = if request.method() == Method::OPTIONS {
            crate::server::edge::param_headers::param_headers(&self.server)
        } else {
            Vec::new()
        };
        if params.is_empty() {
            return self.layer.clone();
        }
        let headers: Vec<HeaderName> = ALLOWED_HEADERS
            .into_iter()
            .chain(
                params
                    .iter()
                    .filter_map(|name| HeaderName::from_bytes(name.as_bytes()).ok()),
            )
            .collect();
        self.layer.clone().allow_headers(headers)
    }
}

/// The middleware (axum `from_fn_with_state`), around the whole router.
pub(crate) async fn cors(State(cors): State<Arc<Cors>>, request: Request, next: Next) -> Response {
    let from_allowed_origin = request.headers().contains_key(header::ORIGIN)
        && cors.door.check(request.uri(), request.headers()).is_ok();
    if !from_allowed_origin {
        return next.run(request).await;
    }
    match cors.layer_for(&request).layer(next).oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
