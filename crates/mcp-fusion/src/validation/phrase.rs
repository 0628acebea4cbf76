//! One validator error → field lines `{problem}. You sent: {sent}. {expected}`,
//! phrased per JSON Schema keyword (wire contract §4; the table is in
//! `docs/validation.md`).

use std::borrow::Cow;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
use serde_json::Value;

use super::expect::{
    Parts, bounds_phrase, count, format_parts, limit_expected, multiple_of_parts, parts,
    pattern_expected, required_expected, type_expected, type_kind_names, wrong_type,
};
use super::format::clean;
use super::line::{Ctx, Line, expected_pinned};
use super::lookup::{self, Unions};
use super::path::{self, Seg};
use super::sent::{MISSING, quote_cut, sent};
use super::union::{self, Choice};
use super::unknown_keys::{Known, unknown_keys};
use crate::json::compact;

/// Phrases `err` into one or more lines (a union may yield its chosen
/// branch's lines; `additionalProperties` yields one line per key).
pub(crate) fn phrase(ctx: &Ctx, err: &ValidationError<'_>, out: &mut Vec<Line>) {
    let here = path::segments(ctx.instance, err.instance_path().as_str());
    let value: &Value = err.instance();
    let schema_path = err.schema_path().as_str();
    match err.kind() {
        Kind::Required { property } => {
            out.push(required_line(ctx, schema_path, &here, value, property));
        }
        Kind::AdditionalProperties { unexpected } => {
            let owner = lookup::owner(ctx.root, schema_path, "additionalProperties");
            let known = Known::declared_by(owner);
            out.extend(unknown_keys(
                &here,
                value,
                unexpected,
                &known,
                "additionalProperties",
            ));
        }
        Kind::UnevaluatedProperties { unexpected } => {
            let known = lookup::owner(ctx.root, schema_path, "unevaluatedProperties")
                .map(|o| Known::evaluated_by(ctx.root, o))
                .unwrap_or_default();
            out.extend(unknown_keys(
                &here,
                value,
                unexpected,
                &known,
                "unevaluatedProperties",
            ));
        }
        Kind::PropertyNames { error } => out.push(property_name_line(&here, value, ctx, error)),
        Kind::FalseSchema
            if schema_path.ends_with("/additionalProperties")
                || schema_path.ends_with("/unevaluatedProperties")
                || schema_path.ends_with("/propertyNames") =>
        {
            false_schema_lines(ctx, err, here, out);
        }
        Kind::OneOfNotValid { context } => {
            phrase_choice(ctx, union::choose(ctx, err, context, "oneOf"), out);
        }
        Kind::AnyOf { context } => {
            phrase_choice(ctx, union::choose(ctx, err, context, "anyOf"), out);
        }
        _ => {
            let p = single(ctx, err).unwrap_or_else(|| fallback(err.kind().keyword()));
            out.push(
                Line::about(
                    here,
                    keyword_of(err.kind()),
                    &p.problem,
                    Some(value),
                    &p.expected,
                )
                .fixing(value, p.fix),
            );
        }
    }
}

/// The line of a missing required field `property` of the object `value`
/// at `here`: its expectation from the plan, else read from the schema.
fn required_line(
    ctx: &Ctx,
    schema_path: &str,
    here: &[Seg],
    value: &Value,
    property: &Value,
) -> Line {
    let name = property
        .as_str()
        .map_or_else(|| compact(property), str::to_owned);
    let expected = match ctx.plan.required(schema_path, &name) {
        Some(planned) => std::borrow::Cow::Borrowed(planned),
        None => std::borrow::Cow::Owned(required_walked(ctx, schema_path, here, value, &name)),
    };
    Line::new(
        path::child(here, &name),
        "required",
        "Missing required field",
        MISSING,
        &expected,
    )
}

/// The line of a field name of the object `value` at `here` that its
/// `propertyNames` schema refuses (`error`).
fn property_name_line(here: &[Seg], value: &Value, ctx: &Ctx, error: &ValidationError<'_>) -> Line {
    let key = error
        .instance()
        .as_str()
        .map_or_else(|| compact(error.instance()), str::to_owned);
    let inner = single(ctx, error).unwrap_or_else(|| fallback(error.kind().keyword()));
    Line::new(
        path::child(here, &key),
        "propertyNames",
        &format!(
            "Invalid field name \"{key}\" ({})",
            lower_first(&inner.problem)
        ),
        &sent(value.get(&key)),
        &inner.expected,
    )
}

