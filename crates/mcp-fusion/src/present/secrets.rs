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
