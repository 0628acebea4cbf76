//! Presenting a value outside a mcp-fusion server: for an rmcp `#[tool]`
//! (`crate::router_contract`, `examples/with-rmcp`) or any code that makes
//! its own `CallToolResult`.

use std::collections::HashMap;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::guidance::CallTarget;
use super::presentation::{Presentation, output_schema};
use super::presenter::Presenter;
use crate::error::ToolError;
use crate::handler::ToolOutput;

/// `value` presented by `presenter` as the result of the tool `tool`
/// (wire contract §9.1): its declared fields, secrets redacted, as JSON
/// text and `structuredContent`, then the guidance block. With `many`, a
/// list cut to the presenter's agent limit, in `{"items": [...]}`, whose
/// summary names `tool` and `narrowed_by`. A suggestion's action is called
/// as a plain tool of that name. The tool's `outputSchema` is
/// [`output_schema_of`]'s.
///
/// ```
/// use mcp_fusion::present::{Presenter, present};
///
/// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// struct Invoice { id: String, card_number: String }
///
/// let invoices = Presenter::<Invoice>::new("Invoice").secret("card_number");
/// let result = present(&invoices, "get_invoice", Invoice { id: "inv_1".into(), card_number: "4111".into() }).unwrap();
/// assert_eq!(result.structured_content.unwrap()["card_number"], "[redacted]");
/// ```
///
/// # Errors
/// An `INTERNAL_ERROR` [`ToolError`] when the value does not serialize, is
/// not a `T`, or does not match the output schema once presented.
pub fn present<T>(
    presenter: &Presenter<T>,
    tool: &str,
    value: impl Serialize,
) -> Result<CallToolResult, ToolError>
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    presented(presenter, tool, &[], value, false)
}

/// A list presented as [`present`] presents one value: cut to the agent
/// limit, whose summary tells the model to call `tool` again narrowed by
/// `narrowed_by` (argument names).
///
/// # Errors
/// As [`present`]; also when `values` is not a list.
pub fn present_many<T>(
    presenter: &Presenter<T>,
    tool: &str,
    narrowed_by: &[&str],
    values: impl Serialize,
) -> Result<CallToolResult, ToolError>
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    presented(presenter, tool, narrowed_by, values, true)
}

/// The `outputSchema` of a tool whose results `presenter` presents (`many`:
/// a list), as a JSON object.
pub fn output_schema_of<T>(presenter: &Presenter<T>, many: bool) -> serde_json::Value
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    output_schema(presenter, many)
}

fn presented<T>(
    presenter: &Presenter<T>,
    tool: &str,
    narrowed_by: &[&str],
    value: impl Serialize,
    many: bool,
) -> Result<CallToolResult, ToolError>
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    let erased = presenter.erased();
    let schema = output_schema(&*erased, many);
    let narrowed_by: Vec<String> = narrowed_by.iter().map(|&s| s.to_owned()).collect();
    let targets: HashMap<String, CallTarget> = erased
        .suggested_actions()
        .into_iter()
        .map(|action| {
            let target = CallTarget {
                tool: action.clone(),
                discriminator: None,
            };
            (action, target)
        })
        .collect();
    let presentation = Presentation::new(erased, many, tool, &narrowed_by, &schema)
        .map_err(ToolError::internal)?;
    presentation.set_targets(targets);
    let value = serde_json::to_value(value).map_err(ToolError::internal)?;
    let output = presentation.present(ToolOutput::json(value), None)?;
    Ok(output.into_call_tool_result(true))
}
