//! [`ToolSummary::of`]: a listed tool's actions and required fields, read
//! from its `_meta` or its input schema (for `fusion tools` and for callers
//! who want the same).

use rmcp::model::Tool;
use serde_json::Value;

use crate::json::required_of;
use crate::tool_meta::{ACTIONS_META_KEY, DISCRIMINATOR_META_KEY};

/// One action of a grouped tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ActionSummary {
    /// The action key (the discriminator value), e.g. `get_invoice`.
    pub name: String,
    /// Its required fields (the discriminator left out), when its own schema
    /// says; empty otherwise.
    pub required: Vec<String>,
}

/// A listed tool, summarised ([`ToolSummary::of`],
/// [`FusionClient::tool_summaries`](super::FusionClient::tool_summaries)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolSummary {
    /// The MCP tool name.
    pub name: String,
    /// The first line of its description, if any.
    pub description: Option<String>,
    /// For a grouped tool, its actions in the server's order; empty for a
    /// plain tool.
    pub actions: Vec<ActionSummary>,
    /// The top-level required fields (the discriminator left out).
    pub required: Vec<String>,
}

impl ToolSummary {
    /// Summarises `tool`. Recognised shapes:
    ///
    /// - an mcp-fusion tool, whose `_meta["mcp-fusion/actions"]` lists every
    ///   action with its own input schema: a group (one with
    ///   `_meta["mcp-fusion/discriminator"]`) has one action per entry, with the
    ///   `required` of the entry's schema; any other such tool is a plain tool;
    /// - a `oneOf` / `anyOf` of object schemas whose `properties[discriminator]`
    ///   has a `const` (or a one-item `enum`): one action per branch, with the
    ///   branch's `required`;
    /// - a flat schema whose `properties[discriminator].enum` lists the actions:
    ///   one action per value, whose required fields the schema does not say;
    /// - anything else: a plain tool with its top-level `required`.
    ///
    /// `discriminator` is the field that selects a foreign tool's action; an
    /// mcp-fusion tool names its own. Never panics on a malformed schema or
    /// `_meta`; unknown parts are ignored.
    pub fn of(tool: &Tool, discriminator: &str) -> ToolSummary {
        let schema = Value::Object(tool.input_schema.as_ref().clone());
        let meta = tool.meta.as_ref().map(|m| &m.0);
        let listed = meta
            .and_then(|m| m.get(ACTIONS_META_KEY))
            .and_then(Value::as_array);
        let (discriminator, actions) = match listed {
            Some(entries) => {
                let own = meta
                    .and_then(|m| m.get(DISCRIMINATOR_META_KEY))
                    .and_then(Value::as_str);
                let actions = own.map_or_else(Vec::new, |d| listed_actions(entries, d));
                (own, actions)
            }
            None => {
                let actions = branch_actions(&schema, discriminator)
                    .unwrap_or_else(|| enum_actions(&schema, discriminator));
                (Some(discriminator), actions)
            }
        };
        ToolSummary {
            name: tool.name.to_string(),
            description: tool
                .description
                .as_deref()
                .unwrap_or("")
                .lines()
                .map(str::trim)
                .find(|line| !line.is_empty())
                .map(str::to_owned),
            actions,
            required: required_but(&schema, discriminator),
        }
    }
}

/// The `required` names of `schema`, `discriminator` left out.
fn required_but(schema: &Value, discriminator: Option<&str>) -> Vec<String> {
    required_of(schema)
        .filter(|name| Some(*name) != discriminator)
        .map(str::to_owned)
        .collect()
}

/// The actions of an mcp-fusion group, from its `_meta` entries (`{"name",
/// "inputSchema", …}`); an entry without a name is skipped.
fn listed_actions(entries: &[Value], discriminator: &str) -> Vec<ActionSummary> {
    entries
        .iter()
        .filter_map(|entry| {
            let name = entry.get("name")?.as_str().filter(|n| !n.is_empty())?;
            let schema = entry.get("inputSchema").unwrap_or(&Value::Null);
            Some(ActionSummary {
                name: name.to_owned(),
                required: required_but(schema, Some(discriminator)),
            })
        })
        .collect()
}

fn discriminator_schema<'a>(schema: &'a Value, discriminator: &str) -> Option<&'a Value> {
    schema
        .get("properties")?
        .get(discriminator)
        .filter(|d| d.is_object())
}

