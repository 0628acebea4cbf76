//! The plain-text answers the layers of the MCP endpoint give, and the
//! session header they read.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::sessions::Sessions;

/// The `Mcp-Session-Id` header of the 2025-11-25 Streamable HTTP transport.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// `status` with a plain-text `body`.
pub(crate) fn text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

/// The 404 of a session that is gone, or not the caller's.
pub(crate) fn session_gone() -> Response {
    text(
        StatusCode::NOT_FOUND,
        String::from("Not Found: Session not found"),
    )
}

/// `failure`, a 500 answering a message of session `id`, or the unknown
/// session's 404 when the session ended meanwhile (a `DELETE` or its expiry
/// raced the message, while it was taken or taken up again from its parked
/// handshake): the session is gone, not the server broken.
pub(crate) async fn unless_ended(sessions: &Sessions, id: &str, failure: Response) -> Response {
    if sessions.knows(id).await {
        return failure;
    }
    tracing::debug!(session = %id, "a message came as its session ended");
    session_gone()
}

/// The session a request names, if any.
pub(crate) fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}
