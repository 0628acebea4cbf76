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
    Ok(format!(
        "refunded {} cents of {}",
        args.amount_cents, args.id
    ))
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
        .tool_search(
            ToolSearch::new()
                .always_visible(["health"])
                .default_limit(2),
        )
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
        assert_eq!(
            tools,
            json!([SEARCH_TOOL_LISTED(), HEALTH_LISTED()]),
            "{revision:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_search_answers_exact_definitions_and_the_tools_stay_callable() {
    let server = shop().build().unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        let found = search(&client, json!({"query": "refund an invoice"})).await;
        assert_eq!(
            found,
            [
                r#"{"tools":[{"name":"billing","description":"Invoices and payments.\n\nSet \"action\" to choose one of these actions:\n- get_invoice: Fetches one invoice. (requires id) [read-only]\n- refund_invoice: Refunds a paid invoice, in part or whole. (requires id, amount_cents)","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["get_invoice","refund_invoice"],"description":"The action to run: one of get_invoice, refund_invoice."},"id":{"type":"string","description":"The invoice's id. Used by: get_invoice, refund_invoice."},"amount_cents":{"type":"integer","maximum":18446744073709551615,"minimum":0,"description":"How much to refund, in cents. Used by: refund_invoice."}},"required":["action"]}}]}"#,
                r#"<search_result shown="1" total="1">1 matching tool, best first. Call one by its name with arguments that match its inputSchema: it is callable though tools/list does not show it.</search_result>"#,
            ],
            "{revision:?}"
        );

        let email = search(
            &client,
            json!({"query": "email the invoice to its customer", "limit": 1}),
        )
        .await;
        assert_eq!(
            email,
            [
                r#"{"tools":[{"name":"send_email","description":"Sends an email to a customer.","inputSchema":{"type":"object","properties":{"to":{"type":"string","description":"Who gets it."},"subject":{"type":"string","description":"Its subject line."}},"required":["to","subject"],"title":"Email","additionalProperties":false}}]}"#,
                r#"<search_result shown="1" total="2">Showing the 1 best of 2 matching tools. Call one by its name with arguments that match its inputSchema: it is callable though tools/list does not show it. To see the others, call search_tools again with a higher limit (at most 20) or more precise words.</search_result>"#,
            ],
            "{revision:?}"
        );

        let nothing = search(&client, json!({"query": "weather forecast"})).await;
        assert_eq!(
            nothing,
            [
                r#"{"tools":[]}"#,
                r#"<search_result shown="0" total="0">No tool matched "weather forecast" among the 3 tools you may use. Search again with other words: what the task acts on (invoice, customer, file), what it does (create, refund, send), or a parameter's name.</search_result>"#,
            ],
            "{revision:?}"
        );

        // Not listed, callable by name (and a group's action through it).
        let sent = client
            .call(
                "send_email",
                json!({"to": "ada@example.com", "subject": "Hi"}),
            )
            .await
            .unwrap();
        assert_eq!(texts(&sent), ["sent \"Hi\" to ada@example.com"]);
        let refunded = client
            .call(
                "billing",
                json!({"action": "refund_invoice", "id": "inv_1", "amount_cents": 300}),
            )
            .await
            .unwrap();
        assert_eq!(texts(&refunded), ["refunded 300 cents of inv_1"]);
        client.close().await;
    }
}

fn cart() -> StateMachine {
    StateMachine::new("cart")
        .initial("empty")
        .transition("add_item", "empty", "filled")
        .transition("checkout", "filled", "checked_out")
        .transition("pay", "checked_out", "paid")
}

#[tokio::test]
async fn a_tool_the_session_state_hides_is_never_found() {
    let server = FusionServer::builder("shop", "1.0.0")
        .tool(Action::new("add_item", ok).description("Adds an item to the cart."))
        .tool(Action::new("checkout", ok).description("Checks the cart out."))
        .tool(Action::new("pay", ok).description("Pays for the checked-out cart."))
        .state_machine(cart())
        .tool_search(ToolSearch::new())
        .build()
        .unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        // Empty cart: only add_item is allowed, so only it is found.
        let found = search(&client, json!({"query": "cart", "limit": 20})).await;
        assert_eq!(found_names(&found), ["add_item"], "{revision:?}");
        let pay = search(&client, json!({"query": "pay"})).await;
        assert_eq!(found_names(&pay), Vec::<String>::new(), "{revision:?}");
        assert!(pay[1].contains("among the 1 tools you may use"), "{pay:?}");

        if revision == ProtocolRevision::V2025_11_25 {
            // The session moves (stateful sessions only): pay is found once
            // the cart is checked out.
            assert_eq!(
                texts(&client.call("add_item", json!({})).await.unwrap()),
                ["ok"]
            );
            assert_eq!(
                texts(&client.call("checkout", json!({})).await.unwrap()),
                ["ok"]
            );
            let pay = search(&client, json!({"query": "pay"})).await;
            assert_eq!(found_names(&pay), ["pay"]);
        }
        client.close().await;
    }
}

#[tokio::test]
async fn the_index_follows_the_tools_as_they_change() {
    let server = shop().build().unwrap();
    let client = client(&server, ProtocolRevision::V2025_11_25).await;
    let none = search(&client, json!({"query": "shipping label"})).await;
    assert_eq!(found_names(&none), Vec::<String>::new());
    server
        .add_tool(Action::new("print_label", ok).description("Prints a shipping label."))
        .await
        .unwrap();
    let found = search(&client, json!({"query": "shipping label"})).await;
    assert_eq!(found_names(&found), ["print_label"]);
    assert_eq!(
        texts(&client.call("print_label", json!({})).await.unwrap()),
        ["ok"]
    );
    assert!(server.remove_tool("print_label").await);
    let gone = search(&client, json!({"query": "shipping label"})).await;
    assert_eq!(found_names(&gone), Vec::<String>::new());
    client.close().await;
}

