//! The last layer of the Streamable HTTP endpoint, in front of rmcp: what
//! is left to check once the door ([`super::door`]: `Host`, `Origin`), the
//! bearer token ([`super::auth`]: 401, 400 or 503; a session belongs to the
//! principal that opened it, another principal's request on it gets 404)
//! and the body limit ([`super::body_limit`]: 413, 408) let a request in:
//! a `POST`'s message.
//!
//! For a POST, the body (already read within its limit) is checked as one
//! JSON-RPC message: its JSON values counted before it is parsed (over
//! the limit: 200 with a `<validation_error>` tool result for a `tools/call`,
//! else 400 with `-32600`), then parsed once (400 with a JSON-RPC error
//! body, [`crate::wire::jsonrpc`]; 415 stays rmcp's answer to a wrong
//! `Content-Type`); a request that names MCP 2026-07-28 in its `_meta` and
//! a method that revision removed gets 404 with `-32601`
//! ([`crate::wire::removed_methods`]); an `initialize` must find room among the sessions
//! (503 with `Retry-After`, also while the server shuts down) and be at most
//! 16 KiB; a request id may not be reused while its first use runs (400);
//! with Redis, a session ended on another replica is gone here too (404;
//! a `DELETE` or `GET` is the session gate's, [`super::session_gate`]);
//! under the step-up
//! policy, a request whose capability needs a scope the token lacks gets
//! 403 `insufficient_scope`, and an anonymous one (allowed) of a
//! capability that needs credentials 401 ([`super::step_up`]). While rmcp handles a
//! request, its session counts as busy. A `subscriptions/listen` request (MCP 2026-07-28) whose id
//! or URI list is over its bound gets 400 with `-32602`
//! ([`crate::server::listen_refusal`]), and one past the open streams allowed
//! 429 (its caller's) or 503 (the endpoint's), both with `Retry-After` and a
//! JSON-RPC error `-32000` ([`super::listen_streams`]); its duplicate
//! resource URIs are taken once. The message then goes to rmcp's session
//! manager as it was parsed ([`super::session_post`]), or, when rmcp's
//! service must see it, to that service.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};

use super::answers::{SESSION_HEADER, session_gone, session_id, text, unless_ended};
use super::auth::EdgeAuth;
use super::body_limit::is_json;
use super::limit_key::limit_key;
use super::listen_streams::{ListenFull, ListenSlot, ListenStreams};
use super::options::MAX_INITIALIZE_BYTES;
use super::session_post::{Served, SessionPost};
use super::sessions::{Admission, Claimant, Full, Sessions};
use super::step_up;
use crate::handler::{Peer, Principal};
use crate::server::FusionServer;
use crate::server::edge::scopes::Operation;
use crate::server::in_flight::InFlight;
use crate::server::listen::stream::{deduplicated, listen_refusal, subscribable};
use crate::server::listen::task_ids::{
    ListenTaskIds, acknowledge_task_ids, error_answer, owned_by_caller, requested_task_ids,
};
use crate::wire::jsonrpc::{
    duplicate_id_response, invalid_params, invalid_params_response, params_refusal,
    reject_unreadable, too_many_values,
};
use crate::wire::message_text::MessageText;
use crate::wire::removed_methods::removed_request;

/// How long an `initialize` refused because every session is busy is told to
/// wait (its HTTP 503's `Retry-After`), in seconds.
pub const SESSIONS_FULL_RETRY_SECS: u64 = 5;

/// How long a `subscriptions/listen` request refused because every stream
/// allowed is open is told to wait (its HTTP 503's or 429's `Retry-After`),
/// in seconds.
pub const LISTEN_FULL_RETRY_SECS: u64 = 5;

/// What the last layer checks against.
pub(crate) struct Edge {
    /// Under the step-up policy (with a verifier): the verifier's challenges
    /// and the server whose capabilities say which scopes a request needs
    /// ([`super::step_up`]).
    pub step_up: Option<(Arc<EdgeAuth>, FusionServer)>,
    /// The server served: whose tasks a listen request may name.
    pub server: FusionServer,
    pub sessions: Sessions,
    /// The most JSON values a body may hold.
    pub max_json_values: usize,
    /// The server's calls in progress: once it is closing, no new session.
    pub in_flight: InFlight,
    /// The open `subscriptions/listen` streams.
    pub listen_streams: ListenStreams,
    /// Where a POST on a live session is served from its parsed message.
    pub session_post: SessionPost,
}

/// A message that passed the checks, on its way to rmcp.
struct Admitted {
    parts: Parts,
    bytes: Bytes,
    message: ClientJsonRpcMessage,
    /// The edge changed the message: its text no longer says what it holds.
    rewritten: bool,
    task_ids: Option<ListenTaskIds>,
    listen_slot: Option<ListenSlot>,
}

