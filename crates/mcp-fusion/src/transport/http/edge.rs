//! The door of the Streamable HTTP endpoint: what every request passes before
//! rmcp's `StreamableHttpService` reads it.
//!
//! In order: `Host` and `Origin` ([`super::origin`]: 400 or 403); with a
//! token verifier, the bearer token ([`super::auth`]: 401 or 400, 503 when
//! the authorization server cannot be reached; an OAuth resource server's
//! 401 to a POST is answered after its body is read, within the limits
//! below, to name the scopes of what it calls; the
//! principal then reaches the server in the request's extensions, and a
//! session belongs to the principal that opened it: another principal's
//! request on it gets 404); for a POST,
//! a `Content-Length` over the body limit (413 at once), then the body read
//! within the limit (413), its JSON values counted before it is parsed (over
//! the limit: 200 with a `<validation_error>` tool result for a `tools/call`,
//! else 400 with `-32600`), and checked as one JSON-RPC message (400 with a
//! JSON-RPC error body, [`crate::wire::jsonrpc`]; 415 stays rmcp's answer to
//! a wrong `Content-Type`); a request that names MCP 2026-07-28 in its
//! `_meta` and a method that revision removed gets 404 with `-32601`
//! ([`crate::wire::removed_methods`]); an `initialize` must find room among the sessions
//! (503 with `Retry-After`, also while the server shuts down) and be at most
//! 16 KiB; a request id may not be reused while its first use runs (400); a
//! `DELETE` must name a session that exists (404); with Redis, a session
//! ended on another replica is gone here too (404); under the step-up
//! policy, a request whose capability needs a scope the token lacks gets
//! 403 `insufficient_scope`, and an anonymous one (allowed) of a
//! capability that needs credentials 401 ([`super::step_up`]). While rmcp handles a
//! request, its session counts as busy. A body must arrive within the read
//! timeout (408). A `subscriptions/listen` request (MCP 2026-07-28) whose id
//! or URI list is over its bound gets 400 with `-32602`
//! ([`crate::server::listen_refusal`]), and one past the open streams allowed
//! 429 (its caller's) or 503 (the endpoint's), both with `Retry-After` and a
//! JSON-RPC error `-32000` ([`super::listen_streams`]); its duplicate
//! resource URIs are taken once.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};

use super::auth::{EdgeAuth, Refusal, owner_of};
use super::listen_streams::{ListenFull, ListenSlot, ListenStreams};
use super::options::MAX_INITIALIZE_BYTES;
use super::origin::DoorPolicy;
use super::peer::peer_address;
use super::session_post::{Served, SessionPost};
use super::sessions::Sessions;
use super::step_up;
use crate::error::seconds_text;
use crate::handler::{Peer, Principal};
use crate::server::FusionServer;
use crate::server::in_flight::InFlight;
use crate::server::listen::stream::{deduplicated, listen_refusal};
use crate::server::listen::task_ids::{acknowledge_task_ids, error_answer, requested_task_ids};
use crate::wire::jsonrpc::{
    duplicate_id_response, invalid_params, invalid_params_response, reject_unreadable,
    repeated_key_response, too_many_values,
};
use crate::wire::message_text::MessageText;
use crate::wire::removed_methods::removed_request;

/// The `Mcp-Session-Id` header of the 2025-11-25 Streamable HTTP transport.
const SESSION_HEADER: &str = "mcp-session-id";

/// How long an `initialize` refused because every session is busy is told to
/// wait (its HTTP 503's `Retry-After`), in seconds.
pub const SESSIONS_FULL_RETRY_SECS: u64 = 5;

/// How long a `subscriptions/listen` request refused because every stream
/// allowed is open is told to wait (its HTTP 503's or 429's `Retry-After`),
/// in seconds.
pub const LISTEN_FULL_RETRY_SECS: u64 = 5;