/// The lines of a `false` schema under `additionalProperties`,
/// `unevaluatedProperties` or `propertyNames`: on an object declaring no
/// properties, reported once, at the object, for its unknown keys (or, with
/// none, the `false` itself).
fn false_schema_lines(ctx: &Ctx, err: &ValidationError<'_>, here: Vec<Seg>, out: &mut Vec<Line>) {
    let value: &Value = err.instance();
    let schema_path = err.schema_path().as_str();
    // `additionalProperties: false` on an object declaring no
    // properties: reported once, at the object, for its first key.
    let object = path::value_at(ctx.instance, &here).unwrap_or(value);
    let owner = schema_path
        .rsplit_once('/')
        .and_then(|(o, _)| crate::json::pointer(ctx.root, o));
    let known = Known::declared_by(owner);
    let unexpected: Vec<String> = object
        .as_object()
        .map(|m| {
            m.keys()
                .filter(|k| !known.names.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if unexpected.is_empty() {
        let p = single(ctx, err).unwrap_or_else(|| fallback("false"));
        out.push(Line::new(
            here,
            "false",
            &p.problem,
            &sent(Some(value)),
            &p.expected,
        ));
    } else {
        out.extend(unknown_keys(
            &here,
            object,
            &unexpected,
            &known,
            "additionalProperties",
        ));
    }
}

/// What [`union::choose`] picked: its one line, or the chosen branch's own
/// errors, each phrased.
fn phrase_choice(ctx: &Ctx, choice: Choice<'_>, out: &mut Vec<Line>) {
    match choice {
        Choice::Line(line) => out.push(line),
        Choice::Branch(errors) => {
            for e in errors {
                phrase(ctx, e, out);
            }
        }
    }
}

/// The stable keyword a kind is about (`'static`, for [`Line::keyword`]).
fn keyword_of(kind: &Kind) -> &'static str {
    match kind {
        Kind::AdditionalItems { .. } => "additionalItems",
        Kind::AdditionalProperties { .. } => "additionalProperties",
        Kind::AnyOf { .. } => "anyOf",
        Kind::BacktrackLimitExceeded { .. }
        | Kind::RegexEngineFailure { .. }
        | Kind::Pattern { .. } => "pattern",
        Kind::Constant { .. } => "const",
        Kind::Contains => "contains",
        Kind::ContentEncoding { .. } | Kind::FromUtf8 { .. } => "contentEncoding",
        Kind::ContentMediaType { .. } => "contentMediaType",
        Kind::Custom { .. } => "custom",
        Kind::Enum { .. } => "enum",
        Kind::ExclusiveMaximum { .. } => "exclusiveMaximum",
        Kind::ExclusiveMinimum { .. } => "exclusiveMinimum",
        Kind::FalseSchema => "false",
        Kind::Format { .. } => "format",
        Kind::MaxItems { .. } => "maxItems",
        Kind::Maximum { .. } => "maximum",
        Kind::MaxLength { .. } => "maxLength",
        Kind::MaxProperties { .. } => "maxProperties",
        Kind::MinItems { .. } => "minItems",
        Kind::Minimum { .. } => "minimum",
        Kind::MinLength { .. } => "minLength",
        Kind::MinProperties { .. } => "minProperties",
        Kind::MultipleOf { .. } => "multipleOf",
        Kind::Not { .. } => "not",
        Kind::OneOfMultipleValid { .. } | Kind::OneOfNotValid { .. } => "oneOf",
        Kind::PropertyNames { .. } => "propertyNames",
        Kind::Required { .. } => "required",
        Kind::Type { .. } => "type",
        Kind::UnevaluatedItems { .. } => "unevaluatedItems",
        Kind::UnevaluatedProperties { .. } => "unevaluatedProperties",
        Kind::UniqueItems => "uniqueItems",
        Kind::Referencing(_) => "$ref",
    }
}

/// The line for a kind whose value is not in the error kind itself: a rule
/// the schema states and this text cannot restate. Never shows Rust names.
fn fallback(keyword: &str) -> Parts<'static> {
    let keyword: String = keyword
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '$' || *c == '_' || *c == '-')
        .take(40)
        .collect();
    Parts {
        problem: "Invalid value".into(),
        expected: format!("Expected a value that satisfies the schema's '{keyword}' rule.").into(),
        fix: None,
    }
}

