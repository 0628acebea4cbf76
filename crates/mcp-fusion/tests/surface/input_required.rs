//! What a handler asks of the client over the stateless MCP 2026-07-28
//! protocol ("Multi Round-Trip Requests", SEP-2322), as raw JSON-RPC over
//! Streamable HTTP: the input-required result and its signed
//! `requestState`, the retry that completes the call, several inputs in one
//! round and several rounds, a tampered, replayed or foreign state refused,
//! and answers checked before the handler sees them.

// Sampling and roots are features SEP-2577 deprecates; rmcp marks them.
#![allow(deprecated)]

use mcp_fusion::model::{CreateMessageRequestParams, ElicitationSchema, SamplingMessage};
use mcp_fusion::{Action, CallContext, FusionServer, Prompt, Resource, ToolError};
use serde_json::{Value, json};

use crate::connection::HttpServed;

/// A 32-byte signing key (the minimum).
const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";

fn schema(field: &str) -> Result<ElicitationSchema, ToolError> {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field]
    }))
    .map_err(ToolError::internal)
}

fn answer_of(result: &mcp_fusion::model::ElicitResult, field: &str) -> String {
    result
        .content
        .as_ref()
        .and_then(|c| c.get(field))
        .and_then(Value::as_str)
        .unwrap_or("-")
        .to_owned()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct Greet {
    greeting: String,
}

pub(crate) async fn greet(ctx: CallContext, args: Greet) -> Result<String, ToolError> {
    let name = ctx.elicit("What is your name?", schema("name")?).await?;
    Ok(format!("{}, {}!", args.greeting, answer_of(&name, "name")))
}

async fn two_rounds(ctx: CallContext) -> Result<String, ToolError> {
    let name = ctx.elicit("Your name?", schema("name")?).await?;
    let color = ctx.elicit("Your favorite color?", schema("color")?).await?;
    Ok(format!(
        "{} likes {}",
        answer_of(&name, "name"),
        answer_of(&color, "color")
    ))
}

async fn together(ctx: CallContext) -> Result<String, ToolError> {
    let (city, roots, model) = futures::join!(
        ctx.ask("city").elicit("Which city?", schema("city")?),
        ctx.roots(),
        ctx.create_message(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("Say hi.")],
            10
        )),
    );
    let model = model?;
    Ok(format!(
        "{} / {} root(s) / {}",
        answer_of(&city?, "city"),
        roots?.roots.len(),
        model.model
    ))
}

async fn prompt(ctx: CallContext) -> Result<String, ToolError> {
    let topic = ctx
        .ask("topic")
        .elicit("Which topic?", schema("topic")?)
        .await?;
    Ok(format!("Write about {}.", answer_of(&topic, "topic")))
}

async fn secret(ctx: CallContext) -> Result<String, ToolError> {
    let code = ctx.elicit("The access code?", schema("code")?).await?;
    Ok(format!(
        "the vault opened with {}",
        answer_of(&code, "code")
    ))
}

fn server_with(key: Option<&[u8]>) -> FusionServer {
    let mut builder = FusionServer::builder("asking", "1.0.0")
        .tool(Action::new("greet", greet))
        .tool(Action::new("two_rounds", two_rounds))
        .tool(Action::new("together", together))
        .prompt(Prompt::new("topic", prompt))
        .resource(Resource::new("vault://secret", "secret", secret));
    if let Some(key) = key {
        builder = builder.signing_key(key);
    }
    builder.build().unwrap()
}

/// The capabilities a test client declares unless told otherwise.
fn every_capability() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// Posts a 2026-07-28 `method` request with `params` (and the `_meta` the
/// protocol requires, declaring `capabilities`); its JSON-RPC response.
async fn post_with(url: &str, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .json(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
        .send()
        .await
        .unwrap();
    let body = response.text().await.unwrap();
    // A JSON body, or an SSE stream whose `data:` line holds the response.
    let json = body
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"))
}

pub(crate) async fn post(url: &str, method: &str, params: Value) -> Value {
    post_with(url, method, params, every_capability()).await
}

pub(crate) fn state_of(response: &Value) -> String {
    response["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState in {response}"))
        .to_owned()
}

pub(crate) fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

