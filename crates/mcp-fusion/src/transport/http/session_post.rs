//! A POST on a live session of the 2025-11-25 handshake, handed to rmcp's
//! session manager ([`Sessions`], rmcp's `SessionManager`) as the message the
//! edge already parsed: the body is read and parsed once
//! ([`crate::wire::message_text::MessageText`]), never again by rmcp's
//! `StreamableHttpService`.
//!
//! It takes only the requests whose answer rmcp's service would give
//! without any check of its own failing (MCP basic/transports, Streamable
//! HTTP "Sending Messages to the Server"): an `Accept` naming both
//! `application/json` and `text/event-stream` without weights, an
//! `MCP-Protocol-Version` absent or one of rmcp's known revisions before
//! 2026-07-28 (so neither the SEP-2243 standard headers nor per-request
//! `_meta` apply), a message that is not `initialize` or `server/discover`
//! and names no protocol version in its `_meta`, on a session whose worker
//! runs. A request opens its SSE stream of answers (`create_stream`, 200
//! `text/event-stream`); a notification or a response is accepted (202).
//! Everything else ([`Served::Declined`]) goes on to rmcp's service, which
//! answers it as before (406, a restore of a parked session, 404, the
//! stateless revision).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions, GetMeta, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionManager};
use sse_stream::{KeepAlive, Sse, SseBody};
use tokio_util::sync::CancellationToken;

use super::answers::unless_ended;
use super::sessions::Sessions;

/// rmcp's `MCP-Protocol-Version` header.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// Where a POST on a session is served from the parsed message.
#[derive(Clone)]
pub(crate) struct SessionPost {
    pub sessions: Sessions,
    /// The interval of SSE keep-alive comments (rmcp's `sse_keep_alive`).
    pub keep_alive: Option<Duration>,
    /// Cancelled when the server shuts down: open streams end.
    pub shutdown: CancellationToken,
}

/// What [`SessionPost::serve`] did with a message.
pub(crate) enum Served {
    /// Its answer.
    Answered(Response),
    /// Not taken: rmcp's service must read it (the head and message handed back).
    Declined(Box<(Parts, ClientJsonRpcMessage)>),
}

impl SessionPost {
    /// Serves `message`, posted with the head `parts` on session `id`, on
    /// the session manager, or declines it (see the module's text).
    pub(crate) async fn serve(
        &self,
        parts: Parts,
        id: &str,
        mut message: ClientJsonRpcMessage,
    ) -> Served {
        let id = id.to_owned().into();
        if !takes(&parts.headers, &message)
            || !self.sessions.has_session(&id).await.unwrap_or(false)
        {
            return Served::Declined(Box::new((parts, message)));
        }
        // As rmcp does: the request head reaches the handler in the
        // message's extensions.
        match &mut message {
            ClientJsonRpcMessage::Request(request) => {
                request.request.extensions_mut().insert(parts);
            }
            ClientJsonRpcMessage::Notification(notification) => {
                notification.notification.extensions_mut().insert(parts);
            }
            _ => {}
        }
        if matches!(message, ClientJsonRpcMessage::Request(_)) {
            return Served::Answered(match self.sessions.create_stream(&id, message).await {
                Ok(stream) => self.sse(stream),
                Err(e) => self.failed(&id, "get session", e).await,
            });
        }
        Served::Answered(match self.sessions.accept_message(&id, message).await {
            Ok(()) => status_only(StatusCode::ACCEPTED),
            Err(e) => self.failed(&id, "accept message", e).await,
        })
    }

    /// The answer when the session manager failed to take a message of
    /// session `id`: rmcp's 500, or the unknown session's 404 when the
    /// session ended meanwhile ([`unless_ended`]).
    async fn failed(
        &self,
        id: &rmcp::transport::common::server_side_http::SessionId,
        context: &str,
        error: impl std::fmt::Display,
    ) -> Response {
        unless_ended(&self.sessions, id, internal_error(context, error)).await
    }

    /// A stream of server messages as rmcp's service writes it: 200
    /// `text/event-stream`, one SSE event per message (its id and retry
    /// hint kept), keep-alive comments, ended when the server shuts down.
    fn sse(
        &self,
        stream: impl futures::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    ) -> Response {
        let stream = stream
            .map(|message| {
                let mut sse = match &message.message {
                    Some(message) => Sse::default()
                        .data(serde_json::to_string(message.as_ref()).unwrap_or_default()),
                    // A priming event: empty data (SEP-1699).
                    None => Sse::default().data(""),
                };
                sse.id = message.event_id;
                sse.retry = message.retry.map(|retry| retry.as_millis() as u64);
                Ok::<_, Infallible>(sse)
            })
            .take_until(self.shutdown.clone().cancelled_owned());
        let body = match self.keep_alive {
            Some(interval) => Body::new(
                SseBody::new(stream)
                    .with_keep_alive::<KeepAliveTimer>(KeepAlive::new().interval(interval)),
            ),
            None => Body::new(SseBody::new(stream)),
        };
        let mut response = Response::new(body);
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-cache"),
        );
        headers.insert("x-accel-buffering", header::HeaderValue::from_static("no"));
        response
    }
}