#[tokio::test]
async fn a_limit_out_of_range_is_a_validation_error() {
    let server = shop().build().unwrap();
    let client = client(&server, ProtocolRevision::V2026_07_28).await;
    let refused = client
        .call("search_tools", json!({"query": "invoice", "limit": 50}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        texts(&refused),
        [
            "Fix the fields below and call search_tools again.\n<validation_error action=\"search_tools\">\n  <field name=\"limit\">Too large. You sent: 50. Expected an integer >= 1 and &lt;= 20.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>"
        ]
    );
    client.close().await;
}

/// Searches over Streamable HTTP as the holder of `token`.
async fn search_as(served: &HttpServed, token: &str, query: &str) -> (Vec<String>, Vec<String>) {
    let connected = served.connect_as(token).await;
    let listed = connected.client.list_all_tools().await.unwrap();
    let Value::Object(args) = json!({"query": query, "limit": 20}) else {
        unreachable!()
    };
    let result = connected
        .client
        .call_tool(CallToolRequestParams::new("search_tools").with_arguments(args))
        .await
        .unwrap();
    connected.close().await;
    let names = listed.into_iter().map(|t| t.name.into_owned()).collect();
    (names, found_names(&texts(&result)))
}

#[tokio::test]
async fn a_tool_whose_scope_the_caller_lacks_is_never_found() {
    let tokens = StaticTokens::new()
        .token("t-reader", "ann", ["billing:read"])
        .token("t-admin", "root", ["billing:read", "billing:admin"]);
    let server = FusionServer::builder("billing", "1.0.0")
        .tool(
            Action::new("list_invoices", ok)
                .description("Lists the invoices.")
                .requires_scopes(["billing:read"]),
        )
        .tool(
            Action::new("purge_invoices", ok)
                .description("Deletes every invoice.")
                .requires_scopes(["billing:admin"]),
        )
        .group(
            Group::new("invoices")
                .description("One invoice.")
                .action(Action::new("read", get_invoice).description("Reads an invoice."))
                .action(
                    Action::new("void", get_invoice)
                        .description("Voids an invoice.")
                        .requires_scopes(["billing:admin"]),
                ),
        )
        .auth(tokens)
        .tool_search(ToolSearch::new())
        .build()
        .unwrap();
    let served = HttpServed::start(&server).await;
    let (listed, found) = search_as(&served, "t-reader", "invoice").await;
    assert_eq!(listed, ["search_tools"]);
    assert_eq!(found, ["list_invoices", "invoices"]);
    // The group is found with the actions the reader may use only.
    let (_, void) = search_as(&served, "t-reader", "void").await;
    assert_eq!(void, Vec::<String>::new());
    let (_, purge) = search_as(&served, "t-reader", "delete every invoice").await;
    assert_eq!(purge, ["list_invoices", "invoices"]);

    let (_, admin) = search_as(&served, "t-admin", "delete every invoice").await;
    assert_eq!(admin, ["purge_invoices", "list_invoices", "invoices"]);
    served.stop().await;
}

#[tokio::test]
async fn an_unknown_tool_names_the_closest_and_how_to_find_the_others() {
    let server = shop().build().unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        let error = client.call("send_emial", json!({})).await.unwrap_err();
        let mcp_fusion::client::FusionClientError::JsonRpc {
            code,
            message,
            data,
        } = error
        else {
            panic!("{error:?}");
        };
        assert_eq!(code, -32602);
        // The closest among every tool; as valid, only those listed.
        assert_eq!(
            message,
            "Unknown tool \"send_emial\". Did you mean \"send_email\"? Listed tools: search_tools, health; find the others with search_tools, giving a few words of what you want to do."
        );
        assert_eq!(
            data,
            Some(json!({
                "tool": "send_emial",
                "closest": "send_email",
                "valid_tools": ["search_tools", "health"]
            }))
        );
    }
}

#[tokio::test]
async fn a_tool_linked_to_an_app_view_is_listed_beside_the_search_tool() {
    use mcp_fusion::capability::{UiLink, UiResource};
    let server = shop()
        .ui_resource(UiResource::new(
            "ui://shop/invoice",
            "invoice view",
            "<!doctype html><title>invoice</title>",
        ))
        .tool(
            Action::new("show_invoice", get_invoice)
                .description("Shows one invoice in a view.")
                .ui(UiLink::new("ui://shop/invoice")),
        )
        .build()
        .unwrap();
    let client = client(&server, ProtocolRevision::V2025_11_25).await;
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["search_tools", "health", "show_invoice"]);
    let meta = serde_json::to_value(&tools[2].meta).unwrap();
    assert_eq!(meta["ui"]["resourceUri"], "ui://shop/invoice");
}

#[tokio::test]
async fn a_fusion_client_calls_a_dotted_tool_that_is_not_listed() {
    // `crm.find` is found by a search, not listed: the client's first-dot
    // split names no tool (`crm`), so it sends the name as it is.
    let server = shop()
        .tool(Action::new("crm.find", ok).description("Finds a customer."))
        .build()
        .unwrap();
    for revision in REVISIONS {
        let client = client(&server, revision).await;
        let result = client.call("crm.find", json!({})).await.unwrap();
        assert_eq!(result.is_error, Some(false));
        assert_eq!(texts(&result), ["ok"]);
        // A group not listed is still reached through its discriminator.
        let result = client
            .call("billing.get_invoice", json!({"id": "inv_1"}))
            .await
            .unwrap();
        assert_eq!(texts(&result), ["invoice inv_1"]);
    }
}
