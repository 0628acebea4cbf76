//! The first layer of the MCP endpoint: `Host` and `Origin` checked against
//! the [`DoorPolicy`] before anything else is read (400 or 403 with a
//! plain-text reason, MCP Streamable HTTP "Security Warning"), then the
//! caller's address put in the request's extensions as a [`Peer`] (the
//! rate limits and the caller key read it; with `trust_forwarded_for`, the
//! last `X-Forwarded-For` address).

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use super::answers::text;
use super::origin::DoorPolicy;
use super::peer::peer_address;
use crate::handler::Peer;

/// What the door checks against.
#[derive(Clone)]
pub(crate) struct Door {
    pub policy: DoorPolicy,
    /// Whether the caller's address is the last `X-Forwarded-For` one.
    pub trust_forwarded_for: bool,
}

/// The layer (axum `from_fn_with_state`).
pub(crate) async fn door(State(door): State<Door>, mut request: Request, next: Next) -> Response {
    if let Err(refusal) = door.policy.check(request.uri(), request.headers()) {
        let (status, body) = refusal.status_and_text();
        tracing::debug!(status, "request refused at the door: {body}");
        return text(
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            body,
        );
    }
    let peer = Peer::Http(peer_address(
        request.headers(),
        request.extensions(),
        door.trust_forwarded_for,
    ));
    request.extensions_mut().insert(peer);
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use axum::extract::Extension;
    use tower::ServiceExt;

    use super::*;

    /// The door in front of an endpoint that tells the peer it was given.
    fn router() -> axum::Router {
        let door = Door {
            policy: DoorPolicy::new(
                &["localhost".to_owned(), "127.0.0.1".to_owned()],
                &["http://localhost:6274".to_owned()],
            )
            .expect("a valid policy"),
            trust_forwarded_for: true,
        };
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::any(
                    |Extension(peer): Extension<Peer>| async move { peer.to_string() },
                ),
            )
            .layer(axum::middleware::from_fn_with_state(door, self::door))
    }

    async fn send(headers: &[(&str, &str)]) -> (u16, String) {
        let request = super::super::test_support::post_with(headers);
        let response = router().oneshot(request).await.expect("an answer");
        let status = response.status().as_u16();
        let body = super::super::test_support::body_text(response).await;
        (status, body)
    }

    #[tokio::test]
    async fn an_origin_not_allowed_is_refused_with_the_fix() {
        assert_eq!(
            send(&[
                ("host", "localhost:8080"),
                ("origin", "http://evil.example")
            ])
            .await,
            (
                403,
                "Forbidden: requests from the browser origin \"http://evil.example\" are not \
                 allowed (DNS rebinding protection). To allow it: fusion serve --allowed-origin \
                 http://evil.example, or HttpOptions::allowed_origins."
                    .into()
            )
        );
    }

    #[tokio::test]
    async fn a_host_not_allowed_and_a_missing_host_are_refused() {
        assert_eq!(
            send(&[("host", "evil.example")]).await,
            (
                403,
                "Forbidden: this server does not answer to the host \"evil.example\" (DNS \
                 rebinding protection). To serve it, allow it: fusion serve --allowed-host \
                 evil.example, or HttpOptions::allowed_hosts."
                    .into()
            )
        );
        assert_eq!(
            send(&[]).await,
            (400, "Bad Request: missing or invalid Host header".into())
        );
    }

    #[tokio::test]
    async fn an_allowed_request_passes_with_its_peer() {
        assert_eq!(
            send(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://localhost:6274"),
                ("x-forwarded-for", "10.0.0.1, 192.0.2.7"),
            ])
            .await,
            (200, "192.0.2.7".into())
        );
    }
}
