//! [`Transformed`]: one tool as a transform shows it, and how its calls are
//! turned back into calls of the tool.

use rmcp::model::{JsonObject, Tool};

use super::HiddenValue;
use crate::handler::CallContext;

/// One tool of another server as [`Transforms::apply`](super::Transforms::apply)
/// shows it: the tool to list (its new name, description and
/// `inputSchema`, not yet under a namespace) and what a call of it becomes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Transformed {
    /// The tool as listed: renamed, re-described, its hidden arguments out
    /// of `inputSchema.properties` and `inputSchema.required`.
    pub tool: Tool,
    /// The tool's own name, which calls are sent to.
    pub source: String,
    /// The hidden arguments and their values, set on every call.
    pub hidden: Vec<(String, HiddenValue)>,
}

impl Transformed {
    /// The tool listed under `namespace`: `<namespace>.<name>`.
    pub fn namespaced(&self, namespace: &str) -> Tool {
        let mut tool = self.tool.clone();
        tool.name = format!("{namespace}.{}", tool.name).into();
        tool
    }

    /// The arguments to send to the tool for the model's `arguments`: each
    /// hidden argument set to its value for the call of `ctx` (replacing
    /// any value the model sent for it), the rest as sent.
    pub fn arguments(&self, ctx: &CallContext, mut arguments: JsonObject) -> JsonObject {
        for (name, value) in &self.hidden {
            arguments.insert(name.clone(), value.value(ctx));
        }
        arguments
    }
}
