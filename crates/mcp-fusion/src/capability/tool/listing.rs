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

use crate::capability::BuildError;
use crate::json::required_of;
use crate::listing::{Annotations, ToolListing};
use crate::schema::merge_alternatives;

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
    let text = group_description(description, discriminator, actions);
    let schema = group_schema(name, discriminator, actions)?;
    let annotations = Annotations {
        read_only: actions.iter().all(|a| a.annotations.read_only),
        destructive: actions.iter().any(|a| a.annotations.destructive),
        idempotent: actions.iter().all(|a| a.annotations.idempotent),
    };
    Ok(ToolListing {
        name: name.to_owned(),
        description: text,
        input_schema: schema,
        output_schema: None,
        annotations,
        discriminator: Some(discriminator.to_owned()),
        actions: Vec::new(),
        meta: Map::new(),
    })
}

/// A group's description: its own text, then how to choose an action and
/// a line per action (its description, required fields and hints).
fn group_description(
    description: Option<&str>,
    discriminator: &str,
    actions: &[ActionSummary<'_>],
) -> String {
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
    text.trim_end().to_owned()
}

/// A group's flat input schema: the discriminator, then every action's
/// fields (each described with the actions that use it) and `$defs`.
fn group_schema(
    name: &str,
    discriminator: &str,
    actions: &[ActionSummary<'_>],
) -> Result<Value, BuildError> {
    let keys: Vec<&str> = actions.iter().map(|a| a.key).collect();
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
        add_fields(name, discriminator, action, &mut properties, &mut used_by)?;
        add_defs(name, action, &mut defs)?;
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
    Ok(schema)
}

/// Adds the fields of `action` to its group's `properties` (a field two
/// actions type differently becomes an `anyOf` of both) and records which
/// actions use each in `used_by`; a field named as the discriminator is a
/// `BuildError`.
fn add_fields<'a>(
    name: &str,
    discriminator: &str,
    action: &ActionSummary<'a>,
    properties: &mut Map<String, Value>,
    used_by: &mut Vec<(String, Vec<&'a str>)>,
) -> Result<(), BuildError> {
    let Some(props) = action.schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
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
    Ok(())
}

/// Adds the `$defs` of `action` to its group's `defs`; a type of the same
/// name defined differently by another action is a `BuildError`.
fn add_defs(
    name: &str,
    action: &ActionSummary<'_>,
    defs: &mut Map<String, Value>,
) -> Result<(), BuildError> {
    let Some(action_defs) = action.schema.get("$defs").and_then(Value::as_object) else {
        return Ok(());
    };
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
    Ok(())
}
