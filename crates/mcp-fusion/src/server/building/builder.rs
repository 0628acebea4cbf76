//! [`ServerBuilder`]: declaring a server's tools, groups and layers.

use tower::{Layer, Service};

use std::future::Future;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use super::signing_keys::{DEFAULT_SIGNING_KEY_ID, SigningKeys};
use crate::server::adapter::pagination::{DEFAULT_PAGE_SIZE, Pager};
use crate::server::dispatch::{Claims, Fallback};
use crate::server::fusion_server::{ListHook, ServerIdentity, ServerInner, Settings, healing};
use crate::server::in_flight::InFlight;
use crate::server::rounds::RequestStates;
use crate::server::tasks::{
    DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL, MemoryTaskStore, TaskStore, Tasks,
};
use crate::server::{FusionServer, Mount};

use crate::capability::tool_search::ToolSearchState;
use crate::capability::{
    Action, Assembly, BuildError, CacheHint, CacheHints, CacheableMethod, Catalog, Definition,
    Group, Prompt, Registry, Resource, ResourceTemplate, Skills, ToolSearch,
};
use crate::contract::{Lockfile, SelfHealingOptions};
use crate::error::ToolError;
#[cfg(feature = "redis")]
use crate::guard::RedisRateLimitStore;
use crate::guard::{Gates, GuardSettings, InsufficientScope, TokenVerifier};
use crate::handler::{CallContext, Output, States};
use crate::pipeline::{BoxLayer, Call, CallService, box_layer};
use crate::schema::SchemaProfile;
use crate::server::tool_search::search_action;

/// A hook run once with the built server ([`ServerBuilder::on_built`]).
type BuiltHook = Box<dyn FnOnce(&FusionServer) + Send>;

