//! The cart's flow through the call path, in process: out of order is
//! refused with the state and what is allowed now; in order it goes.

use serde_json::{Value, json};

fn text(result: &mcp_fusion::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn paying_before_checkout_is_refused_and_the_flow_in_order_goes() {
    let server = cart_example::server().unwrap();
    let call = |args: Value| {
        let server = server.clone();
        async move { server.call("cart", args).await.unwrap() }
    };
    let early = call(json!({"action": "pay", "order": "ord_1"})).await;
    assert_eq!(
        text(&early),
        "<tool_error code=\"FORBIDDEN\" severity=\"error\">
  <message>cart.pay is not allowed now: the cart is \"empty\", and cart.pay needs it to be \"checked_out\".</message>
  <recovery>Do not retry it yet. Call one of available_actions: they are allowed while the cart is \"empty\".</recovery>
  <available_actions>
    <action>cart.add_item</action>
    <action>cart.view</action>
  </available_actions>
  <details>
    <detail key=\"state_machine\">cart</detail>
    <detail key=\"current_state\">empty</detail>
    <detail key=\"blocked_tool\">cart.pay</detail>
    <detail key=\"allowed_in\">checked_out</detail>
  </details>
</tool_error>"
    );
    call(json!({"action": "add_item", "item": "tea"})).await;
    let order = call(json!({"action": "checkout"})).await;
    assert_eq!(
        text(&order),
        "Order ord_1 holds 1 item. Pay it with cart.pay, order \"ord_1\"."
    );
    let paid = call(json!({"action": "pay", "order": "ord_1"})).await;
    assert_eq!(text(&paid), "Order ord_1 is paid.");
    let again = call(json!({"action": "pay", "order": "ord_1"})).await;
    assert_eq!(again.is_error, Some(true));
}
