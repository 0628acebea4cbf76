//! [`summarize_tool`]: a listed tool's actions and required fields, read from
//! its input schema (for `fusion tools` and for callers who want the same).

use rmcp::model::Tool;
use serde_json::{Map, Value};

/// One action of a grouped tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionSummary {
    /// The action key (the discriminator value), e.g. `get_invoice`.
    pub name: String,
    /// Its required fields (the discriminator left out), when the schema or
    /// the tool's description says; empty otherwise.
    pub required: Vec<String>,
}

/// A listed tool, summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Summarises `tool`, whose grouped actions (if any) are selected by the
/// `discriminator` argument. Recognised shapes:
///
/// - mcp-fusion's flat group schema: `properties[discriminator].enum` lists the
///   actions, and the description's lines `- action… (requires a, b)` give
///   each action's required fields;
/// - a `oneOf` / `anyOf` of object schemas whose `properties[discriminator]`
///   has a `const` (or a one-item `enum`): one action per branch, with the
///   branch's `required`;
/// - anything else: a plain tool with its top-level `required`.
///
/// Never panics on a malformed schema; unknown parts are ignored.
pub fn summarize_tool(tool: &Tool, discriminator: &str) -> ToolSummary {
    let schema = tool.input_schema.as_ref();
    let description = tool.description.as_deref().unwrap_or("");
    let required = required_of(schema, discriminator);
    let actions = match branch_actions(schema, discriminator) {
        Some(actions) => actions,
        None => enum_actions(schema, discriminator)
            .into_iter()
            .map(|name| ActionSummary {
                required: described_required(description, &name),
                name,
            })
            .collect(),
    };
    ToolSummary {
        name: tool.name.to_string(),
        description: description
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(str::to_owned),
        actions,
        required,
    }
}

fn required_of(schema: &Map<String, Value>, discriminator: &str) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .filter(|name| *name != discriminator)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn discriminator_schema<'a>(
    schema: &'a Map<String, Value>,
    discriminator: &str,
) -> Option<&'a Map<String, Value>> {
    schema
        .get("properties")?
        .as_object()?
        .get(discriminator)?
        .as_object()
}

fn enum_actions(schema: &Map<String, Value>, discriminator: &str) -> Vec<String> {
    discriminator_schema(schema, discriminator)
        .and_then(|d| d.get("enum"))
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn branch_actions(schema: &Map<String, Value>, discriminator: &str) -> Option<Vec<ActionSummary>> {
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    let actions: Vec<ActionSummary> = branches
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|branch| {
            let d = discriminator_schema(branch, discriminator)?;
            let name = match (d.get("const"), d.get("enum").and_then(Value::as_array)) {
                (Some(Value::String(name)), _) => name.clone(),
                (_, Some(one)) if one.len() == 1 => one[0].as_str()?.to_owned(),
                _ => return None,
            };
            Some(ActionSummary {
                name,
                required: required_of(branch, discriminator),
            })
        })
        .collect();
    (!actions.is_empty()).then_some(actions)
}

/// `a, b` from a description line `- name… (requires a, b)…`.
fn described_required(description: &str, action: &str) -> Vec<String> {
    description
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("- "))
        .filter_map(|rest| rest.strip_prefix(action))
        .filter(|rest| rest.starts_with([':', ' ']) || rest.is_empty())
        .find_map(|rest| {
            let start = rest.rfind("(requires ")? + "(requires ".len();
            let end = start + rest[start..].find(')')?;
            Some(
                rest[start..end]
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        })
        .unwrap_or_default()
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
            }}
        }));
        let s = summarize_tool(&t, "action");
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
        let s = summarize_tool(&t, "op");
        assert_eq!(s.actions.len(), 2);
        assert_eq!(s.actions[0].required, ["path"]);
        assert_eq!(s.actions[1].name, "list");

        let t = tool(
            json!({"name": "echo", "inputSchema": {"type": "object", "required": ["message", 7]}}),
        );
        let s = summarize_tool(&t, "action");
        assert!(s.actions.is_empty());
        assert_eq!(s.required, ["message"]);
    }
}