/// Declares a server, then [`build`](ServerBuilder::build)s it.
///
/// ```
/// use mcp_fusion::FusionServer;
/// use mcp_fusion::Action;
/// use mcp_fusion::ToolError;
///
/// async fn health() -> Result<&'static str, ToolError> {
///     Ok("ok")
/// }
///
/// let server = FusionServer::builder("billing", "1.0.0")
///     .tool(Action::new("billing_health", health).read_only())
///     .build()
///     .expect("a valid definition");
/// # let _ = server;
/// ```
pub struct ServerBuilder {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    definitions: Vec<Definition>,
    layers: Vec<BoxLayer>,
    guards: GuardSettings,
    pub(crate) expose_internal_errors: bool,
    pub(crate) unknown_tool_as_result: bool,
    self_healing: Option<Lockfile>,
    self_healing_options: SelfHealingOptions,
    states: States,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    skills: Option<Skills>,
    schema_profile: SchemaProfile,
    egress_limit: usize,
    /// What answers the calls of names no tool has, and which.
    fallback: Option<(Claims, Action)>,
    before_tools_list: Vec<ListHook>,
    on_built: Vec<BuiltHook>,
    state_machines: Vec<crate::guard::StateMachine>,
    task_store: Option<Arc<dyn TaskStore>>,
    task_ttl: Option<Duration>,
    task_poll_interval: Duration,
    max_tasks_per_caller: usize,
    page_size: usize,
    signing_keys: Option<SigningKeys>,
    request_state_ttl: std::time::Duration,
    /// The extensions declared ([`ServerBuilder::extension`]).
    extensions: Vec<(String, rmcp::model::JsonObject)>,
    cache_hints: CacheHints,
    tool_search: Option<ToolSearch>,
    /// The first mount that could not be made, returned by `build`.
    bad_mount: Option<BuildError>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// A server named `name` at `version` (sent as `serverInfo`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            instructions: None,
            definitions: Vec::new(),
            layers: Vec::new(),
            guards: GuardSettings::default(),
            expose_internal_errors: false,
            unknown_tool_as_result: false,
            self_healing: None,
            self_healing_options: SelfHealingOptions::default(),
            states: States::default(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            skills: None,
            schema_profile: SchemaProfile::Standard,
            egress_limit: crate::present::DEFAULT_EGRESS_LIMIT,
            fallback: None,
            before_tools_list: Vec::new(),
            on_built: Vec::new(),
            state_machines: Vec::new(),
            task_store: None,
            task_ttl: Some(DEFAULT_TASK_TTL),
            task_poll_interval: DEFAULT_POLL_INTERVAL,
            max_tasks_per_caller: crate::server::tasks::DEFAULT_MAX_TASKS_PER_CALLER,
            page_size: DEFAULT_PAGE_SIZE,
            signing_keys: None,
            cache_hints: CacheHints::default(),
            request_state_ttl: crate::server::rounds::request_state::DEFAULT_TTL,
            extensions: Vec::new(),
            tool_search: None,
            bad_mount: None,
        }
    }

    /// The most bytes a successful tool result may have, for every action
    /// without its own ([`Action::egress_limit`]); default
    /// [`DEFAULT_EGRESS_LIMIT`](crate::present::DEFAULT_EGRESS_LIMIT)
    /// (262 144 bytes, 256 KiB); `usize::MAX` turns the guard off. Counted:
    /// the UTF-8 bytes of the text blocks, the JSON of the other blocks and
    /// of `structuredContent`. A result over it is cut at boundaries that
    /// keep every part valid (never inside an envelope, a tag, a JSON
    /// string or a character; `isError` unchanged; error results pass
    /// whole), and its last block, the egress notice, tells the model how
    /// much was cut and how to ask for less (`docs/wire-contract.md` §9.2).
    /// It applies wherever a tool result leaves: stdio, HTTP, in memory,
    /// tasks, a gateway's mounted tools.
    pub fn egress_limit(mut self, bytes: usize) -> Self {
        self.egress_limit = bytes;
        self
    }

    /// Where the tasks of actions that run as tasks
    /// ([`Action::task_support`]) are kept; default a
    /// [`MemoryTaskStore`](crate::server::tasks::MemoryTaskStore) of this process.
    /// With a shared store (`RedisTaskStore`, feature
    /// `redis`) any replica answers `tasks/get` and `tasks/cancel`
    /// for a task another one runs, and a task whose replica died reads
    /// `failed` once its lease lapses (`RedisTaskStore::lease`, default
    /// 30 s; [`TaskStore::lease`]).
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// How long a task is kept after its creation, sent as its `ttlMs`
    /// (SEP-2663 `Task.ttlMs`); `None` keeps it until the store evicts it
    /// (`ttlMs: null`). Default [`DEFAULT_TASK_TTL`] (one hour).
    pub fn task_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// How often a client should poll `tasks/get`, sent as each task's
    /// `pollIntervalMs`. Default [`DEFAULT_POLL_INTERVAL`] (one second).
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.task_poll_interval = interval;
        self
    }

    /// The most tasks one caller may have running at once on this server
    /// (at least 1): past it, a `tools/call` that would start a task is
    /// answered with a `SERVER_BUSY` `<tool_error>` (`retry_after` 5 s)
    /// until one ends or is cancelled. A caller is the verified principal's
    /// subject when the request is authenticated, else its caller key
    /// ([`CallContext::caller`](crate::CallContext::caller)). Counted per
    /// replica. Default
    /// [`DEFAULT_MAX_TASKS_PER_CALLER`](crate::server::tasks::DEFAULT_MAX_TASKS_PER_CALLER)
    /// (100).
    pub fn max_tasks_per_caller(mut self, max: usize) -> Self {
        self.max_tasks_per_caller = max.max(1);
        self
    }

    /// Instructions for the client, sent at initialization.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Declares the capability extension `id` with its `settings` (SEP-1724;
    /// MCP 2026-07-28 "Extensions"): sent under `capabilities.extensions`
    /// in the `initialize` result (2025-11-25) and in `server/discover`
    /// (2026-07-28), e.g. `{"extensions": {"com.example/audit": {"level":
    /// 2}}}`. A later declaration of the same `id` replaces an earlier
    /// one. Building fails with `BuildError::BadExtension` for an `id` that
    /// is not `prefix/name`, or for `io.modelcontextprotocol/tasks` and
    /// `io.modelcontextprotocol/ui`, which the server declares itself when
    /// an action supports tasks or a [`UiResource`](crate::capability::UiResource)
    /// is served.
    ///
    /// ```
    /// use mcp_fusion::{FusionServer, Resource};
    ///
    /// let mut settings = mcp_fusion::model::JsonObject::new();
    /// settings.insert("level".into(), 2.into());
    /// let server = FusionServer::builder("billing", "1.0.0")
    ///     .resource(Resource::text("docs://readme", "readme", "Read me."))
    ///     .extension("com.example/audit", settings)
    ///     .build()
    ///     .expect("a valid definition");
    /// # let _ = server;
    /// ```
    pub fn extension(mut self, id: impl Into<String>, settings: rmcp::model::JsonObject) -> Self {
        self.extensions.push((id.into(), settings));
        self
    }

    /// Serves an MCP App's view ([`UiResource`](crate::capability::UiResource),
    /// SEP-1865): a `ui://` resource of MIME type `text/html;profile=mcp-app`
    /// with its `_meta.ui`, listed and read like any resource (with the
    /// server's guards and layers); the server then declares the
    /// `io.modelcontextprotocol/ui` extension. Link tools to it with
    /// [`Action::ui`] or [`Group::ui`].
    ///
    /// ```
    /// use mcp_fusion::capability::{UiLink, UiResource};
    /// use mcp_fusion::{Action, FusionServer, NoArgs, ToolError};
    ///
    /// async fn show(_: NoArgs) -> Result<String, ToolError> { Ok("Invoice inv_1: 12.00 EUR".into()) }
    /// let server = FusionServer::builder("billing", "1.0.0")
    ///     .ui_resource(UiResource::new("ui://billing/invoice", "invoice_view", "<!DOCTYPE html><html></html>"))
    ///     .tool(Action::new("show_invoice", show).ui(UiLink::new("ui://billing/invoice")))
    ///     .build()
    ///     .expect("a valid definition");
    /// # let _ = server;
    /// ```
    pub fn ui_resource(mut self, view: crate::capability::UiResource) -> Self {
        self.resources.push(view.into_resource());
        self
    }

    /// Gives the handlers an application state: a handler takes it as a
    /// [`State<T>`](crate::State) parameter (cloned for each call, so make it
    /// cheap to clone: an `Arc`, a connection pool). One state per type; a
    /// second one of the same type replaces the first. A handler that takes a
    /// state the server was not given is a [`BuildError::MissingState`].
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, state: T) -> Self {
        self.states.insert(state);
        self
    }

    /// Adds a plain tool: one MCP tool named after the action.
    pub fn tool(mut self, action: Action) -> Self {
        self.definitions.push(Definition::Plain(action));
        self
    }

    /// Mounts another built server's tools under a namespace, in this
    /// process ([`Mount`]): each becomes a plain tool
    /// `<namespace>.<name>` of this server, after the tools added before.
    /// A mount that cannot be made (a namespace that is not usable,
    /// transforms that do not fit the server's tools) is the
    /// [`BuildError::BadMount`] of [`build`](Self::build); a mounted name
    /// that is already a tool's, [`BuildError::DuplicateTool`].
    pub fn mount(mut self, mount: Mount) -> Self {
        match mount.actions() {
            Ok(actions) => {
                self.definitions
                    .extend(actions.into_iter().map(Definition::Plain));
            }
            Err(error) => {
                self.bad_mount.get_or_insert(error);
            }
        }
        self
    }

    /// Adds a group: one MCP tool whose discriminator selects an action.
    pub fn group(mut self, group: Group) -> Self {
        self.definitions.push(Definition::Group(group));
        self
    }

    /// Adds a prompt (`prompts/list`, `prompts/get`); the server then
    /// advertises the `prompts` capability. See [`Prompt`].
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Adds a resource at a fixed URI (`resources/list`, `resources/read`,
    /// `resources/subscribe`); the server then advertises the `resources`
    /// capability. See [`Resource`].
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Serves a directory of skills (SEP-2640): `skills/list`,
    /// `skills/get`, `resources/directory/read`, and each skill's files as
    /// `skill://` resources beside the server's own (see [`Skills`]). A
    /// server has one skills directory; a second call replaces the first.
    /// [`build`](Self::build) reads the directory, and fails with
    /// [`BuildError::SkillsDirectory`] naming it when it cannot be read.
    pub fn skills(mut self, skills: Skills) -> Self {
        self.skills = Some(skills);
        self
    }

    /// Shorthand for `skills(Skills::dir(root))`: the skills below `root`,
    /// with no guard of their own.
    pub fn skills_dir(self, root: impl Into<std::path::PathBuf>) -> Self {
        self.skills(Skills::dir(root))
    }

    /// Adds a resource template (`resources/templates/list`, and
    /// `resources/read` of any URI it matches). See [`ResourceTemplate`].
    pub fn resource_template(mut self, template: ResourceTemplate) -> Self {
        self.templates.push(template);
        self
    }

    /// Adds a tower layer around every capability's handler — each action,
    /// prompt, resource, resource template and completer — outside group
    /// and capability layers, after validation: it sees the validated
    /// [`Call`] ([`CallContext::capability`] says what is called) and returns
    /// an [`Output`]. Layers added first run first. See
    /// [`crate::pipeline::from_fn`].
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<CallService> + Send + Sync + 'static,
        L::Service:
            Service<Call, Response = Output, Error = ToolError> + Clone + Send + Sync + 'static,
        <L::Service as Service<Call>>::Future: Send + 'static,
    {
        self.layers.push(box_layer(layer));
        self
    }

    /// Protects the server with bearer tokens checked by `verifier`. Over
    /// Streamable HTTP every request to the MCP endpoint then needs a valid
    /// token, checked before any JSON-RPC is read: without one it gets
    /// `401` with `WWW-Authenticate: Bearer` (RFC 6750 §3; with a refused
    /// token `error="invalid_token"` and what was wrong), and no session is
    /// made; a session serves only the principal that opened it. The
    /// principal reaches every handler of every capability through
    /// [`CallContext::principal`]; capabilities that require scopes refuse
    /// a principal without them with `FORBIDDEN` naming them. stdio carries
    /// no token: there every caller is anonymous, and a capability that
    /// requires credentials answers `AUTH_REQUIRED`. See
    /// [`allow_anonymous`](Self::allow_anonymous) to serve callers without
    /// a token beside protected capabilities.
    pub fn auth(mut self, verifier: impl TokenVerifier) -> Self {
        self.guards.verifier = Some(Arc::new(verifier));
        self
    }

    /// With [`auth`](Self::auth): serves HTTP requests that carry no token
    /// instead of refusing them with `401` (a refused token is still `401`).
    /// Such an anonymous caller is shown in the lists only the capabilities
    /// that need no credentials (`requires_auth`, `requires_scopes`), and a
    /// call of one that does answers `AUTH_REQUIRED` — over HTTP with an
    /// OAuth resource server under the step-up policy, the `401` challenge
    /// naming that capability's scopes instead, so that the client
    /// authorizes (MCP authorization, "Scope Selection Strategy"). Default `false`:
    /// anonymous access beside protected capabilities is a choice made here.
    pub fn allow_anonymous(mut self, allow: bool) -> Self {
        self.guards.allow_anonymous = allow;
        self
    }

    /// How a caller whose token lacks a scope a capability needs is answered
    /// over Streamable HTTP: [`InsufficientScope::StepUp`] (HTTP 403 with the
    /// `insufficient_scope` challenge, before the handler runs) or
    /// [`InsufficientScope::Envelope`] (the `FORBIDDEN` result). Default:
    /// step-up with a verifier that names its protected resource
    /// (`OAuthResourceServer`, feature `oauth`), else the
    /// envelope. Under step-up, an anonymous caller
    /// ([`allow_anonymous`](Self::allow_anonymous)) of an OAuth resource
    /// server's capability that needs credentials gets the `401` challenge;
    /// under the envelope `AUTH_REQUIRED`.
    pub fn insufficient_scope(mut self, policy: InsufficientScope) -> Self {
        self.guards.insufficient_scope = Some(policy);
        self
    }

    /// Keeps every rate limit's state in Redis, shared by all the servers
    /// that use the same store (instead of in this process's memory).
    #[cfg(feature = "redis")]
    pub fn rate_limit_store(mut self, store: RedisRateLimitStore) -> Self {
        self.guards.redis = Some(store);
        self
    }

    /// Keeps the state gate's session states and the mutation serializer's
    /// locks in Redis, shared by every server given the same store
    /// ([`RedisGuardStore`](crate::guard::RedisGuardStore), wire contract
    /// §10): a move made on one replica is seen by the next call or
    /// `tools/list` on another, and a serialized key waits for its holder on
    /// any replica (with a lease, so a dead replica's lock frees itself).
    #[cfg(feature = "redis")]
    pub fn guard_store(mut self, store: crate::guard::RedisGuardStore) -> Self {
        self.guards.guard_store = Some(store);
        self
    }

    /// How to tell callers apart for per-caller rate limits when a call has
    /// no auth subject (e.g. a tenant header). Return `None` to fall back to
    /// where the call came from: the HTTP client's address (see
    /// `HttpOptions::trust_forwarded_for`), the
    /// stdio client, or the in-process caller. The key is never shown to the
    /// model.
    pub fn rate_limit_key(
        mut self,
        key: impl Fn(&CallContext) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.guards.key_fn = Some(Arc::new(key));
        self
    }

    /// Puts the internal error text of `INTERNAL_ERROR`s into their envelope
    /// (detail `internal_error`). For development only: off by default, since
    /// internal texts can carry secrets (wire contract §6). Validation field
    /// lines are always shown in full, whatever this says.
    pub fn expose_internal_errors(mut self, expose: bool) -> Self {
        self.expose_internal_errors = expose;
        self
    }

    /// How a call of a tool that does not exist is answered. By default
    /// (`false`) with JSON-RPC error -32602 naming the closest tool and every
    /// valid one, as the MCP specification does for unknown tools. With
    /// `true`, as a tool result the model reads (wire contract §1): a
    /// `<tool_error code="UNKNOWN_TOOL">` whose available actions are the
    /// valid tools.
    pub fn unknown_tool_as_result(mut self, as_result: bool) -> Self {
        self.unknown_tool_as_result = as_result;
        self
    }

    /// Turns self-healing on (wire contract §4.1): when the server is built,
    /// its contract is compared with `lockfile`'s (the known-good one), and
    /// from then on every validation failure of an action that changed
    /// carries a `<contract_awareness>` section naming the changes of that
    /// action and of its tool. See `docs/contracts.md`.
    pub fn self_healing(mut self, lockfile: Lockfile) -> Self {
        self.self_healing = Some(lockfile);
        self
    }

    /// The most deltas one `<contract_awareness>` shows (default 5); the
    /// section still counts all of them and names their true maximum
    /// severity. Only used with [`self_healing`](Self::self_healing).
    pub fn self_healing_max_deltas(mut self, max: usize) -> Self {
        self.self_healing_options.max_deltas = max;
        self
    }

    /// Whether `<contract_awareness>` also shows SAFE and COSMETIC changes
    /// (default `false`: BREAKING and RISKY only). Only used with
    /// [`self_healing`](Self::self_healing).
    pub fn self_healing_all_severities(mut self, all: bool) -> Self {
        self.self_healing_options.include_all_severities = all;
        self
    }

    /// Which form of the input and output schemas `tools/list` shows
    /// ([`SchemaProfile::Standard`] by default). [`SchemaProfile::Portable`]
    /// shows the subset strict model APIs accept; calls are validated
    /// against the full standard schema either way, and each action's
    /// schema in `_meta["mcp-fusion/actions"]` (what `fusion lock` and
    /// [`ServerContract`](crate::contract::ServerContract) read) stays the standard one, so lockfile digests
    /// do not depend on the profile.
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profile = profile;
        self
    }

    /// Answers the `tools/call`s of names no tool has, and that `claims`
    /// accepts, with `action` — as axum's `Router::fallback` answers the
    /// requests no route matches — instead of the unknown-tool answer: for
    /// a proxy or gateway whose tools are not all known yet (another
    /// server still connecting, or not connected until it is needed), so
    /// that a call of one of them gets an answer the model can act on. The
    /// call takes `action`'s guarded path (the server's layers, its guards,
    /// its handler); its context names the tool called
    /// ([`CallContext::name`] and [`tool`](CallContext::tool) are the name
    /// sent, so guard errors name it too), its arguments are those sent
    /// (build it with [`Action::raw`] to take them unvalidated), and its
    /// metrics count under `action`'s name. It is never listed. A name whose
    /// part before the first dot is a tool (`billing.get_invoice` beside a
    /// group `billing`) is not offered to it: the unknown-tool answer says
    /// how to call that action. One fallback per server: a second replaces
    /// the first. A server with a fallback advertises the `tools` capability
    /// even while it has no tool.
    pub fn fallback(
        mut self,
        claims: impl Fn(&str) -> bool + Send + Sync + 'static,
        action: Action,
    ) -> Self {
        self.fallback = Some((Arc::new(claims), action));
        self
    }

    /// Waits for `hook` before answering each `tools/list`: for a server
    /// whose tools arrive after it starts (loaded, or another server's,
    /// connecting), so that a client that lists the tools at once sees
    /// them. `hook` gets the caller's context (its
    /// [`caller`](CallContext::caller), [`principal`](CallContext::principal),
    /// …) and should end quickly once the tools are there; bound its wait
    /// (it holds that `tools/list` up). Only `tools/list` waits: calls do
    /// not. Several hooks run one after the other, in the order given.
    pub fn before_tools_list<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.before_tools_list
            .push(Arc::new(move |ctx| Box::pin(hook(ctx))));
        self
    }

    /// The caching hint (SEP-2549, MCP 2026-07-28
    /// server/utilities/caching) of `method`'s complete results on
    /// 2026-07-28: `ttlMs` is [`CacheHint::fresh_for`] in milliseconds,
    /// `cacheScope` its scope. Default [`CacheHint::NONE`] for every method
    /// (`ttlMs: 0`, `"private"`). A list of which some item is shown to
    /// some callers only (it needs credentials, a `visible_when` predicate
    /// or a state gate decides) is sent `"private"` even when declared
    /// `"public"`: one caller's list must not be served to another. For
    /// [`CacheableMethod::ResourcesRead`], the hint of the resources and
    /// templates that declare none ([`Resource::cache_hint`]). Nothing is
    /// sent to 2025-11-25 requests, nor on input-required results or errors.
    pub fn cache_hint(mut self, method: CacheableMethod, hint: CacheHint) -> Self {
        self.cache_hints.set(method, hint);
        self
    }

    /// How many items one page of `tools/list`, `prompts/list`,
    /// `resources/list` and `resources/templates/list` holds (MCP
    /// "Pagination"); default [`DEFAULT_PAGE_SIZE`] (100), so that a list of
    /// up to 100 items stays one page. `0` sends every list whole, without
    /// `nextCursor`. A page is cut from the list the caller sees (after
    /// [`allow_anonymous`](Self::allow_anonymous), scopes and visibility),
    /// in the list's order: tools as given, then as added; prompts,
    /// resources and templates as given, then as added. Every page but the
    /// last carries a `nextCursor` (see [`signing_key`](Self::signing_key))
    /// that names where the page ended (the place in the list of its last
    /// item, not a count), so a list changed between two pages neither
    /// skips nor repeats an item that is on it before and after (added
    /// items come last; a tool moved to the end is listed again there); a
    /// cursor this server did not give for that list is answered `-32602`,
    /// whose message says to list from the start.
    pub fn page_size(mut self, items: usize) -> Self {
        self.page_size = items;
        self
    }

    /// Gates the actions `machine` names by each session's state in it
    /// ([`StateMachine`](crate::guard::StateMachine), wire contract §10):
    /// `tools/list` shows such an action only in the states it is allowed
    /// in, a call in another state is refused with `FORBIDDEN` naming the
    /// state and the actions allowed now, and a successful call moves the
    /// session and sends it `notifications/tools/list_changed`. The state is
    /// per session (a stdio or in-memory connection, an MCP session over
    /// HTTP, the in-process caller of [`FusionServer::call`]), kept in this
    /// process's memory; a stateless 2026-07-28 HTTP call has no session,
    /// sees no gated action and is refused one. Several machines may be
    /// given; an action is gated by one at most.
    pub fn state_machine(mut self, machine: crate::guard::StateMachine) -> Self {
        self.state_machines.push(machine);
        self
    }

    /// Runs `hook` once with the server when [`build`](Self::build)
    /// succeeds, before `build` returns it: for a part of the server that
    /// changes it while it runs (adds and removes tools as another server's
    /// come and go, tells callers their tools changed) and is declared on
    /// the builder. Keep a [`WeakFusionServer`](crate::server::WeakFusionServer)
    /// ([`FusionServer::downgrade`]) rather than the server itself, when
    /// what keeps it is held by the server (a state, a handler): the server
    /// would never be dropped. Hooks run in the order given.
    pub fn on_built(mut self, hook: impl FnOnce(&FusionServer) + Send + 'static) -> Self {
        self.on_built.push(Box::new(hook));
        self
    }

    /// Turns tool search on, for a server (or a gateway) with more tools
    /// than a model can read at once: `tools/list` shows the `search_tools`
    /// meta-tool ([`SEARCH_TOOL`](crate::capability::tool_search::SEARCH_TOOL),
    /// listed first) and the tools `search` marks always visible, and the
    /// model finds the others with it: BM25 over their names, descriptions
    /// and parameter names, each found tool answered as `{"name",
    /// "description", "inputSchema"}` (`docs/wire-contract.md` §11). Every
    /// tool stays callable by its name; a search finds only what
    /// `tools/list` would show the caller without search (auth, scopes,
    /// `visible_when`, its session's state). The index is built on the first
    /// search and again after the tools change.
    ///
    /// `search_tools` is an action like the others (the server's layers,
    /// validation of its arguments, metrics); [`build`](Self::build) fails
    /// with [`BuildError::DuplicateTool`] when the server has its own tool
    /// of that name.
    ///
    /// ```
    /// use mcp_fusion::capability::ToolSearch;
    /// use mcp_fusion::{Action, FusionServer, ToolError};
    ///
    /// async fn refund() -> Result<&'static str, ToolError> { Ok("refunded") }
    /// async fn health() -> Result<&'static str, ToolError> { Ok("ok") }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = FusionServer::builder("billing", "1.0.0")
    ///     .tool(Action::new("refund_payment", refund).description("Refunds a payment."))
    ///     .tool(Action::new("health", health))
    ///     .tool_search(ToolSearch::new().always_visible(["health"]))
    ///     .build()?;
    /// let found = server
    ///     .call("search_tools", serde_json::json!({"query": "refund"}))
    ///     .await?;
    /// let data = &found.content[0].as_text().unwrap().text;
    /// assert!(data.starts_with(r#"{"tools":[{"name":"refund_payment""#));
    /// // Not listed, still callable.
    /// let refunded = server.call("refund_payment", serde_json::json!({})).await?;
    /// assert_eq!(refunded.content[0].as_text().unwrap().text, "refunded");
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.tool_search = Some(search);
        self
    }

    /// The server's signing key: at least
    /// [`MIN_SIGNING_KEY_BYTES`](super::signing_keys::MIN_SIGNING_KEY_BYTES) (32) bytes of
    /// secret, random data, e.g. the UTF-8 bytes of `openssl rand -base64
    /// 48` (`fusion serve` and `fusion gateway` read it from
    /// `FUSION_SIGNING_KEY`). It signs, with HMAC-SHA256 (RFC 2104) and a
    /// separate domain for each:
    /// - the lists' `nextCursor` ([`page_size`](Self::page_size)): a cursor
    ///   this server did not give, or gave for another list, is refused with
    ///   JSON-RPC `-32602`;
    /// - the `requestState` of MCP 2026-07-28's input-required results
    ///   (through rmcp's `RequestStateCodec`; SEP-2322 "Multi Round-Trip
    ///   Requests": a server must protect the integrity of a state it relies
    ///   on). A state is bound to its request: the method, the tool, prompt
    ///   or resource URI, the arguments (a SHA-256 of them, keys sorted) and
    ///   the verified caller's subject; one that was altered, is sent with
    ///   another request, or has expired
    ///   ([`request_state_ttl`](Self::request_state_ttl)) is refused with
    ///   `-32602`. The same state may be sent again with the same request (it
    ///   carries answers, not permissions).
    ///
    /// Give every replica behind one endpoint the same key, so that a cursor
    /// or a client's retry may reach any of them. Without one, the server
    /// draws 32 random bytes when built: its cursors and states are refused
    /// by other processes and after a restart (a client then lists again
    /// from the first page, or asks again).
    ///
    /// [`build`](Self::build) fails with [`BuildError::SigningKeyTooShort`]
    /// for a shorter key. The key is named [`DEFAULT_SIGNING_KEY_ID`]
    /// (`"default"`) in what it signs; to rotate it across a fleet, give
    /// [`signing_keys`](Self::signing_keys) instead.
    pub fn signing_key(self, key: impl Into<Vec<u8>>) -> Self {
        self.signing_keys(SigningKeys::new(DEFAULT_SIGNING_KEY_ID, key))
    }

    /// The server's signing keys: the active one signs every new cursor and
    /// `requestState` (what [`signing_key`](Self::signing_key) says of the
    /// one key holds for it), and each names its key by id, so what any key
    /// of the set signed is opened. Accepted keys let replicas rotate their
    /// key one at a time: the steps are on [`SigningKeys`]. Replaces an
    /// earlier [`signing_key`](Self::signing_key).
    ///
    /// [`build`](Self::build) fails with [`BuildError::BadSigningKeys`] for
    /// an id that cannot be used and [`BuildError::SigningKeyTooShort`] for
    /// a key under 32 bytes.
    pub fn signing_keys(mut self, keys: SigningKeys) -> Self {
        self.signing_keys = Some(keys);
        self
    }

    /// How long after it was issued a `requestState` may be sent back
    /// (default 10 minutes: time for a person to answer an elicitation).
    pub fn request_state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Builds the server: checks every name, derives and compiles every
    /// schema, composes the layers.
    ///
    /// # Errors
    /// [`BuildError`] for an empty server (no tool, fallback, prompt,
    /// resource or skills), a skills directory that cannot be read, an
    /// invalid or repeated name (tools, prompts, resource URIs and
    /// templates), a resource template that cannot be matched, an empty group, a discriminator that is empty or also an input field, an
    /// input type whose schema is not an object or does not compile, or a
    /// guard setting that cannot work (`max_active` 0, a zero rate or time
    /// limit, scopes without a token verifier), or a
    /// [`signing_key`](Self::signing_key) shorter than 32 bytes or a
    /// [`signing_keys`](Self::signing_keys) id that cannot be used.
    pub fn build(mut self) -> Result<FusionServer, BuildError> {
        if let Some(error) = self.refusal() {
            return Err(error);
        }
        let (pager, request_states) =
            signers(self.signing_keys, self.page_size, self.request_state_ttl)?;
        let extensions = super::extensions::checked(self.extensions)?;
        let gates = gates_of(self.state_machines, &self.guards)?;
        let before_tools_list = with_state_refresh(self.before_tools_list, &gates);
        let assembly = Arc::new(Assembly {
            server_layers: self.layers,
            guards: self.guards,
            states: Arc::new(self.states),
            schema_profile: self.schema_profile,
            egress_limit: self.egress_limit,
            gates,
        });
        let mut catalog = catalog_of(self.prompts, self.resources, self.templates, &assembly)?;
        if let Some(skills) = self.skills {
            catalog.set_skills(skills, &assembly)?;
        }
        let build = &*assembly;
        let slot = Arc::new(std::sync::OnceLock::new());
        let registry = registry_of(self.definitions, self.tool_search.as_ref(), &slot, build)?;
        super::extensions::check_ui_links(&registry, &catalog)?;
        let fallback = fallback_of(self.fallback, build)?;
        let locked = self
            .self_healing
            .map(|lockfile| (lockfile.contract, self.self_healing_options));
        let self_healing = locked
            .as_ref()
            .map(|locked| Arc::new(healing(locked, &registry)));
        let connections: Arc<crate::server::session::Connections> = Arc::default();
        let tasks = Tasks::new(
            self.task_store
                .unwrap_or_else(|| Arc::new(MemoryTaskStore::new())),
            self.task_ttl,
            self.task_poll_interval,
            Arc::clone(&connections),
        );
        let tasks = tasks.max_per_caller(self.max_tasks_per_caller);
        let inner = Arc::new(ServerInner {
            registry: RwLock::new(Arc::new(registry)),
            tools_change: Mutex::new(()),
            identity: ServerIdentity {
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                extensions,
            },
            settings: Settings {
                expose_internal_errors: self.expose_internal_errors,
                unknown_tool_as_result: self.unknown_tool_as_result,
            },
            in_flight: InFlight::default(),
            locked,
            self_healing: RwLock::new(self_healing),
            assembly,
            catalog: RwLock::new(Arc::new(catalog)),
            connections,
            fallback,
            before_tools_list,
            tasks: Arc::new(tasks),
            pager,
            request_states,
            cache_hints: self.cache_hints,
            tool_search: self.tool_search.map(ToolSearchState::new),
        });
        let server = FusionServer { inner };
        let _ = slot.set(server.downgrade());
        tell_moves(&server);
        for hook in self.on_built {
            hook(&server);
        }
        Ok(server)
    }
}

