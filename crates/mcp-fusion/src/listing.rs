//! What `tools/list` shows, in the server's own terms: [`ToolListing`] (one
//! tool) and [`ActionListing`] (one of its actions), with their
//! [`Annotations`]. The one listing view: a server gives its own
//! (`FusionServer::listings`), a client reads any server's `tools/list` into
//! it (`ToolListing::of`, `FusionClient::tool_listings`). What `tools/list`
//! sends is MCP's own `Tool`, made from a listing (`ToolListing::to_tool`).
//! Re-exported from `capability`.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::json::required_of;
use crate::tool_meta::{ACTIONS_META_KEY, DISCRIMINATOR_META_KEY, FRESHNESS_META_KEY};

/// The behaviour annotations of an action (MCP tool annotations: its
/// `readOnlyHint`, `destructiveHint`, `idempotentHint`), as the action
/// declares them, as `tools/list` shows them and as its contract records
/// them. A tool listed without them takes MCP's defaults for the hints it
/// leaves out where noted ([`crate::contract::ServerContract::from_tools`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// The action does not change anything (`readOnlyHint`).
    pub read_only: bool,
    /// The action may destroy or irreversibly change data (`destructiveHint`).
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect (`idempotentHint`).
    pub idempotent: bool,
}

impl Annotations {
    /// Whether any hint is set.
    pub fn any(self) -> bool {
        self.read_only || self.destructive || self.idempotent
    }
}

/// One entry of `tools/list`, in the server's own terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolListing {
    /// The MCP tool name.
    pub name: String,
    /// The description (for a group: its own text, then the actions).
    pub description: String,
    /// The input schema (a JSON Schema object, draft 2020-12).
    pub input_schema: Value,
    /// The output schema, for a plain tool that declared one.
    pub output_schema: Option<Value>,
    /// Behaviour hints. For a group: read-only and idempotent when every
    /// action is, destructive when any action is.
    pub annotations: Annotations,
    /// The discriminator field, for a group.
    pub discriminator: Option<String>,
    /// Every action with its own schema and settings (one for a plain tool),
    /// in registration order. Sent in the tool's
    /// `_meta["mcp-fusion/actions"]` so that a client — `fusion lock` — can
    /// rebuild each action's contract from `tools/list`.
    pub actions: Vec<ActionListing>,
    /// The tool's `_meta` entries other than the library's own
    /// (`mcp-fusion/…`): those its code set (`Action::meta`, `Group::meta`)
    /// and its app's link (`ui`, MCP Apps). Sent under the library's
    /// entries, which win a key both have.
    pub meta: Map<String, Value>,
}

/// One action as `tools/list` describes it in `_meta["mcp-fusion/actions"]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionListing {
    /// The action key (`get_invoice`), or the tool's name for a plain tool.
    pub name: String,
    /// The action's own description.
    pub description: Option<String>,
    /// The action's own input schema (without the discriminator).
    pub input_schema: Value,
    /// The output schema, if the action declared one.
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// The replacement, when the action is deprecated.
    pub deprecated: Option<String>,
    /// Scopes the caller's credentials must carry.
    pub required_scopes: Vec<String>,
    /// Guard settings: `{"maxActive", "maxQueue", "rateLimit": {"calls",
    /// "periodMs", "scope"}, "timeoutMs"}`, each only when set.
    pub guards: Value,
    /// What its presenter shows the model (wire contract §9.1), when it has
    /// one: `{"name", "many", "agentLimit"?, "select", "secrets",
    /// "embedded": [{"field", "presenter"}], "rules": {"count", "names"},
    /// "suggestions": {"count", "actions"}}`.
    pub presenter: Option<Value>,
    /// What is declared of its results (`docs/wire-contract.md` §9), a JSON
    /// object, `{}` for nothing: `{"egressLimitBytes"?, "freshness"?,
    /// "invalidates"?, "reads"?}` — the egress limit in bytes when it is
    /// not the default (262 144), the freshness (`{"noStore": true}` or
    /// `{"maxAgeSeconds": n}`), the patterns it invalidates and the domains
    /// it reads.
    pub results: Value,
}

