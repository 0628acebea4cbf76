//! [`RouterContract`]: an rmcp `ToolRouter` with the contract around each of
//! its routes (validation failures answered as tool results, a tool's guards,
//! the changes since a lockfile), and [`answer_validation`], the same with
//! validation only.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResponse, Tool};

use super::carried::{Awareness, uncarry};
use super::guarded;
use crate::contract::{ContractError, Lockfile, SelfHealing, SelfHealingOptions, ServerContract};
use crate::error::ContractAwareness;
#[cfg(feature = "redis")]
use crate::guard::RedisRateLimitStore;
use crate::guard::{GuardChain, GuardSettings, Guards};
use crate::metrics_names::ActionLabels;

/// An rmcp [`ToolRouter`] with mcp-fusion's contract around its routes, for
/// servers that keep rmcp's `#[tool_router]` / `#[tool]` macros:
///
/// - **validation** (always): a call whose
///   [`Parameters<T>`](super::Parameters) failed is answered with the
///   `<validation_error>` tool result it carries (`isError` true,
///   `_meta["mcp-fusion/error"]` code `VALIDATION_ERROR`; wire contract §1,
///   §4), as [`answer_validation`] does;
/// - **guards** ([`guards`](Self::guards)): a tool's rate limit, concurrency
///   limit and time limit, the very guards of a `FusionServer`'s actions: a
///   refusal is the `RATE_LIMITED`, `SERVER_BUSY` or `TIMEOUT` envelope
///   (§5) with its `retry-after` in seconds, and the route does not run; a
///   call the client cancels leaves the queue or drops its route at once
///   (`CANCELLED`); a `TIMEOUT` says to check before retrying unless the
///   tool's annotations say it is read-only or idempotent;
/// - **self-healing** ([`lockfile`](Self::lockfile)): a validation failure
///   of a tool whose contract changed since the lockfile carries
///   `<contract_awareness>` with the changes (§4.1), as a `FusionServer`
///   started with the same lockfile writes it.
///
/// ```
/// use std::time::Duration;
/// use mcp_fusion::guard::{Guards, RateLimit};
/// use mcp_fusion::router_contract::RouterContract;
/// use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
/// use rmcp::model::{CallToolResult, Tool};
///
/// struct Reports;
///
/// fn generate(_: &Reports) -> CallToolResult {
///     CallToolResult::success(vec![])
/// }
///
/// let schema = serde_json::from_value(serde_json::json!({"type": "object"})).unwrap();
/// let router: ToolRouter<Reports> = ToolRouter::new()
///     .with_route(ToolRoute::new(Tool::new("generate_report", "A report.", std::sync::Arc::new(schema)), generate));
/// let router = RouterContract::new(router)
///     .guards(
///         "generate_report",
///         Guards::new()
///             .concurrency(1, 0)
///             .rate_limit(RateLimit::per_minute(10))
///             .timeout(Duration::from_secs(30)),
///     )
///     .build()
///     .unwrap();
/// assert_eq!(router.list_all().len(), 1);
/// ```
///
/// Routes added to the router after [`build`](Self::build)
/// (`ToolRouter::add_route`) run without the contract; build the router
/// after merging (`ToolRouter::merge`).
pub struct RouterContract<S> {
    router: ToolRouter<S>,
    guards: Vec<(String, Guards)>,
    locked: Option<ServerContract>,
    options: SelfHealingOptions,
    settings: GuardSettings,
}

