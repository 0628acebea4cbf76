//! The sessions' layer of the MCP endpoint (Streamable HTTP, "Session
//! Management"), for the requests that carry no message: a `DELETE` must
//! name a session that exists, here or (with Redis) on another replica
//! (else 404), and rmcp's `202 Accepted` for it becomes `204 No Content`
//! (the session is gone by then, and clients such as the official Python
//! SDK take a 202 for a failed termination); a `GET` (the session's
//! stream) counts its session busy while it is served, and a session
//! another replica ended is the unknown session's 404. A `POST` goes on
//! untouched: the edge ([`super::edge`]) reads its message first.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::answers::{session_gone, session_id, text};
use super::sessions::Sessions;

/// The layer (axum `from_fn_with_state`).
pub(crate) async fn session_gate(
    State(sessions): State<Sessions>,
    request: Request,
    next: Next,
) -> Response {
    // A POST's session header is the edge's to read, once.
    if request.method() == Method::POST {
        return next.run(request).await;
    }
    let session = session_id(request.headers());
    match *request.method() {
        Method::DELETE => {
            if let Some(id) = &session
                && !sessions.knows(id).await
            {
                return text(
                    StatusCode::NOT_FOUND,
                    String::from("Not Found: no such session (it ended, or never existed)"),
                );
            }
            let mut response = next.run(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
                *response.body_mut() = Body::empty();
            }
            response
        }
        _ => {
            let _busy = session.as_deref().and_then(|id| sessions.enter(id));
            if let Some(id) = &session
                && !sessions.still_open(id).await
            {
                return session_gone();
            }
            next.run(request).await
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::transport::streamable_http_server::session::SessionManager;
    use tower::ServiceExt;

    use super::super::test_support::sessions;
    use super::*;

    /// The gate in front of an endpoint that answers every request `202`.
    fn router(sessions: &Sessions) -> axum::Router {
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::any(|| async { (StatusCode::ACCEPTED, "accepted") }),
            )
            .layer(axum::middleware::from_fn_with_state(
                sessions.clone(),
                session_gate,
            ))
    }

    /// Status and body of `method /mcp` naming `session`.
    async fn send(sessions: &Sessions, method: Method, session: &str) -> (u16, String) {
        let request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("mcp-session-id", session)
            .body(Body::empty())
            .expect("a request");
        let response = router(sessions).oneshot(request).await.expect("an answer");
        let status = response.status().as_u16();
        (
            status,
            super::super::test_support::body_text(response).await,
        )
    }

    #[tokio::test]
    async fn a_delete_must_name_a_session_and_ends_it_with_204() {
        let sessions = sessions();
        assert_eq!(
            send(&sessions, Method::DELETE, "nope").await,
            (
                404,
                "Not Found: no such session (it ended, or never existed)".to_owned()
            )
        );
        let (id, _transport) = sessions.create_session().await.expect("a session");
        assert_eq!(
            send(&sessions, Method::DELETE, &id).await,
            (204, String::new())
        );
    }

    #[tokio::test]
    async fn a_post_and_a_get_go_on_to_the_endpoint() {
        let sessions = sessions();
        let (id, _transport) = sessions.create_session().await.expect("a session");
        for method in [Method::POST, Method::GET] {
            assert_eq!(
                send(&sessions, method.clone(), &id).await,
                (202, "accepted".to_owned()),
                "{method}"
            );
        }
        // Without Redis, a session this server does not hold is not known
        // to have ended: its GET is rmcp's to answer.
        assert_eq!(
            send(&sessions, Method::GET, "elsewhere").await,
            (202, "accepted".to_owned())
        );
    }
}
