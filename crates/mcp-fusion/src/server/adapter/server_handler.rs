//! The rmcp [`ServerHandler`] adapter: `tools/list` and `tools/call`
//! through the call path; prompts, resources, completion and logging
//! through [`super::surface`]; every list cut into pages by
//! [`super::pagination`]; `subscriptions/listen` through
//! [`crate::server::listen`]. Over 2026-07-28 a `tools/call`, `prompts/get`
//! or `resources/read` whose handler asks the client is answered with an
//! input-required result ([`crate::server::rounds`]).

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult,
};
use rmcp::model::{InitializeRequestParams, InitializeResult};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};

use super::cache_hints::hinted;
use super::connection::Connection;
use super::pagination::{ListKind, cursor_of};
use super::surface;
use crate::capability::{CacheableMethod, Shown};
use crate::envelope::WritesEnvelopes;
use crate::handler::Capability;
use crate::server::dispatch::CallRequest;
use crate::server::dispatch::request::Lookup;
use crate::server::listen;
use crate::server::rounds::{self, Asking, Rounds};
use crate::server::tasks::call::{self as task_call, Answer};

impl ServerHandler for Connection {
    fn get_info(&self) -> ServerConfig {
        let identity = &self.server.inner.identity;
        let mut config = ServerConfig::new(self.capabilities())
            .with_server_info(Implementation::new(&identity.name, &identity.version));
        if let Some(instructions) = &identity.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    /// `initialize` (2025-11-25), once per connection: a second one is
    /// `-32600`, the session keeping the handshake it made (MCP
    /// 2025-11-25 "Lifecycle": initialization is the first interaction).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, rmcp::ErrorData> {
        if !self.session.first_initialize() {
            return Err(rmcp::ErrorData::invalid_request(
                "Invalid Request: this session is already initialized; initialize is sent once, as a session's first request (start a new session to initialize again)",
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        let viewer = self.viewer(Capability::Tool, &context);
        for hook in &self.server.inner.before_tools_list {
            hook(viewer.clone()).await;
        }
        let registry = self.server.registry();
        // With tool search on, only the search tool, those always visible
        // and those linked to an MCP App's view: a host renders a view from
        // the link it reads in tools/list, never from a search's answer.
        let search = self.server.inner.tool_search.as_ref();
        let listed = |name: &str| search.is_none_or(|s| s.settings.lists(name));
        let shown = registry
            .placed()
            .filter(|(_, tool)| listed(&tool.name) || tool.ui.is_some())
            .filter_map(|(place, tool)| {
                match tool.listing_for(|a| a.callable.visibility.shows_to(&viewer)) {
                    Some(Shown::Whole) => Some((place, tool.listed.clone())),
                    Some(Shown::Part(listing)) => Some((place, listing.to_tool())),
                    None => None,
                }
            });
        let cursor = cursor_of(request.as_ref());
        let first = cursor.is_none();
        let page = self
            .server
            .inner
            .pager
            .page(ListKind::Tools, shown, cursor)?;
        let mut result: ListToolsResult = page.into();
        if first {
            result.meta = super::gated::gated_tools(&registry, &viewer, &listed);
        }
        let hint = self.list_hint(CacheableMethod::ToolsList);
        Ok(hinted(result, hint, &context))
    }

    /// A standard MCP method whose params rmcp could not read arrives here as
    /// a custom request: `-32602` (JSON-RPC 2.0 §5), not `-32601`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, rmcp::ErrorData> {
        // A method 2026-07-28 removed, on a request that names that
        // revision in `_meta` (rmcp holds it apart from the params): -32601.
        if crate::server::revision::is_stateless(&context)
            && let Some(removed) = crate::wire::removed_methods::method_not_found(&request.method)
        {
            return Err(removed);
        }
        Err(
            crate::wire::jsonrpc::invalid_params_of(&request.method, request.params.as_ref())
                .unwrap_or_else(|| {
                    rmcp::ErrorData::new(
                        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                        request.method,
                        None,
                    )
                }),
        )
    }

    /// Records the connection's peer (for list changes and resource
    /// updates). A session restored from the store replays
    /// `notifications/initialized`: nothing else to do.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.session.bind(&context.peer);
        let advertised = self.capabilities();
        self.session.advertised(
            advertised.tools.is_some(),
            advertised.prompts.is_some(),
            advertised.resources.is_some(),
        );
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        let viewer = self.viewer(Capability::Prompt, &context);
        let page = self.server.inner.pager.page(
            ListKind::Prompts,
            surface::list_prompts(self, &viewer).into_iter(),
            cursor_of(request.as_ref()),
        )?;
        let hint = self.list_hint(CacheableMethod::PromptsList);
        Ok(hinted(page.into(), hint, &context))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        let asking = Asking {
            method: "prompts/get",
            name: &request.name,
            arguments: request.arguments.as_ref(),
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.clone(),
        };
        let rounds = rounds::rounds_of(&self.server.inner.request_states, asking, &context)?;
        // Boxed: rmcp copies each request's future into a new task, and its
        // size is that of the largest handler future (see `call_tool`).
        let answer = Box::pin(surface::get_prompt(
            self,
            &request.name,
            request.arguments,
            &context,
            rounds.as_ref().map(Rounds::shared),
        ))
        .await;
        match rounds::input_required(&self.server.inner.request_states, rounds.as_ref()) {
            Some(input) => input.map(Into::into),
            None => answer.map(Into::into),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        let viewer = self.viewer(Capability::Resource, &context);
        let page = self.server.inner.pager.page(
            ListKind::Resources,
            surface::list_resources(self, &viewer).into_iter(),
            cursor_of(request.as_ref()),
        )?;
        let hint = self.list_hint(CacheableMethod::ResourcesList);
        Ok(hinted(page.into(), hint, &context))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        let viewer = self.viewer(Capability::Resource, &context);
        let page = self.server.inner.pager.page(
            ListKind::ResourceTemplates,
            surface::list_templates(self, &viewer).into_iter(),
            cursor_of(request.as_ref()),
        )?;
        let hint = self.list_hint(CacheableMethod::ResourceTemplatesList);
        Ok(hinted(page.into(), hint, &context))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        let asking = Asking {
            method: "resources/read",
            name: &request.uri,
            arguments: None,
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.clone(),
        };
        let rounds = rounds::rounds_of(&self.server.inner.request_states, asking, &context)?;
        let answer = Box::pin(surface::read_resource(
            self,
            &request.uri,
            &context,
            rounds.as_ref().map(Rounds::shared),
        ))
        .await;
        match rounds::input_required(&self.server.inner.request_states, rounds.as_ref()) {
            Some(input) => input.map(Into::into),
            None => answer.map(Into::into),
        }
    }

    /// `skills/list` (SEP-2640): rmcp answers `-32601` before asking when
    /// the server has no skills (the extension is not declared).
    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        Box::pin(super::skills::list_skills(self, &context)).await
    }

    /// `skills/get` (SEP-2640).
    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        Box::pin(super::skills::get_skill(self, &request.uri, &context)).await
    }

