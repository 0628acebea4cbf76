//! [`diff`]: every change between two server contracts, with its severity
//! (the rule table is in `docs/contracts.md`).

use std::collections::BTreeSet;

use serde_json::Value;

use super::action::ActionContract;
use super::delta::{ContractDiff, Delta};
use super::presenter_diff::diff_presenter;
use super::schema_diff::{FieldDelta, diff_schemas};
use super::schema_rules::Side;
use super::schema_summary::{cut, fields_summary};
use super::server::ServerContract;
use super::state_gate_diff::diff_state_gate;
use super::tool::ToolContract;
use crate::error::ChangeSeverity::{self, Breaking, Cosmetic, Risky, Safe};
use crate::json::value_text;

/// Every change from `old` (e.g. the lockfile) to `new` (e.g. the running
/// server), field by field, ordered by tool, then action (tool-wide changes
/// first), then severity (most severe first; in rule order within a
/// severity).
pub fn diff(old: &ServerContract, new: &ServerContract) -> ContractDiff {
    let mut deltas = Vec::new();
    let names: BTreeSet<&String> = old.tools.keys().chain(new.tools.keys()).collect();
    for name in names {
        match (old.tools.get(name), new.tools.get(name)) {
            (Some(old_tool), None) => deltas.push(tool_delta(
                old_tool,
                Breaking,
                format!("Tool \"{name}\" was removed."),
                true,
            )),
            (None, Some(new_tool)) => deltas.push(tool_delta(
                new_tool,
                Safe,
                format!("Tool \"{name}\" was added."),
                false,
            )),
            (Some(old_tool), Some(new_tool)) => diff_tool(old_tool, new_tool, &mut deltas),
            (None, None) => {}
        }
    }
    // Stable: rule order is kept within one severity.
    deltas.sort_by(|a, b| {
        (&a.tool, &a.action)
            .cmp(&(&b.tool, &b.action))
            .then(b.severity.cmp(&a.severity))
    });
    ContractDiff { deltas }
}

