//! The gateway (feature `gateway`): upstream MCP servers mounted under
//! namespaces behind a mcp-fusion server, and the `HANDOFF_*` codes of wire
//! contract §5.
//!
//! - An upstream ([`UpstreamConfig`]) is a stdio command or a Streamable
//!   HTTP URL mounted under a namespace: each of its tools becomes a tool of
//!   the server, `<namespace>.<tool>`, listed as the upstream lists it
//!   ([`Action::from_tool`]) and added and removed
//!   ([`FusionServer::update_tools`](crate::FusionServer::update_tools)) as
//!   the upstream connects and changes its tools. Their calls take the
//!   server's path (its layers, the guards given to
//!   [`Gateway::install_with`]) and are forwarded with
//!   [`FusionClient`](crate::FusionClient), their arguments as sent. Results
//!   pass through unchanged (an upstream's envelopes, a foreign server's
//!   plain-text errors).
//! - [`Exposure::Always`] upstreams are connected when the server is built
//!   and listed to everybody; [`Exposure::Handoff`] upstreams are listed only
//!   to callers a handler handed over to them ([`Gateway::handoff`]), with a
//!   `<namespace>.return_to_triage` tool that ends the handoff. Handoffs are
//!   kept per caller ([`CallContext::caller`]), at most
//!   [`HandoffLimits::max_callers`] of them, each for
//!   [`HandoffLimits::ttl`] after its last use.
//! - The codes: `HANDOFF_CONNECTING` (warning, `retry_after` ≥ 1 s) for a call
//!   to an upstream still making its first connection, and for the
//!   acknowledgement of a handoff; `HANDOFF_UPSTREAM_UNAVAILABLE` (error,
//!   `retry_after`) when the upstream cannot be reached, goes away during
//!   the call or does not answer in time, and, on the caller's next call to
//!   the namespace, when a handoff's connection failed after its
//!   acknowledgement; `HANDOFF_NAMESPACE_MISMATCH` (error, the valid tools in
//!   `available_actions`) for a namespace that is not mounted or not active
//!   for the caller, or a tool its upstream does not have. No envelope names
//!   an upstream's address or command or repeats its error text; those are
//!   logged (`tracing`, target `mcp_fusion::gateway`).
//! - Credentials: a caller's `Authorization` header is never forwarded
//!   upstream (MCP "Authorization": no token passthrough). An HTTP upstream
//!   may have the gateway's own ([`UpstreamCredentials`]: a bearer token, or
//!   the OAuth client credentials grant through
//!   [`ClientOptions::oauth`](crate::client::ClientOptions::oauth)), read
//!   from the environment when the configuration is read. An upstream that
//!   refuses them (HTTP 401 or 403, at connection or on a call, or the
//!   token request fails) answers `UNAUTHORIZED` (critical, no
//!   `retry_after`: only an operator can fix the configuration) and is not
//!   reconnected on the backoff: it is asked again once per
//!   [`UpstreamConfig::reconnect_max`], its calls answered `UNAUTHORIZED`
//!   meanwhile.
//! - A lost upstream is reconnected in the background with exponential
//!   backoff ([`UpstreamConfig::reconnect_initial`] doubled up to
//!   [`UpstreamConfig::reconnect_max`]); an HTTP upstream that restarted is
//!   first tried again through the same client, which starts a new session
//!   on the server's 404. Each upstream's tools are listed once per
//!   connection and again on its `notifications/tools/list_changed`; the
//!   callers who see them are sent `notifications/tools/list_changed`.
//!
//! ```no_run
//! use mcp_fusion::client::Target;
//! use mcp_fusion::gateway::{Exposure, Gateway, GatewayConfig, UpstreamConfig, UpstreamCredentials};
//! use mcp_fusion::FusionServer;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = GatewayConfig::new()
//!     .upstream(UpstreamConfig::new(
//!         "finance",
//!         Target::stdio("fusion", ["serve", "--stdio"]),
//!     ))
//!     .upstream(
//!         UpstreamConfig::new("crm", Target::http("http://127.0.0.1:9000/mcp"))
//!             .credentials(UpstreamCredentials::bearer(std::env::var("CRM_TOKEN")?))
//!             .exposure(Exposure::Handoff),
//!     );
//! let gateway = Gateway::new(config)?;
//! let server = gateway
//!     .install(FusionServer::builder("triage", "1.0.0"))
//!     .build()?;
//! server.serve_stdio(Default::default()).await?;
//! # Ok(())
//! # }
//! ```