    /// `resources/directory/read` (SEP-2640, `directoryRead`).
    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        Box::pin(super::skills::read_directory(self, &request.uri, &context)).await
    }

    #[allow(deprecated)] // 2025-11-25's subscriptions; 2026-07-28 has subscriptions/listen
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        surface::subscribe(self, &request.uri, &context)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        surface::unsubscribe(self, &request.uri, &context)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, rmcp::ErrorData> {
        self.session.bind(&context.peer);
        Box::pin(surface::complete(self, request, &context)).await
    }

    /// The 2026-07-28 discovery: what `initialize` advertises, `listChanged`
    /// and `resources.subscribe` included (served by `subscriptions/listen`).
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, rmcp::ErrorData> {
        let result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        let hint = self.list_hint(CacheableMethod::Discover);
        Ok(hinted(result, hint, &context))
    }

    /// `subscriptions/listen` (2026-07-28): every list kind, and the
    /// resource URIs that name a resource of the server ([`super::listen`]).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(listen::stream::accepted(self, requested))
    }

    /// Holds an acknowledged `subscriptions/listen` stream open until the
    /// client closes it; the server's changes reach it meanwhile, and the
    /// status of those tasks its `taskIds` name that its caller created
    /// (another caller's are never told). While it
    /// is open, the leases of those tasks are watched
    /// (`Tasks::watch_leases`): a task whose replica stopped is recorded
    /// `failed` and the stream told, though no client polls `tasks/get`.
    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        let context = subscription.request_context();
        let owner = self.task_owner(context);
        // Only the caller's own tasks (the Tasks extension, "Auth binding"):
        // another's is left out, as `tasks/get` answers "Unknown task".
        let requested = listen::task_ids::task_ids_of(context);
        let task_ids = self.server.tasks().owned(requested, &owner).await;
        let named = task_ids.iter().cloned().collect();
        let leases = async {
            self.server.tasks().watch_leases(task_ids).await;
            std::future::pending().await
        };
        tokio::select! {
            outcome = Box::pin(listen::stream::serve(self, subscription, named, &owner)) => outcome,
            never = leases => never,
        }
    }

    /// `logging/setLevel` (2025-11-25): the connection's level. The
    /// 2026-07-28 protocol removed it (levels come with each request): -32601.
    #[allow(deprecated)] // MCP logging: SEP-2577 deprecates it for 2026-07-28
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        if crate::server::revision::is_stateless(&context) {
            return Err(rmcp::ErrorData::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        self.session.bind(&context.peer);
        self.session
            .set_log_level(super::link::log_level_of(request.level));
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.server
            .registry()
            .tool(name)
            .map(|tool| tool.listed.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        // The one lookup of the call (made at the HTTP edge when the
        // step-up policy read the call): everything below asks it.
        let lookup = context
            .extensions
            .get_mut::<::http::request::Parts>()
            .and_then(|head| head.extensions.remove::<Lookup>())
            .unwrap_or_else(|| {
                self.server
                    .look_up(&request.name, request.arguments.as_ref())
            });
        if let Some(refused) = super::client_requirements::refusal(lookup.action(), &context) {
            return Err(refused);
        }
        let support = lookup.task_support();
        let answer = task_call::answer(support, &context);
        if let Answer::Refused(error) = answer {
            return Err(error);
        }
        if let Answer::Task = answer {
            // A task's handler asks the client through the task
            // (`inputRequests` answered by `tasks/update`), not in rounds.
            let call = CallRequest {
                name: request.name.to_string(),
                arguments: request.arguments.clone(),
                origin: self.origin_with(&context, None),
                lookup: lookup.clone(),
            };
            let capabilities = context.client_capabilities();
            match Box::pin(task_call::start(&self.server, call, capabilities, support)).await {
                task_call::Started::Answer(answer) => return Ok(*answer),
                // Optional, and the task store did not answer: run directly.
                task_call::Started::Direct => {}
            }
        }
        let asking = Asking {
            method: "tools/call",
            name: &request.name,
            arguments: request.arguments.as_ref(),
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.clone(),
        };
        let rounds = rounds::rounds_of(&self.server.inner.request_states, asking, &context)?;
        let written = context.extensions.get::<WritesEnvelopes>().is_some();
        let call = CallRequest {
            name: request.name.into_owned(),
            arguments: request.arguments,
            origin: self.origin_taking(&mut context, rounds.as_ref().map(Rounds::shared)),
            lookup,
        };
        // Boxed: rmcp spawns every request's future as a task, copying it
        // whole; the pipeline's future (router, guards, middleware, handler)
        // is kilobytes, a box is a pointer.
        let answer = Box::pin(self.server.dispatch(call)).await;
        if let Some(input) =
            rounds::input_required(&self.server.inner.request_states, rounds.as_ref())
        {
            return input.map(Into::into);
        }
        match answer {
            // The transport that writes envelopes as text gets them so.
            Ok(reply) if written => Ok(reply.into_written_result().into()),
            Ok(reply) => Ok(reply.into_result().into()),
            Err(unknown) => Err(rmcp::ErrorData::invalid_params(
                unknown.message,
                Some(unknown.data),
            )),
        }
    }

    /// `tasks/get` (SEP-2663): the task as the store holds it, its
    /// `result` the `CallToolResult` a direct call would have returned.
    /// rmcp answers `-32601` when no action runs as a task, `-32021` when
    /// the request did not declare the tasks extension; `-32602` "Unknown
    /// task" to a caller other than the task's creator, as for a task that
    /// does not exist (the Tasks extension, "Auth binding").
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, rmcp::ErrorData> {
        let owner = self.task_owner(&context);
        Box::pin(async move {
            let tasks = self.server.tasks();
            tasks.authorize(&request.task_id, &owner).await?;
            tasks.get(&request.task_id).await
        })
        .await
    }

    /// `tasks/update` (SEP-2663): the client's `inputResponses` to a task's
    /// `inputRequests`; acknowledged for a known task of the caller
    /// (another's is unknown to it, as for `tasks/get`).
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        let owner = self.task_owner(&context);
        Box::pin(async move {
            let tasks = self.server.tasks();
            tasks.authorize(&request.task_id, &owner).await?;
            tasks
                .update(&request.task_id, request.input_responses)
                .await
        })
        .await
    }

    /// `tasks/cancel` (SEP-2663): cancels the task's handler when it runs on
    /// this replica, records `cancelled` in the store in any case; a
    /// terminal task is left as it is. The same empty acknowledgement.
    /// Another caller's task is unknown to it, as for `tasks/get`.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        let owner = self.task_owner(&context);
        Box::pin(async move {
            let tasks = self.server.tasks();
            tasks.authorize(&request.task_id, &owner).await?;
            tasks.cancel(&request.task_id).await
        })
        .await
    }
}
