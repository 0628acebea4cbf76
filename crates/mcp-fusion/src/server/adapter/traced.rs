//! [`Traced`]: a [`Connection`] whose every request runs in its
//! OpenTelemetry SERVER span ([`crate::telemetry`]), opened before the
//! request reaches the connection, so that what the path refuses (an
//! unknown tool, a validation failure, a rate limit, a full server) is
//! traced like what it answers. rmcp's own refusals before a handler runs
//! (a protocol version it does not support, missing 2026-07-28 `_meta`)
//! have no span.
//!
//! It is rmcp's `ServerHandler` by forwarding each method to the
//! connection, as rmcp's own `Box`/`Arc` wrappers do; the request methods
//! are forwarded inside their span.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures::future::Either;
use opentelemetry::context::FutureExt as _;
use rmcp::ErrorData as McpError;
use rmcp::ServerHandler;
use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use tokio_util::sync::CancellationToken;

use super::Connection;
use crate::named::Named;
use crate::telemetry::instruments::Instruments;
use crate::telemetry::operation::{Operation, Outcome};
use crate::telemetry::server;

/// A connection served with a SERVER span per request, once telemetry is
/// enabled ([`crate::telemetry::enable`]); before, each request goes to the
/// connection as it is.
pub(crate) struct Traced {
    inner: Connection,
    /// `None`: telemetry was not enabled when the connection was made.
    instruments: Option<Arc<Instruments>>,
    /// `network.transport`: `pipe` (stdio, in memory) or `tcp` (HTTP).
    transport: &'static str,
}

impl Traced {
    /// `inner`, its requests traced with `instruments` as coming over
    /// `transport`.
    pub(crate) fn new(
        inner: Connection,
        instruments: Option<Arc<Instruments>>,
        transport: &'static str,
    ) -> Self {
        Self {
            inner,
            instruments,
            transport,
        }
    }

    /// The operation of a request, when telemetry is enabled.
    fn start(
        &self,
        method: &'static str,
        named: Named<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Operation> {
        let instruments = self.instruments.as_deref()?;
        Some(server::start(
            instruments,
            method,
            named,
            context,
            self.transport,
        ))
    }
}

/// The future of a request's answer, boxed: the traced future holds it by
/// pointer, so that moving it (rmcp moves each request's future into a task
/// of its own) copies a few words, not the handler's whole state.
type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T, McpError>> + Send + 'a>>;

/// `answer` run in `operation`'s context, which then ends with its outcome:
/// `cancelled` when the client cancelled the request meanwhile, else what
/// `tool_error` finds in it (a failed tool call) or its JSON-RPC error.
async fn run<T>(
    operation: Operation,
    cancelled: CancellationToken,
    answer: Answer<'_, T>,
    tool_error: for<'r> fn(&'r T) -> Option<Option<&'r str>>,
) -> Result<T, McpError> {
    let result = answer.with_context(operation.context().clone()).await;
    match cancelled.is_cancelled() {
        true => operation.end(Outcome::Cancelled),
        false => operation.end(server::outcome(&result, tool_error)),
    }
    result
}

/// `answer`, in `operation`'s span when there is one (see [`run`]), else
/// as it is.
fn traced<'a, T: Send + 'a>(
    operation: Option<Operation>,
    cancelled: CancellationToken,
    answer: impl Future<Output = Result<T, McpError>> + Send + 'a,
    tool_error: for<'r> fn(&'r T) -> Option<Option<&'r str>>,
) -> impl Future<Output = Result<T, McpError>> + Send + 'a {
    match operation {
        None => Either::Left(answer),
        Some(operation) => Either::Right(run(operation, cancelled, Box::pin(answer), tool_error)),
    }
}

/// Answers that are never a failed tool call.
fn no_tool_error<T>(_: &T) -> Option<Option<&str>> {
    None
}

/// The connection inside (its session, for the transports that watch it).
impl std::ops::Deref for Traced {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.inner
    }
}

/// Request methods forwarded inside their span: `method(params) -> result`
/// as `"mcp/method"`, naming what `named` reads of the params.
macro_rules! traced_requests {
    ($($name:ident($params:ty) -> $result:ty, $method:literal, $named:expr;)*) => {$(
        fn $name(
            &self,
            request: $params,
            context: RequestContext<RoleServer>,
        ) -> impl Future<Output = Result<$result, McpError>> + Send + '_ {
            let named: fn(&$params) -> Named<'_> = $named;
            let operation = self.start($method, named(&request), &context);
            let cancelled = context.ct.clone();
            let answer = self.inner.$name(request, context);
            traced(operation, cancelled, answer, no_tool_error)
        }
    )*};
}

