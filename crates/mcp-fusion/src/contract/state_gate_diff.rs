//! The changes of an action's state gate (`guards.stateGate`, wire contract
//! §10): allowed in fewer states is BREAKING (a call that worked in a state
//! is refused there now), in more states SAFE, other moves RISKY.

use serde_json::Value;

use crate::error::ChangeSeverity::{self, Breaking, Risky, Safe};

/// The states of a gate's `allowedIn`.
fn allowed_in(gate: &Value) -> Vec<&str> {
    gate["allowedIn"]
        .as_array()
        .map(|states| states.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `"a", "b"`.
fn quoted(states: &[&str]) -> String {
    let quoted: Vec<String> = states.iter().map(|s| format!("\"{s}\"")).collect();
    quoted.join(", ")
}

/// The deltas between the state gates `old` and `new` of action `name`
/// (`Value::Null` for none), each given to `push(field, severity, old, new,
/// description)`.
pub(crate) fn diff_state_gate(
    name: &str,
    old: &Value,
    new: &Value,
    push: &mut impl FnMut(&str, ChangeSeverity, Option<String>, Option<String>, String),
) {
    const FIELD: &str = "(guards.stateGate)";
    let (was, is) = (allowed_in(old), allowed_in(new));
    match (old.is_null(), new.is_null()) {
        (true, true) => {}
        (true, false) => push(
            FIELD,
            Breaking,
            None,
            Some(quoted(&is)),
            format!(
                "Action \"{name}\" is now gated by the state machine \"{}\": allowed only in {}.",
                new["machine"].as_str().unwrap_or_default(),
                quoted(&is)
            ),
        ),
        (false, true) => push(
            FIELD,
            Safe,
            Some(quoted(&was)),
            None,
            format!("Action \"{name}\" is no longer gated by a state machine."),
        ),
        (false, false) => {
            let lost: Vec<&str> = was.iter().copied().filter(|s| !is.contains(s)).collect();
            let gained: Vec<&str> = is.iter().copied().filter(|s| !was.contains(s)).collect();
            let (old_text, new_text) = (Some(quoted(&was)), Some(quoted(&is)));
            if !lost.is_empty() {
                let text = format!(
                    "Action \"{name}\" is no longer allowed in {}.",
                    quoted(&lost)
                );
                push(
                    "(guards.stateGate.allowedIn)",
                    Breaking,
                    old_text,
                    new_text,
                    text,
                );
            } else if !gained.is_empty() {
                let text = format!(
                    "Action \"{name}\" is now also allowed in {}.",
                    quoted(&gained)
                );
                push(
                    "(guards.stateGate.allowedIn)",
                    Safe,
                    old_text,
                    new_text,
                    text,
                );
            }
            if old["machine"] != new["machine"] || old["transitions"] != new["transitions"] {
                push(
                    "(guards.stateGate.transitions)",
                    Risky,
                    Some(old["transitions"].to_string()),
                    Some(new["transitions"].to_string()),
                    format!("The moves of action \"{name}\" in its state machine changed."),
                );
            }
        }
    }
}
