//! [`Connection`]: one client's connection to a [`FusionServer`] — a stdio
//! connection, or one Streamable HTTP session while its worker runs. It is
//! what rmcp serves (see `super::server_handler`); users never hold one, so that
//! every way to serve goes through the connection set-up of
//! [`FusionServer::connection`].

use std::sync::Arc;

use rmcp::model::{PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Map;

use super::link::{ClientLink, LogFilter, log_level_of};
use crate::handler::{CallContext, Capability, InputRounds, Principal, SharedChannel};
use crate::server::FusionServer;
use crate::server::dispatch::{self, Origin, Target};
use crate::server::revision::is_stateless;
use crate::server::session::{Session, SessionEnd};

/// One client connection: the shared server and this connection's session
/// (peer, log level, subscriptions).
#[derive(Clone)]
pub(crate) struct Connection {
    pub(crate) server: FusionServer,
    pub(crate) session: Arc<Session>,
}

impl Connection {
    /// Where a request came from: its request head (Streamable HTTP only),
    /// its peer, its caller key ([`crate::CallContext::caller`]), and the
    /// connection back to the client.
    pub(crate) fn origin(&self, context: &RequestContext<RoleServer>) -> Origin {
        self.origin_with(context, None)
    }

    /// Who sends a request whose HTTP head (Streamable HTTP only) is
    /// `http`: its peer, the principal the HTTP edge verified its bearer
    /// token as (none over stdio) and its caller key.
    fn who(
        &self,
        http: Option<&::http::request::Parts>,
    ) -> (crate::handler::Peer, Option<Principal>, Arc<str>) {
        // The transport put the caller's address in the head's own
        // extensions.
        let peer = match http {
            Some(parts) => parts
                .extensions
                .get::<crate::handler::Peer>()
                .copied()
                .unwrap_or(crate::handler::Peer::Http(None)),
            None => crate::handler::Peer::Stdio,
        };
        let principal = http
            .and_then(|parts| parts.extensions.get::<Principal>())
            .cloned();
        let caller = super::caller::caller_of(&self.session, http, peer);
        (peer, principal, caller)
    }

    /// The task owner of the request of `context` (the Tasks extension,
    /// "Auth binding": a task answers only the one that created it).
    pub(crate) fn task_owner(&self, context: &RequestContext<RoleServer>) -> String {
        let (_, principal, caller) = self.who(http_head(context));
        crate::server::tasks::owner_key(principal.as_ref(), &caller)
    }

    /// [`origin`](Self::origin), with the input `rounds` of a 2026-07-28
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub(crate) fn origin_with(
        &self,
        context: &RequestContext<RoleServer>,
        rounds: Option<Arc<crate::handler::InputRounds>>,
    ) -> Origin {
        let http = http_head(context).cloned();
        self.origin_of(context, http, rounds)
    }

    /// [`origin_with`](Self::origin_with) of a request whose context is
    /// not read again: its HTTP head is moved out of it, not copied.
    pub(crate) fn origin_taking(
        &self,
        context: &mut RequestContext<RoleServer>,
        rounds: Option<Arc<crate::handler::InputRounds>>,
    ) -> Origin {
        let http = context.extensions.remove::<::http::request::Parts>();
        self.origin_of(context, http, rounds)
    }

    fn origin_of(
        &self,
        context: &RequestContext<RoleServer>,
        http: Option<::http::request::Parts>,
        rounds: Option<Arc<crate::handler::InputRounds>>,
    ) -> Origin {
        let (peer, principal, caller) = self.who(http.as_ref());
        let end = http
            .as_ref()
            .and_then(|parts| parts.extensions.get::<SessionEnd>());
        if let Some(end) = end {
            self.session.record_end(end);
        }
        let ended = end.map(|end| end.ended.clone());
        Origin {
            request_id: crate::handler::RequestIdText::of(context.id.clone()),
            cancellation: context.ct.clone(),
            ended,
            http,
            peer,
            client: Some(self.link(context, rounds)),
            caller,
            principal,
        }
    }

    /// What the server advertises at initialization: tools, prompts,
    /// resources (with `subscribe`; also for skills) and completions when it
    /// has any at that moment, the skills extension (SEP-2640, with
    /// `directoryRead`) when it has skills (tools also with a fallback, which answers calls of tools it
    /// does not have yet); logging always (any handler may log). Every list
    /// may change while the server runs (`listChanged: true`). Under
    /// `extensions`: those the builder declared, Tasks when an action
    /// supports tasks, MCP Apps (`{"mimeTypes": ["text/html;profile=mcp-app"]}`)
    /// when a view is served.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let catalog = self.server.catalog();
        let mut capabilities = ServerCapabilities::default();
        if !self.server.registry().is_empty() || self.server.inner.fallback.is_some() {
            let mut tools = ToolsCapability::default();
            tools.list_changed = Some(true);
            capabilities.tools = Some(tools);
        }
        if !catalog.prompts.is_empty() {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(true);
            capabilities.prompts = Some(prompts);
        }
        if !catalog.resources.is_empty()
            || !catalog.templates.is_empty()
            || catalog.skills.is_some()
        {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            capabilities.resources = Some(resources);
        }
        if catalog.completes() {
            capabilities.completions = Some(Map::new());
        }
        capabilities.logging = Some(Map::new());
        if catalog.skills.is_some() {
            // SEP-2640: the skills extension, with `resources/directory/read`.
            let declared = rmcp::model::SkillsCapability::new().with_directory_read();
            if let Ok(serde_json::Value::Object(settings)) = serde_json::to_value(declared) {
                capabilities
                    .extensions
                    .get_or_insert_with(Default::default)
                    .insert(rmcp::model::SKILLS_EXTENSION_ID.to_owned(), settings);
            }
        }
        if self.server.registry().any_task_support() {
            // SEP-2663: the tasks extension, under `extensions` (never a
            // `tasks` slot).
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), Map::new());
        }
        let declared = &self.server.inner.identity.extensions;
        if !declared.is_empty() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .extend(declared.clone());
        }
        if catalog.serves_apps() {
            // SEP-1865: the MCP Apps extension, and the view type served.
            let mut settings = Map::new();
            settings.insert(
                "mimeTypes".into(),
                serde_json::json!([crate::capability::MCP_APP_MIME_TYPE]),
            );
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(crate::capability::UI_EXTENSION_ID.to_owned(), settings);
        }
        capabilities
    }

    /// The connection of `context`, recorded in the session for later
    /// notifications; with the `rounds` of a 2026-07-28 `tools/call`,
    /// `prompts/get` or `resources/read`.
    pub(crate) fn link(
        &self,
        context: &RequestContext<RoleServer>,
        rounds: Option<Arc<InputRounds>>,
    ) -> SharedChannel {
        self.session.bind(&context.peer);
        let stateless = is_stateless(context);
        Arc::new(ClientLink {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            session: Arc::clone(&self.session),
            stateless,
            logs: if stateless {
                #[allow(deprecated)] // MCP logging, deprecated by SEP-2577 in rmcp's types
                LogFilter::Request(context.meta.log_level().map(log_level_of))
            } else {
                LogFilter::Session
            },
            declared: if stateless {
                context.meta.client_capabilities()
            } else {
                None
            },
            rounds,
        })
    }

    /// The context of a call of the `capability` named `name` (a prompt, a
    /// URI read, the capability whose argument is completed).
    pub(crate) fn surface_context(
        &self,
        capability: Capability,
        name: &str,
        context: &RequestContext<RoleServer>,
        rounds: Option<Arc<InputRounds>>,
    ) -> CallContext {
        dispatch::context(
            Target {
                capability,
                tool: name.to_owned(),
                action: None,
                name: name.to_owned(),
            },
            self.origin_with(context, rounds),
            self.server.inner.settings.expose_internal_errors,
            Arc::clone(&self.server.inner.assembly.states),
        )
    }

    /// The caller's context for the lists' filter.
    pub(crate) fn viewer(
        &self,
        capability: Capability,
        context: &RequestContext<RoleServer>,
    ) -> CallContext {
        dispatch::context(
            Target::list(capability),
            self.origin(context),
            self.server.inner.settings.expose_internal_errors,
            Arc::clone(&self.server.inner.assembly.states),
        )
    }
}

/// The request head of `context`: over Streamable HTTP rmcp puts it in the
/// request's extensions; any other transport leaves none.
fn http_head(context: &RequestContext<RoleServer>) -> Option<&::http::request::Parts> {
    context.extensions.get::<::http::request::Parts>()
}
