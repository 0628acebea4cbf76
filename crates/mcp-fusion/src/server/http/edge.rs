//! The door of the Streamable HTTP endpoint: what every request passes before
//! rmcp's `StreamableHttpService` reads it.
//!
//! In order: `Host` and `Origin` ([`super::origin`]: 400 or 403); for a POST,
//! a `Content-Length` over the body limit (413 at once), then the body read
//! within the limit (413) and checked as one JSON-RPC message (400 with a
//! JSON-RPC error body, [`crate::server::jsonrpc`]; 415 stays rmcp's answer to
//! a wrong `Content-Type`); an `initialize` must find room among the sessions
//! (503 with `Retry-After`); a `DELETE` must name a session that exists (404).
//! While rmcp handles a request, its session counts as busy.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde_json::Value;

use super::origin::DoorPolicy;
use super::sessions::Sessions;
use crate::server::jsonrpc::{invalid_params, invalid_params_response, reject_unreadable};

/// The `Mcp-Session-Id` header of the 2025-11-25 Streamable HTTP transport.
const SESSION_HEADER: &str = "mcp-session-id";

/// How long an `initialize` refused because every session is busy is told to
/// wait (its HTTP 503's `Retry-After`), in seconds.
pub const SESSIONS_FULL_RETRY_SECS: u64 = 5;

/// What the door checks against.
pub(crate) struct Edge {
    pub door: DoorPolicy,
    pub sessions: Sessions,
    pub max_body_bytes: usize,
}

fn text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

/// A 400 carrying a JSON-RPC error response.
fn jsonrpc_error(answer: &Value) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        answer.to_string(),
    )
        .into_response()
}

fn too_large(limit: usize) -> Response {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: the request body is over the limit of {limit} bytes"),
    )
}

/// The middleware (axum `from_fn_with_state`).
pub(crate) async fn edge(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = edge.door.check(request.uri(), request.headers()) {
        let (status, body) = refusal.status_and_text();
        tracing::debug!(status, "request refused at the door: {body}");
        return text(
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            body,
        );
    }
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match *request.method() {
        Method::POST => edge.post(request, session, next).await,
        Method::DELETE => {
            if let Some(id) = &session
                && !edge.sessions.knows(id).await
            {
                return text(
                    StatusCode::NOT_FOUND,
                    String::from("Not Found: no such session (it ended, or never existed)"),
                );
            }
            let mut response = next.run(request).await;
            // rmcp says 202 Accepted; the session is gone by then, and clients
            // such as the official Python SDK take 202 for a failed termination.
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
                *response.body_mut() = Body::empty();
            }
            response
        }
        _ => {
            let _busy = session.as_deref().and_then(|id| edge.sessions.enter(id));
            next.run(request).await
        }
    }
}

impl Edge {
    async fn post(&self, request: Request, session: Option<String>, next: Next) -> Response {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > self.max_body_bytes as u64) {
            return too_large(self.max_body_bytes);
        }
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            // rmcp answers 415 (or 406 for a wrong Accept).
            return next.run(request).await;
        }
        let (parts, body) = request.into_parts();
        let bytes = match Limited::new(body, self.max_body_bytes).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) => {
                if e.is::<LengthLimitError>() {
                    return too_large(self.max_body_bytes);
                }
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the request body could not be read ({e})"),
                );
            }
        };
        let message = match serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
            Ok(message) => message,
            Err(_) => return jsonrpc_error(&reject_unreadable(&bytes).answer),
        };
        if let Some((id, error)) = invalid_params(&message) {
            return jsonrpc_error(&invalid_params_response(&id, &error));
        }
        let is_initialize = matches!(
            &message,
            ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_))
        );
        let _admission = match (&session, is_initialize) {
            (None, true) => match self.sessions.admit() {
                Ok(admission) => Some(admission),
                Err(full) => {
                    tracing::warn!(
                        sessions = full.sessions,
                        "initialize refused: every session is busy"
                    );
                    let mut response = text(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            "Service Unavailable: all {} sessions of this server are busy; try again in {SESSIONS_FULL_RETRY_SECS} seconds",
                            full.sessions
                        ),
                    );
                    response.headers_mut().insert(
                        header::RETRY_AFTER,
                        HeaderValue::from(SESSIONS_FULL_RETRY_SECS),
                    );
                    return response;
                }
            },
            _ => None,
        };
        let _busy = session.as_deref().and_then(|id| self.sessions.enter(id));
        next.run(Request::from_parts(parts, Body::from(bytes)))
            .await
    }
}
