//! Results written for the model (`docs/wire-contract.md` §9): what a
//! successful result carries on its way out, after the handler, in this
//! order — the presenter, state sync, the egress guard. Error results pass
//! all three untouched (the egress guard never cuts an envelope).
//!
//! A [`Presenter<T>`] (§9.1) says how an action's result is shown — only the
//! fields `T`'s JSON Schema declares, secrets replaced by [`REDACTED`], a
//! list cut to an agent limit with a summary, domain rules and suggested
//! next calls computed from the data, embedded presenters for nested
//! values, and an optional `_select` argument ([`SELECT`]) with which the
//! model picks top-level fields. Attach one with
//! [`Action::returns`](crate::Action::returns) or
//! [`Action::returns_many`](crate::Action::returns_many); from an rmcp
//! `#[tool]`, call [`present`] or [`present_many`]. A successful result's
//! `content` is then the data (compact JSON, the same value as
//! `structuredContent`), the guidance block (`<result_limit>`,
//! `<domain_rules>`, `<next_actions>`, only when there is something to
//! say), then any warnings.
//!
//! [State sync](state_sync) (§9.3) puts first the notice that tells the
//! model which earlier reads a mutation made stale, and a read action's
//! [`Freshness`] tells clients how long its results stay fresh. The
//! [egress guard](egress) (§9.2) cuts a result over its size limit at
//! boundaries that keep every part valid, and says so last.
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
//!      results read before it are stale. Repeat your earlier calls of billing.list (with the same arguments) before relying on what they returned.</stale_reads>"
//! );
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

mod fields;
mod guidance;
mod observed;
mod presentation;
mod presenter;
mod secrets;
mod standalone;
mod suggestion;
mod tool_search;

pub(crate) use fields::top_level as top_level_fields;
pub(crate) use guidance::CallTarget;
pub use guidance::{Cut, Guidance, MAX_SUGGESTIONS, Suggested, is_guidance, is_notice};
pub(crate) use observed::{observe, observing};
pub use presentation::SELECT;
pub(crate) use presentation::{Hidden, Presentation, output_schema};
pub(crate) use presenter::Present;
pub use presenter::Presenter;
pub use secrets::REDACTED;
pub use standalone::{output_schema_of, present, present_many};
pub use suggestion::Suggestion;
pub use tool_search::SEARCH_RESULT_TAG;
pub(crate) use tool_search::{SearchAnswer, search_result};

pub mod egress;
mod freshness;
pub mod state_sync;

pub use egress::DEFAULT_EGRESS_LIMIT;
pub use freshness::Freshness;

#[cfg(test)]
mod wire_doc_tests;

#[cfg(test)]
mod attack_tests;
