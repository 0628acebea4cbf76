//! [`FusionServer`]: the built server, shared by every connection: its tools,
//! prompts and resources, its settings, the calls in progress.

use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ServerNotification, Tool};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::ServerBuilder;
use super::adapter::caller;
use super::adapter::{Connection, Served};
use super::building::ToolSet;
use super::dispatch::{CallRequest, Dispatch, Fallback, Lookup, Origin, Reply, UnknownTool};
use super::in_flight::InFlight;
use super::list_changes::ListKind;
use super::listen;
use super::session::{Connections, Session};
use super::tasks::Tasks;
use crate::capability::{
    Action, Assembly, BuildError, Catalog, Found, Group, Prompt, Registry, Resource,
    ResourceTemplate, ToolListing,
};
use crate::contract::{SelfHealing, SelfHealingOptions, ServerContract};
use crate::guard;
use crate::handler::{CallContext, Peer};

pub(crate) struct ServerIdentity {
    pub name: String,
    pub version: String,
    pub instructions: Option<String>,
    /// The extensions its code declared (`ServerBuilder::extension`).
    pub extensions: rmcp::model::ExtensionCapabilities,
}

/// Server-wide settings of the call path.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Settings {
    pub expose_internal_errors: bool,
    pub unknown_tool_as_result: bool,
}

/// A hook awaited before every `tools/list` ([`ServerBuilder::before_tools_list`]).
pub(crate) type ListHook = Arc<dyn Fn(CallContext) -> BoxFuture<'static, ()> + Send + Sync>;

pub(crate) struct ServerInner {
    /// The tools; replaced whole on a change, so that a call reads the
    /// current table with a read lock and an `Arc` clone.
    pub(crate) registry: RwLock<Arc<Registry>>,
    /// Held by a change of the tools while it builds its copy of the table
    /// (outside the table's lock, which calls read): one change at a time.
    pub(crate) tools_change: Mutex<()>,
    pub(crate) identity: ServerIdentity,
    pub(crate) settings: Settings,
    pub(crate) in_flight: InFlight,
    /// With self-healing on: the known-good contract of the lockfile and the
    /// options, to compute the deltas again when the tools change.
    pub(crate) locked: Option<(ServerContract, SelfHealingOptions)>,
    /// The contract deltas since the lockfile of the tools as they are now;
    /// replaced with the tools.
    pub(crate) self_healing: RwLock<Option<Arc<SelfHealing>>>,
    /// What every capability is assembled with (server layers, guard
    /// settings, states), kept for those added while the server runs.
    pub(crate) assembly: Arc<Assembly>,
    /// Prompts, resources and templates; replaced whole on a change.
    pub(crate) catalog: RwLock<Arc<Catalog>>,
    /// Every client connection: whom to tell of list changes and resource
    /// updates.
    pub(crate) connections: Arc<Connections>,
    /// What answers the calls of names no tool has
    /// ([`ServerBuilder::fallback`]).
    pub(crate) fallback: Option<Fallback>,
    /// Awaited, in order, before every `tools/list`
    /// ([`ServerBuilder::before_tools_list`]).
    pub(crate) before_tools_list: Vec<ListHook>,
    /// The tasks of actions that run as tasks, and their store.
    pub(crate) tasks: Arc<Tasks>,
    /// Cuts the lists into pages ([`ServerBuilder::page_size`],
    /// [`ServerBuilder::signing_key`]).
    pub(crate) pager: super::adapter::pagination::Pager,
    /// The signer of 2026-07-28 `requestState`s
    /// ([`ServerBuilder::signing_key`]).
    pub(crate) request_states: super::rounds::RequestStates,
    /// The caching hints of the cacheable methods
    /// ([`ServerBuilder::cache_hint`]).
    pub(crate) cache_hints: crate::capability::CacheHints,
    /// With tool search on ([`ServerBuilder::tool_search`]): its settings
    /// and the index of the tools.
    pub(crate) tool_search: Option<crate::capability::tool_search::ToolSearchState>,
}