/// Why [`RouterContract::build`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouterContractError {
    /// Guards were set for a tool the router does not have (`known`:
    /// `none` for a router without tools).
    #[error("guards for tool \"{tool}\", which the router does not have (it has: {known})")]
    UnknownTool {
        /// The name given to [`RouterContract::guards`].
        tool: String,
        /// The router's tool names, comma-separated.
        known: String,
    },
    /// A guard setting cannot be used (`max_active` 0, a zero time limit, …).
    #[error("the guards of tool \"{tool}\": {reason}")]
    BadGuard {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// The router's tools could not be read as a contract, to compare with
    /// the lockfile.
    #[error("the router's tools as a contract: {0}")]
    Contract(#[from] ContractError),
}

impl<S: Send + Sync + 'static> RouterContract<S> {
    /// `router`, with validation failures answered as tool results and
    /// nothing else yet.
    pub fn new(router: ToolRouter<S>) -> Self {
        RouterContract {
            router,
            guards: Vec::new(),
            locked: None,
            options: SelfHealingOptions::default(),
            settings: GuardSettings::default(),
        }
    }

    /// Runs the calls of `tool` behind `guards`. Setting a tool twice keeps
    /// the last.
    ///
    /// A per-caller rate limit (`RateLimitScope::Caller`, the default)
    /// counts by the principal an HTTP edge verified, else by the client's
    /// IP address where one is recorded (mcp-fusion's HTTP edge; axum's
    /// `ConnectInfo` when rmcp's `StreamableHttpService` is served with
    /// `into_make_service_with_connect_info`), else in one bucket for all
    /// (over stdio a process serves one client).
    ///
    /// The guards' state (buckets, slots) belongs to the router built: build
    /// it once and clone it into every server that serves a session (rmcp's
    /// `StreamableHttpService` makes one per session), or each session gets
    /// limits of its own.
    pub fn guards(mut self, tool: impl Into<String>, guards: Guards) -> Self {
        self.guards.push((tool.into(), guards));
        self
    }

    /// Compares the router's tools with `lockfile`'s contract (the
    /// known-good one) and attaches the changes of a tool to its validation
    /// failures (wire contract §4.1). A tool of the router is one action
    /// named after it, as [`ServerContract::from_tools`] reads it.
    pub fn lockfile(mut self, lockfile: &Lockfile) -> Self {
        self.locked = Some(lockfile.contract.clone());
        self
    }

    /// How many changes `<contract_awareness>` shows and of which
    /// severities (default [`SelfHealingOptions::default`]).
    pub fn self_healing_options(mut self, options: SelfHealingOptions) -> Self {
        self.options = options;
        self
    }

    /// Keeps the rate limits' buckets in Redis, shared by every replica, as
    /// [`ServerBuilder::rate_limit_store`](crate::ServerBuilder::rate_limit_store)
    /// does for a `FusionServer`.
    #[cfg(feature = "redis")]
    pub fn rate_limit_store(mut self, store: RedisRateLimitStore) -> Self {
        self.settings.redis = Some(store);
        self
    }

    /// The router with every route wrapped.
    ///
    /// # Errors
    /// [`RouterContractError::UnknownTool`] for guards of a tool the router
    /// lacks, [`RouterContractError::BadGuard`] for a setting that cannot be
    /// used, [`RouterContractError::Contract`] when the router's tools cannot
    /// be read as a contract (with a lockfile only).
    pub fn build(self) -> Result<ToolRouter<S>, RouterContractError> {
        let guards: BTreeMap<String, Guards> = self.guards.into_iter().collect();
        for (tool, setting) in &guards {
            if !self.router.has_route(tool) {
                let mut known: Vec<String> =
                    self.router.map.keys().map(ToString::to_string).collect();
                known.sort();
                let known = match known.is_empty() {
                    true => String::from("none"),
                    false => known.join(", "),
                };
                let tool = tool.clone();
                return Err(RouterContractError::UnknownTool { tool, known });
            }
            if let Some(reason) = setting.problem(false) {
                let tool = tool.clone();
                return Err(RouterContractError::BadGuard { tool, reason });
            }
        }
        let healing = match &self.locked {
            Some(locked) => {
                let current = ServerContract::from_tools(&self.router.list_all())?;
                Some(SelfHealing::new(locked, &current, self.options))
            }
            None => None,
        };
        let plan = |attr: &Tool| {
            let name = attr.name.as_ref();
            RoutePlan {
                chain: guards.get(name).map(|setting| {
                    let labels = ActionLabels::new(name, None);
                    let chain =
                        GuardChain::new(setting, &self.settings, retry_safe(attr), &labels, None);
                    Arc::new(chain)
                }),
                awareness: healing
                    .as_ref()
                    .and_then(|healing| healing.awareness(name, name).cloned()),
            }
        };
        Ok(wrap_routes(self.router, plan))
    }
}

/// `router` with every route wrapped so that a call whose
/// [`Parameters<T>`](super::Parameters) failed is answered with the tool
/// result that failure carries: for arguments that miss the schema, one text
/// block with the `<validation_error>` envelope, `isError` true and
/// `_meta["mcp-fusion/error"]` with code `VALIDATION_ERROR` (wire contract
/// §1, §4), as `FusionServer` answers. Every other outcome passes through
/// unchanged: successes, tool errors and rmcp's own JSON-RPC errors.
/// [`RouterContract`] does the same and adds guards and self-healing.
///
/// Wrap the router once, where the server keeps it, and let
/// `#[tool_handler]` use that one:
///
/// ```text
/// tool_router: answer_validation(Self::tool_router()),
/// ...
/// #[tool_handler(router = self.tool_router)]
/// ```
///
/// Routes added to the router later (`ToolRouter::add_route`) are not
/// wrapped; wrap a router before merging it (`ToolRouter::merge`).
pub fn answer_validation<S>(router: ToolRouter<S>) -> ToolRouter<S>
where
    S: Send + Sync + 'static,
{
    wrap_routes(router, |_| RoutePlan::default())
}

/// What goes around one route.
#[derive(Default)]
struct RoutePlan {
    /// The tool's guards, if it has any.
    chain: Option<Arc<GuardChain>>,
    /// The changes its validation failures carry, if any.
    awareness: Option<ContractAwareness>,
}

/// Whether a timed-out call of the tool `attr` may be retried as it was: its
/// annotations say it is read-only or idempotent.
fn retry_safe(attr: &Tool) -> bool {
    attr.annotations.as_ref().is_some_and(|hints| {
        hints.read_only_hint == Some(true) || hints.idempotent_hint == Some(true)
    })
}

/// `router` with each route run as `plan` says for its tool.
fn wrap_routes<S>(mut router: ToolRouter<S>, plan: impl Fn(&Tool) -> RoutePlan) -> ToolRouter<S>
where
    S: Send + Sync + 'static,
{
    for route in router.map.values_mut() {
        let RoutePlan { chain, awareness } = plan(&route.attr);
        let call = Arc::clone(&route.call);
        let tool = route.attr.name.to_string();
        *route = ToolRoute::new_dyn(
            route.attr.clone(),
            move |mut context: ToolCallContext<'_, S>| {
                if let Some(awareness) = &awareness {
                    let awareness = Awareness(awareness.clone());
                    context.request_context.extensions.insert(awareness);
                }
                let call = Arc::clone(&call);
                let guarded = chain.clone().map(|chain| {
                    let who = guarded::route_context(&tool, &context.request_context);
                    (chain, who)
                });
                Box::pin(async move {
                    let answer = match guarded {
                        Some((chain, who)) => {
                            guarded::run(&chain, who, move || call(context)).await
                        }
                        None => call(context).await,
                    };
                    answer.or_else(|error| uncarry(error).map(CallToolResponse::from))
                })
            },
        );
    }
    router
}
