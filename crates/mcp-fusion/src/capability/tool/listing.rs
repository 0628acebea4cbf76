//! What `tools/list` shows: a plain tool as it is, a group as one tool whose
//! schema names every action and every field.
//!
//! A group's input schema is flat on purpose (no top-level `oneOf`, which
//! several model APIs refuse in a tool's input schema): `type: object`, the
//! discriminator as a required string with an `enum` of the action keys, and
//! the union of the actions' fields, each described with the actions that use
//! it. A field that two actions type differently is an `anyOf` of both,
//! without repeats (`Currency` and `Option<Currency>` give `Currency` or
//! `null`). The tool's description lists every action with its required
//! fields.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::Annotations;
use crate::capability::BuildError;
use crate::json::required_of;
use crate::schema::merge_alternatives;
use crate::tool_meta::{ACTIONS_META_KEY, DISCRIMINATOR_META_KEY};

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
}

impl ActionListing {
    /// The JSON form used in `_meta["mcp-fusion/actions"]`: `{"name",
    /// "description"?, "inputSchema", "outputSchema"?, "annotations":
    /// {"readOnlyHint", "destructiveHint", "idempotentHint"}, "deprecated"?,
    /// "requiredScopes", "guards"}`.
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
        tool = tool.with_meta(meta);
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
        Some(ActionListing {
            name: name.to_owned(),
            description: text("description")?,
            input_schema: input_schema.clone(),
            output_schema,
            annotations,
            deprecated: text("deprecated")?,
            required_scopes,
            guards,
        })
    }
}

/// The parts of an action that its group's listing needs.
pub(crate) struct ActionSummary<'a> {
    pub key: &'a str,
    pub description: Option<&'a str>,
    pub schema: &'a Value,
    pub annotations: Annotations,
    pub deprecated: Option<&'a str>,
}

fn hint_tags(annotations: Annotations, deprecated: Option<&str>) -> String {
    let mut tags = Vec::new();
    if annotations.read_only {
        tags.push(String::from("read-only"));
    }
    if annotations.destructive {
        tags.push(String::from("destructive"));
    }
    if annotations.idempotent {
        tags.push(String::from("idempotent"));
    }
    if let Some(replacement) = deprecated {
        tags.push(format!("deprecated: use {replacement}"));
    }
    if tags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", tags.join(", "))
    }
}

/// The description of a plain tool: its text, plus a deprecation note.
pub(crate) fn plain_description(description: Option<&str>, deprecated: Option<&str>) -> String {
    let text = description.unwrap_or("").trim();
    let tags = hint_tags(Annotations::default(), deprecated);
    format!("{text}{tags}").trim().to_owned()
}

/// The listing of a group.
pub(crate) fn group_listing(
    name: &str,
    description: Option<&str>,
    discriminator: &str,
    actions: &[ActionSummary<'_>],
) -> Result<ToolListing, BuildError> {
    let keys: Vec<&str> = actions.iter().map(|a| a.key).collect();
    let mut text = String::new();
    if let Some(description) = description {
        text.push_str(description.trim());
        text.push_str("\n\n");
    }
    text.push_str(&format!(
        "Set \"{discriminator}\" to choose one of these actions:\n"
    ));
    for action in actions {
        let required: Vec<&str> = required_of(action.schema).collect();
        let fields = if required.is_empty() {
            String::from("no required fields")
        } else {
            format!("requires {}", required.join(", "))
        };
        let summary = match action.description.map(str::trim) {
            Some(d) if !d.is_empty() => format!(": {d}"),
            _ => String::new(),
        };
        text.push_str(&format!(
            "- {}{summary} ({fields}){}\n",
            action.key,
            hint_tags(action.annotations, action.deprecated)
        ));
    }

    let mut properties = Map::new();
    properties.insert(
        discriminator.to_owned(),
        json!({
            "type": "string",
            "enum": keys,
            "description": format!("The action to run: one of {}.", keys.join(", ")),
        }),
    );
    let mut used_by: Vec<(String, Vec<&str>)> = Vec::new();
    let mut defs = Map::new();
    for action in actions {
        let Some(props) = action.schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (field, subschema) in props {
            if field == discriminator {
                return Err(BuildError::BadDiscriminator {
                    group: name.to_owned(),
                    field: discriminator.to_owned(),
                    reason: format!("is also a field of action \"{}\"", action.key),
                });
            }
            match properties.get_mut(field) {
                None => {
                    properties.insert(field.clone(), subschema.clone());
                }
                Some(existing) if existing == subschema => {}
                Some(existing) => {
                    *existing = merge_alternatives(existing, subschema);
                }
            }
            match used_by.iter_mut().find(|(f, _)| f == field) {
                Some((_, users)) => users.push(action.key),
                None => used_by.push((field.clone(), vec![action.key])),
            }
        }
        if let Some(action_defs) = action.schema.get("$defs").and_then(Value::as_object) {
            for (def, subschema) in action_defs {
                match defs.get(def) {
                    Some(existing) if existing != subschema => {
                        return Err(BuildError::BadSchema {
                            action: format!("{name}.{}", action.key),
                            reason: format!(
                                "another action of \"{name}\" defines a different type named \"{def}\"; rename one of them"
                            ),
                        });
                    }
                    _ => {
                        defs.insert(def.clone(), subschema.clone());
                    }
                }
            }
        }
    }
    for (field, users) in used_by {
        if let Some(Value::Object(schema)) = properties.get_mut(&field) {
            let note = format!("Used by: {}.", users.join(", "));
            let description = match schema.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d} {note}"),
                None => note,
            };
            schema.insert("description".into(), Value::String(description));
        }
    }

    let mut schema = json!({
        "type": "object",
        "properties": properties,
        "required": [discriminator],
    });
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    let annotations = Annotations {
        read_only: actions.iter().all(|a| a.annotations.read_only),
        destructive: actions.iter().any(|a| a.annotations.destructive),
        idempotent: actions.iter().all(|a| a.annotations.idempotent),
    };
    Ok(ToolListing {
        name: name.to_owned(),
        description: text.trim_end().to_owned(),
        input_schema: schema,
        output_schema: None,
        annotations,
        discriminator: Some(discriminator.to_owned()),
        actions: Vec::new(),
    })
}
