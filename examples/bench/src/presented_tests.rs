//! What the presented twins answer: the texts `benches/load` expects on its
//! `show`, `show-plain`, `list` and `list-plain` paths.

use serde_json::json;

/// The text blocks of a successful call of `tool` with `args`.
async fn texts(tool: &str, args: serde_json::Value) -> Vec<String> {
    let server = crate::presented_builder().build().expect("the tools build");
    let result = server.call(tool, args).await.expect("a known tool");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    result
        .content
        .iter()
        .map(|block| block.as_text().expect("a text block").text.clone())
        .collect()
}

#[tokio::test]
async fn one_invoice_presented_and_plain() {
    assert_eq!(
        texts("show_invoice", json!({"id": "inv_2"})).await,
        [
            r#"{"id":"inv_2","status":"open","amount_cents":1002,"card_number":"[redacted]"}"#,
            "<domain_rules>\n- Amounts are in cents.\n</domain_rules>\n<next_actions>\n- Call pay_invoice with {\"id\":\"inv_2\"}: It is unpaid.\n</next_actions>",
        ]
    );
    assert_eq!(
        texts("show_invoice_plain", json!({"id": "inv_2"})).await,
        [
            r#"{"id":"inv_2","status":"open","amount_cents":1002,"card_number":"4111 1111 1111 1111","internal_note":"Disputed a late fee once."}"#
        ]
    );
}

#[tokio::test]
async fn a_hundred_invoices_presented_are_cut_to_ten() {
    let presented = texts("list_invoices", json!({})).await;
    let data: serde_json::Value = serde_json::from_str(&presented[0]).expect("JSON data");
    let items = data["items"].as_array().expect("items");
    assert_eq!(items.len(), crate::presented::AGENT_LIMIT);
    assert_eq!(
        items[9],
        json!({"id": "inv_10", "status": "open", "amount_cents": 1010, "card_number": "[redacted]"})
    );
    // The items of a list suggest no calls (wire contract §9.1).
    assert_eq!(
        presented[1],
        "<result_limit shown=\"10\" total=\"100\">Showing 10 of 100 results. To see the others, call list_invoices again narrowed by status.</result_limit>\n<domain_rules>\n- Amounts are in cents.\n</domain_rules>"
    );
    let plain = texts("list_invoices_plain", json!({})).await;
    let rows: serde_json::Value = serde_json::from_str(&plain[0]).expect("JSON rows");
    assert_eq!(
        rows.as_array().map(Vec::len),
        Some(crate::presented::LIST_LEN)
    );
    assert_eq!(rows[99]["internal_note"], "Disputed a late fee once.");
}
