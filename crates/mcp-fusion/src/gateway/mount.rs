//! [`Mounts`]: the gateway's upstreams as the server sees them — the
//! namespaced tools each caller is shown, the forwarding of their calls, the
//! handoffs — and the task that tells callers when their tools change.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::config::{Exposure, GatewayConfig};
use super::errors::{self, CONNECTING_RETRY_SECS, Mismatch, Unavailable};
use super::handoff::{Handoff, Handoffs};
use super::upstream::{Event, Link, Upstream, is_gone, logged, seconds_until};
use crate::client::{FusionClient, FusionClientError};
use crate::error::ToolError;
use crate::handler::{CallContext, ToolOutput};
use crate::server::{MountedTools, ToolsChanged};
use crate::suggest::under_namespace;
use crate::text::cut_chars;

/// The name of the tool a gateway with handoff upstreams adds, with which
/// the model hands the conversation over (`{"namespace", "reason"?}`).
pub const HANDOFF_TOOL: &str = "handoff";

/// The tool of a handoff namespace that ends the caller's handoff.
pub const RETURN_TOOL: &str = "return_to_triage";

/// The `_meta` key under which a call forwarded to a handoff upstream
/// carries the handoff: `{"reason": <string or null>, "state": <value>}`.
pub const HANDOFF_META_KEY: &str = "mcp-fusion/handoff";

/// The arguments of the forwarding action, as the server writes them
/// (`crate::server::MountedTools`: `{"tool", "arguments"}`).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Forwarded {
    /// The namespaced tool called (`finance.billing`).
    pub tool: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
}

/// The mounted upstreams and the per-caller handoffs.
pub(crate) struct Mounts {
    /// Itself, for the tasks it starts.
    me: Weak<Mounts>,
    upstreams: Vec<Arc<Upstream>>,
    handoffs: Handoffs,
    changed: OnceLock<ToolsChanged>,
    events: mpsc::UnboundedSender<Event>,
    pending_events: Mutex<Option<mpsc::UnboundedReceiver<Event>>>,
    started: AtomicBool,
    /// [`GatewayConfig::list_every_upstream`].
    list_every: bool,
}