impl ActionListing {
    /// The JSON form used in `_meta["mcp-fusion/actions"]`: `{"name",
    /// "description"?, "inputSchema", "outputSchema"?, "annotations":
    /// {"readOnlyHint", "destructiveHint", "idempotentHint"}, "deprecated"?,
    /// "requiredScopes", "guards", "presenter"?, "results"?}` (`results`
    /// only when it declares something).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("name".into(), json!(self.name));
        if let Some(description) = &self.description {
            object.insert("description".into(), json!(description));
        }
        object.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(output) = &self.output_schema {
            object.insert("outputSchema".into(), output.clone());
        }
        object.insert(
            "annotations".into(),
            json!({
                "readOnlyHint": self.annotations.read_only,
                "destructiveHint": self.annotations.destructive,
                "idempotentHint": self.annotations.idempotent,
            }),
        );
        if let Some(replacement) = &self.deprecated {
            object.insert("deprecated".into(), json!(replacement));
        }
        object.insert("requiredScopes".into(), json!(self.required_scopes));
        object.insert("guards".into(), self.guards.clone());
        if let Some(presenter) = &self.presenter {
            object.insert("presenter".into(), presenter.clone());
        }
        if self.results.as_object().is_some_and(|r| !r.is_empty()) {
            object.insert("results".into(), self.results.clone());
        }
        Value::Object(object)
    }
}

impl ToolListing {
    /// The rmcp `Tool` `tools/list` sends for this listing: name,
    /// description, schemas, the hints as annotations (when any is set),
    /// and `_meta` with every action (and a group's discriminator).
    pub(crate) fn to_tool(&self) -> Tool {
        let schema = match &self.input_schema {
            Value::Object(object) => object.clone(),
            _ => Default::default(),
        };
        let mut tool = Tool::new(
            self.name.clone(),
            self.description.clone(),
            Arc::new(schema),
        );
        if let Some(Value::Object(output)) = &self.output_schema {
            tool = tool.with_raw_output_schema(Arc::new(output.clone()));
        }
        let mut meta = rmcp::model::MetaObject::new();
        meta.0.insert(
            ACTIONS_META_KEY.to_owned(),
            Value::Array(self.actions.iter().map(|a| a.to_json()).collect()),
        );
        if let Some(discriminator) = &self.discriminator {
            meta.0.insert(
                DISCRIMINATOR_META_KEY.to_owned(),
                Value::String(discriminator.clone()),
            );
        }
        if let (None, [action]) = (&self.discriminator, self.actions.as_slice())
            && let Some(freshness) = action.results.get("freshness")
        {
            meta.0
                .insert(FRESHNESS_META_KEY.to_owned(), freshness.clone());
        }
        let meta = crate::meta_keys::merged_under(meta.0, &self.meta);
        tool = tool.with_meta(rmcp::model::MetaObject(meta));
        if self.annotations.any() {
            let annotations = ToolAnnotations::new()
                .read_only(self.annotations.read_only)
                .destructive(self.annotations.destructive)
                .idempotent(self.annotations.idempotent);
            tool = tool.with_annotations(annotations);
        }
        tool
    }

