//! Redaction: the members a presenter marks secret are replaced by
//! [`REDACTED`] before a result leaves the server.

use serde_json::Value;

/// What a secret member's value is replaced with, wherever it is
/// (wire contract §9.1).
pub const REDACTED: &str = "[redacted]";

/// Replaces, in place, the member at `path` (dotted names; arrays on the
/// way are entered item by item) with [`REDACTED`] when it is there and
/// not `null`.
pub(crate) fn redact(value: &mut Value, path: &str) {
    match path.split_once('.') {
        Some((name, rest)) => match value {
            Value::Array(items) => items.iter_mut().for_each(|item| redact(item, path)),
            Value::Object(object) => {
                if let Some(member) = object.get_mut(name) {
                    redact(member, rest);
                }
            }
            _ => {}
        },
        None => match value {
            Value::Array(items) => items.iter_mut().for_each(|item| redact(item, path)),
            Value::Object(object) => {
                if let Some(member) = object.get_mut(path)
                    && !member.is_null()
                {
                    *member = Value::String(REDACTED.to_owned());
                }
            }
            _ => {}
        },
    }
}

/// Adds to `found` each string of `before` that [`redact`] replaced in
/// `after` (the same value, redacted), walking both side by side.
pub(crate) fn redacted_values(before: &Value, after: &Value, found: &mut Vec<String>) {
    match (before, after) {
        (Value::String(secret), Value::String(shown))
            if shown == REDACTED && secret != REDACTED && !found.contains(secret) =>
        {
            found.push(secret.clone());
        }
        (Value::Array(before), Value::Array(after)) => {
            for (before, after) in before.iter().zip(after) {
                redacted_values(before, after, found);
            }
        }
        (Value::Object(before), Value::Object(after)) => {
            for (name, after) in after {
                if let Some(before) = before.get(name) {
                    redacted_values(before, after, found);
                }
            }
        }
        _ => {}
    }
}

/// The rules and suggested calls of `guidance` without the secrets of
/// `secrets` (the values redaction replaced): a rule keeps its place, each
/// secret in it replaced by [`REDACTED`]; a suggested call whose reason or
/// arguments hold one is dropped (its arguments could not be sent
/// redacted), with a warning in the log. Rules and suggestions read the
/// whole value (wire contract §9.1), so a presenter that puts a secret
/// field in one would otherwise send it.
pub(crate) fn scrub(guidance: &mut super::Guidance, secrets: &[String]) {
    let secrets: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| s.chars().count() >= 3)
        .collect();
    if secrets.is_empty() {
        return;
    }
    for rule in &mut guidance.rules {
        for secret in &secrets {
            if rule.contains(secret) {
                *rule = rule.replace(secret, REDACTED);
            }
        }
    }
    guidance.suggestions.retain(|suggested| {
        let arguments = Value::Object(suggested.suggestion.arguments.clone()).to_string();
        let reason = &suggested.suggestion.reason;
        let leaks = secrets
            .iter()
            .any(|secret| reason.contains(secret) || arguments.contains(secret));
        if leaks {
            tracing::warn!(
                action = %suggested.action,
                "a suggested call held a secret field's value: it was not sent"
            );
        }
        !leaks
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_secret_is_replaced_at_its_path_through_arrays() {
        let mut value = json!({"card": "4111", "customers": [{"card": "5500"}, {"card": null}]});
        redact(&mut value, "card");
        redact(&mut value, "customers.card");
        assert_eq!(
            value,
            json!({"card": "[redacted]", "customers": [{"card": "[redacted]"}, {"card": null}]})
        );
    }
}

#[cfg(test)]
mod scrub_tests {
    use serde_json::json;

    use super::*;
    use crate::present::{Guidance, Suggestion};

    #[test]
    fn a_secret_in_a_rule_is_redacted_and_a_call_holding_one_is_dropped() {
        let before = json!({"id": "inv_1", "cards": [{"number": "4111-1111"}]});
        let mut after = before.clone();
        redact(&mut after, "cards.number");
        let mut secrets = Vec::new();
        redacted_values(&before, &after, &mut secrets);
        assert_eq!(secrets, ["4111-1111"]);
        let mut guidance = Guidance::default();
        guidance.add_rule(String::from("Card 4111-1111 is on file."));
        guidance.add_suggestion(
            "billing.charge",
            Suggestion::new("Charge it.").argument("card", "4111-1111"),
        );
        guidance.add_suggestion(
            "billing.pay",
            Suggestion::new("Unpaid.").argument("id", "inv_1"),
        );
        scrub(&mut guidance, &secrets);
        assert_eq!(guidance.rules, ["Card [redacted] is on file."]);
        let kept: Vec<&str> = guidance
            .suggestions
            .iter()
            .map(|s| s.action.as_str())
            .collect();
        assert_eq!(kept, ["billing.pay"]);
    }
}
