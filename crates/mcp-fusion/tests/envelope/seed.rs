//! The seed's example (wire contract §2) comes out byte for byte.

use mcp_fusion::{ToolError, envelope};

const SEED: &str = r#"<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <recovery>List invoices first, then retry with a real ID</recovery>
  <available_actions>
    <action>billing.list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_2026_9999</detail>
  </details>
  <retry_after>30 seconds</retry_after>
</tool_error>"#;

#[test]
fn seed_example_renders_exactly() {
    let err = ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .details([("requestedId", "inv_2026_9999")])
        .retry_after(30);
    assert_eq!(envelope::render(&err), SEED);
}