    /// The listing of a tool another server listed (`Action::from_tool`),
    /// read as [`ServerContract::from_tools`](crate::contract::ServerContract::from_tools)
    /// reads any server's `tools/list`, so that a server's contract is the
    /// same from its listings and from its `tools/list`: the actions of its
    /// `_meta["mcp-fusion/actions"]` (another mcp-fusion server's) and the
    /// discriminator of `_meta["mcp-fusion/discriminator"]`; else — also
    /// when those are malformed — one action named after the tool, with its
    /// schemas and annotations (MCP's defaults for the hints it leaves out:
    /// not read-only, destructive, not idempotent), no scopes, no guards.
    pub(crate) fn of_foreign(tool: &Tool) -> ToolListing {
        let meta = tool.meta.as_ref().map(|m| &m.0);
        let input_schema = Value::Object((*tool.input_schema).clone());
        let output_schema = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()));
        let description = tool.description.as_deref().map(str::to_owned);
        let hint = |pick: fn(&ToolAnnotations) -> Option<bool>, default: bool| {
            tool.annotations.as_ref().and_then(pick).unwrap_or(default)
        };
        let listed = meta
            .and_then(|m| m.get(ACTIONS_META_KEY))
            .and_then(Value::as_array)
            .and_then(|entries| {
                entries
                    .iter()
                    .map(ActionListing::from_json)
                    .collect::<Option<Vec<_>>>()
            });
        let (discriminator, actions) = match listed {
            Some(actions) => (
                meta.and_then(|m| m.get(DISCRIMINATOR_META_KEY))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                actions,
            ),
            None => (
                None,
                vec![ActionListing {
                    name: tool.name.to_string(),
                    description: description.clone(),
                    input_schema: input_schema.clone(),
                    output_schema: output_schema.clone(),
                    annotations: Annotations {
                        read_only: hint(|a| a.read_only_hint, false),
                        destructive: hint(|a| a.destructive_hint, true),
                        idempotent: hint(|a| a.idempotent_hint, false),
                    },
                    deprecated: None,
                    required_scopes: Vec::new(),
                    guards: Value::Object(Map::new()),
                    presenter: None,
                    results: Value::Object(Map::new()),
                }],
            ),
        };
        ToolListing {
            name: tool.name.to_string(),
            description: description.unwrap_or_default(),
            input_schema,
            output_schema,
            annotations: Annotations {
                read_only: hint(|a| a.read_only_hint, false),
                destructive: hint(|a| a.destructive_hint, false),
                idempotent: hint(|a| a.idempotent_hint, false),
            },
            discriminator,
            actions,
            meta: meta
                .map(|meta| {
                    meta.iter()
                        .filter(|(key, _)| !key.starts_with("mcp-fusion/"))
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl ActionListing {
    /// Reads the form of [`to_json`](Self::to_json) (one entry of
    /// `_meta["mcp-fusion/actions"]`) as the contract reads it: a missing
    /// hint is false, missing scopes none, missing guards `{}`. `None` when
    /// it is malformed (no name, no object `inputSchema`, a member of the
    /// wrong type).
    fn from_json(value: &Value) -> Option<ActionListing> {
        let object = value.as_object()?;
        let text = |key: &str| match object.get(key) {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(s.clone())),
            Some(_) => None,
        };
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())?;
        let input_schema = object.get("inputSchema").filter(|s| s.is_object())?;
        let output_schema = match object.get("outputSchema") {
            None | Some(Value::Null) => None,
            Some(schema @ Value::Object(_)) => Some(schema.clone()),
            Some(_) => return None,
        };
        let annotations = match object.get("annotations") {
            None | Some(Value::Null) => Annotations::default(),
            Some(Value::Object(annotations)) => {
                let hint = |key: &str| match annotations.get(key) {
                    None | Some(Value::Null) => Some(false),
                    Some(Value::Bool(b)) => Some(*b),
                    Some(_) => None,
                };
                Annotations {
                    read_only: hint("readOnlyHint")?,
                    destructive: hint("destructiveHint")?,
                    idempotent: hint("idempotentHint")?,
                }
            }
            Some(_) => return None,
        };
        let required_scopes = match object.get("requiredScopes") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<_>>()?,
            Some(_) => return None,
        };
        let guards = match object.get("guards") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(guards @ Value::Object(_)) => guards.clone(),
            Some(_) => return None,
        };
        let presenter = match object.get("presenter") {
            None | Some(Value::Null) => None,
            Some(presenter @ Value::Object(_)) => Some(presenter.clone()),
            Some(_) => return None,
        };
        let results = match object.get("results") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(results @ Value::Object(_)) => results.clone(),
            Some(_) => return None,
        };
        Some(ActionListing {
            name: name.to_owned(),
            description: text("description")?,
            input_schema: input_schema.clone(),
            output_schema,
            annotations,
            deprecated: text("deprecated")?,
            required_scopes,
            guards,
            presenter,
            results,
        })
    }
}