impl ServerBuilder {
    /// Why the server cannot be built before anything is assembled: the
    /// first mount that could not be made, or nothing to serve.
    fn refusal(&mut self) -> Option<BuildError> {
        if let Some(error) = self.bad_mount.take() {
            return Some(error);
        }
        let empty = self.definitions.is_empty()
            && self.fallback.is_none()
            && self.prompts.is_empty()
            && self.resources.is_empty()
            && self.templates.is_empty()
            && self.skills.is_none();
        empty.then_some(BuildError::NoTools)
    }
}

/// `hooks`, after one that refreshes the states of a session's machines
/// first when `gates` keep them in a shared store.
fn with_state_refresh(mut hooks: Vec<ListHook>, gates: &Arc<Gates>) -> Vec<ListHook> {
    if gates.shared() {
        hooks.insert(0, refresh_states(gates));
    }
    hooks
}

/// The pager of the lists (`page_size` items) and the signer of
/// `requestState`s (valid `ttl`), both with `keys` (checked), or with a
/// random key without them.
fn signers(
    keys: Option<SigningKeys>,
    page_size: usize,
    ttl: Duration,
) -> Result<(Pager, RequestStates), BuildError> {
    let keys = match keys {
        Some(keys) => keys.checked()?,
        None => SigningKeys::random(),
    };
    Ok((Pager::new(page_size, &keys), RequestStates::new(&keys, ttl)))
}

