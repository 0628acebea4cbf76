//! README.md's first server, compiled and checked: the code between the
//! markers below must be the README's `rust` block under "## A first server",
//! byte for byte, and the envelope the README shows under "## What the model
//! reads" must be what this server answers to the call the README describes.

// README example: begin
use mcp_fusion::transport::StdioOptions;
use mcp_fusion::{BuildError, FusionServer, Group, ToolError, action};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct CreateInvoice {
    /// Who pays, e.g. `ada@example.com`.
    pub customer_email: String,
    /// The amount in cents.
    #[schemars(range(min = 1))]
    pub amount_cents: u64,
}

/// Create an invoice for one customer.
#[action]
pub async fn create_invoice(args: CreateInvoice) -> Result<String, ToolError> {
    Ok(format!("inv_1: {} cents", args.amount_cents))
}

pub fn server() -> Result<FusionServer, BuildError> {
    let billing = Group::new("billing").action(create_invoice::action());
    let builder = FusionServer::builder("billing", "1.0.0");
    builder.group(billing).build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    server()?.serve_stdio(StdioOptions::default()).await?;
    Ok(())
}
// README example: end

use super::page_blocks::{self, text};

const README: &str = include_str!("../../../../README.md");
const THIS_FILE: &str = include_str!("readme_example.rs");

/// The first block opened with `fence` after `after` in the README.
fn readme_block(fence: &str, after: &str) -> &'static str {
    page_blocks::block(README, fence, after, 0)
}

async fn call(args: serde_json::Value) -> rmcp::model::CallToolResult {
    server()
        .expect("the README's server builds")
        .call("billing", args)
        .await
        .expect("a known tool")
}

#[test]
fn readme_code_is_this_code() {
    assert_eq!(
        readme_block("```rust,no_run", "## A first server"),
        page_blocks::marked(THIS_FILE, "README example"),
        "README.md's first server and tests/server/readme_example.rs differ"
    );
}

#[tokio::test]
async fn readme_envelope_is_what_the_server_answers() {
    let sent = r#"`{"action": "create_invoice", "customer_email": "ada@example.com",
"amount_cents": "1500"}`"#;
    assert!(README.contains(sent), "the README names the call it shows");
    let refused = call(serde_json::json!({
        "action": "create_invoice", "customer_email": "ada@example.com", "amount_cents": "1500"
    }))
    .await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        readme_block("```xml", "## What the model reads"),
        format!("{}\n", text(&refused))
    );

    let created = call(serde_json::json!({
        "action": "create_invoice", "customer_email": "ada@example.com", "amount_cents": 1500
    }))
    .await;
    assert_eq!(created.is_error, Some(false));
    assert_eq!(text(&created), "inv_1: 1500 cents");
}

#[test]
fn readme_commands_are_the_ones_ci_runs() {
    assert!(README.contains("```sh\ncargo run -p fusion-cli -- serve\n```"));
    assert!(README.contains("```sh\nscripts/test\n```"));
    let ci = include_str!("../../../../.ci/run");
    assert!(ci.contains("exec bash scripts/test"));
}

/// The front page stays a front page (issue 39: at most about 250 lines).
#[test]
fn readme_is_a_front_page() {
    let lines = README.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move detail into docs/guide"
    );
}