/// The expectation of the missing field `name` of the object at `here`
/// (`object`), read from the schema: the field's schema where the `required`
/// failed (`schema_path`), else the schema that applies to the object.
fn required_walked(
    ctx: &Ctx,
    schema_path: &str,
    here: &[Seg],
    object: &Value,
    name: &str,
) -> String {
    let prop = lookup::owner(ctx.root, schema_path, "required")
        .and_then(|o| lookup::object_view(ctx.root, o, Unions::Skip).prop(name))
        .or_else(|| {
            let schema = lookup::schema_at(ctx.root, ctx.instance, here)?;
            lookup::object_view(ctx.root, schema, Unions::Selected(object)).prop(name)
        });
    // The bounds the user's schema gives a missing number, so that the model
    // can pick a valid value.
    let given = lookup::owner(ctx.given, schema_path, "required")
        .and_then(|o| lookup::object_view(ctx.given, o, Unions::Skip).prop(name));
    required_expected(ctx.given, given, ctx.root, prop)
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Problem and expectation for a kind about one value (everything but
/// required, unknown keys, property names and unions): from the plan when it
/// holds them, else read from the schema.
pub(crate) fn single<'c>(ctx: &Ctx<'c>, err: &ValidationError<'_>) -> Option<Parts<'c>> {
    let value: &Value = err.instance();
    let schema_path = err.schema_path().as_str();
    if let Some(planned) = ctx.plan.single(err.kind(), value, schema_path) {
        return Some(planned);
    }
    let at = At { ctx, schema_path };
    match err.kind() {
        Kind::Type { kind } => type_parts(&at, kind, value),
        Kind::Minimum { limit } => parts(
            "Too small",
            range(ctx, schema_path, "minimum", (">=", limit)),
        ),
        Kind::ExclusiveMinimum { limit } => parts(
            "Too small",
            range(ctx, schema_path, "exclusiveMinimum", (">", limit)),
        ),
        Kind::Maximum { limit } => parts(
            "Too large",
            range(ctx, schema_path, "maximum", ("<=", limit)),
        ),
        Kind::ExclusiveMaximum { limit } => parts(
            "Too large",
            range(ctx, schema_path, "exclusiveMaximum", ("<", limit)),
        ),
        Kind::MinLength { .. }
        | Kind::MaxLength { .. }
        | Kind::MinItems { .. }
        | Kind::MaxItems { .. }
        | Kind::AdditionalItems { .. }
        | Kind::UnevaluatedItems { .. }
        | Kind::MinProperties { .. }
        | Kind::MaxProperties { .. } => size_parts(&at, err.kind()),
        Kind::Enum { .. }
        | Kind::Constant { .. }
        | Kind::Pattern { .. }
        | Kind::BacktrackLimitExceeded { .. }
        | Kind::RegexEngineFailure { .. }
        | Kind::Format { .. }
        | Kind::MultipleOf { .. } => value_parts(&at, err.kind(), value),
        Kind::UniqueItems => unique_parts(value),
        Kind::Contains => contains_parts(&at),
        Kind::Not { .. } | Kind::FalseSchema | Kind::OneOfMultipleValid { .. } => {
            shape_parts(&at, err)
        }
        Kind::ContentEncoding { .. } | Kind::FromUtf8 { .. } | Kind::ContentMediaType { .. } => {
            content_parts(&at, err.kind())
        }
        Kind::Custom { keyword, .. } => Some(fallback(keyword)),
        Kind::Referencing(_) => Some(fallback("$ref")),
        Kind::Required { .. }
        | Kind::AdditionalProperties { .. }
        | Kind::UnevaluatedProperties { .. }
        | Kind::PropertyNames { .. }
        | Kind::OneOfNotValid { .. }
        | Kind::AnyOf { .. } => None,
    }
}

/// Where a failed keyword is in the schema: for reading what its owner
/// states beside it.
struct At<'a, 'c> {
    ctx: &'a Ctx<'c>,
    schema_path: &'a str,
}

impl<'c> At<'_, 'c> {
    /// The schema object that holds `keyword` on the failed path.
    fn owner(&self, keyword: &str) -> Option<&'c Value> {
        lookup::owner(self.ctx.root, self.schema_path, keyword)
    }
}