/// A flat schema's actions, from the discriminator's `enum`: the schema does
/// not say which fields each action requires.
fn enum_actions(schema: &Value, discriminator: &str) -> Vec<ActionSummary> {
    discriminator_schema(schema, discriminator)
        .and_then(|d| d.get("enum"))
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(|name| ActionSummary {
                    name: name.to_owned(),
                    required: Vec::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn branch_actions(schema: &Value, discriminator: &str) -> Option<Vec<ActionSummary>> {
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    let actions: Vec<ActionSummary> = branches
        .iter()
        .filter(|branch| branch.is_object())
        .filter_map(|branch| {
            let d = discriminator_schema(branch, discriminator)?;
            let name = match (d.get("const"), d.get("enum").and_then(Value::as_array)) {
                (Some(Value::String(name)), _) => name.clone(),
                (_, Some(one)) if one.len() == 1 => one[0].as_str()?.to_owned(),
                _ => return None,
            };
            Some(ActionSummary {
                name,
                required: required_but(branch, Some(discriminator)),
            })
        })
        .collect();
    (!actions.is_empty()).then_some(actions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn fusion_group_schema() {
        let t = tool(json!({
            "name": "billing",
            "description": "Invoices.\n\nSet \"action\" to choose one of these actions:\n- get_invoice: Fetch one (requires id) [read-only]\n- list_invoices (no required fields)\n- pay: Pay (requires id, amount)",
            "inputSchema": {"type": "object", "required": ["action"], "properties": {
                "action": {"type": "string", "enum": ["get_invoice", "list_invoices", "pay"]},
                "id": {"type": "string"}
            }},
            "_meta": {
                "mcp-fusion/discriminator": "action",
                "mcp-fusion/actions": [
                    {"name": "get_invoice", "inputSchema": {"type": "object", "required": ["id"]}},
                    {"name": "list_invoices", "inputSchema": {"type": "object"}},
                    {"name": "pay", "inputSchema": {"type": "object", "required": ["id", "amount"]}}
                ]
            }
        }));
        let s = ToolSummary::of(&t, "action");
        assert_eq!(s.description.as_deref(), Some("Invoices."));
        assert!(s.required.is_empty());
        let actions: Vec<(&str, Vec<String>)> = s
            .actions
            .iter()
            .map(|a| (a.name.as_str(), a.required.clone()))
            .collect();
        assert_eq!(
            actions,
            [
                ("get_invoice", vec!["id".to_owned()]),
                ("list_invoices", vec![]),
                ("pay", vec!["id".to_owned(), "amount".to_owned()]),
            ]
        );
    }

    #[test]
    fn one_of_branches_and_plain_tools() {
        let t = tool(json!({
            "name": "files",
            "inputSchema": {"type": "object", "oneOf": [
                {"properties": {"op": {"const": "read"}, "path": {}}, "required": ["op", "path"]},
                {"properties": {"op": {"enum": ["list"]}}},
                "garbage"
            ]}
        }));
        let s = ToolSummary::of(&t, "op");
        assert_eq!(s.actions.len(), 2);
        assert_eq!(s.actions[0].required, ["path"]);
        assert_eq!(s.actions[1].name, "list");

        let t = tool(
            json!({"name": "echo", "inputSchema": {"type": "object", "required": ["message", 7]}}),
        );
        let s = ToolSummary::of(&t, "action");
        assert!(s.actions.is_empty());
        assert_eq!(s.required, ["message"]);
    }

    #[test]
    fn fusion_meta_names_its_own_discriminator_and_plain_tools() {
        let t = tool(json!({
            "name": "files",
            "inputSchema": {"type": "object", "required": ["op"], "properties": {
                "op": {"type": "string", "enum": ["read", "list"]}
            }},
            "_meta": {
                "mcp-fusion/discriminator": "op",
                "mcp-fusion/actions": [
                    {"name": "read", "inputSchema": {"required": ["path", 3]}},
                    {"inputSchema": {}},
                    {"name": "list"}
                ]
            }
        }));
        let s = ToolSummary::of(&t, "action");
        assert!(s.required.is_empty());
        let actions: Vec<(&str, &[String])> = s
            .actions
            .iter()
            .map(|a| (a.name.as_str(), a.required.as_slice()))
            .collect();
        assert_eq!(actions, [("read", &["path".to_owned()][..]), ("list", &[])]);

        let t = tool(json!({
            "name": "echo",
            "inputSchema": {"type": "object", "required": ["action", "message"]},
            "_meta": {"mcp-fusion/actions": [
                {"name": "echo", "inputSchema": {"type": "object", "required": ["action", "message"]}}
            ]}
        }));
        let s = ToolSummary::of(&t, "action");
        assert!(s.actions.is_empty());
        assert_eq!(s.required, ["action", "message"]);
    }

    #[test]
    fn foreign_descriptions_are_not_read_for_fields() {
        let t = tool(json!({
            "name": "billing",
            "description": "- get_invoice: Fetch one (requires id)",
            "inputSchema": {"properties": {"action": {"enum": ["get_invoice"]}}},
            "_meta": {"mcp-fusion/actions": "not a list"}
        }));
        let s = ToolSummary::of(&t, "action");
        assert_eq!(s.actions.len(), 1);
        assert_eq!(s.actions[0].name, "get_invoice");
        assert!(s.actions[0].required.is_empty());
        assert!(s.required.is_empty());
    }
}
