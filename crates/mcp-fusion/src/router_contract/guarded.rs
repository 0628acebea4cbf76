//! An rmcp route run behind a tool's guards: the same [`GuardChain`] a
//! `FusionServer`'s actions run behind, so a refusal is the same envelope
//! (`RATE_LIMITED`, `SERVER_BUSY` with the time a call has been taking,
//! `TIMEOUT`) and the guards keep the same state and metrics.
//!
//! The guards are tower services around an [`ActionService`], which is
//! `'static`; an rmcp route's future borrows the server it runs on. So the
//! innermost service of the chain is a gate: when the guards let the call
//! through, it tells the route to start, then holds the call inside the
//! guards (its concurrency slot, its clock, its time limit) until the route
//! has answered.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::CallToolResponse;
use rmcp::service::{RequestContext, RoleServer};
use tokio::sync::oneshot;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use crate::envelope::to_call_tool_result;
use crate::error::ToolError;
use crate::guard::GuardChain;
use crate::handler::{CallContext, Capability, Peer, Principal, RequestIdText};
use crate::handler::{ContextInner, Output, session_header};
use crate::pipeline::{Call, Outcome};

/// What a route answers with.
type Answer = Result<CallToolResponse, ErrorData>;

/// The gate's two signals, taken by the one call it lets through: "the
/// route may start" (sent) and "the route has answered" (awaited).
type Gate = Arc<Mutex<Option<(oneshot::Sender<()>, oneshot::Receiver<()>)>>>;

/// How long a finished route waits for its guards to let go (they do at
/// once; the bound only keeps a stuck guard from holding the answer).
const RELEASE: Duration = Duration::from_secs(1);

/// Runs the route `start` starts behind `chain`, as the call `context`
/// ([`route_context`]) describes: a guard's refusal is the tool result of its
/// envelope (`isError` true, §1); a call stopped by the time limit drops the
/// route's future and answers `TIMEOUT`. The route is not started before
/// every guard let the call through. A call the client cancels (its
/// request's cancellation token fires: `notifications/cancelled`, or the
/// connection gone) leaves the queue or drops its route at once, freeing its
/// slot, and answers `CANCELLED`, as a `FusionServer` does (rmcp sends no
/// answer to a cancelled request).
pub(super) async fn run<'a>(
    chain: &GuardChain,
    context: CallContext,
    start: impl FnOnce() -> BoxFuture<'a, Answer>,
) -> Answer {
    let cancelled = context.cancellation().clone();
    let name = context.name().to_owned();
    let (entered, entering) = oneshot::channel::<()>();
    let (release, released) = oneshot::channel::<()>();
    let gate: Gate = Arc::new(Mutex::new(Some((entered, released))));
    let stack = chain.around(BoxCloneSyncService::new(tower::service_fn(
        move |_: Call| pass(Arc::clone(&gate)),
    )));
    let call = Call {
        ctx: context,
        args: serde_json::Value::Object(Default::default()),
    };
    let mut guarded = std::pin::pin!(stack.oneshot(call));
    tokio::select! {
        biased;
        () = cancelled.cancelled() => return refused(Err(ToolError::cancelled_by_client(&name))),
        ended = &mut guarded => return refused(ended),
        _ = entering => {}
    }
    let route = start();
    // The route first: one that answers as its time limit passes has
    // answered, as a `FusionServer`'s handler has.
    tokio::select! {
        biased;
        answer = route => {
            let _ = release.send(());
            let _ = tokio::time::timeout(RELEASE, guarded).await;
            answer
        }
        () = cancelled.cancelled() => refused(Err(ToolError::cancelled_by_client(&name))),
        ended = &mut guarded => refused(ended),
    }
}

/// The gate: tells the route to start, then waits until it has answered.
async fn pass(gate: Gate) -> Result<Outcome, ToolError> {
    let taken = gate
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    let Some((entered, released)) = taken else {
        return Err(ToolError::internal("a guarded route was let through twice"));
    };
    let _ = entered.send(());
    let _ = released.await;
    // Never read: the route's own answer is the call's.
    Ok(Outcome::Output(Output::Completion(Vec::new())))
}

/// The answer when the guards ended the call before the route answered.
fn refused(ended: Result<Outcome, ToolError>) -> Answer {
    let error = match ended {
        Err(error) => error,
        Ok(_) => ToolError::internal("the guards ended a call the route never answered"),
    };
    Ok(CallToolResponse::from(to_call_tool_result(&error)))
}

/// The context the guards see: the tool's name, the request's id and
/// cancellation, and who calls — over Streamable HTTP the address mcp-fusion's
/// edge recorded, else the TCP peer axum recorded (`ConnectInfo`, when the
/// server is served `into_make_service_with_connect_info`), else an unknown
/// one, and the principal an edge verified; over stdio the stdio peer. A
/// per-caller rate limit (`RateLimitScope::Caller`) counts by the principal,
/// else by that address, else in one bucket for every such caller.
pub(super) fn route_context(tool: &str, request: &RequestContext<RoleServer>) -> CallContext {
    let http = request.extensions.get::<::http::request::Parts>();
    let peer = match http {
        Some(parts) => parts
            .extensions
            .get::<Peer>()
            .copied()
            .unwrap_or_else(|| Peer::Http(connected_address(parts))),
        None => Peer::Stdio,
    };
    let principal = http.and_then(|parts| parts.extensions.get::<Principal>().cloned());
    let caller = http.and_then(session_header).unwrap_or("stdio");
    CallContext {
        inner: Arc::new(ContextInner {
            capability: Capability::Tool,
            tool: tool.to_owned(),
            action: None,
            name: tool.to_owned(),
            request_id: RequestIdText::of(request.id.clone()),
            expose_internal_errors: false,
            http: None,
            peer,
            caller: Arc::from(caller),
            principal,
            states: Arc::default(),
            client: None,
            ended: None,
        }),
        cancellation: request.ct.clone(),
    }
}

/// The TCP peer's address axum recorded for the request of `parts`.
#[cfg(feature = "http")]
fn connected_address(parts: &::http::request::Parts) -> Option<std::net::IpAddr> {
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip().to_canonical())
}

/// Without the `http` feature nothing records a TCP peer.
#[cfg(not(feature = "http"))]
fn connected_address(_: &::http::request::Parts) -> Option<std::net::IpAddr> {
    None
}