/// The tools of a server: `definitions`, after the search tool when
/// tool `search` is on (it searches the server `slot` holds once built),
/// built with `build`, their presenters bound and their state gates
/// checked.
fn registry_of(
    mut definitions: Vec<Definition>,
    search: Option<&ToolSearch>,
    slot: &Arc<std::sync::OnceLock<crate::server::WeakFusionServer>>,
    build: &Assembly,
) -> Result<Registry, BuildError> {
    if let Some(search) = search {
        let action = search_action(search, Arc::clone(slot));
        definitions.insert(0, Definition::Plain(action));
    }
    let registry = Registry::build(definitions, build)?;
    registry.bind_presentations()?;
    check_gated_actions(&build.gates, &registry)?;
    Ok(registry)
}

/// The fallback of a server: its action alone, built like every action.
fn fallback_of(
    fallback: Option<(Claims, Action)>,
    build: &Assembly,
) -> Result<Option<Fallback>, BuildError> {
    let Some((claims, action)) = fallback else {
        return Ok(None);
    };
    Ok(Some(Fallback {
        claims,
        registry: Registry::build(vec![Definition::Plain(action)], build)?,
    }))
}

/// The catalog of the prompts, resources and templates given at build,
/// each assembled with `assembly`.
fn catalog_of(
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    assembly: &Assembly,
) -> Result<Catalog, BuildError> {
    let mut catalog = Catalog::default();
    for prompt in prompts {
        catalog.add_prompt(prompt, assembly)?;
    }
    for resource in resources {
        catalog.add_resource(resource, assembly)?;
    }
    for template in templates {
        catalog.add_template(template, assembly)?;
    }
    Ok(catalog)
}

