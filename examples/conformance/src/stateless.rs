//! The diagnostic fixtures of the suite's `server-stateless` scenario (MCP
//! 2026-07-28, SEP-2575): a tool that requires the client's `sampling`
//! capability (`-32021` without it), a tool that logs (nothing reaches a request that
//! names no `_meta` log level), one that streams a progress notification
//! and its result on the request's own stream, and the two hooks that change
//! the server's tool and prompt lists so that open `subscriptions/listen`
//! streams are told.

// Sampling is an MCP 2025-11-25 feature that SEP-2577 deprecates for
// 2026-07-28 (rmcp marks its types deprecated); the suite requires it here.
#![allow(deprecated)]

use std::sync::{Arc, OnceLock};

use mcp_fusion::handler::LogLevel;
use mcp_fusion::model::ClientCapabilities;
use mcp_fusion::server::WeakFusionServer;
use mcp_fusion::{Action, CallContext, FusionServer, Prompt, ServerBuilder, State, ToolError};

/// The tool `test_trigger_tool_change` adds and removes in turn.
pub const DYNAMIC_TOOL: &str = "test_dynamic_tool";
/// The prompt `test_trigger_prompt_change` adds and removes in turn.
pub const DYNAMIC_PROMPT: &str = "test_dynamic_prompt";

/// The built server, for the hooks that change its lists (a state of the
/// server, held weakly: a state holding the server would keep it alive).
#[derive(Clone, Default)]
struct Server(Arc<OnceLock<WeakFusionServer>>);

impl Server {
    fn get(&self) -> Result<FusionServer, ToolError> {
        self.0
            .get()
            .and_then(WeakFusionServer::upgrade)
            .ok_or_else(|| ToolError::internal("the server is shutting down"))
    }
}

async fn logging_tool(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.log(LogLevel::Info, "Diagnostic trace logging activated")
        .await;
    Ok("Logging evaluated")
}

async fn streaming(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.progress(50.0, Some(100.0), None).await;
    Ok("Streaming complete")
}

async fn missing_capability() -> Result<&'static str, ToolError> {
    Ok("Success")
}

async fn dynamic_tool() -> Result<&'static str, ToolError> {
    Ok("This tool comes and goes with test_trigger_tool_change.")
}

async fn dynamic_prompt() -> Result<&'static str, ToolError> {
    Ok("This prompt comes and goes with test_trigger_prompt_change.")
}

/// Adds [`DYNAMIC_TOOL`] when the server lacks it, else removes it: either
/// way the tool list changes and listeners hear of it.
async fn trigger_tool_change(server: State<Server>) -> Result<String, ToolError> {
    let server = server.0.get()?;
    if server.remove_tool(DYNAMIC_TOOL).await {
        return Ok(format!("Mutation triggered: removed {DYNAMIC_TOOL}"));
    }
    server
        .add_tool(
            Action::new(DYNAMIC_TOOL, dynamic_tool)
                .description("Added by test_trigger_tool_change"),
        )
        .await
        .map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(format!("Mutation triggered: added {DYNAMIC_TOOL}"))
}

/// Adds [`DYNAMIC_PROMPT`] when the server lacks it, else removes it.
async fn trigger_prompt_change(server: State<Server>) -> Result<String, ToolError> {
    let server = server.0.get()?;
    if server.remove_prompt(DYNAMIC_PROMPT).await {
        return Ok(format!("Mutation triggered: removed {DYNAMIC_PROMPT}"));
    }
    server
        .add_prompt(
            Prompt::new(DYNAMIC_PROMPT, dynamic_prompt)
                .description("Added by test_trigger_prompt_change"),
        )
        .await
        .map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(format!("Mutation triggered: added {DYNAMIC_PROMPT}"))
}

/// Adds the `server-stateless` fixtures to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    let server = Server::default();
    let slot = Arc::clone(&server.0);
    builder
        .state(server)
        .on_built(move |built| {
            let _ = slot.set(built.downgrade());
        })
        .tool(
            Action::new("test_missing_capability", missing_capability)
                .description("Test tool requiring sampling: -32021 for a client that did not declare it")
                .requires_client(ClientCapabilities::builder().enable_sampling().build()),
        )
        .tool(
            Action::new("test_logging_tool", logging_tool)
                .description("Diagnostic logging validator tool: logs at info level"),
        )
        .tool(
            Action::new("test_streaming_elicitation", streaming).description(
                "Diagnostic tool validating response progress streams: a progress notification, then its result",
            ),
        )
        .tool(
            Action::new("test_trigger_tool_change", trigger_tool_change).description(
                "Adds or removes test_dynamic_tool: notifications/tools/list_changed to listeners",
            ),
        )
        .tool(
            Action::new("test_trigger_prompt_change", trigger_prompt_change).description(
                "Adds or removes test_dynamic_prompt: notifications/prompts/list_changed to listeners",
            ),
        )
}