/// A tool added or removed: its actions are the value.
fn tool_delta(tool: &ToolContract, severity: ChangeSeverity, text: String, old: bool) -> Delta {
    let actions = if tool.discriminator.is_some() {
        format!(
            "actions {}",
            tool.actions.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    } else {
        tool.actions.values().next().map_or_else(
            || String::from("no fields"),
            |a| fields_summary(&a.input_schema),
        )
    };
    let actions = cut(&actions);
    Delta {
        tool: tool.name.clone(),
        action: None,
        field: String::from("(tool)"),
        severity,
        old: old.then(|| actions.clone()),
        new: (!old).then_some(actions),
        description: text,
    }
}

/// The name of an action in a sentence: `tool.action`, or the tool name for
/// an ungrouped tool.
fn display(tool: &str, action: &str) -> String {
    if tool == action {
        tool.to_owned()
    } else {
        format!("{tool}.{action}")
    }
}

fn or_none(value: Option<&str>) -> String {
    value.map_or_else(|| String::from("(none)"), cut)
}

fn diff_tool(old: &ToolContract, new: &ToolContract, deltas: &mut Vec<Delta>) {
    let tool = &new.name;
    let wide = |field: &str, severity, old: String, new: String, description: String| Delta {
        tool: tool.clone(),
        action: None,
        field: field.to_owned(),
        severity,
        old: Some(old),
        new: Some(new),
        description,
    };
    if old.discriminator != new.discriminator {
        deltas.push(wide(
            "(discriminator)",
            Breaking,
            or_none(old.discriminator.as_deref()),
            or_none(new.discriminator.as_deref()),
            format!("The argument that selects the action of tool \"{tool}\" changed."),
        ));
    }
    // An ungrouped tool's description is its action's: compared there.
    let grouped = old.discriminator.is_some() || new.discriminator.is_some();
    if grouped && old.description != new.description {
        deltas.push(wide(
            "(description)",
            Cosmetic,
            or_none(old.description.as_deref()),
            or_none(new.description.as_deref()),
            format!("The description of tool \"{tool}\" changed."),
        ));
    }
    let names: BTreeSet<&String> = old.actions.keys().chain(new.actions.keys()).collect();
    for name in names {
        let action_delta =
            |severity, old: Option<String>, new: Option<String>, description| Delta {
                tool: tool.clone(),
                action: Some(name.clone()),
                field: String::from("(action)"),
                severity,
                old,
                new,
                description,
            };
        match (old.actions.get(name), new.actions.get(name)) {
            (Some(removed), None) => deltas.push(action_delta(
                Breaking,
                Some(fields_summary(&removed.input_schema)),
                None,
                format!("Action \"{}\" was removed.", display(tool, name)),
            )),
            (None, Some(added)) => deltas.push(action_delta(
                Safe,
                None,
                Some(fields_summary(&added.input_schema)),
                format!("Action \"{}\" was added.", display(tool, name)),
            )),
            (Some(old_action), Some(new_action)) => {
                diff_action(tool, old_action, new_action, deltas);
            }
            (None, None) => {}
        }
    }
}

fn diff_action(tool: &str, old: &ActionContract, new: &ActionContract, deltas: &mut Vec<Delta>) {
    let name = display(tool, &new.name);
    let mut push =
        |field: &str, severity, old: Option<String>, new_value: Option<String>, description| {
            deltas.push(Delta {
                tool: tool.to_owned(),
                action: Some(new.name.clone()),
                field: field.to_owned(),
                severity,
                old: old.map(|v| cut(&v)),
                new: new_value.map(|v| cut(&v)),
                description,
            });
        };

    if old.description != new.description {
        push(
            "(description)",
            Cosmetic,
            Some(or_none(old.description.as_deref())),
            Some(or_none(new.description.as_deref())),
            format!("The description of action \"{name}\" changed."),
        );
    }
    diff_annotations(&name, old, new, &mut push);
    diff_deprecation(&name, old, new, &mut push);
    diff_scopes(&name, old, new, &mut push);
    diff_guards(&name, &old.guards, &new.guards, &mut push);
    diff_presenter(
        &name,
        old.presenter.as_ref(),
        new.presenter.as_ref(),
        &mut push,
    );
    diff_results(&name, &old.results, &new.results, &mut push);
    diff_action_schemas(tool, &name, old, new, deltas);
}

/// The changes of an action's annotations: a changed `readOnlyHint` or
/// `destructiveHint` is BREAKING, a changed `idempotentHint` RISKY.
fn diff_annotations(
    name: &str,
    old: &ActionContract,
    new: &ActionContract,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    let hints = [
        (
            "(readOnlyHint)",
            "readOnly",
            old.annotations.read_only,
            new.annotations.read_only,
            Breaking,
        ),
        (
            "(destructiveHint)",
            "destructive",
            old.annotations.destructive,
            new.annotations.destructive,
            Breaking,
        ),
        (
            "(idempotentHint)",
            "idempotent",
            old.annotations.idempotent,
            new.annotations.idempotent,
            Risky,
        ),
    ];
    for (field, label, was, is, severity) in hints {
        if was != is {
            push(
                field,
                severity,
                Some(was.to_string()),
                Some(is.to_string()),
                format!("The {label} annotation of action \"{name}\" changed from {was} to {is}."),
            );
        }
    }
}

/// A deprecation added (RISKY), removed (SAFE) or given another
/// replacement (RISKY).
fn diff_deprecation(
    name: &str,
    old: &ActionContract,
    new: &ActionContract,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    match (&old.deprecated, &new.deprecated) {
        (None, Some(replacement)) => push(
            "(deprecated)",
            Risky,
            None,
            Some(replacement.clone()),
            format!("Action \"{name}\" is now deprecated; use {replacement} instead."),
        ),
        (Some(replacement), None) => push(
            "(deprecated)",
            Safe,
            Some(replacement.clone()),
            None,
            format!("Action \"{name}\" is no longer deprecated."),
        ),
        (Some(a), Some(b)) if a != b => push(
            "(deprecated)",
            Risky,
            Some(a.clone()),
            Some(b.clone()),
            format!("The replacement of deprecated action \"{name}\" changed."),
        ),
        _ => {}
    }
}

/// Required scopes gained (BREAKING: callers may be refused) or lost (SAFE).
fn diff_scopes(
    name: &str,
    old: &ActionContract,
    new: &ActionContract,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    let scopes_text = |scopes: &[String]| {
        if scopes.is_empty() {
            String::from("(none)")
        } else {
            scopes.join(", ")
        }
    };
    let gained: Vec<&String> = new
        .required_scopes
        .iter()
        .filter(|s| !old.required_scopes.contains(s))
        .collect();
    let lost: Vec<&String> = old
        .required_scopes
        .iter()
        .filter(|s| !new.required_scopes.contains(s))
        .collect();
    let list = |scopes: &[&String]| {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !gained.is_empty() {
        push(
            "(requiredScopes)",
            Breaking,
            Some(scopes_text(&old.required_scopes)),
            Some(scopes_text(&new.required_scopes)),
            format!(
                "Action \"{name}\" now requires the scopes {}.",
                list(&gained)
            ),
        );
    }
    if !lost.is_empty() {
        push(
            "(requiredScopes)",
            Safe,
            Some(scopes_text(&old.required_scopes)),
            Some(scopes_text(&new.required_scopes)),
            format!(
                "Action \"{name}\" no longer requires the scopes {}.",
                list(&lost)
            ),
        );
    }
}

/// The changes of an action's input and output schemas.
fn diff_action_schemas(
    tool: &str,
    name: &str,
    old: &ActionContract,
    new: &ActionContract,
    deltas: &mut Vec<Delta>,
) {
    let place = |field: FieldDelta| Delta {
        tool: tool.to_owned(),
        action: Some(new.name.clone()),
        field: field.field,
        severity: field.severity,
        old: field.old,
        new: field.new,
        description: field.description,
    };
    deltas.extend(
        diff_schemas(&old.input_schema, &new.input_schema, Side::Input)
            .into_iter()
            .map(place),
    );
    match (&old.output_schema, &new.output_schema) {
        (Some(a), Some(b)) => {
            deltas.extend(diff_schemas(a, b, Side::Output).into_iter().map(place));
        }
        (None, Some(b)) => deltas.push(Delta {
            tool: tool.to_owned(),
            action: Some(new.name.clone()),
            field: String::from("(output)"),
            severity: Safe,
            old: None,
            new: Some(fields_summary(b)),
            description: format!("Action \"{name}\" now declares an output schema."),
        }),
        (Some(a), None) => deltas.push(Delta {
            tool: tool.to_owned(),
            action: Some(new.name.clone()),
            field: String::from("(output)"),
            severity: Risky,
            old: Some(fields_summary(a)),
            new: None,
            description: format!("Action \"{name}\" no longer declares an output schema."),
        }),
        (None, None) => {}
    }
}

/// Guard settings, flattened to `maxActive`, `maxQueue`, `rateLimit.calls`,
/// `rateLimit.periodMs`, `rateLimit.scope`, `timeoutMs`, `serialize.key`,
/// `serialize.maxQueue`, `serialize.maxWaitMs`: a new or tighter limit is
/// RISKY (calls may be refused or cut), a removed or looser one SAFE. A new
/// serializer is SAFE: every call that worked still works, some later
/// (`docs/contracts.md`); a tighter queue or wait of one is RISKY. The
/// state gate (`stateGate`) has rules of its own (`diff_state_gate`).
fn diff_guards(
    name: &str,
    old: &Value,
    new: &Value,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    let gate = |guards: &Value| guards.get("stateGate").cloned().unwrap_or(Value::Null);
    diff_state_gate(name, &gate(old), &gate(new), push);
    let without_gate = |guards: &Value| {
        let mut guards = guards.clone();
        if let Some(object) = guards.as_object_mut() {
            object.remove("stateGate");
        }
        guards
    };
    let (old_flat, new_flat) = (flatten(&without_gate(old)), flatten(&without_gate(new)));
    let keys: BTreeSet<&String> = old_flat
        .iter()
        .map(|(k, _)| k)
        .chain(new_flat.iter().map(|(k, _)| k))
        .collect();
    let get = |flat: &[(String, Value)], key: &str| {
        flat.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    for key in keys {
        let field = format!("(guards.{key})");
        let (a, b) = (get(&old_flat, key), get(&new_flat, key));
        let text = |v: &Option<Value>| v.as_ref().map(value_text);
        let (severity, description) = match (&a, &b) {
            (None, Some(_)) if key.starts_with("serialize.") => (
                Safe,
                format!("Action \"{name}\" is newly serialized: {key}."),
            ),
            (None, Some(_)) => (Risky, format!("Action \"{name}\" has a new limit: {key}.")),
            (Some(_), None) => (
                Safe,
                format!("Action \"{name}\" no longer has the limit {key}."),
            ),
            (Some(x), Some(y)) if x != y => match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => {
                    // A longer period means fewer calls; for every other
                    // setting a smaller number is the tighter one.
                    let tighter = if key == "rateLimit.periodMs" {
                        y > x
                    } else {
                        y < x
                    };
                    if tighter {
                        (
                            Risky,
                            format!("The limit {key} of action \"{name}\" tightened."),
                        )
                    } else {
                        (
                            Safe,
                            format!("The limit {key} of action \"{name}\" loosened."),
                        )
                    }
                }
                _ => (
                    Risky,
                    format!("The limit {key} of action \"{name}\" changed."),
                ),
            },
            _ => continue,
        };
        push(&field, severity, text(&a), text(&b), description);
    }
}

/// What an action declares of its results (§9): a tighter egress limit is
/// BREAKING (a result that reached the model whole may now be cut), a
/// looser one or none SAFE; a changed freshness, set of invalidations or of
/// read domains is RISKY (calls work as before, but what the model and
/// clients are told about stale reads changed: a client caching by the old
/// declaration may serve a stale result).
fn diff_results(
    name: &str,
    old: &Value,
    new: &Value,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    let limit = |results: &Value| match results.get("egressLimitBytes") {
        None => Some(crate::present::DEFAULT_EGRESS_LIMIT as u64),
        Some(bytes) => bytes.as_u64(),
    };
    let (a, b) = (limit(old), limit(new));
    if a != b {
        let text = |v: Option<u64>| Some(v.map_or_else(|| String::from("none"), |n| n.to_string()));
        let tighter = b.unwrap_or(u64::MAX) < a.unwrap_or(u64::MAX);
        let (severity, how) = if tighter {
            (Breaking, "tightened")
        } else {
            (Safe, "loosened")
        };
        push(
            "(results.egressLimitBytes)",
            severity,
            text(a),
            text(b),
            format!("The egress limit of action \"{name}\" {how}."),
        );
    }
    for key in ["freshness", "invalidates", "reads"] {
        let (x, y) = (old.get(key), new.get(key));
        if x != y {
            push(
                &format!("(results.{key})"),
                Risky,
                Some(x.map_or_else(|| String::from("none"), value_text)),
                Some(y.map_or_else(|| String::from("none"), value_text)),
                format!("The {key} declared by action \"{name}\" changed."),
            );
        }
    }
}

/// An object's leaves as dotted keys and values (`rateLimit.calls`).
fn flatten(value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    fn walk(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    walk(&path, inner, out);
                }
            }
            leaf => out.push((prefix.to_owned(), leaf.clone())),
        }
    }
    if value.is_object() {
        walk("", value, &mut out);
    }
    out
}
