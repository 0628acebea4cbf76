//! The suite's fixture prompts (`prompts-*` and `completion-complete`).

use mcp_fusion::handler::PromptMessages;
use mcp_fusion::model::{ContentBlock, PromptMessage, ResourceContents, Role};
use mcp_fusion::{Prompt, ServerBuilder, ToolError};

use crate::content::RED_PIXEL_PNG;

async fn simple() -> Result<&'static str, ToolError> {
    Ok("This is a simple prompt for testing.")
}

/// `test_prompt_with_arguments`' arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TwoArgs {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

async fn with_arguments(args: TwoArgs) -> Result<String, ToolError> {
    Ok(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        args.arg1, args.arg2
    ))
}

/// `test_prompt_with_embedded_resource`'s argument.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmbeddedArgs {
    /// URI of the resource to embed
    resource_uri: String,
}

async fn with_embedded_resource(args: EmbeddedArgs) -> Result<PromptMessages, ToolError> {
    Ok(PromptMessages(vec![
        PromptMessage::new(
            Role::User,
            ContentBlock::resource(
                ResourceContents::text("Embedded resource content for testing.", args.resource_uri)
                    .with_mime_type("text/plain"),
            ),
        ),
        PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
    ]))
}

async fn with_image() -> Result<PromptMessages, ToolError> {
    Ok(PromptMessages(vec![
        PromptMessage::new(Role::User, ContentBlock::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::new_text(Role::User, "Please analyze the image above."),
    ]))
}

/// Adds every fixture prompt to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .prompt(
            Prompt::new("test_simple_prompt", simple)
                .description("A simple prompt without arguments"),
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments", with_arguments)
                .description("A prompt with required arguments")
                .complete_values("arg1", ["paris", "park", "party", "test", "testing"])
                .complete_values("arg2", ["world", "wonder"]),
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource", with_embedded_resource)
                .description("A prompt that includes an embedded resource"),
        )
        .prompt(
            Prompt::new("test_prompt_with_image", with_image)
                .description("A prompt that includes image content"),
        )
}
