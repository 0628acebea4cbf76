//! Input and output schemas derived from Rust types with `schemars` (draft
//! 2020-12): one place for the generator settings and for the rewrites that
//! make the derived schemas readable by every client, used by actions
//! (input), by typed outputs (`Json<T>`) and by `tools/list` (the
//! [`SchemaProfile`]).
//!
//! # The standard profile: what every derived schema looks like
//!
//! The [`Standard`] transform runs on every derived input and output schema,
//! and the validator compiles its result, so what is listed is what is
//! enforced. It changes the form, never the meaning (a value accepted before
//! is accepted after, a value refused before is refused after):
//!
//! - **No `type` arrays.** `{"type": ["string", "null"], "maxLength": 5}`
//!   (schemars' `Option<String>`) becomes `{"anyOf": [{"type": "string",
//!   "maxLength": 5}, {"type": "null"}]}`: annotations (`description`,
//!   `title`, `default`, `examples`, `deprecated`, …) stay outside, every
//!   other keyword goes into each non-null branch. One rule for every
//!   nullable value, enums included: an `enum` that lists `null` loses it in
//!   the typed branch, and the `null` branch is there only when the schema
//!   accepted `null`.
//! - **No Rust type names in `format`.** schemars writes integer types as
//!   `format: "uint32"`, `"int64"`…: the format goes and the type's range
//!   becomes `minimum`/`maximum` where the schema does not bound itself
//!   (`uint32` → `minimum: 0, maximum: 4294967295`). 64-bit bounds are kept
//!   exact (`maximum: 18446744073709551615` for `u64`, `usize` as 64-bit)
//!   although they exceed JavaScript's safe integers: they are what the
//!   handler's type accepts, and a client that reads them as doubles still
//!   gets a bound no smaller than the real one. `float`, `double`, `int128`
//!   and `uint128` formats go too, without a range (128-bit ranges do not fit
//!   a JSON number the validator compares exactly; schemars' own
//!   `minimum: 0` stays). Formats of the JSON Schema
//!   standard (`email`, `date`, `uuid`…) and formats a user wrote stay.
//! - **Every value has a `type`.** An `enum` or `const` without one gets the
//!   JSON type of its values; a `oneOf`/`anyOf` whose branches all have the
//!   same single `type` (schemars' enum with documented variants: a `oneOf` of
//!   `{"type": "string", "const": …}`) gets that `type` too. A nullable value
//!   is an `anyOf` whose branches each have a `type`.
//! - **No repeated alternatives.** An `anyOf` loses branches equal to an
//!   earlier one, and an `anyOf` branch that is itself only an `anyOf` is
//!   spread into its parent.
//!
//! # The portable profile: what strict model APIs take
//!
//! [`SchemaProfile::Portable`] changes only what `tools/list` shows (see
//! [`portable`]); the validator still compiles the standard schema.

use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

/// Which form of the schemas `tools/list` shows. Validation is the same
/// under both: every call is checked against the full (standard) schema.
///
/// Set with [`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile);
/// `fusion serve --schema-profile standard|portable`. Contract lockfiles
/// (`fusion lock`) record the standard schema whatever the profile: they are
/// read from each action's schema in `_meta["mcp-fusion/actions"]`, which
/// is always the standard one, so switching profiles changes no digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// The full draft 2020-12 schema (the default): every constraint the
    /// validator enforces is shown, in the form described in the crate's
    /// schema rules (no `type` arrays, no Rust type names in `format`, a
    /// `type` on every value, nullable values as `anyOf` with a `null`
    /// branch).
    #[default]
    Standard,
    /// The subset that strict model APIs accept in a tool's input schema:
    /// the keywords of the Gemini API's `Schema` object (a subset of OpenAPI
    /// 3.0, <https://ai.google.dev/api/caching#Schema>: `type`, `title`,
    /// `description`, `enum`, `items`, `minItems`, `maxItems`,
    /// `properties`, `required`, `minProperties`, `maxProperties`,
    /// `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `anyOf`,
    /// `default`, `example`) without `format`; everything else is left out,
    /// `additionalProperties` included. `oneOf` is shown as `anyOf` (OpenAI's
    /// strict mode takes `anyOf`, not `oneOf`:
    /// <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>),
    /// `const` as a one-value `enum`, and an `anyOf` of constants as one
    /// `enum`, the constants' descriptions added to the value's description.
    ///
    /// The schema shown is looser than the one enforced (unknown keys,
    /// formats, exclusive bounds are still refused): a call that breaks a
    /// rule not shown gets the same `<validation_error>` as under
    /// [`Standard`](SchemaProfile::Standard).
    Portable,
}