impl std::fmt::Debug for Mounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounts")
            .field(
                "namespaces",
                &self
                    .upstreams
                    .iter()
                    .map(|u| u.config.namespace.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// `tool` as listed under `namespace`: its name prefixed, the rest as the
/// upstream lists it (schemas, annotations, `_meta`).
fn namespaced(namespace: &str, tool: &Tool) -> Tool {
    let mut tool = tool.clone();
    tool.name = format!("{namespace}.{}", tool.name).into();
    tool
}

/// The `<namespace>.return_to_triage` tool (no arguments).
fn return_tool(namespace: &str) -> Tool {
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(Map::new()));
    Tool::new(
        format!("{namespace}.{RETURN_TOOL}"),
        errors::return_description(namespace),
        Arc::new(schema),
    )
}

impl Mounts {
    pub(crate) fn new(config: &GatewayConfig) -> Arc<Self> {
        let (events, receiver) = mpsc::unbounded_channel();
        Arc::new_cyclic(|me| Mounts {
            me: me.clone(),
            upstreams: config
                .upstreams
                .iter()
                .enumerate()
                .map(|(i, u)| Upstream::new(i, u.clone()))
                .collect(),
            handoffs: Handoffs::new(config.handoffs.max_callers, config.handoffs.ttl),
            changed: OnceLock::new(),
            events,
            pending_events: Mutex::new(Some(receiver)),
            started: AtomicBool::new(false),
            list_every: config.list_every_upstream,
        })
    }

    /// The namespaces callers may be handed over to.
    pub(crate) fn handoff_targets(&self) -> Vec<(&str, Option<&str>)> {
        self.upstreams
            .iter()
            .filter(|u| u.config.exposure == Exposure::Handoff)
            .map(|u| (u.config.namespace.as_str(), u.config.description.as_deref()))
            .collect()
    }

    fn upstream(&self, namespace: &str) -> Option<&Arc<Upstream>> {
        self.upstreams
            .iter()
            .find(|u| u.config.namespace == namespace)
    }

    /// Starts, once and inside a runtime, the task that tells callers of
    /// tools changes and the connections of the always-exposed upstreams.
    fn ensure_started(&self) {
        if tokio::runtime::Handle::try_current().is_err()
            || self.started.swap(true, Ordering::SeqCst)
        {
            return;
        }
        if let Some(receiver) = self
            .pending_events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            tokio::spawn(tell_callers(self.me.clone(), receiver));
        }
        for upstream in &self.upstreams {
            if self.listed_to_all(upstream) {
                upstream.start(self.events.clone());
            }
        }
    }

    /// Whether `upstream` is listed to every caller, handoff or not.
    fn listed_to_all(&self, upstream: &Upstream) -> bool {
        self.list_every || upstream.config.exposure == Exposure::Always
    }

    /// Tells `caller` (everybody when `None`) that its tools changed.
    async fn notify(&self, caller: Option<&str>) {
        if let Some(changed) = self.changed.get() {
            changed.notify(caller).await;
        }
    }

    /// The tools `caller` sees now: each visible upstream's tools, namespaced,
    /// and the `return_to_triage` tool of its active handoff.
    fn visible(&self, caller: &str) -> Vec<Tool> {
        let active = self.handoffs.active(caller).map(|(ns, _)| ns);
        let mut tools = Vec::new();
        for upstream in &self.upstreams {
            let ns = upstream.config.namespace.as_str();
            let handoff = !self.listed_to_all(upstream);
            if handoff && active.as_deref() != Some(ns) {
                continue;
            }
            if let Link::Ready { tools: listed, .. } = upstream.link() {
                // The handoff's own return tool shadows an upstream's.
                tools.extend(
                    listed
                        .iter()
                        .filter(|t| !(handoff && t.name == RETURN_TOOL))
                        .map(|t| namespaced(ns, t)),
                );
            }
            if handoff {
                tools.push(return_tool(ns));
            }
        }
        tools
    }

    fn visible_names(&self, caller: &str) -> Vec<String> {
        self.visible(caller)
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect()
    }

    /// Forwards the call of `forwarded.tool` to its upstream, or answers it
    /// with a `HANDOFF_*` envelope.
    pub(crate) async fn forward(
        &self,
        ctx: CallContext,
        forwarded: Forwarded,
    ) -> Result<ToolOutput, ToolError> {
        self.ensure_started();
        let caller = ctx.caller();
        let name = forwarded.tool.as_str();
        let (ns, tool) = name.split_once('.').unwrap_or((name, ""));
        let Some(upstream) = self.upstream(ns) else {
            let visible = self.visible_names(caller);
            // An upstream's own name for its tool (its envelopes name them
            // so, `billing.list_invoices`): the visible tool it is, namespaced.
            let names = || visible.iter().map(String::as_str);
            let near = under_namespace(name, names())
                .or_else(|| under_namespace(ns, names()))
                .map(str::to_owned);
            return Err(errors::mismatch(
                name,
                ns,
                Mismatch::NotMounted(near.as_deref()),
                visible,
            ));
        };
        let handoff = !self.listed_to_all(upstream);
        if handoff {
            if self
                .handoffs
                .active(caller)
                .is_none_or(|(active, _)| active != ns)
            {
                // The handoff tool opens them; the caller's own tools remain.
                let mut valid = vec![HANDOFF_TOOL.to_owned()];
                valid.extend(self.visible_names(caller));
                return Err(errors::mismatch(name, ns, Mismatch::NotActive, valid));
            }
            if tool == RETURN_TOOL {
                self.handoffs.end(caller, ns);
                self.notify(Some(caller)).await;
                return Ok(ToolOutput::text(errors::returned(ns)));
            }
            if self.handoffs.take_failure(caller, ns) {
                let retry = match upstream.link() {
                    Link::Down { retry_at } => seconds_until(retry_at),
                    _ => 1,
                };
                return Err(errors::unavailable(
                    ns,
                    name,
                    Unavailable::HandoffFailed,
                    retry,
                    true,
                ));
            }
        }
        // The answer of a call that is not made, and its wait in seconds.
        let unavailable = |why, retry| Err(errors::unavailable(ns, name, why, retry, handoff));
        let retry = seconds_until(std::time::Instant::now() + upstream.config.reconnect_initial);
        let (client, tools) = match upstream.link() {
            Link::Idle => {
                upstream.start(self.events.clone());
                return Err(errors::connecting(ns, CONNECTING_RETRY_SECS));
            }
            Link::Connecting { first: true } => {
                return Err(errors::connecting(ns, CONNECTING_RETRY_SECS));
            }
            Link::Connecting { first: false } => {
                return unavailable(Unavailable::Unreachable, retry);
            }
            Link::Down { retry_at } => {
                return unavailable(Unavailable::Unreachable, seconds_until(retry_at));
            }
            Link::Ready { client, tools } => (client, tools),
        };
        if !tools.iter().any(|t| t.name == tool) {
            let mut valid: Vec<String> = tools.iter().map(|t| format!("{ns}.{}", t.name)).collect();
            if handoff {
                valid.push(format!("{ns}.{RETURN_TOOL}"));
            }
            return Err(errors::mismatch(
                name,
                ns,
                Mismatch::NoSuchTool(tool),
                valid,
            ));
        }
        if client.is_closed() {
            upstream.failed(&client);
            return unavailable(Unavailable::Unreachable, retry);
        }
        let mut meta = Map::new();
        if handoff && let Some(carried) = self.handoffs.carried(caller, ns) {
            meta.insert(HANDOFF_META_KEY.to_owned(), carried);
        }
        let call = client.call_with_meta(tool, Value::Object(forwarded.arguments), meta);
        match watched(&client, call).await {
            Ok(result) => Ok(ToolOutput::result(result)),
            // The upstream refused the call's arguments or name (-32602,
            // -32601): its words, as a foreign server's plain-text error.
            Err(FusionClientError::JsonRpc { code, message, .. })
                if code == INVALID_PARAMS || code == METHOD_NOT_FOUND =>
            {
                let text = cut_chars(&message, MAX_PASSED_ERROR, "…").into_owned();
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.is_error = Some(true);
                Ok(ToolOutput::result(result))
            }
            // Any other JSON-RPC error is the upstream's own failure: its
            // text may hold internals, so it goes to the log only.
            Err(FusionClientError::JsonRpc { code, message, .. }) => {
                tracing::warn!(namespace = %ns, tool = ?logged(tool), code, error = ?logged(&message), "upstream answered with an error");
                unavailable(Unavailable::Failed, retry)
            }
            Err(FusionClientError::Timeout(_)) => unavailable(Unavailable::TimedOut, retry),
            Err(other) => {
                // Logged for the operator; never shown to the model.
                tracing::warn!(namespace = %ns, tool = ?logged(tool), error = ?logged(&other.to_string()), "upstream call failed");
                upstream.failed(&client);
                unavailable(Unavailable::DiedMidCall, retry)
            }
        }
    }

    /// Hands `ctx`'s caller over to `handoff.namespace`: acknowledged at once
    /// with a `HANDOFF_CONNECTING` warning; the connection, the activation
    /// and `notifications/tools/list_changed` follow.
    pub(crate) async fn handoff(
        &self,
        ctx: &CallContext,
        handoff: Handoff,
    ) -> Result<ToolOutput, ToolError> {
        self.ensure_started();
        let ns = handoff.namespace.as_str();
        let Some(upstream) = self
            .upstream(ns)
            .filter(|u| u.config.exposure == Exposure::Handoff)
        else {
            let targets = self
                .handoff_targets()
                .into_iter()
                .map(|(ns, _)| ns.to_owned())
                .collect();
            return Err(errors::mismatch(ns, ns, Mismatch::NoHandoffTarget, targets));
        };
        let caller = ctx.caller();
        upstream.start(self.events.clone());
        // Its first attempt failed already: no handoff until it is back.
        let retry = match upstream.link() {
            Link::Down { retry_at } => Some(seconds_until(retry_at)),
            Link::Connecting { first: false } => Some(seconds_until(
                std::time::Instant::now() + upstream.config.reconnect_initial,
            )),
            _ => None,
        };
        if let Some(retry) = retry {
            return Err(errors::unavailable(
                ns,
                HANDOFF_TOOL,
                Unavailable::NotHandedOver,
                retry,
                false,
            ));
        }
        let evicted = self.handoffs.start(caller, &handoff);
        // A caller pushed out of a full table loses its handoff's tools.
        if let Some(evicted) = evicted {
            self.notify(Some(&evicted)).await;
        }
        if matches!(upstream.link(), Link::Ready { .. }) {
            self.handoffs.settle(ns, true);
        }
        // The namespace is active now (its return tool at least): the list changed.
        self.notify(Some(caller)).await;
        Ok(ToolOutput::text(errors::handing_over(ns))
            .with_warning(errors::handoff_ack(ns, handoff.reason.as_deref())))
    }

    /// The state carried over by `caller`'s active handoff.
    pub(crate) fn carried_over(&self, caller: &str) -> Option<Value> {
        self.handoffs.state(caller)
    }
}

