//! The fixtures of the suite's `input-required-result-*` scenarios (MCP
//! 2026-07-28 "Multi Round-Trip Requests", SEP-2322): tools and a prompt
//! that ask the client for elicitation, sampling and roots. Each asks through
//! `CallContext`, as on 2025-11-25; over 2026-07-28 mcp-fusion answers with
//! the input-required result, signs the `requestState`, and runs the handler
//! again on the client's retry. The keys are those the scenarios name
//! (`user_name`, `confirm`, `step1`, …).

// Sampling and roots are MCP features that SEP-2577 deprecates for
// 2026-07-28 (rmcp marks their types deprecated); the suite tests them.
#![allow(deprecated)]

use mcp_fusion::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitResult, ElicitationAction,
    ElicitationSchema, ListRootsResult, SamplingMessage,
};
use mcp_fusion::{Action, CallContext, ErrorCode, Prompt, ServerBuilder, ToolError};
use serde_json::json;

/// An elicitation schema of one required property `name` of `kind`.
fn one_field(name: &str, kind: &str) -> Result<ElicitationSchema, ToolError> {
    serde_json::from_value(json!({
        "type": "object",
        "properties": { name: { "type": kind } },
        "required": [name]
    }))
    .map_err(ToolError::internal)
}

/// The accepted value of `field` as text, or what the user did instead.
fn answered(result: &ElicitResult, field: &str) -> String {
    if result.action != ElicitationAction::Accept {
        return String::from("(no answer)");
    }
    match result.content.as_ref().and_then(|c| c.get(field)) {
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::from("(no answer)"),
    }
}

/// The text of a sampling answer.
fn sampled(result: &CreateMessageResult) -> String {
    result
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

fn roots_text(result: &ListRootsResult) -> String {
    let uris: Vec<&str> = result.roots.iter().map(|r| r.uri.as_str()).collect();
    format!("{} root(s): {}", uris.len(), uris.join(", "))
}

fn question(text: &str, max_tokens: u32) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

async fn elicitation(ctx: CallContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask("user_name")
        .elicit("What is your name?", one_field("name", "string")?)
        .await?;
    Ok(format!("Hello, {}!", answered(&answer, "name")))
}

async fn sampling(ctx: CallContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask("capital_question")
        .create_message(question("What is the capital of France?", 100))
        .await?;
    Ok(format!("LLM response: {}", sampled(&answer)))
}

async fn list_roots(ctx: CallContext) -> Result<String, ToolError> {
    let roots = ctx.ask("client_roots").roots().await?;
    Ok(format!("The client has {}", roots_text(&roots)))
}

async fn request_state(ctx: CallContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask("confirm")
        .elicit("Please confirm", one_field("ok", "boolean")?)
        .await?;
    // This run saw the answer: the server opened and checked the signed
    // requestState of the round before (a refused one never reaches here).
    Ok(format!(
        "state-ok: requestState validated; ok = {}",
        answered(&answer, "ok")
    ))
}

async fn multiple_inputs(ctx: CallContext) -> Result<String, ToolError> {
    // Asked together: one round with three input requests.
    let (name, greeting, roots) = tokio::join!(
        ctx.ask("user_name")
            .elicit("What is your name?", one_field("name", "string")?),
        ctx.ask("greeting")
            .create_message(question("Generate a greeting", 50)),
        ctx.ask("client_roots").roots(),
    );
    Ok(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        answered(&name?, "name"),
        sampled(&greeting?),
        roots?.roots.len()
    ))
}

async fn multi_round(ctx: CallContext) -> Result<String, ToolError> {
    // Asked one after the other: two rounds.
    let name = ctx
        .ask("step1")
        .elicit("Step 1: What is your name?", one_field("name", "string")?)
        .await?;
    let color = ctx
        .ask("step2")
        .elicit(
            "Step 2: What is your favorite color?",
            one_field("color", "string")?,
        )
        .await?;
    Ok(format!(
        "{}'s favorite color is {}.",
        answered(&name, "name"),
        answered(&color, "color")
    ))
}

async fn tampered_state(ctx: CallContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask("confirm")
        .elicit("Please confirm", one_field("ok", "boolean")?)
        .await?;
    Ok(format!(
        "Confirmed with a requestState whose signature checked: ok = {}",
        answered(&answer, "ok")
    ))
}

/// Asks for what the client declared, in the same round: an elicitation
/// and a sampling; a request the client cannot serve fails at once with
/// `CLIENT_CAPABILITY_MISSING` and is never sent.
async fn capabilities(ctx: CallContext) -> Result<String, ToolError> {
    let (elicited, sampled_answer) = tokio::join!(
        ctx.ask("elicit_input")
            .elicit("Elicitation input", one_field("value", "string")?),
        ctx.ask("sample_input")
            .create_message(question("Sample request", 50)),
    );
    let mut received = Vec::new();
    for (key, missing) in [
        ("elicit_input", elicited.as_ref().err()),
        ("sample_input", sampled_answer.as_ref().err()),
    ] {
        match missing {
            None => received.push(key),
            Some(error) if error.code == ErrorCode::ClientCapabilityMissing => {}
            Some(error) => return Err(error.clone()),
        }
    }
    if received.is_empty() {
        return Ok(String::from("No supported capabilities declared"));
    }
    Ok(format!("capabilities-ok: received {}", received.join(",")))
}

async fn prompt(ctx: CallContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask("user_context")
        .elicit(
            "What context should the prompt use?",
            one_field("context", "string")?,
        )
        .await?;
    Ok(format!(
        "Prompt with context: {}",
        answered(&answer, "context")
    ))
}

/// Adds every input-required fixture to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Action::new("test_input_required_result_elicitation", elicitation)
                .description("MRTR: asks the user's name (elicitation)"),
        )
        .tool(
            Action::new("test_input_required_result_sampling", sampling)
                .description("MRTR: asks the client's model a question (sampling)"),
        )
        .tool(
            Action::new("test_input_required_result_list_roots", list_roots)
                .description("MRTR: asks the client's roots (roots/list)"),
        )
        .tool(
            Action::new("test_input_required_result_request_state", request_state)
                .description("MRTR: asks for a confirmation, with a signed requestState"),
        )
        .tool(
            Action::new(
                "test_input_required_result_multiple_inputs",
                multiple_inputs,
            )
            .description("MRTR: elicitation, sampling and roots in one round"),
        )
        .tool(
            Action::new("test_input_required_result_multi_round", multi_round)
                .description("MRTR: two elicitations, one round each"),
        )
        .tool(
            Action::new("test_input_required_result_tampered_state", tampered_state)
                .description("MRTR: HMAC-signed requestState; an altered one is refused"),
        )
        .tool(
            Action::new("test_input_required_result_capabilities", capabilities)
                .description("MRTR: asks only for what the client declared"),
        )
        .prompt(
            Prompt::new("test_input_required_result_prompt", prompt)
                .description("MRTR: a prompt that asks the user for its context"),
        )
}