impl SchemaProfile {
    /// `schema` (a standard schema) as this profile shows it.
    pub(crate) fn show(self, schema: &Value) -> Value {
        match self {
            SchemaProfile::Standard => schema.clone(),
            SchemaProfile::Portable => portable(schema),
        }
    }
}

/// Adds `additionalProperties: false` to every object schema that lists
/// `properties` and says nothing of additional ones.
#[derive(Debug, Clone)]
struct DenyUnknownFields;

impl Transform for DenyUnknownFields {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut()
            && object.contains_key("properties")
            && !object.contains_key("additionalProperties")
            && !object.contains_key("unevaluatedProperties")
        {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        transform_subschemas(self, schema);
    }
}

/// The standard profile's rewrites (see the module documentation). Every
/// step is idempotent: schemars may run a transform more than once on the
/// same subschema.
#[derive(Debug, Clone)]
struct Standard;

impl Transform for Standard {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut() {
            drop_rust_format(object);
            type_for_enum(object);
            split_type_array(object);
        }
        transform_subschemas(self, schema);
        if let Some(object) = schema.as_object_mut() {
            tidy_any_of(object);
            hoist_branch_type(object);
        }
    }
}

/// Keywords that describe a value without constraining it: they stay on the
/// outer schema when a type array becomes an `anyOf`.
const ANNOTATIONS: [&str; 12] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
    "$defs",
];

/// The range of the Rust integer type a schemars `format` names (`int` and
/// `uint`, schemars' `isize` and `usize`, as 64-bit, like the validator);
/// `None` for the other formats.
fn integer_range(format: &str) -> Option<(Value, Value)> {
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

/// Formats schemars derives from Rust number types whose range is not
/// written out (128-bit ranges do not fit a JSON number compared exactly).
const RUST_FORMATS_WITHOUT_RANGE: [&str; 4] = ["float", "double", "int128", "uint128"];

/// Removes a `format` naming a Rust number type, writing its range as
/// `minimum`/`maximum` where the schema does not bound itself.
fn drop_rust_format(object: &mut Map<String, Value>) {
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    if let Some((min, max)) = integer_range(format) {
        let is_integer = match object.get("type") {
            Some(Value::String(t)) => t == "integer",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
            _ => false,
        };
        if is_integer {
            if !object.contains_key("minimum") && !object.contains_key("exclusiveMinimum") {
                object.insert("minimum".into(), min);
            }
            if !object.contains_key("maximum") && !object.contains_key("exclusiveMaximum") {
                object.insert("maximum".into(), max);
            }
        }
    } else if !RUST_FORMATS_WITHOUT_RANGE.contains(&format) {
        return;
    }
    object.remove("format");
}

/// The JSON Schema type of a value.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An `enum` or `const` without a `type` gets the type(s) of its values (a
/// list of several is then split by [`split_type_array`]).
fn type_for_enum(object: &mut Map<String, Value>) {
    if object.contains_key("type") {
        return;
    }
    let values: Vec<&Value> = match (object.get("enum"), object.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(value)) => vec![value],
        _ => return,
    };
    let mut types: Vec<&str> = Vec::new();
    for value in values {
        let t = json_type(value);
        // An integer is a number: one `number` covers both.
        if t == "integer" && types.contains(&"number") {
            continue;
        }
        if t == "number" {
            types.retain(|t| *t != "integer");
        }
        if !types.contains(&t) {
            types.push(t);
        }
    }
    match types.as_slice() {
        [] => {}
        [one] => {
            object.insert("type".into(), Value::from(*one));
        }
        _ => {
            object.insert("type".into(), Value::from(types));
        }
    }
}

/// Whether `value` of JSON type `t` is an instance of `type` `wanted`.
fn is_of_type(t: &str, wanted: &str) -> bool {
    t == wanted || (wanted == "number" && t == "integer")
}

