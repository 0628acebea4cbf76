//! An unknown tool name: JSON-RPC -32602 by default (MCP), or a tool result
//! the model reads (wire contract §1) with `unknown_tool_as_result(true)`.

use mcp_fusion::{Action, CallContext, ErrorCode, FusionServer, Group, NoArgs, ToolError};
use serde_json::json;

fn server(as_result: bool) -> FusionServer {
    async fn ok(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("ok")
    }
    FusionServer::builder("t", "1")
        .unknown_tool_as_result(as_result)
        .group(Group::new("billing").action(Action::new("get_invoice", ok)))
        .tool(Action::new("billing_health", ok))
        .build()
        .unwrap()
}

#[tokio::test]
async fn unknown_tool_is_a_protocol_error_by_default() {
    let err = server(false).call("bilin", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        "Unknown tool \"bilin\". Did you mean \"billing\"? Valid tools: billing, billing_health."
    );
    assert_eq!(
        err.data,
        json!({"tool": "bilin", "valid_tools": ["billing", "billing_health"], "closest": "billing"})
    );
    let dotted = server(false)
        .call("billing.get_invoice", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        dotted.message,
        "Unknown tool \"billing.get_invoice\": the action billing.get_invoice is called through the tool \"billing\" with \"action\": \"get_invoice\" in its arguments. Valid tools: billing, billing_health."
    );
}

#[tokio::test]
async fn unknown_tool_can_be_a_tool_result() {
    let result = server(true).call("bilin", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "<tool_error code=\"UNKNOWN_TOOL\" severity=\"error\">\n  <message>There is no tool named \"bilin\". Did you mean \"billing\"?</message>\n  <recovery>Call one of the tools in available_actions; list them again with tools/list if they may have changed.</recovery>\n  <available_actions>\n    <action>billing</action>\n    <action>billing_health</action>\n  </available_actions>\n</tool_error>"
    );
    let meta = &result.meta.as_ref().unwrap().0["mcp-fusion/error"];
    assert_eq!(meta["code"], json!("UNKNOWN_TOOL"));
    // A library code, read back as its own variant (wire contract §5.1).
    let parsed = mcp_fusion::envelope::parse(&result.content[0].as_text().unwrap().text);
    assert_eq!(parsed.unwrap().code(), ErrorCode::UnknownTool);
}