/// The gates of `machines`, with the store of `guards` (feature `redis`).
///
/// # Errors
/// [`BuildError::BadStateMachine`] for a machine that cannot work.
fn gates_of(
    machines: Vec<crate::guard::StateMachine>,
    guards: &GuardSettings,
) -> Result<Arc<Gates>, BuildError> {
    let gates = Gates::new(machines)
        .map_err(|(machine, reason)| BuildError::BadStateMachine { machine, reason })?;
    #[cfg(feature = "redis")]
    let gates = gates.with_store(guards.guard_store.clone());
    #[cfg(not(feature = "redis"))]
    let _ = guards;
    Ok(Arc::new(gates))
}

/// A `tools/list` hook that reads the caller's states from the gates'
/// store first: the moves other replicas made.
fn refresh_states(gates: &Arc<Gates>) -> ListHook {
    let gates = Arc::clone(gates);
    Arc::new(move |ctx: CallContext| {
        let gates = Arc::clone(&gates);
        Box::pin(async move { gates.refresh(ctx.caller()).await })
    })
}

/// [`BuildError::BadStateMachine`] for an action a state machine names and
/// the server does not have.
fn check_gated_actions(gates: &Gates, registry: &Registry) -> Result<(), BuildError> {
    let exists = |name: &str| {
        registry
            .tools()
            .iter()
            .any(|tool| tool.actions.iter().any(|action| action.dotted == name))
    };
    match gates.unknown_action(exists) {
        Some((machine, action)) => Err(BuildError::BadStateMachine {
            machine,
            reason: format!("it names {action}, which the server does not have"),
        }),
        None => Ok(()),
    }
}

/// Has a session's move in a state machine tell that session's connections
/// that their tools changed (`notify_tool_list_changed_for`), through a
/// weak handle: the gates are held by the server.
fn tell_moves(server: &FusionServer) {
    let gates = &server.inner.assembly.gates;
    if gates.is_empty() {
        return;
    }
    let weak = server.downgrade();
    gates.set_notify(Arc::new(move |caller: &str| {
        let (weak, caller) = (weak.clone(), caller.to_owned());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Some(server) = weak.upgrade() {
                    server.notify_tool_list_changed_for(&caller).await;
                }
            });
        }
    }));
}
