//! Canonical JSON and SHA-256 digests (`docs/contracts.md`, "Canonical JSON
//! and digests").
//!
//! The canonical form of a JSON value is its compact serialization (no
//! whitespace at all) after [`normalize`]: object keys sorted by Unicode code
//! point, array order kept, and numbers that are whole floats written as
//! integers (`1.0` → `1`), so that two producers that write the same schema
//! get the same bytes. Strings are escaped as `serde_json` escapes them
//! (`"`, `\` and control characters; other characters as they are).

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// The prefix of every digest: `sha256:` then 64 lowercase hex digits.
const DIGEST_PREFIX: &str = "sha256:";

/// The largest whole number a float can hold exactly (2^53).
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// `value` in canonical shape: every object rebuilt with its keys sorted by
/// Unicode code point (byte order of their UTF-8), arrays in their order, and
/// every finite float with no fractional part and a magnitude of at most 2^53
/// turned into an integer (`-0.0` becomes `0`). Serializing the result
/// compactly gives [`canonical_json`].
pub(crate) fn normalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let mut sorted = Map::with_capacity(entries.len());
            for (key, value) in entries {
                sorted.insert(key.clone(), normalize(value));
            }
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Number(n) => Value::Number(normalize_number(n)),
        other => other.clone(),
    }
}

fn normalize_number(n: &Number) -> Number {
    if !n.is_f64() {
        return n.clone();
    }
    match n.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() <= MAX_EXACT_FLOAT => {
            // Exact: |f| <= 2^53 fits i64 without rounding.
            Number::from(f as i64)
        }
        _ => n.clone(),
    }
}

/// The canonical JSON text of `value`: [`normalize`]d, then written with no
/// whitespace, e.g. `{"a":1,"b":[true,null,"x"]}`.
fn canonical_json(value: &Value) -> String {
    // Serializing a `Value` cannot fail: its keys are strings and its numbers finite.
    serde_json::to_string(&normalize(value)).unwrap_or_default()
}

/// `sha256:` and the lowercase hex SHA-256 of the UTF-8 bytes of `text`.
fn sha256_digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(DIGEST_PREFIX.len() + 64);
    out.push_str(DIGEST_PREFIX);
    for byte in hash.iter() {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The digest of `value`'s canonical JSON: `sha256_digest(&canonical_json(value))`.
pub(crate) fn digest_of(value: &Value) -> String {
    sha256_digest(&canonical_json(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sorted_recursively_without_whitespace() {
        let value = json!({"b": [ {"z": 1, "a": 2} ], "a": {"y": null, "x": "é\"\n"}, "B": true});
        assert_eq!(
            canonical_json(&value),
            r#"{"B":true,"a":{"x":"é\"\n","y":null},"b":[{"a":2,"z":1}]}"#
        );
    }

    #[test]
    fn whole_floats_become_integers() {
        let value = json!([1.0, -0.0, 2.5, 3, -7.0, 1e300, 9007199254740992.0]);
        assert_eq!(
            canonical_json(&value),
            "[1,0,2.5,3,-7,1e+300,9007199254740992]"
        );
    }

    #[test]
    fn arrays_keep_their_order() {
        assert_eq!(canonical_json(&json!(["b", "a"])), r#"["b","a"]"#);
    }

    #[test]
    fn insertion_order_does_not_change_the_digest() {
        let a: Value = serde_json::from_str(r#"{"x": 1, "y": {"q": 2, "p": 3}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"y": {"p": 3, "q": 2.0}, "x": 1}"#).unwrap();
        assert_eq!(digest_of(&a), digest_of(&b));
        assert_ne!(
            digest_of(&a),
            digest_of(&json!({"x": 2, "y": {"p": 3, "q": 2}}))
        );
    }

    #[test]
    fn known_sha256_values() {
        assert_eq!(
            sha256_digest(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // `printf '{"a":1,"b":[true,null,"x"]}' | sha256sum`
        assert_eq!(
            digest_of(&json!({"b": [true, null, "x"], "a": 1})),
            "sha256:eca8cfb31ab74533e1eb2f4c74d2d55dfe3c79ac704787e54be8647ea7777eb1"
        );
    }
}
