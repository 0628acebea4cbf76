//! The fixtures of the suite's Tasks extension scenarios (`tasks-*`,
//! SEP-2663, `io.modelcontextprotocol/tasks`): a tool that never runs as a
//! task (`greet`), tools that may (`slow_compute`, `protocol_error_job`,
//! `confirm_delete`, `multi_input`) and one that must (`failing_job`).
//!
//! A failure is the `<tool_error>` envelope as in a direct call: a task's
//! `result` with `isError: true`, status `completed` — `protocol_error_job`'s
//! panic too (an `INTERNAL_ERROR` envelope).

use std::time::Duration;

use mcp_fusion::model::{ElicitResult, ElicitationSchema};
use mcp_fusion::{Action, CallContext, ErrorCode, NoArgs, ServerBuilder, TaskSupport, ToolError};
use serde_json::{Value, json};

/// `greet`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

async fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!("Hello, {}!", args.name))
}

/// `slow_compute`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SlowComputeArgs {
    /// How long to work, in seconds (0 to 3600).
    #[schemars(range(min = 0, max = 3600))]
    seconds: f64,
    /// A name for this computation, repeated in the result.
    #[serde(default)]
    label: Option<String>,
}

async fn slow_compute(args: SlowComputeArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs_f64(args.seconds.clamp(0.0, 3600.0))).await;
    Ok(format!(
        "Computed {} after {} s.",
        args.label.as_deref().unwrap_or("the result"),
        args.seconds
    ))
}

async fn failing_job(_args: NoArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new(
        ErrorCode::Conflict,
        "failing_job fails on every call, by design.",
    )
    .suggest("Do not call failing_job again: it always fails."))
}

async fn protocol_error_job(_args: NoArgs) -> Result<String, ToolError> {
    panic!("protocol_error_job panics on every call, by design");
}

fn schema(value: Value) -> Result<ElicitationSchema, ToolError> {
    serde_json::from_value(value).map_err(ToolError::internal)
}

fn accepted(result: &ElicitResult, field: &str) -> Option<Value> {
    let accepted = serde_json::to_value(&result.action).ok()? == json!("accept");
    accepted
        .then(|| result.content.as_ref()?.get(field).cloned())
        .flatten()
}

/// `confirm_delete`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ConfirmDeleteArgs {
    /// The file to delete.
    filename: String,
}

async fn confirm_delete(ctx: CallContext, args: ConfirmDeleteArgs) -> Result<String, ToolError> {
    let requested = schema(json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "description": "Delete the file?"}},
        "required": ["confirm"]
    }))?;
    let result = ctx
        .elicit(format!("Delete {}?", args.filename), requested)
        .await?;
    Ok(match accepted(&result, "confirm") {
        Some(Value::Bool(true)) => format!("Deleted {}.", args.filename),
        _ => format!("Kept {}.", args.filename),
    })
}

async fn multi_input(ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
    let name = schema(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"]
    }))?;
    let confirm = schema(json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "description": "Go on?"}},
        "required": ["confirm"]
    }))?;
    let (name, confirm) = tokio::join!(
        ctx.elicit("What is your name?", name),
        ctx.elicit("Go on?", confirm)
    );
    let (name, confirm) = (name?, confirm?);
    Ok(format!(
        "name={}, confirm={}",
        accepted(&name, "name").unwrap_or(Value::Null),
        accepted(&confirm, "confirm").unwrap_or(Value::Null)
    ))
}

/// Adds the tasks fixtures to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(Action::new("greet", greet).description("Greets by name; never a task."))
        .tool(
            Action::new("slow_compute", slow_compute)
                .description("Works for `seconds` seconds, then answers; a task when the client supports tasks.")
                .task_support(TaskSupport::Optional),
        )
        .tool(
            Action::new("failing_job", failing_job)
                .description("Fails after a second with a <tool_error> envelope; always a task.")
                .task_support(TaskSupport::Required),
        )
        .tool(
            Action::new("protocol_error_job", protocol_error_job)
                .description("Panics (an INTERNAL_ERROR envelope); a task when the client supports tasks.")
                .task_support(TaskSupport::Optional),
        )
        .tool(
            Action::new("confirm_delete", confirm_delete)
                .description("Asks the client to confirm deleting a file; a task when the client supports tasks.")
                .task_support(TaskSupport::Optional),
        )
        .tool(
            Action::new("multi_input", multi_input)
                .description("Asks the client two questions at once; a task when the client supports tasks.")
                .task_support(TaskSupport::Optional),
        )
}