#[cfg(test)]
thread_local! {
    /// How many times [`FusionServer::registry`] read the table on this
    /// thread (for the tests that a call reads it once).
    static REGISTRY_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times [`FusionServer::registry`] read the table on this thread.
#[cfg(test)]
pub(crate) fn registry_reads() -> usize {
    REGISTRY_READS.with(std::cell::Cell::get)
}

/// What changed in the catalog, for `notifications/*/list_changed`.
#[derive(Debug, Clone, Copy)]
enum Listed {
    Prompts,
    Resources,
}

/// A built server. Cheap to clone (one shared table inside); serve it with
/// [`FusionServer::serve_stdio`] or (feature `http`) `FusionServer::serve_http`,
/// or call it in-process with [`FusionServer::call`]. Its tools, prompts and
/// resources may change while it runs ([`add_tool`](Self::add_tool),
/// [`add_prompt`](Self::add_prompt), …): connected clients are told.
///
/// Changing the tools of a running server (MCP 2025-11-25 "Tools", "List
/// Changed Notification"; the server advertises `tools.listChanged`): a tool
/// added with [`add_tool`](Self::add_tool) is built exactly as
/// [`ServerBuilder::tool`] builds one at build: the server's layers, guard
/// settings and states, its own guards, layers and validation. A change is
/// copy-on-write: calls in progress keep the table they started with, the
/// next call sees the new one. With self-healing on, the contract deltas of
/// [`self_healing`](FusionServer::self_healing) are computed again with the
/// tools, so that a validation failure describes a tool as it is now.
#[derive(Clone)]
pub struct FusionServer {
    pub(crate) inner: Arc<ServerInner>,
}

/// The deltas between the `locked` contract (with its options) and the
/// tools of `registry`.
pub(crate) fn healing(
    (contract, options): &(ServerContract, SelfHealingOptions),
    registry: &Registry,
) -> SelfHealing {
    let listings: Vec<_> = registry.tools().iter().map(|t| t.listing.clone()).collect();
    SelfHealing::new(
        contract,
        &ServerContract::from_listings(&listings),
        *options,
    )
}

impl std::fmt::Debug for FusionServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusionServer")
            .field("name", &self.inner.identity.name)
            .field("tools", &self.registry().tools().len())
            .finish_non_exhaustive()
    }
}

/// A [`FusionServer`] held without keeping it alive
/// ([`FusionServer::downgrade`]): for a task or a hook that works on the
/// server while it exists — adds tools as they come, tells callers their
/// tools changed — and must not keep it (and whatever its states hold)
/// from being dropped, as a state of the server holding the server would.
#[derive(Clone)]
pub struct WeakFusionServer {
    inner: Weak<ServerInner>,
}

impl WeakFusionServer {
    /// The server, while it exists (some clone of it, or a connection
    /// serving it, is still held).
    pub fn upgrade(&self) -> Option<FusionServer> {
        self.inner.upgrade().map(|inner| FusionServer { inner })
    }
}

impl std::fmt::Debug for WeakFusionServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeakFusionServer").finish_non_exhaustive()
    }
}

/// The `SERVER_BUSY` answer to a call that arrives after shutdown began.
fn shutting_down() -> crate::ToolError {
    crate::ToolError::server_busy("The server is shutting down and takes no new calls.")
        .suggest("Call again in a few seconds: the server, or another instance of it, will answer once it is back.")
        .retry_after(5)
}

/// The `SERVER_BUSY` answer to a call still running when the shutdown grace
/// is over: it was stopped, and a change it makes may or may not be done.
fn stopped_by_shutdown(tool: &str) -> crate::ToolError {
    crate::ToolError::server_busy(format!(
        "The server shut down before the call of {tool} finished; the call was stopped."
    ))
    .suggest("Call again in a few seconds: the server, or another instance of it, will answer once it is back. If the call changes something, check first whether the change was made.")
    .retry_after(5)
}

/// The `UNKNOWN_TOOL` envelope of [`ServerBuilder::unknown_tool_as_result`].
fn unknown_tool_error(unknown: &UnknownTool) -> crate::ToolError {
    let tool = unknown.data["tool"].as_str().unwrap_or_default();
    let mut message = format!("There is no tool named \"{tool}\".");
    if let Some(closest) = unknown.data["closest"].as_str() {
        message.push_str(&format!(" Did you mean \"{closest}\"?"));
    }
    let valid = unknown.data["valid_tools"]
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    crate::ToolError::new(crate::ErrorCode::UnknownTool, message)
        .suggest("Call one of the tools in available_actions; list them again with tools/list if they may have changed.")
        .actions(valid)
}