/// What the door checks against.
pub(crate) struct Edge {
    pub door: DoorPolicy,
    /// With a token verifier: who may come in.
    pub auth: Option<EdgeAuth>,
    /// Under the step-up policy (with a verifier): the server whose
    /// capabilities say which scopes a request needs ([`super::step_up`]).
    pub step_up: Option<FusionServer>,
    pub sessions: Sessions,
    pub max_body_bytes: usize,
    /// The most JSON values a body may hold.
    pub max_json_values: usize,
    pub read_timeout: std::time::Duration,
    /// Whether the caller's address is the last `X-Forwarded-For` one.
    pub trust_forwarded_for: bool,
    /// The server's calls in progress: once it is closing, no new session.
    pub in_flight: InFlight,
    /// The open `subscriptions/listen` streams.
    pub listen_streams: ListenStreams,
    /// Where a POST on a live session is served from its parsed message.
    pub session_post: SessionPost,
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
fn jsonrpc_error(answer: String) -> Response {
    jsonrpc_error_with(StatusCode::BAD_REQUEST, answer)
}

/// `status` carrying a JSON-RPC error response.
fn jsonrpc_error_with(status: StatusCode, answer: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], answer).into_response()
}

/// The status of a JSON-RPC error the door answers: 404 for `-32601`
/// (MCP 2026-07-28 basic/transports/streamable-http: a method the server
/// does not implement), else 400.
fn status_of(code: i32) -> StatusCode {
    if code == rmcp::model::ErrorCode::METHOD_NOT_FOUND.0 {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::BAD_REQUEST
    }
}

fn too_large(limit: usize) -> Response {
    text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: the request body is over the limit of {limit} bytes"),
    )
}

/// The middleware (axum `from_fn_with_state`).
pub(crate) async fn edge(
    State(edge): State<Arc<Edge>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Err(refusal) = edge.door.check(request.uri(), request.headers()) {
        let (status, body) = refusal.status_and_text();
        tracing::debug!(status, "request refused at the door: {body}");
        return text(
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            body,
        );
    }
    // Where the call came from, for the server (rate limits, the caller
    // key): rmcp hands the request head, extensions included, to it.
    let peer = Peer::Http(peer_address(
        request.headers(),
        request.extensions(),
        edge.trust_forwarded_for,
    ));
    request.extensions_mut().insert(peer);
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    // Who is calling, before anything else is read; a session only serves
    // the principal that opened it.
    let owner = match &edge.auth {
        Some(auth) => match auth.admit(request.headers()).await {
            Ok(principal) => {
                let owner = owner_of(principal.as_ref());
                if let Some(principal) = principal {
                    request.extensions_mut().insert(principal);
                }
                // Under a verifier every session is bound when it opens: a
                // session whose owner cannot be found (Redis down, its record
                // gone) is refused like another principal's, never served.
                if let Some(id) = &session
                    && edge
                        .sessions
                        .owner(id)
                        .await
                        .is_none_or(|bound| bound != owner)
                {
                    tracing::debug!(session = %id, "a request on a session this principal is not known to own: refused");
                    return session_gone();
                }
                Some(owner)
            }
            Err(Refusal::Answer(refused)) => return refused,
            Err(Refusal::Unauthorized { description, body }) => {
                let scopes = if request.method() == Method::POST && auth.scopes_by_operation() {
                    edge.operation_scopes(auth, request).await
                } else {
                    None
                };
                return auth.unauthorized(description.as_deref(), &body, scopes.as_deref());
            }
        },
        None => None,
    };
    match *request.method() {
        Method::POST => {
            let response = edge.post(request, session.clone(), peer, next).await;
            match (&session, &owner) {
                // A session just opened belongs to the principal that opened it.
                (None, Some(owner)) => {
                    if let Some(id) = response
                        .headers()
                        .get(SESSION_HEADER)
                        .and_then(|v| v.to_str().ok())
                    {
                        edge.sessions.bind_owner(id, owner).await;
                    }
                }
                // One taken up from Redis keeps its owner here, checked
                // above, for when Redis cannot answer.
                (Some(id), Some(owner)) => edge.sessions.remember_owner(id, owner),
                _ => {}
            }
            response
        }
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
            if let Some(id) = &session
                && !edge.sessions.still_open(id).await
            {
                return session_gone();
            }
            next.run(request).await
        }
    }
}

