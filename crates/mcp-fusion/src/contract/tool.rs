//! [`ToolContract`]: one MCP tool and its actions.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::action::ActionContract;
use super::canonical::digest_of;

/// The contract of one MCP tool: its own description, its discriminator (for
/// a group) and each action's contract. An ungrouped tool has one action
/// named after the tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolContract {
    /// The MCP tool name.
    pub name: String,
    /// The tool's description as `tools/list` shows it; `None` when blank.
    pub description: Option<String>,
    /// The argument that selects the action, for a group (`action`).
    pub discriminator: Option<String>,
    /// Every action, by name.
    pub actions: BTreeMap<String, ActionContract>,
}

impl ToolContract {
    /// `sha256:<hex>` of the canonical JSON of `{"actions": {name: action
    /// digest}, "description"?, "discriminator"?}`: it changes when anything
    /// of the tool or of one of its actions changes.
    pub fn digest(&self) -> String {
        let actions: Map<String, Value> = self
            .actions
            .iter()
            .map(|(name, action)| (name.clone(), json!(action.digest())))
            .collect();
        let mut object = Map::new();
        object.insert("actions".into(), Value::Object(actions));
        self.insert_own(&mut object);
        digest_of(&Value::Object(object))
    }

    /// The lockfile form: `{"actions": {name: action JSON + "digest"},
    /// "description"?, "digest", "discriminator"?}`, keys sorted.
    pub fn to_json(&self) -> Value {
        let actions: Map<String, Value> = self
            .actions
            .iter()
            .map(|(name, action)| {
                let mut value = action.to_json();
                value["digest"] = json!(action.digest());
                (name.clone(), value)
            })
            .collect();
        let mut object = Map::new();
        object.insert("actions".into(), Value::Object(actions));
        self.insert_own(&mut object);
        object.insert("digest".into(), json!(self.digest()));
        super::canonical::normalize(&Value::Object(object))
    }

    fn insert_own(&self, object: &mut Map<String, Value>) {
        if let Some(description) = &self.description {
            object.insert("description".into(), json!(description));
        }
        if let Some(discriminator) = &self.discriminator {
            object.insert("discriminator".into(), json!(discriminator));
        }
    }
}
