//! `show_invoice` as an rmcp client receives it, over an in-memory pipe:
//! the presented invoice (declared fields only, the card number redacted)
//! as text and `structuredContent`, and the presenter's rules after it.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

use crate::Billing;

/// What an rmcp client receives for `show_invoice` with `arguments`, as
/// JSON; and the tool as `tools/list` lists it.
async fn show_invoice(arguments: Value) -> (Value, Value) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        let running = Billing::new().serve(server_io).await?;
        running.waiting().await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
    let client = ().serve(client_io).await.expect("the MCP handshake");
    let tools = client.list_all_tools().await.expect("tools/list");
    let tool = tools
        .into_iter()
        .find(|tool| tool.name == "show_invoice")
        .expect("show_invoice is listed");
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let params = CallToolRequestParams::new("show_invoice").with_arguments(arguments);
    let result: CallToolResult = client.call_tool(params).await.expect("tools/call");
    client.cancel().await.expect("the client closes");
    let _ = server.await;
    (
        serde_json::to_value(result).expect("a result is JSON"),
        serde_json::to_value(tool).expect("a tool is JSON"),
    )
}

#[tokio::test]
async fn an_open_invoice_is_shown_with_its_card_redacted_and_its_rules() {
    let (result, tool) = show_invoice(json!({"id": "inv_1"})).await;
    let shown =
        json!({"id": "inv_1", "status": "open", "amount_cents": 1200, "card_number": "[redacted]"});
    assert_eq!(
        result,
        json!({
            "content": [
                {"type": "text", "text": r#"{"id":"inv_1","status":"open","amount_cents":1200,"card_number":"[redacted]"}"#},
                {"type": "text", "text": "<domain_rules>\n- Amounts are in cents.\n- inv_1 is not paid yet: do not tell the user it is.\n</domain_rules>"}
            ],
            "structuredContent": shown,
            "isError": false
        })
    );
    let text = result.to_string();
    assert!(!text.contains("4111"), "the card number left: {text}");
    assert!(!text.contains("disputed"), "the internal note left: {text}");
    assert_eq!(
        tool["outputSchema"]["required"],
        json!(["id", "status", "amount_cents", "card_number"])
    );
    assert!(
        tool["outputSchema"]["properties"]
            .get("internal_note")
            .is_none()
    );
}

#[tokio::test]
async fn a_paid_invoice_gets_only_the_rule_that_holds_for_it() {
    let (result, _) = show_invoice(json!({"id": "inv_2"})).await;
    assert_eq!(
        result["content"][1]["text"],
        "<domain_rules>\n- Amounts are in cents.\n</domain_rules>"
    );
    assert_eq!(result["structuredContent"]["card_number"], "[redacted]");
}