/// The 503 of an `initialize` that finds no room, with `Retry-After`.
fn unavailable(body: String) -> Response {
    let mut response = text(StatusCode::SERVICE_UNAVAILABLE, body);
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(SESSIONS_FULL_RETRY_SECS),
    );
    response
}

fn session_gone() -> Response {
    text(
        StatusCode::NOT_FOUND,
        String::from("Not Found: Session not found"),
    )
}

impl Edge {
    /// The body of a POST, read within the body limit and the read
    /// timeout, without a UTF-8 byte order mark (RFC 8259 §8.1 lets one
    /// start a JSON text).
    ///
    /// # Errors
    /// The 413, 400 or 408 answer when it cannot be read.
    async fn read_body(&self, body: Body) -> Result<axum::body::Bytes, Response> {
        let read = Limited::new(body, self.max_body_bytes).collect();
        let mut bytes = match tokio::time::timeout(self.read_timeout, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(e)) if e.is::<LengthLimitError>() => return Err(too_large(self.max_body_bytes)),
            Ok(Err(e)) => {
                return Err(text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the request body could not be read ({e})"),
                ));
            }
            Err(_) => {
                return Err(text(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "Request Timeout: the body did not arrive within {}",
                        seconds_text(self.read_timeout.as_secs_f64().ceil() as u64)
                    ),
                ));
            }
        };
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = bytes.slice(3..);
        }
        Ok(bytes)
    }

    /// The scopes the capability a POST without (valid) credentials calls
    /// needs, for its 401's challenge (MCP authorization, "Scope Selection
    /// Strategy"): its body read within the limits (a JSON body of at most
    /// the body limit, the JSON values counted first); `None` when it
    /// cannot be read or calls nothing that needs scopes.
    async fn operation_scopes(&self, auth: &EdgeAuth, request: Request) -> Option<Vec<String>> {
        let server = auth.server()?;
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > self.max_body_bytes as u64) {
            return None;
        }
        let bytes = self.read_body(request.into_body()).await.ok()?;
        let text = MessageText::read(&bytes, self.max_json_values);
        if too_many_values(&text, false).is_some() {
            return None;
        }
        let message = text.message().ok()?;
        let needs =
            crate::server::edge::scopes::operation_needs(server, &step_up::operation(&message)?)?;
        Some(needs.scopes)
    }

    async fn post(
        &self,
        request: Request,
        session: Option<String>,
        peer: Peer,
        next: Next,
    ) -> Response {
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
        let (mut parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        // Counted on the text before anything is built: rmcp and this door
        // each parse the body, and every value that misses a schema costs
        // the validator an error.
        let read = MessageText::read(&bytes, self.max_json_values);
        if let Some(refused) = too_many_values(&read, session.is_some()) {
            tracing::debug!(
                max = self.max_json_values,
                "a body with too many JSON values"
            );
            if let Some(id) = &session
                && !self.sessions.still_open(id).await
            {
                return session_gone();
            }
            return if refused.tool_result {
                (
                    StatusCode::OK,
                    [(header::CONTENT_TYPE, "application/json")],
                    refused.answer,
                )
                    .into_response()
            } else {
                jsonrpc_error(refused.answer)
            };
        }
        let message = match read.message() {
            Ok(message) => message,
            Err(_) => {
                let unreadable = reject_unreadable(&bytes);
                return jsonrpc_error_with(status_of(unreadable.code), unreadable.answer);
            }
        };
        if let Some((id, error)) = removed_request(&message).or_else(|| invalid_params(&message)) {
            return jsonrpc_error_with(
                status_of(error.code.0),
                invalid_params_response(&id, &error),
            );
        }
        if let Some(answer) = repeated_key_response(&message, &read) {
            return jsonrpc_error(answer);
        }
        // A `subscriptions/listen` naming tasks: their ids reach the server
        // in the request head, and its acknowledgement lists them.
        let task_ids = match requested_task_ids(&message, &bytes) {
            Ok(ids) => ids,
            // 400, as rmcp answers the -32021 of a `tools/call`.
            Err((id, error)) => {
                return jsonrpc_error_with(status_of(error.code.0), error_answer(&id, &error));
            }
        };
        if let Some(ids) = &task_ids {
            parts.extensions.insert(ids.clone());
        }
        let mut message = message;
        let (rewritten, listen_slot) = match self.listen_admission(&mut message, &session, peer) {
            Ok(admitted) => admitted,
            Err(refused) => return refused,
        };
        if let (Some(auth), Some(server)) = (&self.auth, &self.step_up)
            && let Some(refused) =
                step_up::refusal(auth, server, &message, parts.extensions.get::<Principal>())
        {
            return refused;
        }
        let is_initialize = matches!(
            &message,
            ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_))
        );
        let _admission = match (&session, is_initialize) {
            (None, true) => {
                if bytes.len() > MAX_INITIALIZE_BYTES {
                    return text(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!(
                            "Payload Too Large: an initialize request may be at most {MAX_INITIALIZE_BYTES} bytes"
                        ),
                    );
                }
                if self.in_flight.is_closing() {
                    return unavailable(format!(
                        "Service Unavailable: the server is shutting down; try again in {SESSIONS_FULL_RETRY_SECS} seconds"
                    ));
                }
                match self.sessions.admit() {
                    Ok(admission) => Some(admission),
                    Err(full) => {
                        tracing::warn!(
                            sessions = full.sessions,
                            "initialize refused: every session is busy"
                        );
                        return unavailable(format!(
                            "Service Unavailable: all {} sessions of this server are busy; try again in {SESSIONS_FULL_RETRY_SECS} seconds",
                            full.sessions
                        ));
                    }
                }
            }
            _ => None,
        };
        let Some(session) = session else {
            let body = body_for_rmcp(bytes, &message, rewritten);
            let response = next.run(Request::from_parts(parts, body)).await;
            let response = hold_until_ended(response, listen_slot);
            return match task_ids {
                Some(ids) => acknowledging_task_ids(response, ids.0),
                None => response,
            };
        };
        // A request id must not be reused within a session while its first
        // use is in progress (MCP basic/messages): the second would never be
        // answered.
        let claim = match &message {
            ClientJsonRpcMessage::Request(request) => {
                match self.sessions.claim_request(&session, id_key(&request.id)) {
                    Ok(claim) => claim,
                    Err(()) => {
                        return jsonrpc_error(duplicate_id_response(&request.id));
                    }
                }
            }
            _ => None,
        };
        let _busy = self.sessions.enter(&session);
        if !self.sessions.still_open(&session).await {
            return session_gone();
        }
        let mut response = match self.session_post.serve(parts, &session, message).await {
            Served::Answered(response) => response,
            Served::Declined(declined) => {
                let (parts, message) = *declined;
                let body = body_for_rmcp(bytes, &message, rewritten);
                next.run(Request::from_parts(parts, body)).await
            }
        };
        if let Some(ids) = task_ids {
            response = acknowledging_task_ids(response, ids.0);
        }
        // The id stays claimed, and a listen stream's place taken, until
        // its answer's stream ends.
        hold_until_ended(hold_until_ended(response, claim), listen_slot)
    }

    /// For a `subscriptions/listen` request: its refusal when its id or URI
    /// list is over its bound (400, `-32602`) or no stream may be opened
    /// (429 or 503); else whether its duplicate resource URIs were taken
    /// out of `message` (its text no longer says what it holds), and the
    /// stream's place. Any other message passes as it is.
    #[allow(clippy::result_large_err)]
    fn listen_admission(
        &self,
        message: &mut ClientJsonRpcMessage,
        session: &Option<String>,
        peer: Peer,
    ) -> Result<(bool, Option<ListenSlot>), Response> {
        let ClientJsonRpcMessage::Request(request) = message else {
            return Ok((false, None));
        };
        let ClientRequest::SubscriptionsListenRequest(listen) = &mut request.request else {
            return Ok((false, None));
        };
        if let Some(error) = listen_refusal(&request.id, &listen.params) {
            return Err(jsonrpc_error(invalid_params_response(&request.id, &error)));
        }
        // The caller key the server gives the request (`CallContext::caller`).
        let caller = match session {
            Some(id) => format!("session:{id}"),
            None => format!("address:{peer}"),
        };
        let slot = match self.listen_streams.admit(&caller) {
            Ok(slot) => slot,
            Err(full) => {
                let (status, text) = match full {
                    ListenFull::Caller { max } => (
                        StatusCode::TOO_MANY_REQUESTS,
                        format!(
                            "Too many subscriptions/listen streams: this caller holds {max} open, the most allowed; close one or try again in {LISTEN_FULL_RETRY_SECS} seconds"
                        ),
                    ),
                    ListenFull::Total { max } => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            "Server busy: all {max} subscriptions/listen streams of this server are open; try again in {LISTEN_FULL_RETRY_SECS} seconds"
                        ),
                    ),
                };
                tracing::warn!(%caller, "subscriptions/listen refused: {text}");
                let error = rmcp::ErrorData::new(rmcp::model::ErrorCode(-32000), text, None);
                let mut response =
                    jsonrpc_error_with(status, invalid_params_response(&request.id, &error));
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(LISTEN_FULL_RETRY_SECS),
                );
                return Err(response);
            }
        };
        let rewritten = match deduplicated(&listen.params.notifications) {
            Some(filter) => {
                listen.params.notifications = filter;
                true
            }
            None => false,
        };
        Ok((rewritten, Some(slot)))
    }
}