mod config;
mod credentials;
mod errors;
mod handoff;
mod mount;
mod upstream;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

pub use config::{
    ConfigError, DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, DEFAULT_HANDOFF_TTL,
    DEFAULT_MAX_HANDOFFS, DEFAULT_RECONNECT_INITIAL, DEFAULT_RECONNECT_MAX, Exposure,
    GatewayConfig, HandoffLimits, MAX_DURATION, UpstreamConfig,
};
pub use credentials::UpstreamCredentials;
pub use errors::CONNECTING_RETRY_SECS;
pub use handoff::Handoff;
pub use mount::{HANDOFF_META_KEY, HANDOFF_TOOL, RETURN_TOOL};

use crate::capability::{Action, ToolSearch};
use crate::error::ToolError;
use crate::handler::{CallContext, ToolOutput};
use crate::server::ServerBuilder;
use mount::Mounts;

/// The name of the gateway's fallback action (`ServerBuilder::fallback`),
/// which answers the calls of namespaced names that are no mounted tool
/// (yet): an upstream still making its first connection, a namespace not
/// mounted or not active for the caller, a tool its upstream does not
/// have. The `tool` label of those calls' metrics; a mounted tool's calls
/// count under its own name (`finance.billing`).
pub const FORWARD_ACTION: &str = "gateway";

/// A gateway: the upstreams of a [`GatewayConfig`], their connections and
/// the handoffs. Cheap to clone (shared inside). Mount it on a server with
/// [`install`](Self::install); handlers reach it as a
/// [`State<Gateway>`](crate::State).
#[derive(Debug, Clone)]
pub struct Gateway {
    mounts: Arc<Mounts>,
    /// Tool search, when the configuration turns it on.
    search: Option<ToolSearch>,
}

// The arguments of the handoff tool. Its doc comments are the schema's
// descriptions, which the model reads: one line each, no markup.
/// A handoff: to which specialist, and why.
#[derive(Debug, Deserialize, JsonSchema)]
struct HandoffArgs {
    /// The specialist to hand the conversation over to: one of the namespaces the tool's description lists.
    #[schemars(length(max = 64))]
    namespace: String,
    /// Why, in one short sentence the user would agree with; it is sent with every call to the specialist.
    #[schemars(length(max = 500))]
    reason: Option<String>,
}

impl Gateway {
    /// A gateway for `config`. Nothing connects until it is installed on a
    /// server that is built inside a tokio runtime (or first used there).
    ///
    /// # Errors
    /// The errors of [`GatewayConfig::check`].
    pub fn new(config: GatewayConfig) -> Result<Self, ConfigError> {
        config.check()?;
        Ok(Gateway {
            mounts: Mounts::new(&config),
            search: config.search.clone(),
        })
    }

    /// [`install_with`](Self::install_with) without guards of its own.
    pub fn install(&self, builder: ServerBuilder) -> ServerBuilder {
        self.install_with(builder, |tool| tool)
    }