/// `type`: the types the schema names (else the error's); the fix is the
/// value a sent string spells ([`wrong_type`]).
fn type_parts<'c>(at: &At<'_, 'c>, kind: &TypeKind, value: &Value) -> Option<Parts<'c>> {
    let names: Vec<String> = match at.owner("type").and_then(|o| o.get("type")) {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => type_kind_names(kind),
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    wrong_type(type_expected(&names), value, &names)
}

/// The keywords of a size: a string's length, an array's items, an
/// object's fields.
fn size_parts<'c>(at: &At<'_, 'c>, kind: &Kind) -> Option<Parts<'c>> {
    // The other bound of the same size, when the schema states one.
    let other = |keyword: &str, other: &str| {
        at.owner(keyword)
            .and_then(|o| o.get(other))
            .and_then(Value::as_u64)
    };
    match kind {
        Kind::MinLength { limit } => parts(
            "Too short",
            limit_expected(
                *limit,
                other("minLength", "maxLength"),
                "at least",
                "character",
                "characters",
            ),
        ),
        Kind::MaxLength { limit } => parts(
            "Too long",
            limit_expected(
                *limit,
                other("maxLength", "minLength"),
                "at most",
                "character",
                "characters",
            ),
        ),
        Kind::MinItems { limit } => parts(
            "Too few items",
            limit_expected(
                *limit,
                other("minItems", "maxItems"),
                "at least",
                "item",
                "items",
            ),
        ),
        Kind::MaxItems { limit } => parts(
            "Too many items",
            limit_expected(
                *limit,
                other("maxItems", "minItems"),
                "at most",
                "item",
                "items",
            ),
        ),
        _ => extra_parts(at, kind),
    }
}

/// The keywords of items or fields beyond those allowed:
/// `additionalItems`, `unevaluatedItems`, `minProperties`,
/// `maxProperties`.
fn extra_parts<'c>(at: &At<'_, 'c>, kind: &Kind) -> Option<Parts<'c>> {
    match kind {
        Kind::AdditionalItems { limit } => parts(
            "Too many items",
            format!(
                "Expected at most {}.",
                count(*limit as u64, "item", "items")
            ),
        ),
        Kind::UnevaluatedItems { .. } => {
            let defined = at
                .owner("unevaluatedItems")
                .and_then(|o| o.get("prefixItems"))
                .and_then(Value::as_array)
                .map(Vec::len);
            match defined {
                Some(n) => parts(
                    "Too many items",
                    format!("Expected at most {}.", count(n as u64, "item", "items")),
                ),
                None => parts(
                    "Unexpected items",
                    "Expected only the items the schema defines; remove the others.",
                ),
            }
        }
        Kind::MinProperties { limit } => parts(
            "Too few fields",
            format!("Expected at least {}.", count(*limit, "field", "fields")),
        ),
        Kind::MaxProperties { limit } => parts(
            "Too many fields",
            format!("Expected at most {}.", count(*limit, "field", "fields")),
        ),
        _ => None,
    }
}

/// An `Invalid value` line's parts: the expectation of pinned values and the
/// option suggested, which is the fix.
fn pinned<'c>((expected, fix): (String, Option<Value>)) -> Option<Parts<'c>> {
    Some(Parts {
        problem: Cow::Borrowed("Invalid value"),
        expected: Cow::Owned(expected),
        fix,
    })
}

/// The keywords about the value itself: `enum`, `const`, `pattern`,
/// `format`, `multipleOf`.
fn value_parts<'c>(at: &At<'_, 'c>, kind: &Kind, value: &Value) -> Option<Parts<'c>> {
    match kind {
        Kind::Enum { options } => {
            let opts: Vec<&Value> = match &**options {
                Value::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            pinned(expected_pinned(value, &opts, &[]))
        }
        Kind::Constant { expected_value } => {
            pinned(expected_pinned(value, &[&**expected_value], &[]))
        }
        Kind::Pattern { pattern } => parts("Does not match the pattern", pattern_expected(pattern)),
        Kind::BacktrackLimitExceeded { .. } | Kind::RegexEngineFailure { .. } => {
            let pattern = at
                .owner("pattern")
                .and_then(|o| o.get("pattern"))
                .and_then(Value::as_str)?;
            parts(
                "Could not be checked against the pattern",
                format!("Expected a shorter or simpler string matching the pattern '{pattern}'."),
            )
        }
        Kind::Format { format } => {
            let (problem, expected) = format_parts(format);
            parts(problem, expected)
        }
        Kind::MultipleOf { .. } => {
            let (problem, expected) =
                multiple_of_parts(at.owner("multipleOf").and_then(|o| o.get("multipleOf"))?);
            parts(problem, expected)
        }
        _ => None,
    }
}

/// `uniqueItems`: the first two equal items.
fn unique_parts<'c>(value: &Value) -> Option<Parts<'c>> {
    let pair = value.as_array().and_then(|items| {
        items
            .iter()
            .enumerate()
            .find_map(|(j, b)| items[..j].iter().position(|a| a == b).map(|i| (i, j)))
    });
    let detail = pair.map_or_else(String::new, |(i, j)| {
        format!(" (items {i} and {j} are equal)")
    });
    parts(
        "Duplicate items",
        format!("Expected every item to be different{detail}."),
    )
}

/// `contains` (with `minContains`, `maxContains`): how many items must
/// match, and what they must be.
fn contains_parts<'c>(at: &At<'_, 'c>) -> Option<Parts<'c>> {
    let o = ["contains", "minContains", "maxContains"]
        .into_iter()
        .find_map(|keyword| at.owner(keyword))
        .filter(|o| o.get("contains").is_some());
    let min = o
        .and_then(|o| o.get("minContains"))
        .and_then(Value::as_u64)
        .unwrap_or(1);
    let max = o.and_then(|o| o.get("maxContains")).and_then(Value::as_u64);
    let (how_many, singular) = match max {
        None if min == 1 => ("at least one item".to_owned(), true),
        None => (format!("at least {min} items"), false),
        Some(max) if max == min => (format!("exactly {}", count(max, "item", "items")), max == 1),
        Some(max) if min == 0 => (format!("at most {}", count(max, "item", "items")), max == 1),
        Some(max) => (format!("from {min} to {max} items"), false),
    };
    let what = o
        .and_then(|o| o.get("contains"))
        .and_then(|c| lookup::describe(at.ctx.root, c))
        .map_or_else(
            || "matching the schema's 'contains' rule".to_owned(),
            |d| format!("that {} {d}", if singular { "is" } else { "are each" }),
        );
    let problem = if min == 1 && max.is_none() {
        "No matching item"
    } else {
        "Wrong number of matching items"
    };
    parts(problem, format!("Expected {how_many} {what}."))
}

/// The keywords about the value's shape: `not`, a `false` schema, a `oneOf`
/// matched more than once.
fn shape_parts<'c>(at: &At<'_, 'c>, err: &ValidationError<'_>) -> Option<Parts<'c>> {
    match err.kind() {
        Kind::Not { schema } => {
            let expected = match lookup::describe(at.ctx.root, schema) {
                Some(d) => format!("Expected a value that is not {d}."),
                None => {
                    let text = compact(schema);
                    let text = quote_cut(&text);
                    format!("Expected a value that does not match the schema {text}.")
                }
            };
            parts("Value not allowed", expected)
        }
        Kind::FalseSchema => {
            let segs = path::segments(at.ctx.instance, err.instance_path().as_str());
            let expected = match segs.last() {
                Some(Seg::Index(_)) => "Remove this item.",
                Some(Seg::Key(_)) => "Remove this field.",
                None => "Expected no value.",
            };
            parts("Not allowed", expected)
        }
        Kind::OneOfMultipleValid { .. } => {
            let desc = at
                .owner("oneOf")
                .and_then(|o| o.get("oneOf"))
                .and_then(Value::as_array)
                .and_then(|b| lookup::describe_branches(at.ctx.root, b, 0));
            let tail = desc.map_or_else(String::new, |d| format!(" ({d})"));
            parts(
                "Matches more than one allowed shape",
                format!("Expected a value that matches exactly one of the allowed shapes{tail}."),
            )
        }
        _ => None,
    }
}

