//! [`Mount`]: another mcp-fusion server's tools (or an rmcp tool router's)
//! served by this one, in the same process, under a namespace.

mod names;
mod source;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::JsonObject;

use crate::capability::{Action, BuildError, Transformed, Transforms};
use crate::handler::CallContext;
use crate::server::FusionServer;
pub(crate) use names::Names;
use source::{Routed, Source};

/// What makes each mounted tool's action ([`Mount::guards`]).
type Guards = Arc<dyn Fn(Action) -> Action + Send + Sync>;

/// A built [`FusionServer`] ([`new`](Self::new)) or an rmcp
/// `#[tool_router]` server ([`router`](Self::router)) mounted on another
/// under a namespace
/// ([`ServerBuilder::mount`](crate::ServerBuilder::mount)): each tool it
/// lists when mounted becomes a tool `<namespace>.<name>` of the mounting
/// server, shaped by its [`Transforms`] (renamed, re-described, arguments
/// hidden, filtered), called in the same process with no transport and no
/// serialisation.
///
/// Guards (a mounted `FusionServer`): a call of a mounted tool takes the mounting server's path (its
/// layers, and the guards [`guards`](Self::guards) gives: each counted
/// once for the call), then the mounted server's own path for its tool
/// (its layers, its tool's own guards, validation against the tool's whole
/// `inputSchema` with the hidden arguments set, handler, presenter), as the
/// same caller (principal, caller key, connection, cancellation). No guard
/// runs twice: the two servers' guards are different guards, each counted
/// once; the mounted server's bearer-token check is not run again (the
/// mounting server's edge did it).
///
/// Lists: a mounted tool is listed (and found by a tool search) only to
/// the callers the mounted server lists it to (its tools' auth and
/// `visible_when`).
///
/// Failures come back as the mounted server wrote them, the tools they
/// name (`available_actions`, the words of the message, recovery and next
/// step, a `<validation_error>`'s action) replaced by the names the model
/// calls them by (`billing.bill`); an available action the mount does not
/// show is left out. Successful results pass unchanged. Tools the mounted
/// server adds or removes after it is mounted are not seen.
///
/// ```
/// use mcp_fusion::capability::{ToolTransform, Transforms};
/// use mcp_fusion::server::Mount;
/// use mcp_fusion::{Action, FusionServer, RateLimit, ToolError};
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Charge { amount: u64, currency: String }
///
/// async fn charge(args: Charge) -> Result<String, ToolError> {
///     Ok(format!("charged {} {}", args.amount, args.currency))
/// }
///
/// let billing = FusionServer::builder("billing", "1.0.0")
///     .tool(Action::new("charge", charge))
///     .build()?;
/// let server = FusionServer::builder("front", "1.0.0")
///     .mount(
///         Mount::new("billing", billing)
///             .transforms(Transforms::new().tool(
///                 "charge",
///                 ToolTransform::new().rename("charge_eur").hide("currency", json!("EUR")),
///             ))
///             .guards(|tool| tool.rate_limit(RateLimit::per_minute(60))),
///     )
///     .build()?;
/// assert_eq!(server.tools()[0].name, "billing.charge_eur");
/// # Ok::<(), mcp_fusion::BuildError>(())
/// ```
#[derive(Clone)]
pub struct Mount {
    namespace: String,
    source: Arc<dyn Source>,
    transforms: Transforms,
    guards: Option<Guards>,
}

impl std::fmt::Debug for Mount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mount")
            .field("namespace", &self.namespace)
            .field("transforms", &self.transforms)
            .finish_non_exhaustive()
    }
}

impl Mount {
    /// `server` mounted under `namespace`: 1 to 64 ASCII letters, digits,
    /// `_` or `-` (checked when the mounting server is built).
    pub fn new(namespace: impl Into<String>, server: FusionServer) -> Self {
        Mount {
            namespace: namespace.into(),
            source: Arc::new(server),
            transforms: Transforms::new(),
            guards: None,
        }
    }

