//! A `tools/call` of an action that may run as a task (SEP-2663, the Tasks
//! extension `io.modelcontextprotocol/tasks`): whether it becomes a task,
//! and the task's run on this replica.

use rmcp::model::{
    CallToolResponse, ClientCapabilities, CreateTaskResult, JsonObject, Task, TaskPayload,
};
use rmcp::service::{RequestContext, RoleServer};

use std::sync::Arc;

use super::{NotCreated, TaskChannel, owner_key, store_unreachable};
use crate::capability::TaskSupport;
use crate::server::FusionServer;
use crate::server::dispatch::CallRequest;

/// The target of this file's logs: its module's path before it
/// moved into `tasks/`, so that log filters and readers see the same target.
const TARGET: &str = "mcp_fusion::server::task_call";

/// How a `tools/call` is answered, by its action's [`TaskSupport`] and
/// whether the request declared the tasks extension.
pub(crate) enum Answer {
    /// Run it and answer with its result.
    Direct,
    /// Create a task and answer with its `CreateTaskResult`.
    Task,
    /// `-32021`: a `Required` action called by a client that did not
    /// declare the extension.
    Refused(rmcp::ErrorData),
}

/// How a call reaching an action with `support` is answered; `context`
/// tells whether the request declared the tasks extension (in its `_meta`
/// client capabilities on 2026-07-28, at `initialize` on 2025-11-25).
pub(crate) fn answer(support: TaskSupport, context: &RequestContext<RoleServer>) -> Answer {
    let declared = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    match (support, declared) {
        (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Answer::Direct,
        (_, true) => Answer::Task,
        (_, false) => Answer::Refused(rmcp::ErrorData::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        )),
    }
}

/// Starts `request` as a task of `server`: the task is durable when this
/// returns its `CreateTaskResult`, and the call runs on in the background
/// with the task's own cancellation token. Its client link is the task
/// (with the client `capabilities` the request declared): a
/// request to the client (`CallContext::elicit`, `create_message`) becomes
/// one of the task's `inputRequests`, answered by `tasks/update`; progress
/// and log notifications are not sent (SEP-2663 "Task Status
/// Notifications"). Its `CallToolResult`, success or `<tool_error>` envelope
/// alike, becomes the task's `completed` result; an unknown tool (which
/// routing answers before, so only a tool removed meanwhile) its `failed`
/// error.
///
/// # Errors
/// None: a call refused for want of room (this caller's running tasks at
/// [`ServerBuilder::max_tasks_per_caller`](crate::server::ServerBuilder::max_tasks_per_caller),
/// or a full store) is answered with a `SERVER_BUSY` `<tool_error>`, as is
/// a `Required` one while the task store does not answer; an `Optional`
/// one then runs directly ([`Started::Direct`], a warning logged).
pub(crate) async fn start(
    server: &FusionServer,
    mut request: CallRequest,
    capabilities: Option<ClientCapabilities>,
    support: TaskSupport,
) -> Started {
    let tasks = server.tasks();
    let owner = owner_key(request.origin.principal.as_ref(), &request.origin.caller);
    let (seed, token) = match tasks.create(&request.name, &owner).await {
        Ok(created) => created,
        Err(NotCreated::Busy(error)) => {
            return Started::Answer(Box::new(
                crate::envelope::to_call_tool_result(&error).into(),
            ));
        }
        Err(NotCreated::Unavailable(err)) if support == TaskSupport::Optional => {
            tracing::warn!(
                target: TARGET,
                tool = %request.name,
                "{} runs without a task: {err}",
                request.name
            );
            return Started::Direct;
        }
        Err(NotCreated::Unavailable(err)) => {
            tracing::warn!(target: TARGET, tool = %request.name, "a task was not started: {err}");
            return Started::Answer(Box::new(
                crate::envelope::to_call_tool_result(&store_unreachable(&request.name)).into(),
            ));
        }
    };
    // A task outlives the connection that started it.
    request.origin.cancellation = token;
    request.origin.ended = None;
    request.origin.client = Some(Arc::new(TaskChannel {
        tasks: server.tasks_shared(),
        seed: seed.clone(),
        capabilities,
    }));
    tokio::spawn(run(server.clone(), request, seed.clone()));
    Started::Answer(Box::new(CallToolResponse::Task(CreateTaskResult::new(
        seed,
    ))))
}

/// Runs the task `task` of `request` to its end and records its outcome.
async fn run(server: FusionServer, request: CallRequest, task: Task) {
    let cancellation = request.origin.cancellation.clone();
    let tasks = server.tasks_shared();
    let run = Box::pin(server.dispatch(request));
    // Watching the store and holding the task's lease: they end first
    // only once the token is cancelled (which ends the run with
    // CANCELLED) or the task is terminal: the run's outcome is always
    // awaited.
    let watch = async {
        tokio::join!(
            tasks.watch(&task, &cancellation),
            tasks.hold(&task, &cancellation)
        );
    };
    let outcome = {
        tokio::pin!(watch);
        let mut run = run;
        tokio::select! {
            outcome = &mut run => outcome,
            () = &mut watch => run.await,
        }
    };
    let payload = match outcome {
        Ok(_) if cancellation.is_cancelled() => TaskPayload::Cancelled,
        Ok(reply) => TaskPayload::Completed {
            result: to_object(&reply.into_result()),
        },
        Err(unknown) => TaskPayload::Failed {
            error: to_object(&rmcp::ErrorData::invalid_params(
                unknown.message,
                Some(unknown.data),
            )),
        },
    };
    server.tasks().settle(&task, payload).await;
}

/// What [`start`] did with a call.
pub(crate) enum Started {
    /// The call's answer: its `CreateTaskResult`, or a `<tool_error>`
    /// (boxed: a response is hundreds of bytes).
    Answer(Box<CallToolResponse>),
    /// Nothing: the task store did not answer and the action may run
    /// without a task (`Optional`); run it directly.
    Direct,
}

/// `value` as a JSON object (a result or an error object serialises as one).
pub(super) fn to_object<T: serde::Serialize>(value: &T) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}