/// The body rmcp's `StreamableHttpService` reads: the text as it came, or,
/// once the edge `rewrote` the message, the message written anew.
fn body_for_rmcp(
    bytes: axum::body::Bytes,
    message: &ClientJsonRpcMessage,
    rewritten: bool,
) -> Body {
    #[cfg(test)]
    tests::BODIES_FOR_RMCP.with(|count| count.set(count.get() + 1));
    if rewritten && let Ok(text) = serde_json::to_vec(message) {
        return Body::from(text);
    }
    Body::from(bytes)
}

/// `response`, holding `held` until its body ends (or is dropped: the
/// client went away).
fn hold_until_ended<T: Send + Sync + 'static>(response: Response, held: Option<T>) -> Response {
    match held {
        Some(held) => response.map(|body| {
            Body::new(body.map_frame(move |frame| {
                let _held = &held;
                frame
            }))
        }),
        None => response,
    }
}

/// `response` (a `subscriptions/listen` stream) with `ids` added to its
/// `notifications/subscriptions/acknowledged` as `notifications.taskIds`
/// (SEP-2663: the acknowledgement lists the task ids the server agreed to;
/// rmcp's leaves them out). Each SSE `data:` line up to the
/// acknowledgement is read; the rest pass as they are.
fn acknowledging_task_ids(response: Response, ids: Vec<String>) -> Response {
    let mut done = false;
    response.map(|body| {
        Body::new(body.map_frame(move |frame| {
            if done {
                return frame;
            }
            frame.map_data(|data| {
                let Ok(text) = std::str::from_utf8(&data) else {
                    return data;
                };
                let mut changed = false;
                let lines: Vec<String> = text
                    .split('\n')
                    .map(|line| {
                        let json = line.strip_prefix("data:").map(str::trim_start);
                        if let Some(mut message) =
                            json.and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
                            && acknowledge_task_ids(&mut message, &ids)
                        {
                            changed = true;
                            return format!("data: {message}");
                        }
                        line.to_owned()
                    })
                    .collect();
                if changed {
                    done = true;
                    axum::body::Bytes::from(lines.join("\n"))
                } else {
                    data
                }
            })
        }))
    })
}

