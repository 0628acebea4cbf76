//! [`Mounts`]: the gateway's upstreams as the server sees them — each
//! upstream tool added to the server as a tool of its own (and removed) as
//! upstreams connect and change their tools, the forwarding of their calls,
//! the handoffs — and the task that tells callers when their tools change.
//! Everything goes through the server's public API: tools added with
//! `FusionServer::update_tools`, shown per caller with `visible_when`, the
//! calls of namespaced names that are no tool (yet) answered by the
//! server's fallback, lists held by `before_tools_list`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, JsonObject, Tool};
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::config::{Exposure, GatewayConfig};
use super::errors::{self, CONNECTING_RETRY_SECS, Mismatch, Unavailable};
use super::handoff::{Handoff, Handoffs};
use super::upstream::{Event, Link, OnListed, Upstream, is_gone, logged, seconds_until};
use crate::capability::{Action, BuildError, Transformed};
use crate::client::{FusionClient, FusionClientError};
use crate::error::ToolError;
use crate::guard::{Concurrency, SharedConcurrency};
use crate::handler::{CallContext, ToolOutput};
use crate::server::{FusionServer, WeakFusionServer};
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

/// How `SERVER_BUSY` names the tools a mounted tool shares its slots with.
const SHARED_WITH: &str = "the other mounted tools";

/// What makes a mounted tool's action: the guards given to
/// `Gateway::install_with`.
pub(crate) type Guards = Box<dyn Fn(Action) -> Action + Send + Sync>;

