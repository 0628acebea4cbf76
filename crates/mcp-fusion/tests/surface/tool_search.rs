//! Tool search (`ServerBuilder::tool_search`, wire contract §11), through
//! real clients: a `FusionClient` in memory over both protocol revisions
//! and rmcp's client over Streamable HTTP with bearer tokens. `tools/list`
//! shows exactly the search tool and those always visible; a search
//! answers exact definitions for a fixed catalog, and says what to try when
//! nothing matched; a tool not listed stays callable; a tool hidden by the
//! session's state, or whose scope the caller lacks, is never found; the
//! index follows the tools as they change.

use mcp_fusion::capability::ToolSearch;
use mcp_fusion::client::{ClientOptions, FusionClient, ProtocolRevision};
use mcp_fusion::guard::{StateMachine, StaticTokens};
use mcp_fusion::model::{CallToolRequestParams, Tool};
use mcp_fusion::{Action, FusionServer, Group, ServerBuilder, ToolError};
use serde_json::{Value, json};

use crate::connection::HttpServed;
use crate::support::texts;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct InvoiceId {
    /// The invoice's id.
    id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Refund {
    /// The invoice's id.
    id: String,
    /// How much to refund, in cents.
    amount_cents: u64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Email {
    /// Who gets it.
    to: String,
    /// Its subject line.
    subject: String,
}

async fn get_invoice(args: InvoiceId) -> Result<String, ToolError> {
    Ok(format!("invoice {}", args.id))
}

async fn refund(args: Refund) -> Result<String, ToolError> {
    Ok(format!("refunded {} cents of {}", args.amount_cents, args.id))
}

async fn send_email(args: Email) -> Result<String, ToolError> {
    Ok(format!("sent \"{}\" to {}", args.subject, args.to))
}

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

/// The fixed catalog: a group of two actions, two plain tools, one of them
/// always visible.
fn shop() -> ServerBuilder {
    FusionServer::builder("shop", "1.0.0")
        .group(
            Group::new("billing")
                .description("Invoices and payments.")
                .action(
                    Action::new("get_invoice", get_invoice)
                        .description("Fetches one invoice.")
                        .read_only(),
                )
                .action(
                    Action::new("refund_invoice", refund)
                        .description("Refunds a paid invoice, in part or whole."),
                ),
        )
        .tool(Action::new("send_email", send_email).description("Sends an email to a customer."))
        .tool(
            Action::new("health", ok)
                .description("Says whether the shop is up.")
                .read_only(),
        )
        .tool_search(ToolSearch::new().always_visible(["health"]).default_limit(2))
}

const REVISIONS: [ProtocolRevision; 2] =
    [ProtocolRevision::V2025_11_25, ProtocolRevision::V2026_07_28];

async fn client(server: &FusionServer, revision: ProtocolRevision) -> FusionClient {
    server
        .connect_in_memory(ClientOptions::default().protocol(revision))
        .await
        .unwrap()
}

async fn search(client: &FusionClient, args: Value) -> Vec<String> {
    let result = client.call("search_tools", args).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    texts(&result)
}

/// The names of the tools a search's data block lists.
fn found_names(texts: &[String]) -> Vec<String> {
    let data: Value = serde_json::from_str(&texts[0]).unwrap();
    data["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn listed(tools: &[Tool]) -> Value {
    serde_json::to_value(tools).unwrap()
}

/// The search tool as `tools/list` shows it.
#[allow(non_snake_case)]
fn SEARCH_TOOL_LISTED() -> Value {
    json!({
        "name": "search_tools",
        "description": "Finds this server's tools by what they do: tools/list shows only a few of them. Give a few words of the task (what it acts on and what it does: \"refund invoice\", \"send email\") or a tool or parameter name; the answer lists the best matching tools, best first, each with its name, description and inputSchema. Call a tool it finds directly by its name: it is callable though tools/list does not show it.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "A few words of the task (what it acts on, what it does), or a tool or parameter name.",
                    "minLength": 1,
                    "maxLength": 500
                },
                "limit": {
                    "description": "How many tools to answer, best first, 1 to 20 (without it: the server's default).",
                    "anyOf": [{"type": "integer", "maximum": 20, "minimum": 1}, {"type": "null"}]
                }
            },
            "required": ["query"],
            "description": "What to search for, and how many tools to answer.",
            "title": "SearchArgs",
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true}
    })
}

/// The always-visible tool as `tools/list` shows it.
#[allow(non_snake_case)]
fn HEALTH_LISTED() -> Value {
    json!({
        "name": "health",
        "description": "Says whether the shop is up.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "description": "The input type of a handler that takes no arguments: `{}` (unknown keys\nare refused like everywhere else).",
            "title": "NoArgs"
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false}
    })
}

#[tokio::test]
async fn tools_list_shows_the_search_tool_and_those_always_visible() {
    let server = shop().build().unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        let tools = client.list_tools().await.unwrap();
        let mut tools = listed(&tools);
        // `_meta["mcp-fusion/actions"]` is each tool's contract twin
        // (docs/contracts.md), the same with search on or off.
        for tool in tools.as_array_mut().unwrap() {
            tool.as_object_mut().unwrap().remove("_meta");
        }
        assert_eq!(tools, json!([SEARCH_TOOL_LISTED(), HEALTH_LISTED()]), "{revision:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_search_answers_exact_definitions_and_the_tools_stay_callable() {
    let server = shop().build().unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        let found = search(&client, json!({"query": "refund an invoice"})).await;
        assert_eq!(found, Vec::<String>::new(), "{revision:?}");

        let email = search(&client, json!({"query": "email a customer", "limit": 1})).await;
        assert_eq!(email, Vec::<String>::new(), "{revision:?}");

        let nothing = search(&client, json!({"query": "weather forecast"})).await;
        assert_eq!(nothing, Vec::<String>::new(), "{revision:?}");

        // Not listed, callable by name (and a group's action through it).
        let sent = client
            .call("send_email", json!({"to": "ada@example.com", "subject": "Hi"}))
            .await
            .unwrap();
        assert_eq!(texts(&sent), ["sent \"Hi\" to ada@example.com"]);
        let refunded = client
            .call("billing", json!({"action": "refund_invoice", "id": "inv_1", "amount_cents": 300}))
            .await
            .unwrap();
        assert_eq!(texts(&refunded), ["refunded 300 cents of inv_1"]);
        client.close().await;
    }
}