/// Notification methods forwarded as they are.
macro_rules! forwarded_notifications {
    ($($name:ident($($param:ident: $ty:ty),*);)*) => {$(
        async fn $name(&self, $($param: $ty,)* context: NotificationContext<RoleServer>) {
            self.inner.$name($($param,)* context).await
        }
    )*};
}

const NOTHING: fn(&Option<PaginatedRequestParams>) -> Named<'_> = |_| Named::Nothing;

// Logging and `resources/subscribe` are deprecated by 2026-07-28 and still
// served on 2025-11-25.
#[allow(deprecated)]
impl ServerHandler for Traced {
    traced_requests! {
        initialize(InitializeRequestParams) -> InitializeResult, "initialize", |_| Named::Nothing;
        complete(CompleteRequestParams) -> CompleteResult, "completion/complete", |_| Named::Nothing;
        set_level(SetLevelRequestParams) -> (), "logging/setLevel", |_| Named::Nothing;
        get_prompt(GetPromptRequestParams) -> GetPromptResponse, "prompts/get", |r| Named::Prompt(&r.name);
        list_prompts(Option<PaginatedRequestParams>) -> ListPromptsResult, "prompts/list", NOTHING;
        list_resources(Option<PaginatedRequestParams>) -> ListResourcesResult, "resources/list", NOTHING;
        list_resource_templates(Option<PaginatedRequestParams>) -> ListResourceTemplatesResult, "resources/templates/list", NOTHING;
        read_resource(ReadResourceRequestParams) -> ReadResourceResponse, "resources/read", |r| Named::Resource(&r.uri);
        subscribe(SubscribeRequestParams) -> (), "resources/subscribe", |r| Named::Resource(&r.uri);
        unsubscribe(UnsubscribeRequestParams) -> (), "resources/unsubscribe", |r| Named::Resource(&r.uri);
        list_tools(Option<PaginatedRequestParams>) -> ListToolsResult, "tools/list", NOTHING;
        get_task(GetTaskParams) -> GetTaskResult, "tasks/get", |_| Named::Nothing;
        update_task(UpdateTaskParams) -> (), "tasks/update", |_| Named::Nothing;
        cancel_task(CancelTaskParams) -> (), "tasks/cancel", |_| Named::Nothing;
        list_skills(Option<PaginatedRequestParams>) -> ListSkillsResult, "skills/list", NOTHING;
        get_skill(GetSkillRequestParams) -> GetSkillResult, "skills/get", |_| Named::Nothing;
        read_resource_directory(ReadResourceDirectoryRequestParams) -> ReadResourceDirectoryResult, "resources/directory/read", |r| Named::Resource(&r.uri);
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, McpError>> + Send + '_ {
        let operation = self.start("tools/call", Named::Tool(&request.name), &context);
        let cancelled = context.ct.clone();
        let answer = self.inner.call_tool(request, context);
        traced(operation, cancelled, answer, |response| match response {
            CallToolResponse::Complete(result) => server::tool_error(result),
            _ => None,
        })
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CustomResult, McpError>> + Send + '_ {
        // A method this server does not serve: its name is the caller's.
        let method = crate::telemetry::conventions::method_name(&request.method);
        let operation = self.start(method, Named::Nothing, &context);
        let cancelled = context.ct.clone();
        let answer = self.inner.on_custom_request(request, context);
        traced(operation, cancelled, answer, no_tool_error)
    }

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + Send + '_ {
        let operation = self.start("ping", Named::Nothing, &context);
        let cancelled = context.ct.clone();
        traced(
            operation,
            cancelled,
            self.inner.ping(context),
            no_tool_error,
        )
    }

    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, McpError>> + Send + '_ {
        let operation = self.start("server/discover", Named::Nothing, &context);
        let cancelled = context.ct.clone();
        let answer = self.inner.discover(context);
        traced(operation, cancelled, answer, no_tool_error)
    }

    fn listen(
        &self,
        subscription: SubscriptionContext,
    ) -> impl Future<Output = Result<(), McpError>> + Send + '_ {
        let context = subscription.request_context();
        let operation = self.start("subscriptions/listen", Named::Nothing, context);
        let cancelled = context.ct.clone();
        let answer = self.inner.listen(subscription);
        traced(operation, cancelled, answer, no_tool_error)
    }

    forwarded_notifications! {
        on_cancelled(notification: CancelledNotificationParam);
        on_progress(notification: ProgressNotificationParam);
        on_initialized();
        on_roots_list_changed();
        on_custom_notification(notification: CustomNotification);
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, McpError> {
        self.inner.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }
}