/// A `type` array becomes an `anyOf` with one branch per type (see the
/// module documentation); a one-type array becomes that type.
fn split_type_array(object: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = object.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if types.len() < 2 {
        if let Some(one) = types.into_iter().next() {
            object.insert("type".into(), Value::String(one));
        }
        return;
    }
    object.remove("type");
    let mut outer = Map::new();
    let mut shared = Map::new();
    for (key, value) in std::mem::take(object) {
        if ANNOTATIONS.contains(&key.as_str()) {
            outer.insert(key, value);
        } else {
            shared.insert(key, value);
        }
    }
    let mut branches = Vec::new();
    for t in &types {
        let mut branch = Map::new();
        branch.insert("type".into(), Value::String(t.clone()));
        let mut keep = true;
        for (key, value) in &shared {
            match (key.as_str(), value) {
                ("enum", Value::Array(values)) => {
                    let values: Vec<Value> = values
                        .iter()
                        .filter(|v| is_of_type(json_type(v), t))
                        .cloned()
                        .collect();
                    keep &= !values.is_empty();
                    branch.insert(key.clone(), Value::Array(values));
                }
                ("const", value) => {
                    keep &= is_of_type(json_type(value), t);
                    branch.insert(key.clone(), value.clone());
                }
                // The other keywords constrain one type only: `null` needs none.
                _ if t == "null" => {}
                _ => {
                    branch.insert(key.clone(), value.clone());
                }
            }
        }
        if t == "null" {
            branch.remove("enum");
            branch.remove("const");
        }
        if keep {
            branches.push(Value::Object(branch));
        }
    }
    *object = match branches.len() {
        1 => {
            let Some(Value::Object(mut only)) = branches.pop() else {
                unreachable!("one branch, an object")
            };
            only.extend(outer);
            only
        }
        _ => {
            outer.insert("anyOf".into(), Value::Array(branches));
            outer
        }
    };
}

/// An `anyOf` branch that holds only an `anyOf` (and annotations) is spread
/// into its parent, and branches equal to an earlier one are removed.
fn tidy_any_of(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let mut flat: Vec<Value> = Vec::new();
    for branch in branches {
        let nested = branch.as_object().and_then(|b| {
            let only_any_of = b
                .keys()
                .all(|k| k == "anyOf" || (ANNOTATIONS.contains(&k.as_str()) && k != "$defs"));
            b.get("anyOf")
                .and_then(Value::as_array)
                .filter(|_| only_any_of)
        });
        for branch in nested.cloned().unwrap_or_else(|| vec![branch.clone()]) {
            if !flat.contains(&branch) {
                flat.push(branch);
            }
        }
    }
    object.insert("anyOf".into(), Value::Array(flat));
}

/// A `oneOf` or `anyOf` whose branches all have the same single `type` gives
/// that `type` to the schema that holds it, when it has none.
fn hoist_branch_type(object: &mut Map<String, Value>) {
    if object.contains_key("type") {
        return;
    }
    let branches = match (object.get("oneOf"), object.get("anyOf")) {
        (Some(Value::Array(branches)), None) | (None, Some(Value::Array(branches))) => branches,
        _ => return,
    };
    let mut common: Option<&str> = None;
    for branch in branches {
        let Some(t) = branch.get("type").and_then(Value::as_str) else {
            return;
        };
        if common.is_some_and(|c| c != t) {
            return;
        }
        common = Some(t);
    }
    if let Some(t) = common {
        let t = Value::from(t);
        object.insert("type".into(), t);
    }
}

/// The keywords the portable profile keeps: the Gemini API's `Schema` object
/// (<https://ai.google.dev/api/caching#Schema>) without `format`, `nullable`
/// and `propertyOrdering` (never produced here).
const PORTABLE_KEYWORDS: [&str; 19] = [
    "type",
    "title",
    "description",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
    "example",
];

/// The portable profile's rewrites (see [`SchemaProfile::Portable`]).
#[derive(Debug, Clone)]
struct Portable;

impl Transform for Portable {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut() {
            if let Some(one_of) = object.remove("oneOf") {
                object.entry("anyOf").or_insert(one_of);
            }
            if let Some(value) = object.remove("const") {
                object
                    .entry("enum")
                    .or_insert_with(|| Value::Array(vec![value]));
            }
            object.retain(|key, _| PORTABLE_KEYWORDS.contains(&key.as_str()));
        }
        transform_subschemas(self, schema);
        if let Some(object) = schema.as_object_mut() {
            constants_as_enum(object);
            hoist_branch_type(object);
        }
    }
}