impl MountedTools for Mounts {
    fn attach(&self, changed: ToolsChanged) {
        let _ = self.changed.set(changed);
        self.ensure_started();
    }

    fn tools<'a>(&'a self, caller: &'a str) -> BoxFuture<'a, Vec<Tool>> {
        Box::pin(async move {
            self.ensure_started();
            // The first attempts of the upstreams this caller sees are
            // waited for, so that their tools are listed.
            let active = self.handoffs.active(caller).map(|(ns, _)| ns);
            for upstream in &self.upstreams {
                let seen = self.listed_to_all(upstream)
                    || active.as_deref() == Some(upstream.config.namespace.as_str());
                if seen && upstream.is_started() {
                    upstream.first_attempt().await;
                }
            }
            self.visible(caller)
        })
    }

    fn claims(&self, name: &str) -> bool {
        name.contains('.')
    }
}

/// The longest upstream JSON-RPC error message passed to the model, in
/// characters; a longer one is cut, with "…".
const MAX_PASSED_ERROR: usize = 2_000;

/// JSON-RPC's "Invalid params" code.
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's "Method not found" code.
const METHOD_NOT_FOUND: i32 = -32601;

/// How often a call in flight checks that its upstream is still there.
const PROBE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// `call`, failed with [`FusionClientError::Transport`] as soon as the
/// upstream is found gone while it runs (its connection closed, or a `ping`
/// refused): a Streamable HTTP server that died mid-call may leave the
/// response stream waiting for a reconnection that never comes. A `ping`
/// that is only slow does not count.
async fn watched(
    client: &FusionClient,
    call: impl Future<Output = Result<CallToolResult, FusionClientError>>,
) -> Result<CallToolResult, FusionClientError> {
    let gone = || {
        Err(FusionClientError::transport(
            "the upstream went away during the call",
            None,
        ))
    };
    tokio::pin!(call);
    loop {
        tokio::select! {
            outcome = &mut call => return outcome,
            () = tokio::time::sleep(PROBE_EVERY) => {}
        }
        // The call is still watched while the ping waits: its answer is
        // returned the moment it comes.
        tokio::select! {
            outcome = &mut call => return outcome,
            lost = is_gone(client) => {
                if lost {
                    return gone();
                }
            }
        }
    }
}

/// Tells callers when their tools change: everybody for an always-exposed
/// upstream, the callers handed over to it for a handoff upstream.
async fn tell_callers(mounts: Weak<Mounts>, mut events: mpsc::UnboundedReceiver<Event>) {
    while let Some(event) = events.recv().await {
        let Some(mounts) = mounts.upgrade() else {
            return;
        };
        let (index, connected) = match event {
            Event::Connected(i) | Event::ToolsChanged(i) => (i, true),
            Event::ConnectFailed(i) => (i, false),
        };
        let Some(upstream) = mounts.upstreams.get(index) else {
            continue;
        };
        let ns = upstream.config.namespace.clone();
        if mounts.listed_to_all(upstream) {
            if connected {
                mounts.notify(None).await;
            }
        } else {
            let settled = mounts.handoffs.settle(&ns, connected);
            let callers = if connected {
                mounts.handoffs.callers_of(&ns)
            } else {
                settled
            };
            for caller in callers {
                mounts.notify(Some(&caller)).await;
            }
        }
    }
}
