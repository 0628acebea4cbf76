//! [`Source`]: what a [`Mount`](super::Mount) takes its tools from — a
//! built `FusionServer`, or an rmcp `ToolRouter` with its server — and how a
//! call reaches it in the same process.

use std::sync::OnceLock;

use futures::future::BoxFuture;
use rmcp::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject, RequestId,
    Tool,
};
use rmcp::service::{Peer, RequestContext, RoleServer};

use crate::error::ToolError;
use crate::handler::CallContext;
use crate::server::FusionServer;

/// Where a mount's tools come from.
pub(crate) trait Source: Send + Sync {
    /// The tools as the source lists them now.
    fn tools(&self) -> Vec<Tool>;

    /// Whether the source lists its tool `name` to the caller of `ctx`
    /// (its auth and `visible_when`); `true` for a source without rules.
    fn shows(&self, name: &str, ctx: &CallContext) -> bool {
        let _ = (name, ctx);
        true
    }

    /// Calls the source's tool `name` with `arguments`, inside the mounting
    /// server's call `ctx`.
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>>;
}

impl Source for FusionServer {
    fn tools(&self) -> Vec<Tool> {
        FusionServer::tools(self)
    }

    fn shows(&self, name: &str, ctx: &CallContext) -> bool {
        self.registry().tool(name).is_some_and(|tool| {
            tool.actions
                .iter()
                .any(|action| action.callable.visibility.shows_to(ctx))
        })
    }

    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        Box::pin(async move {
            self.call_as(ctx, name, arguments).await.map_err(|_| {
                // Removed from the mounted server since it was mounted.
                ToolError::internal(format!("the mounted tool \"{name}\" is gone"))
            })
        })
    }
}

/// An rmcp `#[tool_router]` server's tools: its router and the server the
/// routes are called on.
pub(crate) struct Routed<S> {
    pub(crate) router: ToolRouter<S>,
    pub(crate) service: S,
    /// The peer of the routes' request context (made once, in the runtime).
    peer: OnceLock<Peer<RoleServer>>,
}

impl<S> Routed<S> {
    pub(crate) fn new(router: ToolRouter<S>, service: S) -> Self {
        Routed {
            router,
            service,
            peer: OnceLock::new(),
        }
    }
}

/// A server with nothing of its own: the other end of the routes' peer.
struct Detached;

impl ServerHandler for Detached {}

impl<S> Routed<S> {
    /// A peer for the routes' request context. It is connected to no client:
    /// a route's request to the client (sampling, elicitation, roots) fails.
    fn peer(&self) -> Peer<RoleServer> {
        self.peer
            .get_or_init(|| {
                let (end, _other) = tokio::io::duplex(64);
                rmcp::service::serve_directly(Detached, end, None)
                    .peer()
                    .clone()
            })
            .clone()
    }
}

impl<S: Send + Sync + 'static> Source for Routed<S> {
    fn tools(&self) -> Vec<Tool> {
        self.router.list_all()
    }

    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        Box::pin(async move {
            let mut request = RequestContext::new(RequestId::Number(0), self.peer());
            request.ct = ctx.cancellation().clone();
            let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
            let call = ToolCallContext::new(&self.service, params, request);
            match self.router.call(call).await {
                Ok(CallToolResponse::Complete(result)) => Ok(result),
                Ok(_) => Err(ToolError::internal(format!(
                    "the mounted rmcp tool \"{name}\" asked for input or made a task, which a mount does not carry"
                ))),
                // The route refused the arguments: its words, as a foreign
                // server's plain-text error.
                Err(error) => {
                    let mut result =
                        CallToolResult::success(vec![ContentBlock::text(error.message)]);
                    result.is_error = Some(true);
                    Ok(result)
                }
            }
        })
    }
}
