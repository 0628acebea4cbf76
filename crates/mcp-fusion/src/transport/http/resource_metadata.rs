//! RFC 9728 protected resource metadata of an OAuth resource server: served
//! at the path form (`/.well-known/oauth-protected-resource` followed by the
//! resource's path: `/.well-known/oauth-protected-resource/mcp` for
//! `https://mcp.example.com/mcp`) and at the root form
//! (`/.well-known/oauth-protected-resource`), as MCP authorization
//! ("Protected Resource Metadata Discovery Requirements") lets clients try
//! both. Behind the `Host` check alone.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::origin::DoorPolicy;
use crate::guard::ProtectedResource;
use crate::server::FusionServer;

/// The well-known path segment of RFC 9728 §3.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The path of the resource `resource` (absolute URI), `""` for the root.
fn resource_path(resource: &str) -> String {
    resource
        .parse::<axum::http::Uri>()
        .map(|uri| uri.path().trim_end_matches('/').to_owned())
        .unwrap_or_default()
}

/// The URL of the path-form metadata of `resource` (RFC 9728 §3.1: the
/// well-known segment between host and path).
pub(crate) fn metadata_url(resource: &str) -> String {
    let path = resource_path(resource);
    let origin = resource
        .parse::<axum::http::Uri>()
        .ok()
        .and_then(|uri| Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?)))
        .unwrap_or_default();
    format!("{origin}{WELL_KNOWN}{path}")
}

#[derive(Clone)]
struct Served {
    door: DoorPolicy,
    resource: ProtectedResource,
    server: FusionServer,
}

/// The routes of the metadata of `resource`, whose `scopes_supported` are
/// the scopes `server`'s capabilities need (read at each request: tools may
/// change).
pub(crate) fn router(
    door: DoorPolicy,
    resource: ProtectedResource,
    server: FusionServer,
) -> axum::Router {
    let path = resource_path(&resource.resource);
    let served = Served {
        door,
        resource,
        server,
    };
    let mut router = axum::Router::new().route(WELL_KNOWN, axum::routing::get(document));
    if !path.is_empty() {
        router = router.route(&format!("{WELL_KNOWN}{path}"), axum::routing::get(document));
    }
    router.with_state(served)
}

/// The metadata document (RFC 9728 §2): `resource`,
/// `authorization_servers`, `scopes_supported` (without `offline_access`),
/// `bearer_methods_supported` (`["header"]`: MCP clients send tokens in the
/// `Authorization` header only).
async fn document(State(served): State<Served>, request: Request) -> Response {
    if let Err(refusal) = served.door.check_host(request.uri(), request.headers()) {
        let (status, body) = refusal.status_and_text();
        return (
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            body,
        )
            .into_response();
    }
    let body = json!({
        "resource": served.resource.resource,
        "authorization_servers": served.resource.authorization_servers,
        "scopes_supported": crate::server::edge::scopes::scopes_supported(&served.server),
        "bearer_methods_supported": ["header"],
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_form_inserts_the_well_known_segment() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080/public/mcp"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/public/mcp"
        );
        assert_eq!(
            metadata_url("https://mcp.example.com"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }
}
