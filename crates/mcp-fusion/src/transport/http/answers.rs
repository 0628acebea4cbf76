//! The plain-text answers the layers of the MCP endpoint give, and the
//! session header they read.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

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

/// The session a request names, if any.
pub(crate) fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}