    /// Mounts the upstreams on `builder`, through the server's public API
    /// like any program could:
    ///
    /// - once the server is built ([`ServerBuilder::on_built`]), each
    ///   upstream tool is added to it as a tool of its own
    ///   ([`Action::from_tool`]: listed as the upstream lists it, its
    ///   arguments forwarded as sent), and removed or replaced as the
    ///   upstream changes its tools; a handoff upstream's tools are shown
    ///   ([`Action::visible_when`]) only to the callers handed over to it;
    /// - the calls of namespaced names that are no tool (yet) are answered
    ///   by the server's [fallback](ServerBuilder::fallback) (named
    ///   [`FORWARD_ACTION`]) with a `HANDOFF_*` envelope, or forwarded once
    ///   the upstream lists the tool;
    /// - `tools/list` waits ([`ServerBuilder::before_tools_list`]) for the
    ///   first connection attempts of the upstreams its caller sees.
    ///
    /// `guards` is applied to every mounted tool as it is added, to the
    /// fallback, to each `<namespace>.return_to_triage` tool and to the
    /// [`HANDOFF_TOOL`] (with [`Exposure::Handoff`] upstreams): the guards
    /// it gives ([`Action::rate_limit`], [`Action::concurrency`],
    /// [`Action::requires_scopes`], [`Action::timeout`], a
    /// [`layer`](Action::layer)) each of their calls passes first, after
    /// the server's layers. A rate limit counts each tool's calls apart (a
    /// name the fallback answers counts as its own); a concurrency limit of
    /// the action's own ([`Action::concurrency`]) becomes one
    /// [`SharedConcurrency`](crate::guard::SharedConcurrency) all mounted
    /// tools given the same limit share (the handoff tool keeps its own),
    /// whose `SERVER_BUSY` says the slots are shared with the other mounted
    /// tools. The gateway becomes a state of the server (`State<Gateway>`),
    /// for handlers that call [`handoff`](Self::handoff). A gateway is
    /// installed on one server: the first `install_with` and the first
    /// server built keep it.
    pub fn install_with(
        &self,
        builder: ServerBuilder,
        guards: impl Fn(Action) -> Action + Send + Sync + 'static,
    ) -> ServerBuilder {
        self.mounts.set_guards(Box::new(guards));
        let mounts = &self.mounts;
        let fallback = mounts.fallback_action(FORWARD_ACTION);
        let listing = Arc::clone(mounts);
        let built = Arc::clone(mounts);
        let mut builder = builder
            .state(self.clone())
            .fallback(Mounts::claims, fallback)
            .before_tools_list(move |ctx: CallContext| {
                let mounts = Arc::clone(&listing);
                async move { mounts.first_attempts(ctx.caller()).await }
            })
            .on_built(move |server| built.attach(server));
        let targets = mounts.handoff_targets();
        if !targets.is_empty() {
            let mut description = String::from(match self.search {
                None => {
                    "Hands the conversation over to a specialist: its tools join your tools list \
                     (wait for the list to refresh), until you call <namespace>.return_to_triage. \
                     Specialists:"
                }
                // With tool search, the specialist's tools are found, not listed.
                Some(_) => {
                    "Hands the conversation over to a specialist: search_tools finds its tools, \
                     until you call <namespace>.return_to_triage. Specialists:"
                }
            });
            for (ns, about) in &targets {
                description.push_str(&format!("\n- {ns}"));
                if let Some(about) = about {
                    description.push_str(&format!(": {about}"));
                }
            }
            let handing = Arc::clone(mounts);
            let tool = Action::new(HANDOFF_TOOL, move |ctx: CallContext, args: HandoffArgs| {
                let mounts = Arc::clone(&handing);
                async move {
                    let mut handoff = Handoff::to(args.namespace);
                    handoff.reason = args.reason;
                    mounts.handoff(&ctx, handoff).await
                }
            })
            .description(description);
            // A handoff starts a connection and holds state: the same
            // guards, its slots its own.
            builder = builder.tool(mounts.guarded(tool, false));
            for ns in mounts.handed_over_namespaces() {
                builder = builder.tool(mounts.return_action(ns));
            }
        }
        match &self.search {
            Some(search) => builder.tool_search(self.listed_with_search(search)),
            None => builder,
        }
    }

    /// `search` with the handoff tool and the `return_to_triage` tools
    /// always visible: with them the model moves between specialists,
    /// whose tools it then searches.
    fn listed_with_search(&self, search: &ToolSearch) -> ToolSearch {
        let returns = self
            .mounts
            .handed_over_namespaces()
            .into_iter()
            .map(|ns| format!("{ns}.{RETURN_TOOL}"));
        search
            .clone()
            .always_visible([HANDOFF_TOOL.to_owned()].into_iter().chain(returns))
    }

    /// Hands `ctx`'s caller over to `handoff.namespace`, an
    /// [`Exposure::Handoff`] upstream. Returns at once the acknowledgement a
    /// handler returns as its result: the text `Handed over to the
    /// <namespace> tools.` with a `HANDOFF_CONNECTING` warning (`isError`
    /// false, `retry_after` 2) telling the model to wait for the tools list
    /// to refresh. The gateway then connects the upstream (when not yet
    /// connected), shows its tools to this caller, and sends it
    /// `notifications/tools/list_changed`; a connection failure is told on
    /// the caller's next call to the namespace.
    ///
    /// # Errors
    /// `HANDOFF_NAMESPACE_MISMATCH` when `handoff.namespace` is not a
    /// handoff upstream; `available_actions` lists those that are.
    pub async fn handoff(
        &self,
        ctx: &CallContext,
        handoff: Handoff,
    ) -> Result<ToolOutput, ToolError> {
        self.mounts.handoff(ctx, handoff).await
    }

    /// The [`Handoff::state`] carried over to `ctx`'s caller's active
    /// handoff; `None` without one. Every call the caller makes to the
    /// handoff's upstream also carries it, with the reason, in its `_meta`
    /// under [`HANDOFF_META_KEY`].
    pub fn carried_over(&self, ctx: &CallContext) -> Option<Value> {
        self.mounts.carried_over(ctx.caller())
    }
}