/// A call that named no tool: MCP answers it with JSON-RPC error -32602.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownToolError {
    /// Names the tool, the closest valid one and every valid one.
    pub message: String,
    /// `{"tool", "closest"?, "valid_tools"}`, sent as the JSON-RPC error's `data`.
    pub data: Value,
}

impl FusionServer {
    /// Starts declaring a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    /// A handle on the server that does not keep it alive; see
    /// [`WeakFusionServer`].
    pub fn downgrade(&self) -> WeakFusionServer {
        WeakFusionServer {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// The server's tasks.
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// The server's tasks, shared (for a task's client link).
    pub(crate) fn tasks_shared(&self) -> Arc<Tasks> {
        Arc::clone(&self.inner.tasks)
    }

    /// The tools as they are now: one read of the table.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        #[cfg(test)]
        REGISTRY_READS.with(|reads| reads.set(reads.get() + 1));
        Arc::clone(
            &self
                .inner
                .registry
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// What `tools/list` shows (to a caller who sees everything), tool by
    /// tool, in the order they were added: those given at build, then those
    /// added since. A tool added with [`Action::from_tool`] is read from the
    /// tool it was given, as [`ServerContract::from_tools`] reads any
    /// server's `tools/list`.
    pub fn listings(&self) -> Vec<ToolListing> {
        self.registry()
            .tools()
            .iter()
            .map(|t| t.listing.clone())
            .collect()
    }

    /// The tools as `tools/list` sends them to a caller who sees everything
    /// (rmcp's `Tool`: name, description, schemas, annotations, `_meta`),
    /// in the order they were added.
    pub fn tools(&self) -> Vec<Tool> {
        self.registry()
            .tools()
            .iter()
            .map(|t| t.listed.clone())
            .collect()
    }

    /// Calls tool `name` with `arguments` in-process, through the same path as
    /// a `tools/call` from a client (routing, validation, middleware, handler,
    /// envelope). `arguments` must be a JSON object or null.
    ///
    /// # Errors
    /// [`UnknownToolError`] when no tool is named `name` (over MCP: -32602).
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, UnknownToolError> {
        self.call_in_process(name, arguments, None, Peer::Local)
            .await
    }

    /// An in-process call (`call`, `call_with_http`): the bearer token of
    /// `http`'s `Authorization` header checked as the HTTP edge would (a
    /// refused one is an `UNAUTHORIZED` result, there being no HTTP status to
    /// answer with), `arguments` as an object (anything but an object or null
    /// goes under `(root)`, for validation to refuse), then the whole path.
    pub(crate) async fn call_in_process(
        &self,
        name: &str,
        arguments: Value,
        http: Option<::http::request::Parts>,
        peer: Peer,
    ) -> Result<CallToolResult, UnknownToolError> {
        let arguments: Option<Map<String, Value>> = match arguments {
            Value::Object(object) => Some(object),
            Value::Null => None,
            other => {
                let mut wrapped = Map::new();
                wrapped.insert("(root)".into(), other);
                Some(wrapped)
            }
        };
        let principal = match (&self.inner.assembly.guards.verifier, &http) {
            (Some(verifier), Some(parts)) => {
                match guard::verify_bearer(verifier.as_ref(), &parts.headers).await {
                    Ok(principal) => principal,
                    Err(refusal) => {
                        return Ok(Reply::Error(guard::unauthorized(&refusal)).into_result());
                    }
                }
            }
            _ => None,
        };
        let caller = caller::caller_key(None, http.as_ref(), peer).into();
        let lookup = self.look_up(name, arguments.as_ref());
        self.dispatch(CallRequest {
            name: name.to_owned(),
            arguments,
            lookup,
            origin: Origin {
                request_id: crate::handler::RequestIdText::fixed("local"),
                cancellation: CancellationToken::new(),
                ended: None,
                http,
                peer,
                client: None,
                caller,
                principal,
            },
        })
        .await
        .map(Reply::into_result)
    }

    /// A call of tool `name` made by a server this one is mounted on
    /// ([`Mount`](crate::server::Mount)), inside that server's call `ctx`:
    /// this server's whole path (its layers, guards, validation, handler,
    /// presenter) as for a call of its own, with `ctx`'s caller, principal,
    /// request id, connection and cancellation; no transport, no token
    /// checked again (the mounting server's edge did).
    pub(crate) async fn call_as(
        &self,
        ctx: &CallContext,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, UnknownToolError> {
        let arguments = Some(arguments);
        let lookup = self.look_up(name, arguments.as_ref());
        let outer = &ctx.inner;
        self.dispatch(CallRequest {
            name: name.to_owned(),
            arguments,
            lookup,
            origin: Origin {
                request_id: outer.request_id.clone(),
                cancellation: ctx.cancellation.clone(),
                ended: outer.ended.clone(),
                http: outer.http.clone(),
                peer: outer.peer,
                client: outer.client.clone(),
                caller: Arc::clone(&outer.caller),
                principal: outer.principal.clone(),
            },
        })
        .await
        .map(Reply::into_result)
    }

    /// The one lookup of a `tools/call` of `name` with `arguments`: the
    /// tools read once, the action found once ([`Lookup`]).
    pub(crate) fn look_up(&self, name: &str, arguments: Option<&Map<String, Value>>) -> Lookup {
        Lookup::new(self.registry(), name, arguments)
    }

    /// Runs one call through the path; an unknown tool becomes an error or,
    /// with [`ServerBuilder::unknown_tool_as_result`], an `UNKNOWN_TOOL` reply.
    pub(crate) async fn dispatch(&self, request: CallRequest) -> Result<Reply, UnknownToolError> {
        let Some(_in_flight) = self.inner.in_flight.enter() else {
            return Ok(Reply::Error(shutting_down()));
        };
        let settings = self.inner.settings;
        let stopped = self.inner.in_flight.stopped();
        let name = request.name.clone();
        let self_healing = self.self_healing();
        let dispatch = Dispatch {
            expose_internal_errors: settings.expose_internal_errors,
            states: &self.inner.assembly.states,
            self_healing: self_healing.as_deref(),
            fallback: self.inner.fallback.as_ref(),
            search: self
                .inner
                .tool_search
                .as_ref()
                .map(|search| &search.settings),
        };
        let outcome = tokio::select! {
            biased;
            outcome = dispatch.run(request) => outcome,
            () = stopped.cancelled() => return Ok(Reply::Error(stopped_by_shutdown(&name))),
        };
        match outcome {
            Ok(reply) => Ok(reply),
            Err(unknown) if settings.unknown_tool_as_result => {
                Ok(Reply::Error(unknown_tool_error(&unknown)))
            }
            Err(unknown) => Err(UnknownToolError {
                message: unknown.message,
                data: unknown.data,
            }),
        }
    }

    /// The state of the concurrency guard of the action `name` (dotted, or a
    /// plain tool's name); `None` when it has no concurrency guard.
    /// With shared slots ([`SharedConcurrency`](crate::guard::SharedConcurrency)),
    /// the calls of every capability sharing them.
    pub fn concurrency_stats(&self, name: &str) -> Option<crate::guard::ConcurrencyStats> {
        let lookup = self.look_up(name, None);
        let action = match lookup.found {
            Found::NoAction { tool, .. } => lookup.registry.tools()[tool].actions.first(),
            Found::NoTool {
                dotted: Some((tool, Some(action))),
            } => Some(&lookup.registry.tools()[tool].actions[action]),
            _ => lookup.action(),
        }?;
        action.callable.concurrency.as_ref().map(|g| g.snapshot())
    }

    /// The contract deltas since the lockfile given to
    /// [`ServerBuilder::self_healing`], for the tools as they are now
    /// (computed when the server was built, and again on every change of
    /// its tools); `None` without self-healing.
    pub fn self_healing(&self) -> Option<Arc<SelfHealing>> {
        self.inner
            .self_healing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Calls in progress now (over every transport).
    pub fn calls_in_flight(&self) -> usize {
        self.inner.in_flight.count()
    }

    /// One new client connection: this server, with its own [`Session`]
    /// (log level, subscriptions), registered for notifications.
    pub(crate) fn connection(&self) -> Connection {
        Connection {
            server: self.clone(),
            session: self.inner.connections.open(),
        }
    }

    /// What rmcp serves for one new client connection ([`connection`](Self::connection)):
    /// with the `otel` feature, wrapped so that each request runs in its
    /// SERVER span once telemetry is enabled, `network.transport` being `tcp` when `over_http`, else
    /// `pipe`.
    pub(crate) fn served(&self, over_http: bool) -> Served {
        #[cfg(feature = "otel")]
        {
            use crate::telemetry::conventions::{PIPE, TCP};
            let instruments = crate::telemetry::enabled()
                .then(|| Arc::new(crate::telemetry::instruments::Instruments::from_global()));
            let transport = if over_http { TCP } else { PIPE };
            super::adapter::Traced::new(self.connection(), instruments, transport)
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = over_http;
            self.connection()
        }
    }

    /// The catalog as it is now.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(
            &self
                .inner
                .catalog
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Changes the catalog with `change`, which returns its result and
    /// whether the set changed; when it did, tells every connected client
    /// that the `listed` set changed.
    async fn change_catalog<T>(
        &self,
        listed: Listed,
        change: impl FnOnce(&mut Catalog) -> (T, bool),
    ) -> T {
        let (out, changed) = {
            let mut guard = self
                .inner
                .catalog
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let mut catalog = Catalog::clone(&guard);
            let (out, changed) = change(&mut catalog);
            if changed {
                *guard = Arc::new(catalog);
            }
            (out, changed)
        };
        if changed {
            let sessions = self.live_sessions();
            listen::tell_listeners(&sessions, None, None, || match listed {
                Listed::Prompts => ServerNotification::PromptListChangedNotification(
                    rmcp::model::PromptListChangedNotification::default(),
                ),
                Listed::Resources => ServerNotification::ResourceListChangedNotification(
                    rmcp::model::ResourceListChangedNotification::default(),
                ),
            })
            .await;
            let kind = match listed {
                Listed::Prompts => ListKind::Prompts,
                Listed::Resources => ListKind::Resources,
            };
            for session in sessions {
                session.tell_list_changed(kind);
            }
        }
        out
    }

    fn live_sessions(&self) -> Vec<Arc<Session>> {
        self.inner.connections.live()
    }

    /// Adds a prompt to the running server and sends
    /// `notifications/prompts/list_changed` to every connected client.
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::prompt`] would give at build
    /// (a repeated name, a missing state, an unusable arguments type); the
    /// server is unchanged then.
    pub async fn add_prompt(&self, prompt: Prompt) -> Result<(), BuildError> {
        let assembly = Arc::clone(&self.inner.assembly);
        self.change_catalog(Listed::Prompts, |catalog| {
            let added = catalog.add_prompt(prompt, &assembly);
            let changed = added.is_ok();
            (added, changed)
        })
        .await
    }

    /// Removes the prompt named `name`; whether there was one. When there was,
    /// connected clients are sent `notifications/prompts/list_changed`.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        self.change_catalog(Listed::Prompts, |catalog| {
            let before = catalog.prompts.len();
            catalog.prompts.retain(|p| p.prompt.name != name);
            let removed = catalog.prompts.len() != before;
            (removed, removed)
        })
        .await
    }

    /// Reads the skills directory ([`ServerBuilder::skills`]) again, on a
    /// blocking thread (`tokio::task::spawn_blocking`), and swaps the new
    /// files in: a read in progress keeps the files it started with. When a
    /// skill was added, removed or changed (its frontmatter or any file's
    /// digest), connected clients are sent
    /// `notifications/resources/list_changed`. Returns whether one changed;
    /// `Ok(false)` for a server without skills.
    ///
    /// # Errors
    /// [`BuildError::SkillsDirectory`] when the directory can no longer be
    /// read; the files read before keep being served.
    pub async fn reload_skills(&self) -> Result<bool, BuildError> {
        let Some(skills) = self.catalog().skills.clone() else {
            return Ok(false);
        };
        let reloading = Arc::clone(&skills);
        let reloaded = tokio::task::spawn_blocking(move || reloading.catalog.reload())
            .await
            .map_err(|joined| BuildError::SkillsDirectory {
                path: skills.skills.root().display().to_string(),
                reason: joined.to_string(),
            })?;
        let changed = reloaded.map_err(|error| BuildError::SkillsDirectory {
            path: skills.skills.root().display().to_string(),
            reason: error.to_string(),
        })?;
        skills.place();
        if changed {
            self.change_catalog(Listed::Resources, |_| ((), true)).await;
        }
        Ok(changed)
    }

    /// Adds a resource to the running server and sends
    /// `notifications/resources/list_changed` to every connected client.
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::resource`] would give at build.
    pub async fn add_resource(&self, resource: Resource) -> Result<(), BuildError> {
        let assembly = Arc::clone(&self.inner.assembly);
        self.change_catalog(Listed::Resources, |catalog| {
            let added = catalog.add_resource(resource, &assembly);
            let changed = added.is_ok();
            (added, changed)
        })
        .await
    }

    /// Removes the resource at `uri`; whether there was one. When there was,
    /// connected clients are sent `notifications/resources/list_changed`.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        self.change_catalog(Listed::Resources, |catalog| {
            let before = catalog.resources.len();
            catalog.resources.retain(|r| r.resource.uri != uri);
            let removed = catalog.resources.len() != before;
            (removed, removed)
        })
        .await
    }

    /// Adds a resource template to the running server and sends
    /// `notifications/resources/list_changed` to every connected client.
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::resource_template`] would give.
    pub async fn add_resource_template(
        &self,
        template: ResourceTemplate,
    ) -> Result<(), BuildError> {
        let assembly = Arc::clone(&self.inner.assembly);
        self.change_catalog(Listed::Resources, |catalog| {
            let added = catalog.add_template(template, &assembly);
            let changed = added.is_ok();
            (added, changed)
        })
        .await
    }

    /// Removes the template whose text is `uri_template`; whether there was
    /// one; when there was, connected clients are sent
    /// `notifications/resources/list_changed`.
    pub async fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.change_catalog(Listed::Resources, |catalog| {
            let before = catalog.templates.len();
            catalog
                .templates
                .retain(|t| t.template.uri_template != uri_template);
            let removed = catalog.templates.len() != before;
            (removed, removed)
        })
        .await
    }

    /// Tells every client subscribed to `uri` that it changed
    /// (`notifications/resources/updated`): those of `resources/subscribe`
    /// (MCP 2025-11-25 "Subscriptions") and the `subscriptions/listen`
    /// streams that named it in `resourceSubscriptions` (2026-07-28, tagged
    /// with their subscription id); returns how many were told. A stream
    /// acknowledged but not registered yet counts: the update is kept for
    /// it and sent once it is.
    pub async fn notify_resource_updated(&self, uri: &str) -> usize {
        let sessions = self.live_sessions();
        let mut told = listen::tell_listeners(&sessions, None, None, || {
            ServerNotification::ResourceUpdatedNotification(
                rmcp::model::ResourceUpdatedNotification::new(
                    rmcp::model::ResourceUpdatedNotificationParam::new(uri),
                ),
            )
        })
        .await;
        for session in sessions {
            let Some(peer) = session.peer() else { continue };
            if !session.is_subscribed(uri) {
                continue;
            }
            let param = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            if peer.notify_resource_updated(param).await.is_ok() {
                told += 1;
            }
        }
        told
    }

    /// Adds a plain tool to the running server and sends
    /// `notifications/tools/list_changed` to every connected client that
    /// was told the server has tools.
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::build`] would give for it (a name
    /// that is invalid or already a tool's, a state the server was not
    /// given, a guard setting that cannot work, an unusable schema); the
    /// server is unchanged then and nobody is told anything.
    pub async fn add_tool(&self, action: Action) -> Result<(), BuildError> {
        self.update_tools(|tools| tools.add_tool(action)).await
    }

    /// Adds a group (one tool whose discriminator selects an action) to the
    /// running server, like [`add_tool`](Self::add_tool).
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::build`] would give for it (also an
    /// empty group, a discriminator that is empty or a field of an action);
    /// the server is unchanged then.
    pub async fn add_group(&self, group: Group) -> Result<(), BuildError> {
        self.update_tools(|tools| tools.add_group(group)).await
    }

    /// Removes the tool (plain or group) named `name`; whether there was
    /// one. When there was, connected clients are sent
    /// `notifications/tools/list_changed`, and a later call of it gets the
    /// unknown-tool answer (JSON-RPC -32602, or `UNKNOWN_TOOL` with
    /// [`ServerBuilder::unknown_tool_as_result`]). Calls of it already in
    /// progress finish.
    pub async fn remove_tool(&self, name: &str) -> bool {
        self.update_tools(|tools| Ok(tools.remove_tool(name)))
            .await
            .unwrap_or(false)
    }

    /// Several changes of the tools at once: `change` adds and removes
    /// tools on a [`ToolSet`] (a copy of the server's), and when it returns
    /// `Ok` the copy takes the place of the server's tools and, when
    /// anything changed, connected clients are sent one
    /// `notifications/tools/list_changed`. Changes are made one at a time;
    /// calls are not held up while `change` runs.
    ///
    /// # Errors
    /// The error `change` returns (a [`BuildError`] of one of its additions,
    /// passed on with `?`); the server is unchanged then, whatever `change`
    /// did before.
    ///
    /// ```
    /// # use mcp_fusion::{Action, FusionServer, ToolError};
    /// # async fn ping() -> Result<&'static str, ToolError> { Ok("pong") }
    /// # async fn demo(server: FusionServer) -> Result<(), mcp_fusion::BuildError> {
    /// // Replace v1 of a tool set with v2, told to clients once.
    /// server
    ///     .update_tools(|tools| {
    ///         tools.remove_tool("crm.v1.find");
    ///         tools.add_tool(Action::new("crm.v2.find", ping))?;
    ///         Ok(())
    ///     })
    ///     .await
    /// # }
    /// ```
    pub async fn update_tools<T>(
        &self,
        change: impl FnOnce(&mut ToolSet<'_>) -> Result<T, BuildError>,
    ) -> Result<T, BuildError> {
        let (out, changed) = {
            let _one_at_a_time = self
                .inner
                .tools_change
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let mut tools = ToolSet::new(Registry::clone(&self.registry()), &self.inner.assembly);
            let out = change(&mut tools)?;
            let changed = tools.changed();
            if changed {
                let registry = tools.into_registry();
                if let Some(locked) = &self.inner.locked {
                    *self
                        .inner
                        .self_healing
                        .write()
                        .unwrap_or_else(PoisonError::into_inner) =
                        Some(Arc::new(healing(locked, &registry)));
                }
                *self
                    .inner
                    .registry
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::new(registry);
            }
            (out, changed)
        };
        if changed {
            self.tell_tools_changed(None).await;
        }
        Ok(out)
    }

    /// Sends `notifications/tools/list_changed` to every connected client
    /// that was told the server has tools (and every `subscriptions/listen`
    /// stream that asked for tool list changes), though no tool was added or
    /// removed. A connection's list changes are sent by a task of its own and
    /// coalesced per kind with those it has not written yet, so this never
    /// waits for a client to read; a client that leaves one unread for 30
    /// seconds is told no more of them. Use it for a change of what some
    /// callers are shown (a [`visible_when`](crate::Action::visible_when)
    /// predicate that now
    /// decides otherwise), so that they list the tools again. Returns how
    /// many were told.
    pub async fn notify_tool_list_changed(&self) -> usize {
        self.tell_tools_changed(None).await
    }

    /// [`notify_tool_list_changed`](Self::notify_tool_list_changed) for the
    /// connections of one caller only: those whose last request came from
    /// `caller`, a [`CallContext::caller`] key (an MCP session, a stdio
    /// connection, an address). Returns how many were told (0 for a caller
    /// no longer connected).
    pub async fn notify_tool_list_changed_for(&self, caller: &str) -> usize {
        self.tell_tools_changed(Some(caller)).await
    }

    /// Tells the connections of `caller` (every connection when `None`)
    /// that were given the `tools` capability, and the `subscriptions/listen`
    /// streams that asked for `toolsListChanged` (MCP 2026-07-28), that
    /// their tools changed.
    async fn tell_tools_changed(&self, caller: Option<&str>) -> usize {
        let sessions = self.live_sessions();
        let mut told = listen::tell_listeners(&sessions, caller, None, || {
            ServerNotification::ToolListChangedNotification(
                rmcp::model::ToolListChangedNotification::default(),
            )
        })
        .await;
        for session in sessions {
            if caller.is_some_and(|c| !session.is_caller(c)) {
                continue;
            }
            if session.tell_list_changed(ListKind::Tools) {
                told += 1;
            }
        }
        told
    }
}

impl ServerContract {
    /// The contract of a built server, from [`FusionServer::listings`] (the
    /// tools it has now). Equal to [`from_tools`](Self::from_tools) over the
    /// same server's `tools/list`.
    pub fn of_server(server: &FusionServer) -> Self {
        Self::from_listings(&server.listings())
    }
}
