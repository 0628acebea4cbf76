//! [`Parameters`] and `ToolError` in a real rmcp server: a hand-written
//! `ServerHandler` over rmcp's `ToolRouter` (what `#[tool_handler]`
//! generates), served by rmcp over an in-memory pipe and spoken to in
//! JSON-RPC lines.

use rmcp::handler::server::common::schema_for_input;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::{IntoCallToolResult, ToolCallContext};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{Parameters, answer_validation};

mod guards;
mod presented;
use crate::envelope::{attach_warning, to_call_tool_result, validation_result};
use crate::error::{FieldError, ToolError, ValidationFailure};

/// The bench example's arguments: three checks.
#[derive(Debug, Deserialize, JsonSchema)]
struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
    /// Who the invoice is sent to.
    #[schemars(email)]
    email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    amount: u64,
}

/// A type whose `Deserialize` refuses what its schema accepts.
#[derive(Debug, JsonSchema)]
struct Looser {
    #[allow(dead_code)]
    name: String,
}

impl<'de> Deserialize<'de> for Looser {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom("never"))
    }
}

struct Billing {
    router: ToolRouter<Billing>,
}

fn get_invoice(_: &Billing, Parameters(args): Parameters<GetInvoice>) -> Result<String, ToolError> {
    if args.id == "inv_1" {
        return Ok(format!("{} {} {}", args.id, args.email, args.amount));
    }
    Err(ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["list_invoices"])
        .detail("requestedId", &args.id))
}

fn looser(_: &Billing, Parameters(_): Parameters<Looser>) -> Result<String, ToolError> {
    Ok(String::from("unreachable"))
}

fn routes() -> ToolRouter<Billing> {
    let tool = |name: &'static str, schema| Tool::new(name, "A tool.", schema);
    ToolRouter::new()
        .with_route(ToolRoute::new(
            tool(
                "get_invoice",
                schema_for_input::<Parameters<GetInvoice>>().expect("an object schema"),
            ),
            get_invoice,
        ))
        .with_route(ToolRoute::new(
            tool(
                "looser",
                schema_for_input::<Parameters<Looser>>().expect("an object schema"),
            ),
            looser,
        ))
}

impl ServerHandler for Billing {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.router
            .call(ToolCallContext::new(self, request, context))
            .await
    }
}

/// The answer (`result` or `error`) to one request, served by rmcp with
/// `router` after the initialize handshake.
async fn answer(router: ToolRouter<Billing>, method: &str, params: Value) -> Value {
    let mut answers = answers(router, &[(method, params)]).await;
    answers.remove(0)
}

/// The answers to `requests` (ids 1, 2, …), sent together after the
/// initialize handshake to rmcp serving `router`, in the order of the
/// requests.
async fn answers(router: ToolRouter<Billing>, requests: &[(&str, Value)]) -> Vec<Value> {
    let steps: Vec<(Value, u64)> = (1..)
        .zip(requests)
        .map(|(id, (method, params))| {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            (request, 0)
        })
        .collect();
    exchange(router, &steps).await
}

/// The answers to the requests among `steps` (messages with ids 1 to the
/// number of requests), each message sent after the initialize handshake
/// to rmcp serving `router` and followed by its pause in milliseconds; in
/// the order of the ids, `null` for a request `steps` cancelled.
async fn exchange(router: ToolRouter<Billing>, steps: &[(Value, u64)]) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(async move {
        let running = Billing { router }
            .serve(tokio::io::split(server_side))
            .await
            .expect("the handshake");
        let _ = running.waiting().await;
    });
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let handshake = [
        (
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "router_contract", "version": "0"}}}),
            0,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            0,
        ),
    ];
    for (message, pause) in handshake.iter().chain(steps) {
        let line = format!("{message}\n");
        client_write
            .write_all(line.as_bytes())
            .await
            .expect("write");
        tokio::time::sleep(std::time::Duration::from_millis(*pause)).await;
    }
    let requests = steps.iter().filter(|(m, _)| m.get("id").is_some()).count();
    // rmcp answers no cancelled request.
    let cancelled: Vec<usize> = steps
        .iter()
        .filter(|(m, _)| m["method"] == "notifications/cancelled")
        .filter_map(|(m, _)| m["params"]["requestId"].as_u64())
        .map(|id| id as usize - 1)
        .collect();
    let mut answers = vec![Value::Null; requests];
    let waiting = |answers: &[Value]| {
        (0..answers.len()).any(|i| answers[i].is_null() && !cancelled.contains(&i))
    };
    while waiting(&answers) {
        let line = lines
            .next_line()
            .await
            .expect("read")
            .expect("every answer before the end");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        if let Some(id) = message["id"].as_u64().filter(|id| *id >= 1) {
            answers[id as usize - 1] = message;
        }
    }
    drop(client_write);
    serving.abort();
    answers
}

