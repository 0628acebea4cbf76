//! The error contract for servers written with rmcp's own `#[tool_router]` /
//! `#[tool]` macros: they keep their macros and answer failures as
//! `docs/wire-contract.md` says, with three changes.
//!
//! 1. **[`ToolError`](crate::ToolError) as the tools' error type.** A `#[tool]`
//!    function returning `Result<T, ToolError>` answers `Err(e)` with the
//!    `<tool_error>` envelope as its one text block and the
//!    `_meta["mcp-fusion/error"]` twin (§1), built by
//!    [`envelope::to_call_tool_result`](crate::envelope::to_call_tool_result),
//!    the function a `FusionServer` answers with. `isError` is true, as
//!    severities `error` and `critical` want (§3); rmcp sets it on every
//!    `Err`, so a `warning` rides on a success instead:
//!    `Ok(envelope::attach_warning(result, &warning))` with a
//!    `CallToolResult` (§3).
//! 2. **[`Parameters<T>`] instead of `rmcp::handler::server::wrapper::Parameters<T>`.**
//!    The arguments are checked against `T`'s derived schema by
//!    [`SchemaValidator`](crate::validation::SchemaValidator) before they are
//!    deserialized, and a failure is the phrased `<validation_error>` (§4),
//!    not rmcp's `-32602` serde text. The schema the tool lists is the one
//!    checked.
//! 3. **[`RouterContract`] around the tool router**, once: rmcp ends a call
//!    whose extractor fails with a JSON-RPC error; the routes it returns
//!    answer such a failure of [`Parameters<T>`] with the tool result it
//!    carries (`isError` true, code `VALIDATION_ERROR` in `_meta`), exactly
//!    as a `FusionServer` does. Before it is built, a tool may be given the
//!    guards of a `FusionServer`'s actions ([`RouterContract::guards`]:
//!    `RATE_LIMITED`, `SERVER_BUSY`, `TIMEOUT`, §5) and the router a
//!    lockfile whose changes validation failures carry
//!    ([`RouterContract::lockfile`], §4.1). [`answer_validation`] is the
//!    wrapping alone.
//!
//! ```
//! use mcp_fusion::ToolError;
//! use mcp_fusion::router_contract::{Parameters, answer_validation};
//! use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
//! use rmcp::model::Tool;
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct GetInvoice {
//!     #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
//!     id: String,
//! }
//!
//! struct Billing;
//!
//! // What `#[tool]` generates for
//! // `async fn get_invoice(&self, Parameters(args): Parameters<GetInvoice>) -> Result<String, ToolError>`.
//! fn get_invoice(
//!     _: &Billing,
//!     Parameters(args): Parameters<GetInvoice>,
//! ) -> Result<String, ToolError> {
//!     Err(ToolError::not_found(format!("No invoice {}.", args.id)).actions(["list_invoices"]))
//! }
//!
//! let schema = rmcp::handler::server::common::schema_for_input::<Parameters<GetInvoice>>().unwrap();
//! let router: ToolRouter<Billing> = answer_validation(
//!     ToolRouter::new().with_route(ToolRoute::new(Tool::new("get_invoice", "Read one invoice.", schema), get_invoice)),
//! );
//! assert_eq!(router.list_all()[0].input_schema["additionalProperties"], false);
//! ```
//!
//! `examples/with-rmcp` is a whole server written this way.

mod carried;
mod guarded;
mod parameters;
mod router;
mod tool_error;

pub use parameters::Parameters;
pub use router::{RouterContract, RouterContractError, answer_validation};

#[cfg(test)]
mod tests;