/// A request id as a key that keeps its JSON type: `7` and `"7"` are two
/// ids (JSON-RPC 2.0 §4).
fn id_key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_else(|_| id.to_string())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use tokio_util::sync::CancellationToken;
    use tower::ServiceExt;

    use crate::handler::NoArgs;
    use crate::transport::HttpOptions;
    use crate::wire::message_text::PARSES;
    use crate::{Action, CallContext, FusionServer, ToolError};

    thread_local! {
        /// How many bodies the edge handed on to rmcp's service to parse.
        pub(super) static BODIES_FOR_RMCP: Cell<usize> = const { Cell::new(0) };
    }

    async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("pong")
    }

    fn post(session: Option<&str>, body: &'static str) -> Request<Body> {
        let mut request = Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18");
        if let Some(id) = session {
            request = request.header("mcp-session-id", id);
        }
        request.body(Body::from(body)).expect("a request")
    }

    /// Its status, its session id, its body.
    async fn send(
        router: &axum::Router,
        request: Request<Body>,
    ) -> (StatusCode, Option<String>, String) {
        let response = router.clone().oneshot(request).await.expect("an answer");
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().expect("text").to_owned());
        let body = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (
            status,
            session,
            String::from_utf8(body.to_vec()).expect("UTF-8"),
        )
    }

    /// (messages the edge parsed, bodies it handed rmcp) while `request` was served.
    async fn counted(router: &axum::Router, request: Request<Body>) -> ((usize, usize), String) {
        let before = (PARSES.get(), BODIES_FOR_RMCP.get());
        let (status, _, body) = send(router, request).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        (
            (PARSES.get() - before.0, BODIES_FOR_RMCP.get() - before.1),
            body,
        )
    }

    #[tokio::test]
    async fn a_call_on_a_session_is_parsed_once_and_never_by_rmcp() {
        let server = FusionServer::builder("once", "1.0.0")
            .tool(Action::new("ping", ping))
            .build()
            .expect("a valid server");
        let router = server
            .http_router(&HttpOptions::default(), CancellationToken::new())
            .expect("usable options");
        let (status, session, _) = send(
            &router,
            post(
                None,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let session = session.expect("a session id");
        let (status, _, body) = send(
            &router,
            post(
                Some(&session),
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ),
        )
        .await;
        assert_eq!((status, body.as_str()), (StatusCode::ACCEPTED, ""));
        let (counts, body) = counted(
            &router,
            post(
                Some(&session),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#,
            ),
        )
        .await;
        assert_eq!(counts, (1, 0));
        // The priming event, then the answer; event ids are
        // `{index}/{the session's stream number}`.
        let answer = |id: u32, stream: u32| {
            format!(
                "data: \nid: 0/{stream}\nretry: 3000\n\n\
                 data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":\
                 [{{\"type\":\"text\",\"text\":\"pong\"}}],\"isError\":false}}}}\nid: 1/{stream}\n\n"
            )
        };
        assert_eq!(body, answer(1, 0));
        // The same call as rmcp's service answers it (an `Accept` with
        // weights is left to rmcp): the same text, parsed twice.
        let mut weighted = post(
            Some(&session),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#,
        );
        weighted.headers_mut().insert(
            "accept",
            axum::http::HeaderValue::from_static("application/json;q=1, text/event-stream"),
        );
        let (counts, body) = counted(&router, weighted).await;
        assert_eq!(counts, (1, 1));
        assert_eq!(body, answer(2, 1));
        // An `initialize` is still rmcp's to read: it starts the session.
        let (counts, _) = counted(
            &router,
            post(
                None,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            ),
        )
        .await;
        assert_eq!(counts, (1, 1));
    }
}