async fn call(router: ToolRouter<Billing>, args: Value) -> Value {
    answer(
        router,
        "tools/call",
        json!({"name": "get_invoice", "arguments": args}),
    )
    .await
}

/// `result` as JSON, as it goes on the wire to a 2025-11-25 client (no
/// `resultType`).
fn wire(result: CallToolResult) -> Value {
    let mut wire = serde_json::to_value(result).expect("serializes");
    wire.as_object_mut()
        .expect("an object")
        .remove("resultType");
    wire
}

const INVALID_ENVELOPE: &str = r#"Fix the fields below and call get_invoice again.
<validation_error action="get_invoice">
  <field name="id">Does not match the pattern. You sent: 'nope'. Expected a string matching the pattern '^inv_[0-9]+$'.</field>
  <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
  <field name="amount">Too small. You sent: 0. Expected an integer >= 1.</field>
  <field name="extra">Unrecognized field "extra". You sent: 1. Known fields: "id", "email", "amount". Check for typos.</field>
  <recovery>Do not explain the error.</recovery>
</validation_error>"#;

fn invalid_args() -> Value {
    json!({"id": "nope", "email": "not-an-email", "amount": 0, "extra": 1})
}

#[tokio::test]
async fn invalid_arguments_answer_the_validation_error_result() {
    let answer = call(answer_validation(routes()), invalid_args()).await;
    let result = &answer["result"];
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": INVALID_ENVELOPE}])
    );
    assert_eq!(result["isError"], json!(true));
    assert_eq!(
        result["_meta"]["mcp-fusion/error"],
        json!({
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": "The arguments for get_invoice are not valid (4 problems).",
            "recovery": "Fix the fields below and call get_invoice again. Do not explain the error.",
            "action": "get_invoice",
            "fields": [
                {"path": "id", "message": "Does not match the pattern. You sent: 'nope'. Expected a string matching the pattern '^inv_[0-9]+$'."},
                {"path": "email", "message": "Invalid email format. You sent: 'not-an-email'. Expected a valid email address."},
                {"path": "amount", "message": "Too small. You sent: 0. Expected an integer >= 1."},
                {"path": "extra", "message": "Unrecognized field \"extra\". You sent: 1. Known fields: \"id\", \"email\", \"amount\". Check for typos."}
            ]
        })
    );
    assert_eq!(result.get("structuredContent"), None);
    // The very result a FusionServer answers with (`validation_result`).
    let fields = result["_meta"]["mcp-fusion/error"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            FieldError::new(
                f["path"].as_str().expect("path"),
                f["message"].as_str().expect("message"),
            )
        })
        .collect();
    let failure = ValidationFailure::new("get_invoice", fields);
    assert_eq!(*result, wire(validation_result(&failure)));
}

#[tokio::test]
async fn a_string_that_spells_the_amount_is_named_in_the_next_step() {
    let args = json!({"id": "inv_1", "email": "a@b.co", "amount": "1500"});
    let answer = call(answer_validation(routes()), args).await;
    let step = "Replace \"amount\": \"1500\" with \"amount\": 1500, keep your other arguments, and call get_invoice again.";
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!(
            "{step}\n<validation_error action=\"get_invoice\">\n  <field name=\"amount\">Wrong type. You sent: '1500'. Expected an integer.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>"
        )
    );
    assert_eq!(
        answer["result"]["_meta"]["mcp-fusion/error"]["recovery"],
        format!("{step} Do not explain the error.")
    );
}

