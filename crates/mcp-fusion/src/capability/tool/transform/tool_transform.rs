//! [`ToolTransform`]: how one tool of another server is shown.

use std::sync::Arc;

use serde_json::Value;

use super::HiddenValue;
use crate::handler::CallContext;

/// How one tool of a mounted server or gateway upstream is shown: a new
/// name, a new description, arguments hidden from the model. Each setter
/// is optional; an empty transform shows the tool as it is.
///
/// ```
/// use mcp_fusion::capability::ToolTransform;
/// use serde_json::json;
///
/// let charge = ToolTransform::new()
///     .rename("charge_in_euros")
///     .describe("Charges a customer, in euro cents.")
///     .hide("currency", json!("EUR"))
///     .hide_with("requested_by", |ctx| json!(ctx.caller()));
/// # let _ = charge;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolTransform {
    /// The name it is listed under (inside the namespace: `billing.<name>`);
    /// `None` keeps its own. The same characters as a tool's name.
    pub name: Option<String>,
    /// The description the model reads; `None` keeps its own.
    pub description: Option<String>,
    /// The arguments taken out of its `inputSchema` (`properties` and
    /// `required`) and set on every call, in the order given; a value the
    /// model sends for one anyway is replaced.
    pub hidden: Vec<(String, HiddenValue)>,
}

impl ToolTransform {
    /// A transform that changes nothing yet.
    pub fn new() -> Self {
        ToolTransform::default()
    }

    /// Lists the tool as `name`.
    pub fn rename(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Gives the tool `description`.
    pub fn describe(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Hides the argument `argument`, set to `value` on every call. On a
    /// group's tool it is set on the calls of the actions that take it (an
    /// argument of their own input schema) and left out of the others'.
    pub fn hide(mut self, argument: impl Into<String>, value: impl Into<Value>) -> Self {
        let value = HiddenValue::Constant(value.into());
        self.hidden.push((argument.into(), value));
        self
    }

    /// Hides the argument `argument`, set on each call to what `compute`
    /// returns for the call's context (on a group's tool, as
    /// [`hide`](Self::hide) says, only for the actions that take it).
    pub fn hide_with(
        mut self,
        argument: impl Into<String>,
        compute: impl Fn(&CallContext) -> Value + Send + Sync + 'static,
    ) -> Self {
        let value = HiddenValue::Computed(Arc::new(compute));
        self.hidden.push((argument.into(), value));
        self
    }
}