impl ToolListing {
    /// A tool any server listed, read for its caller (`fusion tools`,
    /// `FusionClient::tool_listings`).
    /// Recognised shapes:
    ///
    /// - an mcp-fusion tool, whose `_meta["mcp-fusion/actions"]` lists every
    ///   action with its own input schema: a group (one with
    ///   `_meta["mcp-fusion/discriminator"]`) has one action per entry (an
    ///   entry without a name is skipped, one without an object schema has
    ///   `{}`); any other such tool is a plain tool;
    /// - a `oneOf` / `anyOf` of object schemas whose `properties[discriminator]`
    ///   has a `const` (or a one-item `enum`): one action per branch, whose
    ///   schema is the branch without the discriminator;
    /// - a flat schema whose `properties[discriminator].enum` lists the actions:
    ///   one action per value, with the schema `{}` (the listing does not say
    ///   which fields each requires);
    /// - anything else: a plain tool (`discriminator` `None`, one action named
    ///   after the tool).
    ///
    /// `discriminator` is the field that selects a foreign tool's action; an
    /// mcp-fusion tool names its own. Never panics on a malformed schema or
    /// `_meta`; unknown parts are ignored.
    pub fn of(tool: &Tool, discriminator: &str) -> ToolListing {
        let mut listing = ToolListing::of_foreign(tool);
        let meta = tool.meta.as_ref().map(|m| &m.0);
        match meta
            .and_then(|m| m.get(ACTIONS_META_KEY))
            .and_then(Value::as_array)
        {
            Some(entries) => {
                listing.discriminator = meta
                    .and_then(|m| m.get(DISCRIMINATOR_META_KEY))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                listing.actions = entries
                    .iter()
                    .filter_map(|entry| {
                        ActionListing::from_json(entry).or_else(|| ActionListing::named(entry))
                    })
                    .collect();
            }
            None => {
                let template = listing.actions.first().cloned();
                let guessed = branch_actions(&listing.input_schema, discriminator)
                    .unwrap_or_else(|| enum_actions(&listing.input_schema, discriminator));
                if let (Some(template), false) = (template, guessed.is_empty()) {
                    listing.discriminator = Some(discriminator.to_owned());
                    listing.actions = guessed
                        .into_iter()
                        .map(|(name, input_schema)| ActionListing {
                            name,
                            description: None,
                            input_schema,
                            output_schema: None,
                            ..template.clone()
                        })
                        .collect();
                }
            }
        }
        listing
    }

    /// The tool's top-level required fields, its discriminator left out.
    pub fn required(&self) -> Vec<&str> {
        required_of(&self.input_schema)
            .filter(|name| Some(*name) != self.discriminator.as_deref())
            .collect()
    }
}

impl ActionListing {
    /// The required fields of the action's own input schema.
    pub fn required(&self) -> Vec<&str> {
        required_of(&self.input_schema).collect()
    }

    /// An entry of `_meta["mcp-fusion/actions"]` that [`from_json`](Self::from_json)
    /// refuses, read for its name (and its schema when it is an object).
    fn named(entry: &Value) -> Option<ActionListing> {
        let name = entry.get("name")?.as_str().filter(|n| !n.is_empty())?;
        Some(ActionListing {
            name: name.to_owned(),
            description: None,
            input_schema: entry
                .get("inputSchema")
                .filter(|s| s.is_object())
                .cloned()
                .unwrap_or_else(|| json!({})),
            output_schema: None,
            annotations: Annotations::default(),
            deprecated: None,
            required_scopes: Vec::new(),
            guards: Value::Object(Map::new()),
            presenter: None,
            results: Value::Object(Map::new()),
        })
    }
}