/// The mounted upstreams and the per-caller handoffs.
pub(crate) struct Mounts {
    /// Itself, for the tasks it starts and the tools it adds.
    me: Weak<Mounts>,
    upstreams: Vec<Arc<Upstream>>,
    handoffs: Handoffs,
    /// The server the gateway was installed on, once built.
    server: OnceLock<WeakFusionServer>,
    /// The guards of every mounted tool, once installed.
    guards: OnceLock<Guards>,
    /// The concurrency limits the mounted tools share, by the limits the
    /// guards gave them.
    pools: Mutex<HashMap<Concurrency, SharedConcurrency>>,
    /// The namespaced tools each upstream (by index) has on the server now.
    added: Mutex<Vec<Vec<Tool>>>,
    /// Each upstream's last listing (by index) as its transforms show it,
    /// made once per listing for the calls that look their tool up in it.
    transformed: Mutex<Vec<Option<Shown>>>,
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

/// A listing of an upstream's tools, and the tools as its transforms show
/// them.
type Shown = (Arc<Vec<Tool>>, Arc<Vec<Transformed>>);

/// An upstream ready for a call: its client, the shown tool called (with
/// transforms), and every tool its transforms show (none without).
type Ready = (
    Arc<FusionClient>,
    Option<Transformed>,
    Arc<Vec<Transformed>>,
);

/// The tools of `upstream` (`tools`, as it lists them) as its transforms
/// show them, not yet under its namespace; none when the transforms do not
/// fit them (logged for the operator).
fn shown(upstream: &Upstream, tools: &[Tool]) -> Vec<Transformed> {
    let transforms = &upstream.config.transforms;
    let ns = upstream.config.namespace.as_str();
    transforms.apply(tools).unwrap_or_else(|error| {
        tracing::error!(namespace = %ns, error = %error, "the upstream's tools are left out: fix its transform in the gateway's configuration");
        Vec::new()
    })
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
            server: OnceLock::new(),
            guards: OnceLock::new(),
            pools: Mutex::default(),
            added: Mutex::new(vec![Vec::new(); config.upstreams.len()]),
            transformed: Mutex::new(vec![None; config.upstreams.len()]),
            events,
            pending_events: Mutex::new(Some(receiver)),
            started: AtomicBool::new(false),
            list_every: config.list_every_upstream,
        })
    }

    /// Keeps `guards` for every mounted tool (the first given stays).
    pub(crate) fn set_guards(&self, guards: Guards) {
        let _ = self.guards.set(guards);
    }

    /// The built server: from now on upstream tools are added to it (the
    /// first server stays).
    pub(crate) fn attach(&self, server: &FusionServer) {
        let _ = self.server.set(server.downgrade());
        self.ensure_started();
    }

    fn server(&self) -> Option<FusionServer> {
        self.server.get().and_then(WeakFusionServer::upgrade)
    }

    /// `action` with the gateway's guards; with `shared`, a concurrency
    /// limit of its own they gave becomes the slots every mounted tool
    /// given the same limit shares.
    pub(crate) fn guarded(&self, action: Action, shared: bool) -> Action {
        let action = match self.guards.get() {
            Some(guards) => guards(action),
            None => action,
        };
        match action.concurrency_limit() {
            Some(limits) if shared => {
                let pool = self
                    .pools
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(limits)
                    .or_insert_with(|| {
                        SharedConcurrency::new(limits.max_active, limits.max_queue)
                            .shared_with(SHARED_WITH)
                    })
                    .clone();
                action.concurrency_shared(&pool)
            }
            _ => action,
        }
    }

    /// The action of a tool mounted under a namespace (`tool`, already
    /// namespaced): listed as its upstream lists it, shown to the callers
    /// for whom `shown` holds, its calls forwarded as sent; with the
    /// gateway's guards, in the shared slots.
    fn mounted_action(
        &self,
        tool: Tool,
        shown: impl Fn(&Mounts, &str) -> bool + Send + Sync + 'static,
    ) -> Action {
        let name = tool.name.to_string();
        let me = self.me.clone();
        let forward = move |ctx: CallContext, arguments: JsonObject| {
            let me = me.clone();
            let name = name.clone();
            async move {
                match me.upgrade() {
                    Some(mounts) => mounts.forward(ctx, &name, arguments).await,
                    None => Err(ToolError::internal("the gateway was dropped")),
                }
            }
        };
        let me = self.me.clone();
        let action = Action::from_tool(tool, forward).visible_when(move |ctx| {
            me.upgrade()
                .is_some_and(|mounts| shown(&mounts, ctx.caller()))
        });
        self.guarded(action, true)
    }

    /// The `<namespace>.return_to_triage` tool of the handoff upstream
    /// mounted under `namespace`: shown to the callers handed over to it.
    pub(crate) fn return_action(&self, namespace: &str) -> Action {
        let ns = namespace.to_owned();
        self.mounted_action(return_tool(namespace), move |mounts, caller| {
            mounts.handoff_active(caller, &ns)
        })
    }

    /// The action of the server's fallback, named `name`: the calls of
    /// namespaced names that are no tool (yet) — an upstream still
    /// connecting, a namespace not mounted or not active, a tool the
    /// upstream does not have — answered by [`forward`](Self::forward) with
    /// the name called; with the gateway's guards, in the shared slots.
    pub(crate) fn fallback_action(&self, name: &str) -> Action {
        let me = self.me.clone();
        let action = Action::raw(name, move |ctx: CallContext, arguments: JsonObject| {
            let me = me.clone();
            async move {
                match me.upgrade() {
                    Some(mounts) => {
                        let called = ctx.name().to_owned();
                        mounts.forward(ctx, &called, arguments).await
                    }
                    None => Err(ToolError::internal("the gateway was dropped")),
                }
            }
        })
        .description("Answers the calls of namespaced tools that are not (yet) mounted.");
        self.guarded(action, true)
    }

    /// Whether `caller`'s active handoff is to `namespace`.
    fn handoff_active(&self, caller: &str, namespace: &str) -> bool {
        self.handoffs
            .active(caller)
            .is_some_and(|(active, _)| active == namespace)
    }

    /// Whether `caller` is shown the tools of upstream `index`: it is
    /// connected, and listed to everybody or handed over to by `caller`.
    fn shows_upstream(&self, index: usize, caller: &str) -> bool {
        let upstream = &self.upstreams[index];
        (self.listed_to_all(upstream) || self.handoff_active(caller, &upstream.config.namespace))
            && upstream.is_ready()
    }

    /// Puts the tools upstream `index` listed on the server, namespaced (a
    /// handoff upstream's own `return_to_triage` left out: the handoff's
    /// shadows it): those it no longer has are removed, new and changed
    /// ones added, in one change; then every mounted tool is put back in
    /// the configuration's order (each namespace's tools as its upstream
    /// lists them, then its `return_to_triage`), after the server's own
    /// tools. A tool the server cannot take (its name is already a tool's)
    /// is left out and logged.
    async fn listed(&self, index: usize, tools: &[Tool]) {
        let Some(server) = self.server() else {
            return;
        };
        let upstream = &self.upstreams[index];
        let ns = upstream.config.namespace.as_str();
        let handoff = !self.listed_to_all(upstream);
        let own: Vec<Tool> = tools
            .iter()
            .filter(|t| !(handoff && t.name == RETURN_TOOL))
            .cloned()
            .collect();
        if let Err(error) = upstream.config.transforms.check_tools(&own) {
            tracing::warn!(namespace = %ns, error = %error, "a transform names a tool the upstream does not list");
        }
        let wanted: Vec<Tool> = shown(upstream, &own)
            .iter()
            .map(|t| t.namespaced(ns))
            .collect();
        let returns: Vec<String> = self
            .handed_over_namespaces()
            .into_iter()
            .map(|ns| format!("{ns}.{RETURN_TOOL}"))
            .collect();
        // Read and written inside the change, which runs one at a time, so
        // that two upstreams listing at once keep their tools apart.
        let change = server.update_tools(|set| {
            let mut added = self.added.lock().unwrap_or_else(PoisonError::into_inner);
            let before = std::mem::take(&mut added[index]);
            for old in before.iter().filter(|old| !wanted.contains(old)) {
                set.remove_tool(&old.name);
            }
            for tool in &wanted {
                if before.contains(tool) {
                    added[index].push(tool.clone());
                    continue;
                }
                let action = self.mounted_action(tool.clone(), move |mounts, caller| {
                    mounts.shows_upstream(index, caller)
                });
                match set.add_tool(action) {
                    Ok(()) => added[index].push(tool.clone()),
                    // Logged for the operator; the model sees the others.
                    Err(error) => {
                        tracing::warn!(namespace = %ns, tool = ?logged(&tool.name), error = %error, "upstream tool left out: the server cannot take it");
                    }
                }
            }
            if added[index] == before {
                return Ok(());
            }
            for (upstream, tools) in self.upstreams.iter().zip(added.iter()) {
                for tool in tools {
                    set.move_to_end(&tool.name);
                }
                let back = format!("{}.{RETURN_TOOL}", upstream.config.namespace);
                if returns.contains(&back) {
                    set.move_to_end(&back);
                }
            }
            Ok::<_, BuildError>(())
        });
        let _ = change.await;
    }

    /// Starts `upstream`'s connection (once), its listings put on the server.
    fn start(&self, upstream: &Arc<Upstream>) {
        let me = self.me.clone();
        let on_listed: OnListed = Arc::new(move |index, tools| {
            let me = me.clone();
            Box::pin(async move {
                if let Some(mounts) = me.upgrade() {
                    mounts.listed(index, &tools).await;
                }
            })
        });
        upstream.start(self.events.clone(), on_listed);
    }

    /// The namespaces callers may be handed over to.
    pub(crate) fn handoff_targets(&self) -> Vec<(&str, Option<&str>)> {
        self.upstreams
            .iter()
            .filter(|u| u.config.exposure == Exposure::Handoff)
            .map(|u| (u.config.namespace.as_str(), u.config.description.as_deref()))
            .collect()
    }

    /// The namespaces listed only to the callers handed over to them: each
    /// has a `return_to_triage` tool.
    pub(crate) fn handed_over_namespaces(&self) -> Vec<&str> {
        self.upstreams
            .iter()
            .filter(|u| !self.listed_to_all(u))
            .map(|u| u.config.namespace.as_str())
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
                self.start(upstream);
            }
        }
    }

    /// Whether `upstream` is listed to every caller, handoff or not.
    fn listed_to_all(&self, upstream: &Upstream) -> bool {
        self.list_every || upstream.config.exposure == Exposure::Always
    }

    /// Tells `caller` (everybody when `None`) that its tools changed.
    async fn notify(&self, caller: Option<&str>) {
        let Some(server) = self.server() else { return };
        match caller {
            Some(caller) => server.notify_tool_list_changed_for(caller).await,
            None => server.notify_tool_list_changed().await,
        };
    }

    /// The mounted tools `caller` sees now: each visible upstream's tools,
    /// namespaced, and the `return_to_triage` tool of its active handoff.
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
                let own: Vec<Tool> = listed
                    .iter()
                    .filter(|t| !(handoff && t.name == RETURN_TOOL))
                    .cloned()
                    .collect();
                tools.extend(shown(upstream, &own).iter().map(|t| t.namespaced(ns)));
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

    /// Forwards the call of the namespaced tool `name` with `arguments` to
    /// its upstream, or answers it with a `HANDOFF_*` envelope.
    pub(crate) async fn forward(
        &self,
        ctx: CallContext,
        name: &str,
        arguments: JsonObject,
    ) -> Result<ToolOutput, ToolError> {
        self.ensure_started();
        let caller = ctx.caller();
        let (ns, tool) = name.split_once('.').unwrap_or((name, ""));
        let Some(upstream) = self.upstream(ns) else {
            return Err(self.not_mounted(caller, name, ns));
        };
        let handoff = !self.listed_to_all(upstream);
        if handoff
            && let Some(answer) = self.through_handoff(caller, upstream, name, ns, tool).await
        {
            return answer;
        }
        let call = Forwarded {
            upstream,
            name,
            ns,
            tool,
            handoff,
            retry: seconds_until(std::time::Instant::now() + upstream.config.reconnect_initial),
        };
        let (client, target, shown) = self.ready_client(&call)?;
        let mut meta = Map::new();
        if handoff && let Some(carried) = self.handoffs.carried(caller, ns) {
            meta.insert(HANDOFF_META_KEY.to_owned(), carried);
        }
        // A transformed tool: its own name, its hidden arguments set.
        let (tool, arguments) = match &target {
            Some(shown) => (shown.source.as_str(), shown.arguments(&ctx, arguments)),
            None => (tool, arguments),
        };
        let sent = client.call_with_meta(tool, Value::Object(arguments), meta);
        let outcome = watched(&client, sent).await;
        match outcome {
            // A transformed upstream's failure names its tools as they are
            // shown, as a mount's does (wire contract §2.2).
            Ok(mut result) if !shown.is_empty() && result.is_error == Some(true) => {
                result
                    .result_type
                    .get_or_insert(rmcp::model::ResultType::COMPLETE);
                crate::server::mount::Names::of(ns, &shown).answer(result)
            }
            outcome => call.answer(&client, outcome),
        }
    }

    /// The answer to a call of `name` whose namespace `ns` no upstream has:
    /// the visible tools, and the one it may be meant as (an upstream's own
    /// name for its tool, `billing.list_invoices`, namespaced).
    fn not_mounted(&self, caller: &str, name: &str, ns: &str) -> ToolError {
        let visible = self.visible_names(caller);
        let names = || visible.iter().map(String::as_str);
        let near = under_namespace(name, names())
            .or_else(|| under_namespace(ns, names()))
            .map(str::to_owned);
        errors::mismatch(name, ns, Mismatch::NotMounted(near.as_deref()), visible)
    }

    /// For an upstream reached through a handoff, the answer to a call when
    /// it is not to be forwarded: the namespace not handed over to
    /// `caller`, its return tool, or the handoff's connection that failed;
    /// `None` to forward it.
    async fn through_handoff(
        &self,
        caller: &str,
        upstream: &Upstream,
        name: &str,
        ns: &str,
        tool: &str,
    ) -> Option<Result<ToolOutput, ToolError>> {
        if self
            .handoffs
            .active(caller)
            .is_none_or(|(active, _)| active != ns)
        {
            // The handoff tool opens them; the caller's own tools remain.
            let mut valid = vec![HANDOFF_TOOL.to_owned()];
            valid.extend(self.visible_names(caller));
            return Some(Err(errors::mismatch(name, ns, Mismatch::NotActive, valid)));
        }
        if tool == RETURN_TOOL {
            self.handoffs.end(caller, ns);
            self.notify(Some(caller)).await;
            return Some(Ok(ToolOutput::text(errors::returned(ns))));
        }
        if !self.handoffs.take_failure(caller, ns) {
            return None;
        }
        let retry = match upstream.link() {
            Link::Refused { .. } => return Some(Err(errors::refused(ns, Some(name), true))),
            Link::Down { retry_at } => seconds_until(retry_at),
            _ => 1,
        };
        Some(Err(errors::unavailable(
            ns,
            name,
            Unavailable::HandoffFailed,
            retry,
            true,
        )))
    }

    /// The client of `call`'s upstream, when it is connected, shows the
    /// tool called and is open, the tool as its transforms show it (`None`
    /// without transforms) and every tool they show (its failures are told
    /// with their names); else the answer that says why the call was not
    /// made (an idle upstream is started).
    fn ready_client(&self, call: &Forwarded<'_>) -> Result<Ready, ToolError> {
        let Forwarded { ns, tool, .. } = *call;
        let (client, tools) = match call.upstream.link() {
            Link::Idle => {
                self.start(call.upstream);
                return Err(errors::connecting(ns, CONNECTING_RETRY_SECS));
            }
            Link::Connecting { first: true } => {
                return Err(errors::connecting(ns, CONNECTING_RETRY_SECS));
            }
            Link::Connecting { first: false } => {
                return Err(call.unavailable(Unavailable::Unreachable, call.retry));
            }
            Link::Down { retry_at } => {
                return Err(call.unavailable(Unavailable::Unreachable, seconds_until(retry_at)));
            }
            Link::Refused { .. } => return Err(errors::refused(ns, Some(call.name), call.handoff)),
            Link::Ready { client, tools } => (client, tools),
        };
        let transforms = &call.upstream.config.transforms;
        let shown = if transforms.is_empty() {
            Arc::default()
        } else {
            self.shown_of(call.upstream, &tools)
        };
        let target = shown.iter().find(|t| t.tool.name == tool).cloned();
        let found = if transforms.is_empty() {
            tools.iter().any(|t| t.name == tool)
        } else {
            target.is_some()
        };
        if !found {
            let mut valid: Vec<String> = if transforms.is_empty() {
                tools.iter().map(|t| format!("{ns}.{}", t.name)).collect()
            } else {
                shown
                    .iter()
                    .map(|t| t.namespaced(ns).name.into_owned())
                    .collect()
            };
            if call.handoff {
                valid.push(format!("{ns}.{RETURN_TOOL}"));
            }
            return Err(errors::mismatch(
                call.name,
                ns,
                Mismatch::NoSuchTool(tool),
                valid,
            ));
        }
        if client.is_closed() {
            call.upstream.failed(&client);
            return Err(call.unavailable(Unavailable::Unreachable, call.retry));
        }
        Ok((client, target, shown))
    }

    /// `upstream`'s listing `tools` as its transforms show it: made once
    /// per listing, kept for the calls that follow.
    fn shown_of(&self, upstream: &Upstream, tools: &Arc<Vec<Tool>>) -> Arc<Vec<Transformed>> {
        let mut cache = self
            .transformed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let slot = &mut cache[upstream.index];
        if let Some((listing, shown)) = slot.as_ref()
            && Arc::ptr_eq(listing, tools)
        {
            return Arc::clone(shown);
        }
        let shown = Arc::new(shown(upstream, tools));
        *slot = Some((Arc::clone(tools), Arc::clone(&shown)));
        shown
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
        self.start(upstream);
        // Its first attempt failed already: no handoff until it is back.
        let retry = match upstream.link() {
            Link::Refused { .. } => return Err(errors::refused(ns, None, false)),
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

impl Mounts {
    /// Before `caller`'s `tools/list`: waits for the first connection
    /// attempts of the upstreams it sees, so that their tools are listed.
    pub(crate) async fn first_attempts(&self, caller: &str) {
        self.ensure_started();
        let active = self.handoffs.active(caller).map(|(ns, _)| ns);
        for upstream in &self.upstreams {
            let seen = self.listed_to_all(upstream)
                || active.as_deref() == Some(upstream.config.namespace.as_str());
            if seen && upstream.is_started() {
                upstream.first_attempt().await;
            }
        }
    }

    /// Whether the fallback answers a call of `name`: a namespaced name.
    pub(crate) fn claims(name: &str) -> bool {
        name.contains('.')
    }
}

/// The longest upstream JSON-RPC error message passed to the model, in
/// characters; a longer one is cut, with "…".
const MAX_PASSED_ERROR: usize = 2_000;

/// How often a call in flight checks that its upstream is still there.
const PROBE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// A call on its way to an upstream.
struct Forwarded<'a> {
    upstream: &'a Arc<Upstream>,
    /// The namespaced name called.
    name: &'a str,
    /// Its namespace, the upstream's.
    ns: &'a str,
    /// The upstream's own name of the tool.
    tool: &'a str,
    /// Whether the upstream is reached through a handoff.
    handoff: bool,
    /// The wait in seconds a failed call is told.
    retry: u64,
}

impl Forwarded<'_> {
    /// The answer of a call that is not made (`why`), and its wait in
    /// seconds.
    fn unavailable(&self, why: Unavailable, retry: u64) -> ToolError {
        errors::unavailable(self.ns, self.name, why, retry, self.handoff)
    }

    /// The caller's answer to the upstream's `outcome` of the call (made
    /// with `client`).
    fn answer(
        &self,
        client: &Arc<FusionClient>,
        outcome: Result<CallToolResult, FusionClientError>,
    ) -> Result<ToolOutput, ToolError> {
        let (ns, tool) = (self.ns, self.tool);
        match outcome {
            Ok(mut result) => {
                // An upstream of a protocol before 2026-07-28 sends no
                // `resultType`; its absence means "complete", which a
                // 2026-07-28 caller must be told.
                result
                    .result_type
                    .get_or_insert(rmcp::model::ResultType::COMPLETE);
                Ok(ToolOutput::result(result))
            }
            // The upstream refused the call's arguments or name (-32602,
            // -32601): its words, as a foreign server's plain-text error.
            Err(FusionClientError::JsonRpc { code, message, .. })
                if code == ErrorCode::INVALID_PARAMS.0 || code == ErrorCode::METHOD_NOT_FOUND.0 =>
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
                Err(self.unavailable(Unavailable::Failed, self.retry))
            }
            Err(FusionClientError::Timeout(_)) => {
                Err(self.unavailable(Unavailable::TimedOut, self.retry))
            }
            // The upstream refused the gateway's credentials (its token
            // revoked, the OAuth client's token no longer obtainable).
            Err(error) if error.is_unauthorized() => {
                tracing::error!(namespace = %ns, tool = ?logged(tool), error = ?logged(&error.to_string()), "upstream refused the gateway's credentials: fix them in the gateway's configuration");
                self.upstream.refused(client);
                Err(errors::refused(ns, Some(self.name), self.handoff))
            }
            Err(other) => {
                // Logged for the operator; never shown to the model.
                tracing::warn!(namespace = %ns, tool = ?logged(tool), error = ?logged(&other.to_string()), "upstream call failed");
                self.upstream.failed(client);
                Err(self.unavailable(Unavailable::DiedMidCall, self.retry))
            }
        }
    }
}

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
