//! The changes of what an action's presenter shows the model (wire
//! contract §9.1; the rules are in `docs/contracts.md`): a tighter agent
//! limit, a new secret or a list that became one value are BREAKING (the
//! model sees less than it did), a looser limit or a new rule SAFE. Its
//! declared fields are the output schema's, diffed with it.

use serde_json::Value;

use crate::error::ChangeSeverity::{self, Breaking, Cosmetic, Risky, Safe};

/// Where a change is reported: its field, severity, old and new values and
/// its sentence.
pub(super) type Push<'a> =
    dyn FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String) + 'a;

/// The changes from the presenter `old` to `new` of the action `name`
/// (each the contract's JSON form, `None` without a presenter).
pub(super) fn diff_presenter(
    name: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    push: &mut Push<'_>,
) {
    let presenter = |p: &Value| p["name"].as_str().unwrap_or("").to_owned();
    match (old, new) {
        (None, Some(b)) => push(
            "(presenter)",
            Risky,
            None,
            Some(presenter(b)),
            format!(
                "Action \"{name}\" now presents its result with {}.",
                presenter(b)
            ),
        ),
        (Some(a), None) => push(
            "(presenter)",
            Risky,
            Some(presenter(a)),
            None,
            format!("Action \"{name}\" no longer presents its result."),
        ),
        (Some(a), Some(b)) => {
            if presenter(a) != presenter(b) {
                push(
                    "(presenter.name)",
                    Cosmetic,
                    Some(presenter(a)),
                    Some(presenter(b)),
                    format!("The presenter of action \"{name}\" was renamed."),
                );
            }
            if a["many"] != b["many"] {
                push(
                    "(presenter.many)",
                    Breaking,
                    Some(a["many"].to_string()),
                    Some(b["many"].to_string()),
                    format!("Action \"{name}\" changed between one value and a list."),
                );
            }
            diff_limit(name, a.get("agentLimit"), b.get("agentLimit"), push);
            diff_names(name, "secrets", &a["secrets"], &b["secrets"], push);
            diff_embedded(name, &a["embedded"], &b["embedded"], push);
            diff_names(
                name,
                "rules",
                &a["rules"]["names"],
                &b["rules"]["names"],
                push,
            );
            let (x, y) = (&a["suggestions"]["actions"], &b["suggestions"]["actions"]);
            diff_names(name, "suggestions", x, y, push);
        }
        (None, None) => {}
    }
}

/// The embedded presenters gained or lost (by field and name), and the
/// agent limits of those kept.
fn diff_embedded(name: &str, old: &Value, new: &Value, push: &mut Push<'_>) {
    let entries = |v: &Value| -> Vec<(String, Option<Value>)> {
        v.as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|i| {
                        let key = format!(
                            "{}: {}",
                            i["field"].as_str().unwrap_or(""),
                            i["presenter"].as_str().unwrap_or("")
                        );
                        (key, i.get("agentLimit").cloned())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (entries(old), entries(new));
    let keys = |e: &[(String, Option<Value>)]| {
        Value::from(e.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>())
    };
    diff_names(name, "embedded", &keys(&a), &keys(&b), push);
    for (key, limit) in &a {
        if let Some((_, now)) = b.iter().find(|(k, _)| k == key) {
            diff_limit(name, limit.as_ref(), now.as_ref(), push);
        }
    }
}

/// A new or smaller agent limit is BREAKING (a list the model read whole
/// is cut), a removed or larger one SAFE.
fn diff_limit(name: &str, old: Option<&Value>, new: Option<&Value>, push: &mut Push<'_>) {
    let (a, b) = (old.and_then(Value::as_u64), new.and_then(Value::as_u64));
    let (severity, sentence) = match (a, b) {
        (None, Some(_)) => (Breaking, "now cuts its lists"),
        (Some(_), None) => (Safe, "no longer cuts its lists"),
        (Some(x), Some(y)) if y < x => (Breaking, "cuts its lists shorter"),
        (Some(x), Some(y)) if y > x => (Safe, "cuts its lists longer"),
        _ => return,
    };
    let text = |v: Option<u64>| v.map(|v| v.to_string());
    push(
        "(presenter.agentLimit)",
        severity,
        text(a),
        text(b),
        format!("The presenter of action \"{name}\" {sentence}."),
    );
}

/// Members of the list `what` gained or lost: a new secret is BREAKING (a
/// value the model read is now redacted) and a lost one RISKY (a secret
/// now leaves); new rules, suggestions or embedded presenters are SAFE,
/// lost ones RISKY.
fn diff_names(name: &str, what: &str, old: &Value, new: &Value, push: &mut Push<'_>) {
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (list(old), list(new));
    let gained: Vec<&String> = b.iter().filter(|n| !a.contains(n)).collect();
    let lost: Vec<&String> = a.iter().filter(|n| !b.contains(n)).collect();
    let field = format!("(presenter.{what})");
    let joined = |names: &[&String]| {
        names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !gained.is_empty() {
        let severity = if what == "secrets" { Breaking } else { Safe };
        push(
            &field,
            severity,
            Some(a.join(", ")),
            Some(b.join(", ")),
            format!(
                "The presenter of action \"{name}\" gained {what}: {}.",
                joined(&gained)
            ),
        );
    }
    if !lost.is_empty() {
        push(
            &field,
            Risky,
            Some(a.join(", ")),
            Some(b.join(", ")),
            format!(
                "The presenter of action \"{name}\" lost {what}: {}.",
                joined(&lost)
            ),
        );
    }
}
