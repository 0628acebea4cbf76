//! Small readings of JSON values and JSON Schemas that several layers share:
//! a value's type name, an object schema's `required` names, a value as text,
//! a key repeated in one object of a JSON text, whether a JSON text holds
//! more values than a limit.

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

/// The first key that appears twice in one object of the JSON text `text`
/// (at any depth), or `None` when every object's keys are unique or the
/// text is not JSON. RFC 8259 §4 leaves the meaning of a repeated name to
/// each reader: serde_json keeps the last value, a proxy may read the first.
pub(crate) fn repeated_key(text: &[u8]) -> Option<String> {
    use serde::de::DeserializeSeed;
    let found = std::cell::RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(text);
    // An error is either the repeated key (in `found`) or unreadable JSON.
    let _ = UniqueKeys(&found).deserialize(&mut reader);
    found.into_inner()
}

/// Walks a JSON text through serde without building it, stopping at the
/// first repeated key of an object (recorded in the cell).
struct UniqueKeys<'a>(&'a std::cell::RefCell<Option<String>>);

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(UniqueKeys(self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        // Most objects have a few keys: a linear search of the keys seen
        // (borrowed from the text unless escaped) costs less than hashing
        // them; past `LINEAR_KEYS` keys a set takes over.
        const LINEAR_KEYS: usize = 16;
        let mut seen: Vec<std::borrow::Cow<'de, str>> = Vec::new();
        let mut set: Option<std::collections::HashSet<std::borrow::Cow<'de, str>>> = None;
        while let Some(Key(key)) = entries.next_key::<Key<'de>>()? {
            entries.next_value_seed(UniqueKeys(self.0))?;
            let repeated = match &mut set {
                Some(set) => !set.insert(key.clone()),
                None if seen.contains(&key) => true,
                None if seen.len() == LINEAR_KEYS => {
                    let mut all: std::collections::HashSet<_> = seen.drain(..).collect();
                    all.insert(key.clone());
                    set = Some(all);
                    false
                }
                None => {
                    seen.push(key.clone());
                    false
                }
            };
            if repeated {
                *self.0.borrow_mut() = Some(key.into_owned());
                return Err(serde::de::Error::custom("a repeated key"));
            }
        }
        Ok(())
    }
}

/// An object key, borrowed from the text unless it holds an escape (serde's
/// own `Cow<str>` always copies).
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        reader.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> serde::de::Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Borrowed(key)))
    }

    fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Owned(key.to_owned())))
    }

    fn visit_string<E>(self, key: String) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Owned(key)))
    }
}

/// Whether the JSON text `text` holds more than `max` JSON values (every
/// object, array, string, number, boolean and `null`, at any depth, counts
/// one; object keys do not). The text is walked without building anything
/// and the walk stops at value `max + 1`, so the answer costs time in step
/// with `max`, not with the text. `false` for a text that is not JSON (its
/// parse reports it).
pub(crate) fn holds_more_values_than(text: &[u8], max: usize) -> bool {
    use serde::de::DeserializeSeed;
    let budget = ValueBudget {
        left: std::cell::Cell::new(max),
        over: std::cell::Cell::new(false),
    };
    let mut reader = serde_json::Deserializer::from_slice(text);
    // An error is either the budget spent (in `over`) or unreadable JSON.
    let _ = CountValues(&budget).deserialize(&mut reader);
    budget.over.get()
}

/// The values a walk may still meet, and whether it met one more.
struct ValueBudget {
    left: std::cell::Cell<usize>,
    over: std::cell::Cell<bool>,
}

/// Walks one JSON value through serde without building it, spending one
/// value of the budget per value met and stopping once it is spent.
struct CountValues<'a>(&'a ValueBudget);

impl CountValues<'_> {
    fn spend<E: serde::de::Error>(&self) -> Result<(), E> {
        match self.0.left.get().checked_sub(1) {
            Some(left) => {
                self.0.left.set(left);
                Ok(())
            }
            None => {
                self.0.over.set(true);
                Err(E::custom("too many values"))
            }
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for CountValues<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for CountValues<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.spend()
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.spend()
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.spend()
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.spend()
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.spend()
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend()
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        self.spend()?;
        while items.next_element_seed(CountValues(self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        self.spend()?;
        while entries.next_key::<serde::de::IgnoredAny>()?.is_some() {
            entries.next_value_seed(CountValues(self.0))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_counted_at_any_depth_and_the_walk_stops_past_the_limit() {
        let over = |text: &str, max| holds_more_values_than(text.as_bytes(), max);
        // An object, its 2 values, the array's 3 items and the inner object's 1.
        let text = r#"{"a":[1,"x",{"b":null}],"c":true}"#;
        assert!(!over(text, 7));
        assert!(over(text, 6));
        assert!(!over("[]", 1));
        assert!(over("[[]]", 1));
        assert!(!over("not JSON", 0));
        assert!(!over(r#"{"a":1,"a""#, 100));
        // Keys are not values.
        assert!(!over(r#"{"k1":{},"k2":{},"k3":{}}"#, 4));
    }

    #[test]
    fn the_value_walk_reads_no_further_than_the_limit() {
        // What the budget spends bounds the walk: past `max + 1` values
        // nothing more is read, however long the text (a million items).
        let text = format!("[{}]", vec!["{}"; 1_000_000].join(","));
        let budget = ValueBudget {
            left: std::cell::Cell::new(10),
            over: std::cell::Cell::new(false),
        };
        let read = std::cell::Cell::new(0usize);
        let counted = CountingReader {
            text: text.as_bytes(),
            read: &read,
        };
        let mut reader = serde_json::Deserializer::from_reader(counted);
        let walked = serde::de::DeserializeSeed::deserialize(CountValues(&budget), &mut reader);
        assert!(walked.is_err());
        assert!(budget.over.get());
        // The walk stopped at the 11th value: the array and 9 items spent
        // the budget, item 10's `{` starts at byte 28, and serde_json reads
        // on only to close what it entered (`}`, then `,{` peeked): 32
        // bytes of 3 000 001.
        assert_eq!(read.get(), 32);
    }

    /// A reader that counts the bytes taken from it.
    struct CountingReader<'a> {
        text: &'a [u8],
        read: &'a std::cell::Cell<usize>,
    }

    impl std::io::Read for CountingReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = std::io::Read::read(&mut self.text, buf)?;
            self.read.set(self.read.get() + n);
            Ok(n)
        }
    }

    #[test]
    fn repeated_keys_are_found_at_any_depth_and_under_escapes() {
        let found = |text: &str| repeated_key(text.as_bytes());
        assert_eq!(
            found(r#"{"a":1,"b":{"c":[{"d":1,"d":2}]}}"#),
            Some("d".into())
        );
        assert_eq!(found(r#"{"a":1,"\u0061":2}"#), Some("a".into()));
        assert_eq!(
            found(r#"{"a":{"x":1},"b":{"x":1},"c":[1,"x",null,true,-2.5]}"#),
            None
        );
        assert_eq!(found(r#"{"a":1,"a""#), None);
        assert_eq!(found("not JSON"), None);
        // Past the linear search's keys, the set still finds a repeat.
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        assert_eq!(found(&format!("{{{}}}", many.join(","))), None);
        assert_eq!(
            found(&format!("{{{},\"k3\":0}}", many.join(","))),
            Some("k3".into())
        );
        assert_eq!(
            found(&format!("{{{},\"k39\":0}}", many.join(","))),
            Some("k39".into())
        );
    }

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
