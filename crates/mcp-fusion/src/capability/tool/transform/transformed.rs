//! [`Transformed`]: one tool as a transform shows it, and how its calls are
//! turned back into calls of the tool.

use std::collections::{HashMap, HashSet};

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

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
    /// The hidden arguments and their values, set on every call (of a
    /// group, on the calls of the actions that take them).
    pub hidden: Vec<(String, HiddenValue)>,
    /// For a group's tool: its discriminator and the arguments each of its
    /// actions takes, so that a hidden argument is set only on the calls of
    /// the actions that take it.
    pub(crate) actions: Option<GroupArguments>,
}

/// A group's discriminator and, per action, the names of its arguments.
#[derive(Debug, Clone)]
pub(crate) struct GroupArguments {
    pub(crate) discriminator: String,
    pub(crate) takes: HashMap<String, HashSet<String>>,
}

impl GroupArguments {
    /// Whether the call `arguments` names an action that does not take
    /// `argument` (an action the group does not list takes everything: its
    /// server answers for it).
    fn leaves_out(&self, arguments: &JsonObject, argument: &str) -> bool {
        arguments
            .get(&self.discriminator)
            .and_then(Value::as_str)
            .and_then(|action| self.takes.get(action))
            .is_some_and(|takes| !takes.contains(argument))
    }
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
    /// any value the model sent for it), the rest as sent. On a group, a
    /// hidden argument is set only when the action called takes it.
    pub fn arguments(&self, ctx: &CallContext, mut arguments: JsonObject) -> JsonObject {
        for (name, value) in &self.hidden {
            if self
                .actions
                .as_ref()
                .is_some_and(|group| group.leaves_out(&arguments, name))
            {
                continue;
            }
            arguments.insert(name.clone(), value.value(ctx));
        }
        arguments
    }
}
