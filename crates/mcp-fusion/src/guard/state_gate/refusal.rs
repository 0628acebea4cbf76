//! The `FORBIDDEN` of a call the state gate refuses (wire contract §10).

use super::gates::ActionGate;
use crate::error::ToolError;

/// `"filled"`, `"filled" or "paid"`, `"a", "b" or "c"`.
fn either(states: &[String]) -> String {
    let quoted: Vec<String> = states.iter().map(|s| format!("\"{s}\"")).collect();
    match quoted.split_last() {
        None => String::from("no state"),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// `FORBIDDEN` for a call of `name` while the session is in `state`, where
/// its gate does not allow it: names the state, the states it needs, and
/// (as available actions) the actions allowed now.
pub(crate) fn not_now(gate: &ActionGate, name: &str, state: &str) -> ToolError {
    let machine = &gate.machine.name;
    let now = gate.allowed_in(state);
    let recovery = if now.is_empty() {
        format!(
            "Do not retry it: nothing is allowed while the {machine} is \"{state}\". Tell the user."
        )
    } else {
        format!(
            "Do not retry it yet. Call one of available_actions: they are allowed while the {machine} is \"{state}\"."
        )
    };
    ToolError::forbidden(format!(
        "{name} is not allowed now: the {machine} is \"{state}\", and {name} needs it to be {}.",
        either(&gate.allowed)
    ))
    .suggest(recovery)
    .actions(now)
    .detail("state_machine", machine)
    .detail("current_state", state)
    .detail("blocked_tool", name)
    .detail("allowed_in", gate.allowed.join(", "))
}

/// `FORBIDDEN` for a call of `name` that has no session (a stateless
/// 2026-07-28 HTTP call): its gate has no state to decide by.
pub(crate) fn no_session(gate: &ActionGate, name: &str) -> ToolError {
    let machine = &gate.machine.name;
    ToolError::forbidden(format!(
        "{name} depends on the state of the {machine} in a session, and this call has no session."
    ))
    .suggest("Do not retry it the same way: tell the user this tool needs a client that keeps a session (an MCP session with Mcp-Session-Id).")
    .detail("state_machine", machine)
    .detail("blocked_tool", name)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{either, no_session, not_now};
    use crate::guard::StateMachine;
    use crate::guard::state_gate::Gates;

    fn gate(name: &str) -> super::ActionGate {
        let cart = StateMachine::new("cart")
            .initial("empty")
            .transition("add_item", "empty", "filled")
            .transition("checkout", "filled", "paid");
        let gates = Arc::new(Gates::new(vec![cart]).unwrap());
        gates.gate_of(name).unwrap()
    }

    #[test]
    fn a_call_without_a_session_is_told_it_needs_one() {
        let refused = no_session(&gate("checkout"), "checkout");
        assert_eq!(
            refused.message,
            "checkout depends on the state of the cart in a session, and this call has no session."
        );
        assert_eq!(
            refused.recovery.as_deref(),
            Some(
                "Do not retry it the same way: tell the user this tool needs a client that keeps a session (an MCP session with Mcp-Session-Id)."
            )
        );
        assert_eq!(
            refused.details,
            [
                ("state_machine".to_owned(), "cart".to_owned()),
                ("blocked_tool".to_owned(), "checkout".to_owned())
            ]
        );
    }

    #[test]
    fn with_nothing_allowed_now_the_model_is_told_to_stop() {
        let refused = not_now(&gate("checkout"), "checkout", "paid");
        assert_eq!(
            refused.recovery.as_deref(),
            Some("Do not retry it: nothing is allowed while the cart is \"paid\". Tell the user.")
        );
        assert!(refused.available_actions.is_empty());
    }

    #[test]
    fn states_read_as_a_list() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(either(&s(&["filled"])), "\"filled\"");
        assert_eq!(either(&s(&["a", "b"])), "\"a\" or \"b\"");
        assert_eq!(either(&s(&["a", "b", "c"])), "\"a\", \"b\" or \"c\"");
    }
}
