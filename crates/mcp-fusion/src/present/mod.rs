//! Results written for the model (`docs/wire-contract.md` §9): what a
//! successful result carries on its way out, after the handler. The
//! [egress guard](egress) cuts a result over its size limit at boundaries
//! that keep every part valid; [state sync](state_sync) tells the model
//! which earlier reads a mutation made stale, and a read action's
//! [`Freshness`] tells clients how long its results stay fresh.
//!
//! ```
//! use mcp_fusion::present::Freshness;
//! use mcp_fusion::{Action, FusionServer, Group, NoArgs, ToolError};
//!
//! async fn list(_: NoArgs) -> Result<String, ToolError> {
//!     Ok((1..=100).map(|i| format!("invoice {i}\n")).collect())
//! }
//! async fn pay(_: NoArgs) -> Result<&'static str, ToolError> {
//!     Ok("paid")
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = FusionServer::builder("billing", "1.0.0")
//!     .group(
//!         Group::new("billing")
//!             .action(Action::new("list", list).reads("invoices")
//!                 .freshness(Freshness::Seconds(30)).egress_limit(40))
//!             .action(Action::new("pay", pay).invalidates("invoices.*")),
//!     )
//!     .build()?;
//! let listed = server.call("billing", serde_json::json!({"action": "list"})).await?;
//! let texts: Vec<&str> = listed.content.iter().map(|b| b.as_text().unwrap().text.as_str()).collect();
//! assert_eq!(texts[0], "invoice 1\ninvoice 2\ninvoice 3\ninvoice 4\n");
//! assert!(texts[1].starts_with("<egress_notice>This result was cut to fit the limit of 40 bytes"));
//!
//! let paid = server.call("billing", serde_json::json!({"action": "pay"})).await?;
//! assert_eq!(
//!     paid.content[0].as_text().unwrap().text,
//!     "<stale_reads cause=\"billing.pay\" domains=\"invoices.*\">This call changed invoices.*: \
//!      results read before it are stale. Call billing.list again before relying on what they returned.</stale_reads>"
//! );
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

pub mod egress;
mod freshness;
pub mod state_sync;

pub use egress::DEFAULT_EGRESS_LIMIT;
pub use freshness::Freshness;

#[cfg(test)]
mod wire_doc_tests;