fn discriminator_schema<'a>(schema: &'a Value, discriminator: &str) -> Option<&'a Value> {
    schema
        .get("properties")?
        .get(discriminator)
        .filter(|d| d.is_object())
}

/// A flat schema's actions, from the discriminator's `enum`: the schema does
/// not say which fields each action requires.
fn enum_actions(schema: &Value, discriminator: &str) -> Vec<(String, Value)> {
    discriminator_schema(schema, discriminator)
        .and_then(|d| d.get("enum"))
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(|name| (name.to_owned(), json!({})))
                .collect()
        })
        .unwrap_or_default()
}

/// A `oneOf` / `anyOf` schema's actions: one per branch that names its
/// action, with the branch's schema, the discriminator left out.
fn branch_actions(schema: &Value, discriminator: &str) -> Option<Vec<(String, Value)>> {
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    let actions: Vec<(String, Value)> = branches
        .iter()
        .filter(|branch| branch.is_object())
        .filter_map(|branch| {
            let d = discriminator_schema(branch, discriminator)?;
            let name = match (d.get("const"), d.get("enum").and_then(Value::as_array)) {
                (Some(Value::String(name)), _) => name.clone(),
                (_, Some(one)) if one.len() == 1 => one[0].as_str()?.to_owned(),
                _ => return None,
            };
            let mut own = branch.clone();
            if let Some(properties) = own.get_mut("properties").and_then(Value::as_object_mut) {
                properties.remove(discriminator);
            }
            if let Some(required) = own.get_mut("required").and_then(Value::as_array_mut) {
                required.retain(|name| name.as_str() != Some(discriminator));
            }
            Some((name, own))
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
        let s = ToolListing::of(&t, "action");
        assert!(s.description.starts_with("Invoices.\n"));
        assert!(s.required().is_empty());
        let actions: Vec<(&str, Vec<&str>)> = s
            .actions
            .iter()
            .map(|a| (a.name.as_str(), a.required()))
            .collect();
        assert_eq!(
            actions,
            [
                ("get_invoice", vec!["id"]),
                ("list_invoices", vec![]),
                ("pay", vec!["id", "amount"]),
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
        let s = ToolListing::of(&t, "op");
        assert_eq!(s.actions.len(), 2);
        assert_eq!(s.actions[0].required(), ["path"]);
        assert_eq!(s.actions[1].name, "list");

        let t = tool(
            json!({"name": "echo", "inputSchema": {"type": "object", "required": ["message", 7]}}),
        );
        let s = ToolListing::of(&t, "action");
        assert!(s.discriminator.is_none());
        assert_eq!(s.required(), ["message"]);
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
        let s = ToolListing::of(&t, "action");
        assert!(s.required().is_empty());
        let actions: Vec<(&str, Vec<&str>)> = s
            .actions
            .iter()
            .map(|a| (a.name.as_str(), a.required()))
            .collect();
        assert_eq!(actions, [("read", vec!["path"]), ("list", vec![])]);

        let t = tool(json!({
            "name": "echo",
            "inputSchema": {"type": "object", "required": ["action", "message"]},
            "_meta": {"mcp-fusion/actions": [
                {"name": "echo", "inputSchema": {"type": "object", "required": ["action", "message"]}}
            ]}
        }));
        let s = ToolListing::of(&t, "action");
        assert!(s.discriminator.is_none());
        assert_eq!(s.required(), ["action", "message"]);
    }

    #[test]
    fn foreign_descriptions_are_not_read_for_fields() {
        let t = tool(json!({
            "name": "billing",
            "description": "- get_invoice: Fetch one (requires id)",
            "inputSchema": {"properties": {"action": {"enum": ["get_invoice"]}}},
            "_meta": {"mcp-fusion/actions": "not a list"}
        }));
        let s = ToolListing::of(&t, "action");
        assert_eq!(s.actions.len(), 1);
        assert_eq!(s.actions[0].name, "get_invoice");
        assert!(s.actions[0].required().is_empty());
        assert!(s.required().is_empty());
    }
}