/// Whether rmcp's service would take `message`, posted with `headers` on
/// a session, straight to the session manager (see the module's text).
fn takes(headers: &HeaderMap, message: &ClientJsonRpcMessage) -> bool {
    accepts_json_and_sse(headers) && legacy_revision(headers) && no_request_revision(message)
}

/// `Accept` names `application/json` and `text/event-stream`, with no
/// media range weighted (a weight, `q=0` included, is left to rmcp).
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for range in value.split(',') {
            let mut parameters = range.split(';');
            let essence = parameters.next().unwrap_or_default().trim();
            if parameters.any(|p| p.trim_start().starts_with(['q', 'Q'])) || range.contains('"') {
                return false;
            }
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// `MCP-Protocol-Version` is absent, or one of rmcp's known revisions
/// before 2026-07-28 (the first without sessions and with SEP-2243's
/// standard headers).
fn legacy_revision(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(PROTOCOL_VERSION_HEADER).iter();
    let Some(value) = values.next() else {
        return true;
    };
    let Ok(version) = value.to_str() else {
        return false;
    };
    values.next().is_none()
        && version < ProtocolVersion::STANDARD_HEADERS.as_str()
        && version < ProtocolVersion::NO_INITIALIZE.as_str()
        && ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .any(|known| known.as_str() == version)
}

/// `message` is a notification or a response, or a request other than
/// `initialize` and `server/discover` naming no protocol version in `_meta`.
fn no_request_revision(message: &ClientJsonRpcMessage) -> bool {
    let ClientJsonRpcMessage::Request(request) = message else {
        return true;
    };
    !matches!(
        request.request,
        ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)
    ) && request.request.get_meta().protocol_version().is_none()
}

/// rmcp's 500 when the session manager fails, in its words.
fn internal_error(context: &str, error: impl std::fmt::Display) -> Response {
    tracing::error!("Internal server error when {context}: {error}");
    let mut response = Response::new(Body::from(format!(
        "Encounter an error when {context}: {error}"
    )));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

fn status_only(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// The timer of the SSE keep-alive comments: tokio's.
struct KeepAliveTimer(Pin<Box<tokio::time::Sleep>>);

impl std::future::Future for KeepAliveTimer {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl sse_stream::Timer for KeepAliveTimer {
    fn from_duration(duration: Duration) -> Self {
        Self(Box::pin(tokio::time::sleep(duration)))
    }

    fn reset(mut self: Pin<&mut Self>, when: std::time::Instant) {
        self.0.as_mut().reset(tokio::time::Instant::from_std(when));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_message_of_a_session_that_ended_meanwhile_is_the_unknown_session_404() {
        let limits = super::super::sessions::Limits {
            max_sessions: 4,
            max_per_caller: 4,
            max_live: 4,
            idle: Duration::from_secs(60),
        };
        let post = SessionPost {
            sessions: Sessions::new(limits, None, CancellationToken::new()),
            keep_alive: None,
            shutdown: CancellationToken::new(),
        };
        let ended = "ended".to_owned().into();
        let response = post
            .failed(&ended, "get session", "Session service terminated")
            .await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        assert_eq!(&body[..], b"Not Found: Session not found");
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, header::HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn accept_must_name_both_types_without_weights() {
        let both = "application/json, text/event-stream";
        assert!(accepts_json_and_sse(&headers(&[("accept", both)])));
        assert!(accepts_json_and_sse(&headers(&[
            ("accept", "application/json"),
            ("accept", "TEXT/EVENT-STREAM"),
        ])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[("accept", "*/*")])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json;q=0, text/event-stream"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[])));
    }

    #[test]
    fn only_revisions_with_sessions_are_taken() {
        assert!(legacy_revision(&headers(&[])));
        for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            assert!(
                legacy_revision(&headers(&[(PROTOCOL_VERSION_HEADER, version)])),
                "{version}"
            );
        }
        for version in ["2026-07-28", "2099-01-01", "2025-01-01", "junk"] {
            assert!(
                !legacy_revision(&headers(&[(PROTOCOL_VERSION_HEADER, version)])),
                "{version}"
            );
        }
        assert!(!legacy_revision(&headers(&[
            (PROTOCOL_VERSION_HEADER, "2025-06-18"),
            (PROTOCOL_VERSION_HEADER, "2025-06-18"),
        ])));
    }

    #[test]
    fn initialize_discover_and_per_request_revisions_are_left_to_rmcp() {
        let parse = |text: &str| serde_json::from_str::<ClientJsonRpcMessage>(text).unwrap();
        assert!(no_request_revision(&parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#
        )));
        assert!(no_request_revision(&parse(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )));
        assert!(!no_request_revision(&parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#
        )));
        assert!(!no_request_revision(&parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        )));
    }
}