    /// An rmcp `#[tool_router]` server mounted under `namespace`: the tools
    /// of `router` (`Server::tool_router()`), called on `service` in the
    /// same process with rmcp's own `ToolCallContext`, as rmcp's
    /// `ServerHandler::call_tool` would. Its tools have no guards of their
    /// own: the mounting server's (its layers, [`guards`](Self::guards))
    /// are the call's. A route's requests to the client (sampling,
    /// elicitation, roots) fail: its request context is connected to no
    /// client; a route that answers input-required or makes a task is an
    /// `INTERNAL_ERROR`. A route's JSON-RPC error (arguments it cannot
    /// take) comes back as a plain-text failure, `isError: true`.
    pub fn router<S: Send + Sync + 'static>(
        namespace: impl Into<String>,
        router: ToolRouter<S>,
        service: S,
    ) -> Self {
        Mount {
            namespace: namespace.into(),
            source: Arc::new(Routed::new(router, service)),
            transforms: Transforms::new(),
            guards: None,
        }
    }

    /// Shows the mounted tools as `transforms` says (checked when the
    /// mounting server is built). Default: every tool as it is.
    pub fn transforms(mut self, transforms: Transforms) -> Self {
        self.transforms = transforms;
        self
    }

    /// Applies `guards` to each mounted tool's action (the mounting
    /// server's guards of the call: [`Action::rate_limit`],
    /// [`Action::concurrency`], [`Action::requires_scopes`],
    /// [`Action::timeout`], a [`layer`](Action::layer)).
    pub fn guards(mut self, guards: impl Fn(Action) -> Action + Send + Sync + 'static) -> Self {
        self.guards = Some(Arc::new(guards));
        self
    }

    /// The actions of the mounted tools, in the mounted server's order.
    ///
    /// # Errors
    /// [`BuildError::BadMount`] for a namespace that is not usable or
    /// transforms that do not fit the server's tools.
    pub(crate) fn actions(self) -> Result<Vec<Action>, BuildError> {
        let ns = self.namespace.clone();
        let bad = |reason: String| BuildError::BadMount {
            namespace: ns.clone(),
            reason,
        };
        let usable = (1..=64).contains(&ns.len())
            && ns
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !usable {
            return Err(bad(String::from(
                "write 1 to 64 ASCII letters, digits, _ or - (no dots)",
            )));
        }
        let tools = self.source.tools();
        self.transforms
            .check_tools(&tools)
            .map_err(|e| bad(e.to_string()))?;
        let shown = self
            .transforms
            .apply(&tools)
            .map_err(|e| bad(e.to_string()))?;
        let names = Arc::new(Names::of(&ns, &shown));
        Ok(shown
            .into_iter()
            .map(|tool| {
                let action = mounted(&ns, &self.source, tool, &names);
                match &self.guards {
                    Some(guards) => guards(action),
                    None => action,
                }
            })
            .collect())
    }
}

/// The action of the mounted `tool`: listed under `namespace`, its calls
/// made on `source` with the hidden arguments set, its failures told with
/// `names`.
fn mounted(
    namespace: &str,
    source: &Arc<dyn Source>,
    tool: Transformed,
    names: &Arc<Names>,
) -> Action {
    let listed = tool.namespaced(namespace);
    let tool = Arc::new(tool);
    let (shown_by, own_name) = (Arc::clone(source), tool.source.clone());
    let source = Arc::clone(source);
    let names = Arc::clone(names);
    Action::from_tool(listed, move |ctx: CallContext, arguments: JsonObject| {
        let (tool, source, names) = (Arc::clone(&tool), Arc::clone(&source), Arc::clone(&names));
        async move {
            let arguments = tool.arguments(&ctx, arguments);
            let result = source.call(&ctx, &tool.source, arguments).await?;
            names.answer(result)
        }
    })
    // Listed (and found by a search) only to the callers the mounted
    // server lists it to: its auth and `visible_when` hold through the
    // mount.
    .visible_when(move |ctx| shown_by.shows(&own_name, ctx))
}
