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

use serde_json::{Map, Value, json};

use super::Hints;
use crate::capability::BuildError;
use crate::json::required_of;
use crate::schema::merge_alternatives;

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
    pub hints: Hints,
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
    pub hints: Hints,
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
                "readOnlyHint": self.hints.read_only,
                "destructiveHint": self.hints.destructive,
                "idempotentHint": self.hints.idempotent,
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

/// The parts of an action that its group's listing needs.
pub(crate) struct ActionSummary<'a> {
    pub key: &'a str,
    pub description: Option<&'a str>,
    pub schema: &'a Value,
    pub hints: Hints,
    pub deprecated: Option<&'a str>,
}

fn hint_tags(hints: Hints, deprecated: Option<&str>) -> String {
    let mut tags = Vec::new();
    if hints.read_only {
        tags.push(String::from("read-only"));
    }
    if hints.destructive {
        tags.push(String::from("destructive"));
    }
    if hints.idempotent {
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
    let tags = hint_tags(Hints::default(), deprecated);
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
            hint_tags(action.hints, action.deprecated)
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
    let hints = Hints {
        read_only: actions.iter().all(|a| a.hints.read_only),
        destructive: actions.iter().any(|a| a.hints.destructive),
        idempotent: actions.iter().all(|a| a.hints.idempotent),
    };
    Ok(ToolListing {
        name: name.to_owned(),
        description: text.trim_end().to_owned(),
        input_schema: schema,
        output_schema: None,
        hints,
        discriminator: Some(discriminator.to_owned()),
        actions: Vec::new(),
    })
}
