//! Testing what the model reads: [`call`] runs a tool of a server in memory
//! and returns a [`Seen`] — the content texts, `structuredContent` and
//! `isError` the client receives, and what a presenter kept from it (the
//! whole value the handler returned, the rules, the suggested calls, what
//! the agent limit cut), so that a test asserts a secret is absent and a
//! limit applied.
//!
//! ```
//! use mcp_fusion::present::Presenter;
//! use mcp_fusion::{Action, FusionServer, ToolError};
//!
//! #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! struct Invoice { id: String, card_number: String }
//!
//! async fn list(_: mcp_fusion::NoArgs) -> Result<Vec<Invoice>, ToolError> {
//!     Ok((1..=3).map(|i| Invoice { id: format!("inv_{i}"), card_number: "4111-CANARY".into() }).collect())
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let invoices = Presenter::<Invoice>::new("Invoice").secret("card_number").agent_limit(2);
//! let server = FusionServer::builder("billing", "1.0.0")
//!     .tool(Action::new("list_invoices", list).returns_many(&invoices))
//!     .build()
//!     .unwrap();
//! let seen = mcp_fusion::testing::call(&server, "list_invoices", serde_json::json!({})).await.unwrap();
//! assert!(!seen.received().contains("CANARY"));
//! assert_eq!(seen.guidance().unwrap().cut.unwrap().total, 3);
//! assert_eq!(seen.full().unwrap()[2]["card_number"], "4111-CANARY");
//! # });
//! ```

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::present::{Guidance, Hidden, observing};
use crate::server::{FusionServer, UnknownToolError};

/// What one call returned: what the client receives, and what a presenter
/// kept from it.
#[derive(Debug, Clone)]
pub struct Seen {
    result: CallToolResult,
    hidden: Option<Hidden>,
}

impl Seen {
    /// The text of each content block, in order (a block that is not text
    /// is left out).
    pub fn texts(&self) -> Vec<&str> {
        self.result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect()
    }

    /// `structuredContent`, when the result has one.
    pub fn structured(&self) -> Option<&Value> {
        self.result.structured_content.as_ref()
    }

    /// `isError` (absent reads as `false`).
    pub fn is_error(&self) -> bool {
        self.result.is_error.unwrap_or(false)
    }

    /// The whole result as the client receives it.
    pub fn result(&self) -> &CallToolResult {
        &self.result
    }

    /// Everything the client receives — content, `structuredContent`,
    /// `_meta` — as one JSON text, for `contains` checks.
    pub fn received(&self) -> String {
        serde_json::to_string(&self.result).unwrap_or_default()
    }

    /// The value the handler returned, before it was presented; `None`
    /// when no presenter presented it.
    pub fn full(&self) -> Option<&Value> {
        self.hidden.as_ref().map(|h| &h.full)
    }

    /// What the presenter computed beside the data (the cut, the rules,
    /// the suggested calls, also those it could not write); `None` when no
    /// presenter presented the result.
    pub fn guidance(&self) -> Option<&Guidance> {
        self.hidden.as_ref().map(|h| &h.guidance)
    }
}

/// Calls the tool `name` of `server` with `arguments` in process (as
/// [`FusionServer::call`] does: the whole path, guards and presenter
/// included) and returns what the client receives with what the presenter
/// kept.
///
/// # Errors
/// [`UnknownToolError`] when `server` has no tool `name`.
pub async fn call(
    server: &FusionServer,
    name: &str,
    arguments: Value,
) -> Result<Seen, UnknownToolError> {
    let (result, hidden) = observing(server.call(name, arguments)).await;
    Ok(Seen {
        result: result?,
        hidden,
    })
}