pub(crate) fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

/// The `-32602` of a refused `requestState` of a `tools/call`.
pub(crate) fn refused_state() -> Value {
    json!({
        "code": -32602,
        "message": "The requestState of this tools/call request was refused: this server did not issue it for this request (it was altered, or issued for another tool, prompt or resource, other arguments or another caller). Send the request again without requestState and inputResponses to start over.",
        "data": {"requestState": "invalid"}
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_is_an_input_required_result_and_the_retry_completes() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hello"}}),
    )
    .await;
    let state = state_of(&first);
    // rmcp's keyed format, naming the key: "rs2.<key id>.…".
    assert!(state.starts_with("rs2.ZGVmYXVsdA."), "{state}");
    assert_eq!(
        first["result"],
        json!({
            "resultType": "input_required",
            "inputRequests": {
                "input-1": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "What is your name?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"]
                        }
                    }
                }
            },
            "requestState": state
        })
    );
    let done = post(
        &served.url,
        "tools/call",
        json!({
            "name": "greet",
            "arguments": {"greeting": "Hello"},
            "inputResponses": {"input-1": accept(json!({"name": "Ada"}))},
            "requestState": state
        }),
    )
    .await;
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(done["result"]["isError"], false);
    assert_eq!(text_of(&done), "Hello, Ada!");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_question_is_a_second_round_carrying_the_first_answer() {
    let served = HttpServed::start(&server_with(None)).await;
    let call = |extra: Value| {
        let mut params = json!({"name": "two_rounds", "arguments": {}});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        post(&served.url, "tools/call", params)
    };
    let first = call(json!({})).await;
    let keys: Vec<&String> = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["input-1"]);
    let second = call(json!({
        "inputResponses": {"input-1": accept(json!({"name": "Ada"}))},
        "requestState": state_of(&first)
    }))
    .await;
    assert_eq!(second["result"]["resultType"], "input_required");
    assert_eq!(
        second["result"]["inputRequests"]["input-2"]["params"]["message"],
        "Your favorite color?"
    );
    assert_eq!(
        second["result"]["inputRequests"].as_object().unwrap().len(),
        1
    );
    assert_ne!(state_of(&second), state_of(&first));
    // Only the new answer is sent: the first comes from the signed state.
    let third = call(json!({
        "inputResponses": {"input-2": accept(json!({"color": "teal"}))},
        "requestState": state_of(&second)
    }))
    .await;
    assert_eq!(text_of(&third), "Ada likes teal");
    // The state of round 2 cannot be answered differently for round 1: the
    // signed answer wins over a retry's.
    let overridden = call(json!({
        "inputResponses": {
            "input-1": accept(json!({"name": "Mallory"})),
            "input-2": accept(json!({"color": "red"}))
        },
        "requestState": state_of(&second)
    }))
    .await;
    assert_eq!(text_of(&overridden), "Ada likes red");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_made_together_go_out_in_one_round() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(
        &served.url,
        "tools/call",
        json!({"name": "together", "arguments": {}}),
    )
    .await;
    assert_eq!(
        first["result"]["inputRequests"],
        json!({
            "city": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Which city?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"]
                    }
                }
            },
            "input-2": {"method": "roots/list"},
            "input-3": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi."}}],
                    "maxTokens": 10
                }
            }
        })
    );
    let done = post(
        &served.url,
        "tools/call",
        json!({
            "name": "together",
            "arguments": {},
            "inputResponses": {
                "city": accept(json!({"city": "Lyon"})),
                "input-2": {"roots": [{"uri": "file:///work", "name": "work"}]},
                "input-3": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "hi"},
                    "model": "m-1",
                    "stopReason": "endTurn"
                }
            },
            "requestState": state_of(&first)
        }),
    )
    .await;
    assert_eq!(text_of(&done), "Lyon / 1 root(s) / m-1");
    // A retry that leaves one out is asked for that one only.
    let partial = post(
        &served.url,
        "tools/call",
        json!({
            "name": "together",
            "arguments": {},
            "inputResponses": {"city": accept(json!({"city": "Lyon"}))},
            "requestState": state_of(&first)
        }),
    )
    .await;
    let keys: Vec<&String> = partial["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["input-2", "input-3"]);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_state_is_refused() {
    let served = HttpServed::start(&server_with(None)).await;
    let params = json!({"name": "greet", "arguments": {"greeting": "Hi"}});
    let first = post(&served.url, "tools/call", params.clone()).await;
    let state = state_of(&first);
    // One character of the signed body changed.
    let mut tampered: Vec<char> = state.chars().collect();
    let at = state.find('.').unwrap() + 3;
    tampered[at] = if tampered[at] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    for state in [
        tampered,
        format!("{state}-TAMPERED"),
        String::from("not a state"),
    ] {
        let mut retry = params.clone();
        retry["requestState"] = json!(state);
        retry["inputResponses"] = json!({"input-1": accept(json!({"name": "Eve"}))});
        let refused = post(&served.url, "tools/call", retry).await;
        assert_eq!(refused["error"], refused_state(), "{state}");
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_replayed_into_another_request_is_refused() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}}),
    )
    .await;
    let state = state_of(&first);
    let answers = json!({"input-1": accept(json!({"name": "Eve"}))});
    // Other arguments, another tool.
    for (name, arguments) in [
        ("greet", json!({"greeting": "Bye"})),
        ("two_rounds", json!({})),
    ] {
        let refused = post(
            &served.url,
            "tools/call",
            json!({"name": name, "arguments": arguments, "inputResponses": answers, "requestState": state}),
        )
        .await;
        assert_eq!(refused["error"], refused_state(), "{name}");
    }
    // The same request with its arguments in another order is the same
    // request.
    let same = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": answers, "requestState": state}),
    )
    .await;
    assert_eq!(text_of(&same), "Hi, Eve!");
    // Another method: the prompt refuses the tool's state.
    let prompt = post(
        &served.url,
        "prompts/get",
        json!({"name": "topic", "inputResponses": {"topic": accept(json!({"topic": "x"}))}, "requestState": state}),
    )
    .await;
    assert_eq!(prompt["error"]["code"], -32602);
    assert_eq!(
        prompt["error"]["message"],
        "The requestState of this prompts/get request was refused: this server did not issue it for this request (it was altered, or issued for another tool, prompt or resource, other arguments or another caller). Send the request again without requestState and inputResponses to start over."
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_with_one_key_accept_each_others_states_and_others_do_not() {
    let one = HttpServed::start(&server_with(Some(KEY))).await;
    let other = HttpServed::start(&server_with(Some(KEY))).await;
    let stranger = HttpServed::start(&server_with(None)).await;
    let params = json!({"name": "greet", "arguments": {"greeting": "Hey"}});
    let first = post(&one.url, "tools/call", params.clone()).await;
    let mut retry = params;
    retry["requestState"] = json!(state_of(&first));
    retry["inputResponses"] = json!({"input-1": accept(json!({"name": "Bo"}))});
    let done = post(&other.url, "tools/call", retry.clone()).await;
    assert_eq!(text_of(&done), "Hey, Bo!");
    let refused = post(&stranger.url, "tools/call", retry).await;
    assert_eq!(refused["error"], refused_state());
    for served in [one, other, stranger] {
        served.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_checked_before_the_handler_sees_them() {
    let served = HttpServed::start(&server_with(None)).await;
    // Not an ElicitResult at all: a protocol error.
    let wrong_shape = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": {"input-1": 12345}}),
    )
    .await;
    assert_eq!(wrong_shape["error"]["code"], -32602);
    let message = wrong_shape["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("inputResponses[\"input-1\"] is not an ElicitResult: "),
        "{message}"
    );
    assert!(
        message.ends_with(". Answer each input request with the result its method returns (elicitation/create: an ElicitResult, sampling/createMessage: a CreateMessageResult, roots/list: a ListRootsResult)."),
        "{message}"
    );
    // An ElicitResult whose content breaks the requested schema: the
    // handler gets CLIENT_REQUEST_FAILED, as over 2025-11-25.
    let wrong_content = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": {"input-1": accept(json!({"name": 5}))}}),
    )
    .await;
    assert_eq!(wrong_content["result"]["isError"], true);
    let meta = &wrong_content["result"]["_meta"]["mcp-fusion/error"];
    assert_eq!(meta["code"], "CLIENT_REQUEST_FAILED");
    assert_eq!(
        meta["message"],
        "The elicitation/create request this tool sent to the client failed: its answer does not match the requested schema (name: Wrong type. You sent: 5. Expected a string.)."
    );
    // An accept without content misses the schema's required fields.
    let no_content = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": {"input-1": {"action": "accept"}}}),
    )
    .await;
    assert_eq!(no_content["result"]["isError"], true);
    assert_eq!(
        no_content["result"]["_meta"]["mcp-fusion/error"]["message"],
        "The elicitation/create request this tool sent to the client failed: its answer does not match the requested schema (name: Missing required field. You sent: (missing). Expected a string.)."
    );
    // A missing answer (a key never asked) is asked for again.
    let missing = post(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}, "inputResponses": {"wrong_key": accept(json!({"name": "x"}))}}),
    )
    .await;
    assert_eq!(missing["result"]["resultType"], "input_required");
    assert_eq!(
        missing["result"]["inputRequests"]["input-1"]["method"],
        "elicitation/create"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_too_long_to_carry_are_refused() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(
        &served.url,
        "tools/call",
        json!({"name": "two_rounds", "arguments": {}}),
    )
    .await;
    // 800 000 characters of answer: over 1 MiB once signed and encoded.
    let long = "A".repeat(800_000);
    let refused = post(
        &served.url,
        "tools/call",
        json!({
            "name": "two_rounds",
            "arguments": {},
            "inputResponses": {"input-1": accept(json!({"name": long}))},
            "requestState": state_of(&first)
        }),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(
        refused["error"]["data"],
        json!({"requestState": "too_long", "maxChars": 1_048_576})
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("The answers given so far to this tools/call request make a requestState of ")
            && message.ends_with(" characters, over the 1048576 this server issues (a client must be able to send it back). Answer with less, or send the request again without requestState and inputResponses to start over."),
        "{message}"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undeclared_capability_is_never_requested() {
    let served = HttpServed::start(&server_with(None)).await;
    let response = post_with(
        &served.url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}}),
        json!({"sampling": {}}),
    )
    .await;
    assert_eq!(response["result"]["isError"], true);
    let meta = &response["result"]["_meta"]["mcp-fusion/error"];
    assert_eq!(meta["code"], "CLIENT_CAPABILITY_MISSING");
    assert_eq!(
        meta["message"],
        "This tool needs to send the client an elicitation/create request, and the client did not declare the elicitation capability."
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_asks_the_same_way() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(&served.url, "prompts/get", json!({"name": "topic"})).await;
    assert_eq!(first["result"]["resultType"], "input_required");
    assert_eq!(
        first["result"]["inputRequests"]["topic"]["params"]["message"],
        "Which topic?"
    );
    let done = post(
        &served.url,
        "prompts/get",
        json!({
            "name": "topic",
            "inputResponses": {"topic": accept(json!({"topic": "rust"}))},
            "requestState": state_of(&first)
        }),
    )
    .await;
    assert_eq!(
        done["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Write about rust."}}])
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_read_asks_the_same_way() {
    let served = HttpServed::start(&server_with(None)).await;
    let first = post(
        &served.url,
        "resources/read",
        json!({"uri": "vault://secret"}),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required");
    assert_eq!(
        first["result"]["inputRequests"]["input-1"]["params"]["message"],
        "The access code?"
    );
    let done = post(
        &served.url,
        "resources/read",
        json!({
            "uri": "vault://secret",
            "inputResponses": {"input-1": accept(json!({"code": "1234"}))},
            "requestState": state_of(&first)
        }),
    )
    .await;
    assert_eq!(
        done["result"]["contents"][0]["text"],
        "the vault opened with 1234"
    );
    // Its state names the resource: another URI refuses it.
    let other = post(
        &served.url,
        "resources/read",
        json!({
            "uri": "vault://other",
            "requestState": state_of(&first)
        }),
    )
    .await;
    assert_eq!(other["error"]["code"], -32602);
    assert_eq!(
        other["error"]["data"],
        json!({"requestState": "invalid"}),
        "{other}"
    );
    served.stop().await;
}