/// A 200 carrying a JSON-RPC result (a tool result the edge answered).
fn tool_result_response(answer: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        answer,
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

/// The layer (axum `from_fn_with_state`): a `POST`'s message; the other
/// methods are the session gate's ([`super::session_gate`]).
pub(crate) async fn edge(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    match *request.method() {
        Method::POST => {
            let session = session_id(request.headers());
            edge.post(request, session, next).await
        }
        _ => next.run(request).await,
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

impl Edge {
    async fn post(&self, request: Request, session: Option<String>, next: Next) -> Response {
        if !is_json(request.headers()) {
            // rmcp answers 415 (or 406 for a wrong Accept).
            return next.run(request).await;
        }
        let admitted = match self.admit(request, &session).await {
            Ok(admitted) => admitted,
            Err(refused) => return refused,
        };
        let is_initialize = matches!(
            &admitted.message,
            ClientJsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_))
        );
        let admission = match (&session, is_initialize) {
            (None, true) => match self.admit_initialize(&admitted) {
                Ok(admission) => Some(admission),
                Err(refused) => return refused,
            },
            _ => None,
        };
        match session {
            None => {
                let response = self.sessionless(admitted, next).await;
                // The session it opened counts against its caller's bound.
                if let Some(admission) = &admission
                    && let Some(id) = response
                        .headers()
                        .get(SESSION_HEADER)
                        .and_then(|v| v.to_str().ok())
                {
                    admission.opened(id);
                }
                response
            }
            Some(session) => self.on_session(admitted, &session, next).await,
        }
    }

    /// The body of a JSON POST checked as one JSON-RPC message and parsed
    /// once, with what the checks took (a listen stream's place, its task ids).
    ///
    /// # Errors
    /// The refusal of a message that may not go on.
    async fn admit(
        &self,
        request: Request,
        session: &Option<String>,
    ) -> Result<Admitted, Response> {
        let peer = request
            .extensions()
            .get::<Peer>()
            .copied()
            .unwrap_or(Peer::Http(None));
        let (mut parts, body) = request.into_parts();
        // Read within its limit by the body-limit layer already.
        let bytes = match body.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) => {
                return Err(text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the request body could not be read ({e})"),
                ));
            }
        };
        let mut message = self.message(&bytes, session).await?;
        // A `subscriptions/listen` naming tasks: their ids reach the server
        // in the request head, and its acknowledgement lists them.
        let task_ids = match requested_task_ids(&message, &bytes) {
            Ok(ids) => ids,
            // 400, as rmcp answers the -32021 of a `tools/call`.
            Err((id, error)) => {
                return Err(jsonrpc_error_with(
                    status_of(error.code.0),
                    error_answer(&id, &error),
                ));
            }
        };
        // Only the caller's own tasks: the acknowledgement leaves out
        // another's (and one that does not exist), as `tasks/get` does.
        let task_ids = match task_ids {
            Some(ids) => Some(owned_by_caller(&self.server, ids, &parts).await),
            None => None,
        };
        if let Some(ids) = &task_ids {
            parts.extensions.insert(ids.clone());
        }
        let principal = parts.extensions.get::<Principal>();
        let (rewritten, listen_slot) = self.listen_admission(&mut message, peer, principal)?;
        if let Some((auth, server)) = &self.step_up
            && let Some(operation) = step_up::operation(server, &message)
        {
            let principal = parts.extensions.get::<Principal>();
            if let Some(refused) = step_up::refusal(auth, server, &operation, principal) {
                return Err(refused);
            }
            // The call's one lookup goes on with it (`call_tool` takes it).
            if let Operation::Tool(lookup) = operation {
                parts.extensions.insert(lookup);
            }
        }
        Ok(Admitted {
            parts,
            bytes,
            message,
            rewritten,
            task_ids,
            listen_slot,
        })
    }

    /// `bytes` read as one JSON-RPC message: its JSON values counted
    /// against the limit, then parsed, once, and checked.
    ///
    /// # Errors
    /// The answer to a message that is over the limit, unreadable, of a
    /// removed method, with params rmcp cannot take, or with a repeated key.
    async fn message(
        &self,
        bytes: &Bytes,
        session: &Option<String>,
    ) -> Result<ClientJsonRpcMessage, Response> {
        // Counted on the text before anything is built: every value that
        // misses a schema costs the validator an error.
        let read = MessageText::read(bytes, self.max_json_values);
        if let Some(refused) = too_many_values(&read, session.is_some()) {
            tracing::debug!(
                max = self.max_json_values,
                "a body with too many JSON values"
            );
            if let Some(id) = session
                && !self.sessions.still_open(id).await
            {
                return Err(session_gone());
            }
            return Err(if refused.tool_result {
                tool_result_response(refused.answer)
            } else {
                jsonrpc_error(refused.answer)
            });
        }
        let Ok(message) = read.message() else {
            let unreadable = reject_unreadable(bytes, read.repeated_key());
            return Err(jsonrpc_error_with(
                status_of(unreadable.code),
                unreadable.answer,
            ));
        };
        let removed = removed_request(&message);
        if removed.is_none()
            && let Some(refused) = params_refusal(&message, &read)
        {
            return Err(if refused.tool_result {
                tool_result_response(refused.answer)
            } else {
                jsonrpc_error(refused.answer)
            });
        }
        if let Some((id, error)) = removed.or_else(|| invalid_params(&message)) {
            return Err(jsonrpc_error_with(
                status_of(error.code.0),
                invalid_params_response(&id, &error),
            ));
        }
        Ok(message)
    }

    /// Room for the session the `initialize` `admitted` opens, for its
    /// caller (the principal the bearer layer put in its extensions).
    ///
    /// # Errors
    /// 413 over [`MAX_INITIALIZE_BYTES`]; 503 while the server shuts down
    /// or when every session is busy.
    #[allow(clippy::result_large_err)]
    fn admit_initialize(&self, admitted: &Admitted) -> Result<Admission, Response> {
        if admitted.bytes.len() > MAX_INITIALIZE_BYTES {
            return Err(text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: an initialize request may be at most {MAX_INITIALIZE_BYTES} bytes"
                ),
            ));
        }
        if self.in_flight.is_closing() {
            return Err(unavailable(format!(
                "Service Unavailable: the server is shutting down; try again in {SESSIONS_FULL_RETRY_SECS} seconds"
            )));
        }
        let parts = &admitted.parts;
        let principal = parts.extensions.get::<Principal>();
        let peer = parts
            .extensions
            .get::<Peer>()
            .copied()
            .unwrap_or(Peer::Http(None));
        let caller = limit_key(principal, peer);
        let claimant = Claimant {
            caller: &caller,
            signed_in: principal.is_some(),
        };
        self.sessions.admit(claimant).map_err(|full| {
            let text = match full {
                Full::Table { sessions } => format!(
                    "Service Unavailable: all {sessions} sessions of this server are busy; try again in {SESSIONS_FULL_RETRY_SECS} seconds"
                ),
                Full::Caller { max } => format!(
                    "Service Unavailable: this caller holds {max} {}, the most one caller may hold, and {} busy; end one (DELETE with its Mcp-Session-Id) or try again in {SESSIONS_FULL_RETRY_SECS} seconds",
                    if max == 1 { "session" } else { "sessions" },
                    if max == 1 { "it is" } else { "all of them are" },
                ),
            };
            tracing::warn!(%caller, "initialize refused: {text}");
            unavailable(text)
        })
    }

    /// A message without a session (an `initialize`, the stateless
    /// 2026-07-28 revision): rmcp's service reads it.
    async fn sessionless(&self, admitted: Admitted, next: Next) -> Response {
        let body = body_for_rmcp(admitted.bytes, &admitted.message, admitted.rewritten);
        let response = next.run(Request::from_parts(admitted.parts, body)).await;
        let response = hold_until_ended(response, admitted.listen_slot);
        match admitted.task_ids {
            Some(ids) => acknowledging_task_ids(response, ids.0),
            None => response,
        }
    }

    /// A message on `session`: served from its parsed message, or by
    /// rmcp's service when it must see it.
    async fn on_session(&self, admitted: Admitted, session: &str, next: Next) -> Response {
        let Admitted {
            mut parts,
            bytes,
            message,
            rewritten,
            task_ids,
            listen_slot,
        } = admitted;
        // A request id must not be reused within a session while its first
        // use is in progress (MCP basic/messages): the second would never be
        // answered.
        let claim = match &message {
            ClientJsonRpcMessage::Request(request) => {
                match self.sessions.claim_request(session, id_key(&request.id)) {
                    Ok(claim) => claim.map(Arc::new),
                    Err(()) => return jsonrpc_error(duplicate_id_response(&request.id)),
                }
            }
            _ => None,
        };
        // The request holds its id too (its head goes with it to the
        // handler): a dropped stream is no cancellation on 2025-11-25, and
        // the id stays in use until the call ends.
        if let Some(claim) = &claim {
            parts.extensions.insert(Arc::clone(claim));
        }
        let _busy = self.sessions.enter(session);
        if !self.sessions.still_open(session).await {
            return session_gone();
        }
        if let Some(end) = self.sessions.end_of(session) {
            parts.extensions.insert(end);
        }
        let mut response = match self.session_post.serve(parts, session, message).await {
            Served::Answered(response) => response,
            Served::Declined(declined) => {
                let (parts, message) = *declined;
                let body = body_for_rmcp(bytes, &message, rewritten);
                let response = next.run(Request::from_parts(parts, body)).await;
                if response.status() == StatusCode::INTERNAL_SERVER_ERROR {
                    return unless_ended(&self.sessions, session, response).await;
                }
                response
            }
        };
        if let Some(ids) = task_ids {
            response = acknowledging_task_ids(response, ids.0);
        }
        // The id stays claimed until its call and its answer's stream have
        // both ended, and a listen stream's place taken until the stream
        // ends.
        hold_until_ended(hold_until_ended(response, claim), listen_slot)
    }

    /// For a `subscriptions/listen` request: its refusal when its id or URI
    /// list is over its bound (400, `-32602`) or no stream may be opened
    /// (429 or 503); else whether its duplicate resource URIs, or those of
    /// resources the caller with `principal` may not read, were taken out
    /// of `message` (its text no longer says what it holds), and the
    /// stream's place. Any other message passes as it is.
    #[allow(clippy::result_large_err)]
    fn listen_admission(
        &self,
        message: &mut ClientJsonRpcMessage,
        peer: Peer,
        principal: Option<&Principal>,
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
        // Counted by principal, else by address: never by the session a
        // request names, which a caller may open at will.
        let caller = limit_key(principal, peer);
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
        let mut rewritten = false;
        if let Some(filter) = deduplicated(&listen.params.notifications) {
            listen.params.notifications = filter;
            rewritten = true;
        }
        // A resource the caller may not read is not acknowledged (its
        // `resources/subscribe` would be refused).
        if let Some(filter) = subscribable(&self.server, &listen.params.notifications, principal) {
            listen.params.notifications = filter;
            rewritten = true;
        }
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

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    /// A session of `router` opened (with the bearer token `t0k` when
    /// `token`), its handshake done.
    async fn open_session(router: &axum::Router, token: bool) -> String {
        let with = |request: Request<Body>| if token { bearer(request) } else { request };
        let (status, session, _) = send(router, with(post(None, INITIALIZE))).await;
        assert_eq!(status, StatusCode::OK);
        let session = session.expect("a session id");
        let (status, _, body) = send(router, with(post(Some(&session), INITIALIZED))).await;
        assert_eq!((status, body.as_str()), (StatusCode::ACCEPTED, ""));
        session
    }

    /// `request` with the bearer token `t0k`.
    fn bearer(mut request: Request<Body>) -> Request<Body> {
        request.headers_mut().insert(
            "authorization",
            axum::http::HeaderValue::from_static("Bearer t0k"),
        );
        request
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
        let body = super::super::test_support::body_text(response).await;
        (status, session, body)
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
        let session = open_session(&router, false).await;
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
        let (counts, _) = counted(&router, post(None, INITIALIZE)).await;
        assert_eq!(counts, (1, 1));
    }

    /// Under the step-up policy the edge looks a call up to know the
    /// scopes it needs; dispatch takes that lookup instead of making its
    /// own, so a call over HTTP reads the tools and looks its name up once.
    #[tokio::test]
    async fn under_step_up_a_call_is_looked_up_once_at_the_edge() {
        use crate::capability::finds;
        use crate::guard::{InsufficientScope, StaticTokens};
        use crate::server::registry_reads;
        let server = FusionServer::builder("once", "1.0.0")
            .tool(Action::new("ping", ping).requires_scopes(["ping"]))
            .auth(StaticTokens::new().token("t0k", "ada", ["ping"]))
            .insufficient_scope(InsufficientScope::StepUp)
            .build()
            .expect("a valid server");
        let router = server
            .http_router(&HttpOptions::default(), CancellationToken::new())
            .expect("usable options");
        let session = open_session(&router, true).await;
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#;
        // The first call also lets the session take `initialized` (which
        // reads the tools for the capabilities): not counted.
        send(&router, bearer(post(Some(&session), call))).await;
        let (reads, looked_up) = (registry_reads(), finds());
        let (counts, body) = counted(&router, bearer(post(Some(&session), call))).await;
        assert_eq!(counts, (1, 0));
        assert!(body.contains(r#""text":"pong""#), "{body}");
        assert_eq!(registry_reads() - reads, 1, "reads of the tools");
        assert_eq!(finds() - looked_up, 1, "name→action lookups");
    }
}
