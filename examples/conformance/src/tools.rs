//! The suite's fixture tools (`tools-call-*`, `elicitation-*` scenarios).

// Sampling is an MCP 2025-11-25 feature that SEP-2577 deprecates for
// 2026-07-28 (rmcp marks its types deprecated); the suite tests it.
#![allow(deprecated)]

use std::time::Duration;

use mcp_fusion::handler::LogLevel;
use mcp_fusion::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ElicitResult, ElicitationSchema,
    ResourceContents, SamplingMessage,
};
use mcp_fusion::{Action, CallContext, ServerBuilder, ToolError, ToolOutput};
use serde_json::{Value, json};

use crate::content::{RED_PIXEL_PNG, SILENT_WAV};

/// The pause between two log or progress notifications.
const STEP: Duration = Duration::from_millis(50);

fn contents(blocks: Vec<ContentBlock>) -> ToolOutput {
    ToolOutput::result(CallToolResult::success(blocks))
}

async fn simple_text() -> Result<&'static str, ToolError> {
    Ok("This is a simple text response for testing.")
}

async fn image_content() -> Result<ToolOutput, ToolError> {
    Ok(contents(vec![ContentBlock::image(
        RED_PIXEL_PNG,
        "image/png",
    )]))
}

async fn audio_content() -> Result<ToolOutput, ToolError> {
    Ok(contents(vec![ContentBlock::audio(SILENT_WAV, "audio/wav")]))
}

async fn embedded_resource() -> Result<ToolOutput, ToolError> {
    Ok(contents(vec![ContentBlock::resource(
        ResourceContents::text(
            "This is an embedded resource content.",
            "test://embedded-resource",
        )
        .with_mime_type("text/plain"),
    )]))
}

async fn multiple_content_types() -> Result<ToolOutput, ToolError> {
    Ok(contents(vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(RED_PIXEL_PNG, "image/png"),
        ContentBlock::resource(
            ResourceContents::text(
                r#"{"test":"data","value":123}"#,
                "test://mixed-content-resource",
            )
            .with_mime_type("application/json"),
        ),
    ]))
}

async fn with_logging(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(STEP).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(STEP).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    Ok("Tool with logging executed successfully")
}

async fn with_progress(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.progress(0.0, Some(100.0), None).await;
    tokio::time::sleep(STEP).await;
    ctx.progress(50.0, Some(100.0), None).await;
    tokio::time::sleep(STEP).await;
    ctx.progress(100.0, Some(100.0), None).await;
    Ok("Tool with progress executed successfully")
}

async fn error_handling() -> Result<&'static str, ToolError> {
    Err(ToolError::new(
        "INTENTIONAL_ERROR",
        "This tool intentionally returns an error for testing",
    )
    .suggest("Do not call test_error_handling again: it fails on every call, by design."))
}

/// `test_sampling`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the LLM.
    prompt: String,
}

async fn sampling(ctx: CallContext, args: SamplingArgs) -> Result<String, ToolError> {
    let params =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text(args.prompt)], 100);
    let result = ctx.create_message(params).await?;
    let text = result
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    Ok(format!("LLM response: {text}"))
}

/// `test_elicitation`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

fn schema(value: Value) -> Result<ElicitationSchema, ToolError> {
    serde_json::from_value(value).map_err(ToolError::internal)
}

fn action_name(result: &ElicitResult) -> String {
    serde_json::to_value(&result.action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn content_text(result: &ElicitResult) -> String {
    result
        .content
        .as_ref()
        .map_or_else(|| String::from("{}"), Value::to_string)
}

async fn elicitation(ctx: CallContext, args: ElicitationArgs) -> Result<String, ToolError> {
    let requested = schema(json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    }))?;
    let result = ctx.elicit(args.message, requested).await?;
    Ok(format!(
        "User response: action={}, content={}",
        action_name(&result),
        content_text(&result)
    ))
}

async fn elicitation_defaults(ctx: CallContext) -> Result<String, ToolError> {
    let requested = schema(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }
    }))?;
    let result = ctx
        .elicit(
            "Please review and update the form fields with defaults",
            requested,
        )
        .await?;
    Ok(format!(
        "Elicitation completed: action={}, content={}",
        action_name(&result),
        content_text(&result)
    ))
}

async fn elicitation_enums(ctx: CallContext) -> Result<String, ToolError> {
    let requested = schema(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        }
    }))?;
    let result = ctx
        .elicit("Please select options from the enum fields", requested)
        .await?;
    Ok(format!(
        "Elicitation completed: action={}, content={}",
        action_name(&result),
        content_text(&result)
    ))
}

/// Adds every fixture tool to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Action::new("test_simple_text", simple_text)
                .description("Tests simple text content response")
                .read_only(),
        )
        .tool(
            Action::new("test_image_content", image_content)
                .description("Tests image content response")
                .read_only(),
        )
        .tool(
            Action::new("test_audio_content", audio_content)
                .description("Tests audio content response")
                .read_only(),
        )
        .tool(
            Action::new("test_embedded_resource", embedded_resource)
                .description("Tests embedded resource content response")
                .read_only(),
        )
        .tool(
            Action::new("test_multiple_content_types", multiple_content_types)
                .description("Tests response with multiple content types (text, image, resource)")
                .read_only(),
        )
        .tool(
            Action::new("test_tool_with_logging", with_logging)
                .description("Tests tool that emits log messages during execution"),
        )
        .tool(
            Action::new("test_tool_with_progress", with_progress)
                .description("Tests tool that reports progress notifications"),
        )
        .tool(
            Action::new("test_error_handling", error_handling).description(
                "Tests error response handling: always fails with a <tool_error> envelope",
            ),
        )
        .tool(
            Action::new("test_sampling", sampling)
                .description("Tests server-initiated sampling (LLM completion request)"),
        )
        .tool(
            Action::new("test_elicitation", elicitation)
                .description("Tests server-initiated elicitation (user input request)"),
        )
        .tool(
            Action::new("test_elicitation_sep1034_defaults", elicitation_defaults)
                .description("Tests elicitation with default values per SEP-1034"),
        )
        .tool(
            Action::new("test_elicitation_sep1330_enums", elicitation_enums)
                .description("Tests elicitation with enum schema improvements per SEP-1330"),
        )
}