/// The keywords about a string's content: `contentEncoding`,
/// `contentMediaType`.
fn content_parts<'c>(at: &At<'_, 'c>, kind: &Kind) -> Option<Parts<'c>> {
    match kind {
        Kind::ContentEncoding { content_encoding } => parts(
            "Invalid encoding",
            format!("Expected {}-encoded text.", clean(content_encoding)),
        ),
        Kind::FromUtf8 { .. } => {
            let enc = at
                .owner("contentEncoding")
                .and_then(|o| o.get("contentEncoding"))
                .and_then(Value::as_str)
                .unwrap_or("base64");
            parts(
                "Invalid encoding",
                format!("Expected {}-encoded UTF-8 text.", clean(enc)),
            )
        }
        Kind::ContentMediaType { content_media_type } => parts(
            "Invalid content",
            format!(
                "Expected a string holding valid {} content.",
                clean(content_media_type)
            ),
        ),
        _ => None,
    }
}

/// `Expected an integer >= 0.` / `Expected a number > 0 and <= 100.`: the
/// failing bound (of `keyword`) with the other side's bound when the user's
/// schema states one.
fn range(ctx: &Ctx, schema_path: &str, keyword: &str, failed: (&str, &Value)) -> String {
    let noun_owner = lookup::owner(ctx.root, schema_path, keyword);
    let other_owner = lookup::owner_loose(ctx.given, schema_path, keyword);
    bounds_phrase(noun_owner, other_owner, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_never_carries_more_than_a_keyword() {
        let p = fallback("x-custom<alloc::string::String>");
        assert_eq!(p.problem, "Invalid value");
        assert_eq!(
            p.expected,
            "Expected a value that satisfies the schema's 'x-customallocstringString' rule."
        );
    }
}
