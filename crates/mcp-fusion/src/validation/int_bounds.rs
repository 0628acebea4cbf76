//! The ranges behind schemars' integer formats.
//!
//! schemars writes a Rust integer type as `type: integer` with a `format`
//! naming it (`uint32`, `int64`, …) and only sometimes the range. The format
//! is not a JSON Schema format, so the validator ignores it, and a value out
//! of the type's range would pass the schema and then fail in the handler's
//! deserializer with a message naming Rust types. So before compiling, each
//! integer schema with such a format gets the missing `minimum`/`maximum` of
//! its type. The user's schema ([`SchemaValidator::schema`](super::SchemaValidator::schema))
//! is left as given.

use serde_json::{Map, Value};

use super::subschemas::{ONE_SCHEMA, SCHEMA_ARRAYS, SCHEMA_MAPS};

/// `schema` with the implied bounds of integer formats added where missing.
pub(crate) fn with_integer_bounds(schema: &Value) -> Value {
    let mut out = schema.clone();
    visit(&mut out, 0);
    out
}

fn visit(schema: &mut Value, depth: usize) {
    let Value::Object(map) = schema else { return };
    if depth > 256 {
        return;
    }
    add_bounds(map);
    for kw in ONE_SCHEMA {
        if let Some(sub) = map.get_mut(kw) {
            visit(sub, depth + 1);
        }
    }
    for kw in SCHEMA_ARRAYS {
        if let Some(Value::Array(subs)) = map.get_mut(kw) {
            subs.iter_mut().for_each(|s| visit(s, depth + 1));
        }
    }
    for kw in SCHEMA_MAPS {
        if let Some(Value::Object(subs)) = map.get_mut(kw) {
            subs.values_mut().for_each(|s| visit(s, depth + 1));
        }
    }
}

/// The range of the Rust integer type a schemars `format` names.
fn range_of(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        _ => return None,
    })
}

fn add_bounds(map: &mut Map<String, Value>) {
    let is_integer = match map.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    };
    let Some((min, max)) = map.get("format").and_then(Value::as_str).and_then(range_of) else {
        return;
    };
    if !is_integer {
        return;
    }
    if !map.contains_key("minimum") && !map.contains_key("exclusiveMinimum") {
        map.insert("minimum".to_owned(), min);
    }
    if !map.contains_key("maximum") && !map.contains_key("exclusiveMaximum") {
        map.insert("maximum".to_owned(), max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_bounds_are_added_to_integer_formats_only() {
        let schema = json!({
            "properties": {
                "a": {"type": "integer", "format": "uint32", "minimum": 0},
                "b": {"type": ["integer", "null"], "format": "int8", "minimum": -5},
                "c": {"type": "number", "format": "double"},
                "d": {"type": "string", "format": "uint64"},
                "e": {"const": {"type": "integer", "format": "uint8"}}
            },
            "$defs": {"X": {"items": {"type": "integer", "format": "uint64"}}}
        });
        let out = with_integer_bounds(&schema);
        assert_eq!(
            out["properties"]["a"],
            json!({"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4294967295u32})
        );
        assert_eq!(
            out["properties"]["b"],
            json!({"type": ["integer", "null"], "format": "int8", "minimum": -5, "maximum": 127})
        );
        assert_eq!(out["properties"]["c"], schema["properties"]["c"]);
        assert_eq!(out["properties"]["d"], schema["properties"]["d"]);
        assert_eq!(
            out["properties"]["e"], schema["properties"]["e"],
            "values are not schemas"
        );
        assert_eq!(
            out["$defs"]["X"]["items"],
            json!({"type": "integer", "format": "uint64", "minimum": 0, "maximum": u64::MAX})
        );
    }
}
