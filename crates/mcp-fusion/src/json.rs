//! Small readings of JSON values and JSON Schemas that several layers share:
//! a value's type name, an object schema's `required` names, a value as text,
//! a JSON Pointer's value.

use serde_json::Value;

/// The JSON type of a value: `null`, `boolean`, `number`, `string`, `array`
/// or `object` (every number is a `number`).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The type of a value as a JSON Schema `type` names it: [`json_type`], but
/// `integer` for a whole number.
pub(crate) fn schema_type(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        other => json_type(other),
    }
}

/// `a string`, `an integer`, … for one JSON type name; `null` bare.
pub(crate) fn type_noun(name: &str) -> String {
    match name {
        "string" => "a string".to_owned(),
        "integer" => "an integer".to_owned(),
        "number" => "a number".to_owned(),
        "boolean" => "a boolean".to_owned(),
        "object" => "an object".to_owned(),
        "array" => "an array".to_owned(),
        "null" => "null".to_owned(),
        other => format!("a value of type {other}"),
    }
}

/// The names an object schema's `required` lists, in its order (anything
/// but a string left out; none when it has no such list).
pub(crate) fn required_of(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// The compact JSON text of `value`.
pub(crate) fn compact(value: &Value) -> String {
    value.to_string()
}

/// A value as one line of text: a string bare, anything else as compact JSON.
pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => compact(other),
    }
}

/// A reference token of a JSON Pointer with `~1` and `~0` undone (RFC 6901
/// §4); borrowed when it has no `~`.
pub(crate) fn pointer_token(raw: &str) -> std::borrow::Cow<'_, str> {
    if raw.contains('~') {
        std::borrow::Cow::Owned(raw.replace("~1", "/").replace("~0", "~"))
    } else {
        std::borrow::Cow::Borrowed(raw)
    }
}

/// The value at the JSON Pointer `pointer` (RFC 6901) in `value`, as
/// [`Value::pointer`] finds it, without allocating for tokens that hold no
/// `~` (the schemas' pointers, read for every field error).
pub(crate) fn pointer<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').try_fold(value, |target, raw| {
        let token = pointer_token(raw);
        match target {
            Value::Object(map) => map.get(token.as_ref()),
            Value::Array(items) => {
                let leading_zero = token.len() > 1 && token.starts_with('0');
                if token.starts_with('+') || leading_zero {
                    return None;
                }
                token.parse::<usize>().ok().and_then(|i| items.get(i))
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_resolve_as_serde_json_resolves_them() {
        let doc = json!({"a/b": {"m~n": [10, 20, {"": 3}]}, "0": 1, "list": [5, 6]});
        for ptr in [
            "",
            "/a~1b",
            "/a~1b/m~0n/1",
            "/a~1b/m~0n/2/",
            "/0",
            "/list/01",
            "/list/+1",
            "/list/1",
            "/list/2",
            "/missing",
            "a",
            "/a~1b/m~0n/-",
            "/0/x",
        ] {
            assert_eq!(pointer(&doc, ptr), doc.pointer(ptr), "{ptr}");
        }
        assert_eq!(pointer(&doc, "/list/1"), Some(&json!(6)));
        assert!(matches!(
            pointer_token("plain"),
            std::borrow::Cow::Borrowed("plain")
        ));
        assert_eq!(pointer_token("a~1b~0c"), "a/b~c");
    }

    #[test]
    fn type_names() {
        let values = [
            json!(null),
            json!(true),
            json!(3),
            json!(1.5),
            json!("a"),
            json!([]),
            json!({}),
        ];
        let plain: Vec<&str> = values.iter().map(json_type).collect();
        assert_eq!(
            plain,
            [
                "null", "boolean", "number", "number", "string", "array", "object"
            ]
        );
        let schema: Vec<&str> = values.iter().map(schema_type).collect();
        assert_eq!(
            schema,
            [
                "null", "boolean", "integer", "number", "string", "array", "object"
            ]
        );
        let nouns: Vec<String> = values.iter().map(|v| type_noun(json_type(v))).collect();
        assert_eq!(
            nouns,
            [
                "null",
                "a boolean",
                "a number",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
        assert_eq!(type_noun("date"), "a value of type date");
    }

    #[test]
    fn required_names_in_order() {
        let schema = json!({"required": ["b", 7, "a"]});
        assert_eq!(required_of(&schema).collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(required_of(&json!({"required": "a"})).count(), 0);
        assert_eq!(required_of(&json!(true)).count(), 0);
    }

    #[test]
    fn texts() {
        assert_eq!(compact(&json!({"a": [1, "x"]})), r#"{"a":[1,"x"]}"#);
        assert_eq!(value_text(&json!("x y")), "x y");
        assert_eq!(value_text(&json!(["x"])), r#"["x"]"#);
    }
}