#[tokio::test]
async fn missing_arguments_are_each_required_field() {
    let answer = answer(
        answer_validation(routes()),
        "tools/call",
        json!({"name": "get_invoice"}),
    )
    .await;
    let fields: Vec<&str> = answer["result"]["_meta"]["mcp-fusion/error"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(fields, ["id", "email", "amount"]);
    assert_eq!(answer["result"]["isError"], json!(true));
}

#[tokio::test]
async fn valid_arguments_reach_the_tool() {
    // 5.0 is an integer for JSON Schema; it reaches the tool as 5.
    let answer = call(
        answer_validation(routes()),
        json!({"id": "inv_1", "email": "a@example.com", "amount": 5.0, "nothing": null}),
    )
    .await;
    assert_eq!(answer["error"], Value::Null, "{answer}");
    let answer = call(
        answer_validation(routes()),
        json!({"id": "inv_1", "email": "a@example.com", "amount": 5}),
    )
    .await;
    assert_eq!(
        answer["result"],
        json!({"content": [{"type": "text", "text": "inv_1 a@example.com 5"}], "isError": false})
    );
}

#[tokio::test]
async fn a_tool_error_answers_its_envelope_with_meta() {
    let answer = call(
        answer_validation(routes()),
        json!({"id": "inv_9", "email": "a@example.com", "amount": 5}),
    )
    .await;
    let envelope = r#"<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <recovery>List invoices first, then retry with a real ID</recovery>
  <available_actions>
    <action>list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_9</detail>
  </details>
</tool_error>"#;
    assert_eq!(
        answer["result"],
        json!({
            "content": [{"type": "text", "text": envelope}],
            "isError": true,
            "_meta": {"mcp-fusion/error": {
                "code": "NOT_FOUND",
                "severity": "error",
                "message": "No invoice with that ID",
                "recovery": "List invoices first, then retry with a real ID",
                "available_actions": ["list_invoices"],
                "details": {"requestedId": "inv_9"}
            }}
        })
    );
}

#[tokio::test]
async fn without_answer_validation_rmcp_answers_the_envelope_text_alone() {
    let answer = call(routes(), invalid_args()).await;
    assert_eq!(
        answer["result"],
        json!({
            "content": [{"type": "text", "text": format!("failed to deserialize parameters: {INVALID_ENVELOPE}")}],
            "isError": true
        })
    );
}

#[tokio::test]
async fn arguments_the_type_refuses_are_an_internal_error() {
    let answer = answer(
        answer_validation(routes()),
        "tools/call",
        json!({"name": "looser", "arguments": {"name": "x"}}),
    )
    .await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!(
            "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n  <message>The tool failed with an internal error.</message>\n</tool_error>"
        )
    );
    assert_eq!(answer["result"]["isError"], json!(true));
}

#[tokio::test]
async fn the_listed_schema_is_the_standard_one() {
    let answer = answer(answer_validation(routes()), "tools/list", json!({})).await;
    let tools = answer["result"]["tools"].as_array().expect("tools");
    let get_invoice = tools
        .iter()
        .find(|t| t["name"] == "get_invoice")
        .expect("get_invoice");
    assert_eq!(
        get_invoice["inputSchema"],
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^inv_[0-9]+$", "description": "The invoice id, e.g. `inv_1`."},
                "email": {"type": "string", "format": "email", "description": "Who the invoice is sent to."},
                "amount": {"type": "integer", "minimum": 1, "maximum": 18446744073709551615_u64, "description": "The amount, in cents (at least 1)."}
            },
            "required": ["id", "email", "amount"],
            "additionalProperties": false
        })
    );
}

/// The complete result of an answer.
fn complete(answer: Result<CallToolResponse, ErrorData>) -> CallToolResult {
    match answer.expect("a result") {
        CallToolResponse::Complete(result) => result,
        _ => panic!("a complete result"),
    }
}

#[test]
fn a_tool_error_is_the_result_fusion_servers_answer() {
    let err = ToolError::not_found("No invoice with that ID").actions(["list_invoices"]);
    let expected = to_call_tool_result(&err);
    assert_eq!(expected.is_error, Some(true));
    assert_eq!(complete(err.clone().into_call_tool_result()), expected);
    // In a tool's `Err`, rmcp keeps the result whole.
    let returned: Result<String, ToolError> = Err(err);
    assert_eq!(complete(returned.into_call_tool_result()), expected);
}

#[test]
fn is_error_follows_the_severity_and_rmcp_sets_it_on_err() {
    let critical = ToolError::new("LEDGER_LOCKED", "The ledger is locked.").critical();
    let result = complete(critical.into_call_tool_result());
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.meta.expect("_meta").0["mcp-fusion/error"]["severity"],
        json!("critical")
    );

    let warning = ToolError::new("DEPRECATED", "Use get_invoice_v2.").warning();
    assert_eq!(
        complete(warning.clone().into_call_tool_result()).is_error,
        Some(false)
    );
    // rmcp's `Result` sets `isError` on every `Err`: a warning rides on a
    // success instead.
    let as_err: Result<String, ToolError> = Err(warning.clone());
    assert_eq!(
        complete(as_err.into_call_tool_result()).is_error,
        Some(true)
    );
    let success = attach_warning(
        CallToolResult::success(vec![ContentBlock::text("done")]),
        &warning,
    );
    assert_eq!(success.is_error, Some(false));
    let as_ok: Result<CallToolResult, ToolError> = Ok(success.clone());
    assert_eq!(complete(as_ok.into_call_tool_result()), success);
}
