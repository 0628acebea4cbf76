//! The bench example: exactly one plain tool, `get_invoice`, whose
//! arguments carry three checks — `id` matches `^inv_[0-9]+$`, `email` is an
//! email address, `amount` is an integer of at least 1, all three required —
//! and whose success needs no database: the text `{"id":"<id>","status":"open"}`.
//!
//! Every server `benches/load/compare.sh` measures (bare rmcp, the official
//! TypeScript SDK, FastMCP) serves the same tool with the same checks, so
//! that a driver compares the stacks on the same work. `fusion serve
//! --example bench` serves it.

use mcp_fusion::{BuildError, FusionServer, ServerBuilder, action};

pub mod presented;
#[cfg(test)]
mod presented_tests;
use schemars::JsonSchema;
use serde::Deserialize;

/// The arguments of `get_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
    /// Who the invoice is sent to, e.g. `user@example.com`.
    #[schemars(email)]
    pub email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    pub amount: u64,
}

/// Read one invoice by id.
#[action(read_only, idempotent)]
pub async fn get_invoice(args: GetInvoice) -> Result<String, mcp_fusion::ToolError> {
    // The pattern leaves only `inv_` and digits: nothing to escape in JSON.
    Ok(format!(r#"{{"id":"{}","status":"open"}}"#, args.id))
}

/// The bench server's builder; add settings (HTTP options) before building it.
pub fn builder() -> ServerBuilder {
    FusionServer::builder("mcp-fusion-bench", env!("CARGO_PKG_VERSION")).tool(get_invoice::action())
}

/// The bench server with the presented twins of [`presented`] beside
/// `get_invoice` (`fusion serve --example bench-presented`).
pub fn presented_builder() -> ServerBuilder {
    presented::with_presented(builder())
}

/// The bench server, built.
///
/// # Errors
/// Never in practice: a [`BuildError`] would mean the tool is declared
/// wrongly (a test builds it).
pub fn server() -> Result<FusionServer, BuildError> {
    builder().build()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[tokio::test]
    async fn success_and_three_field_errors() {
        let server = super::server().expect("the tool builds");
        let ok = server
            .call(
                "get_invoice",
                json!({"id": "inv_1", "email": "a@example.com", "amount": 5}),
            )
            .await
            .expect("known tool");
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(
            ok.content[0].as_text().map(|t| t.text.as_str()),
            Some(r#"{"id":"inv_1","status":"open"}"#)
        );
        let bad = server
            .call(
                "get_invoice",
                json!({"id": "nope", "email": "not-an-email", "amount": 0}),
            )
            .await
            .expect("known tool");
        assert_eq!(bad.is_error, Some(true));
        let text = &bad.content[0].as_text().expect("text").text;
        assert_eq!(text.matches("<field ").count(), 3, "{text}");
    }
}