/// An `anyOf` whose every branch is an `enum` (with at most a `type` and a
/// `description`) of one type becomes one `enum`; the branches'
/// descriptions are added to the schema's (`"draft": Being prepared.`).
fn constants_as_enum(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut notes = Vec::new();
    let mut common: Option<&str> = None;
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        if !branch
            .keys()
            .all(|k| matches!(k.as_str(), "type" | "enum" | "description"))
        {
            return;
        }
        let (Some(Value::String(t)), Some(Value::Array(enumerated))) =
            (branch.get("type"), branch.get("enum"))
        else {
            return;
        };
        if common.is_some_and(|c| c != t) || t == "null" {
            return;
        }
        common = Some(t);
        for value in enumerated {
            if !values.contains(value) {
                values.push(value.clone());
            }
        }
        if let (Some(description), [value]) = (
            branch.get("description").and_then(Value::as_str),
            enumerated.as_slice(),
        ) {
            notes.push(format!("{value}: {description}"));
        }
    }
    let Some(t) = common.map(str::to_owned) else {
        return;
    };
    object.remove("anyOf");
    object.insert("type".into(), Value::String(t));
    object.insert("enum".into(), Value::Array(values));
    if !notes.is_empty() {
        let notes = notes.join(" ");
        let description = match object.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} Values: {notes}"),
            _ => format!("Values: {notes}"),
        };
        object.insert("description".into(), Value::String(description));
    }
}

/// `schema` (a standard schema) as the portable profile shows it.
pub(crate) fn portable(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Ok(schema) = <&mut Schema>::try_from(&mut schema) {
        Portable.transform(schema);
    }
    schema
}

/// Two actions of a group with the same field: one schema that accepts what
/// either accepts. Schemas equal but for their descriptions give the first;
/// else an `anyOf` of both, spread and without repeats (descriptions of the
/// branches aside), so `Currency` and `Option<Currency>` give `anyOf:
/// [Currency, null]`, not the currency twice. The outer description holds
/// each side's own description, once.
pub(crate) fn merge_alternatives(first: &Value, second: &Value) -> Value {
    let (a, a_description) = without_descriptions(first);
    let (b, b_description) = without_descriptions(second);
    let mut descriptions: Vec<String> = Vec::new();
    for d in [a_description, b_description].into_iter().flatten() {
        if !descriptions.contains(&d) {
            descriptions.push(d);
        }
    }
    let mut merged = Map::new();
    merged.insert("anyOf".into(), Value::Array(vec![a, b]));
    tidy_any_of(&mut merged);
    if let Some(Value::Array(branches)) = merged.get_mut("anyOf")
        && branches.len() == 1
        && let Some(Value::Object(only)) = branches.pop()
    {
        merged = only;
    }
    hoist_branch_type(&mut merged);
    if !descriptions.is_empty() {
        merged.insert("description".into(), Value::String(descriptions.join(" ")));
    }
    Value::Object(merged)
}

/// `schema` without its `description` (returned apart) and, when it is a
/// union, without its branches' descriptions: what is compared when two
/// actions' fields are merged.
fn without_descriptions(schema: &Value) -> (Value, Option<String>) {
    let mut schema = schema.clone();
    let Some(object) = schema.as_object_mut() else {
        return (schema, None);
    };
    let description = object
        .remove("description")
        .and_then(|d| d.as_str().map(str::to_owned));
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        for branch in branches {
            if let Some(branch) = branch.as_object_mut() {
                branch.remove("description");
            }
        }
    }
    (schema, description)
}

fn settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.transforms.push(Box::new(Standard));
    settings
}

/// The input schema of `T` in the standard form; with `allow_unknown_fields`
/// false, objects get `additionalProperties: false`.
pub(crate) fn input_schema_for<T: JsonSchema>(allow_unknown_fields: bool) -> Value {
    let mut settings = settings();
    if !allow_unknown_fields {
        settings.transforms.push(Box::new(DenyUnknownFields));
    }
    without_meta_schema(settings.into_generator().into_root_schema_for::<T>())
}

/// The output schema of `T` (for serialization), in the standard form.
pub(crate) fn output_schema_for<T: JsonSchema>() -> Value {
    without_meta_schema(
        settings()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>(),
    )
}

/// The schema as JSON, without its `$schema` line (MCP's default dialect is
/// 2020-12 already).
fn without_meta_schema(schema: Schema) -> Value {
    let mut schema = schema.to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    schema
}
