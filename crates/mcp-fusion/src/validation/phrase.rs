//! One validator error → field lines `{problem}. You sent: {sent}. {expected}`,
//! phrased per JSON Schema keyword (wire contract §4; the table is in
//! `docs/validation.md`).

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
use serde_json::Value;

use super::format::format_phrase;
use super::line::{Ctx, Line, clean, expected_pinned};
use super::lookup::{self, Unions};
use super::path::{self, Seg};
use super::sent::{MISSING, quote_cut, sent};
use super::union::{self, Choice};
use super::unknown_keys::{Known, unknown_keys};
use crate::json::compact;

/// The two phrased parts of a line about a single value.
pub(crate) struct Parts {
    pub problem: String,
    pub expected: String,
}

fn parts(problem: impl Into<String>, expected: impl Into<String>) -> Option<Parts> {
    Some(Parts {
        problem: problem.into(),
        expected: expected.into(),
    })
}

/// Phrases `err` into one or more lines (a union may yield its chosen
/// branch's lines; `additionalProperties` yields one line per key).
pub(crate) fn phrase(ctx: &Ctx, err: &ValidationError<'_>, out: &mut Vec<Line>) {
    let here = path::segments(ctx.instance, err.instance_path().as_str());
    let value: &Value = err.instance();
    let schema_path = err.schema_path().as_str();
    match err.kind() {
        Kind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| compact(property), str::to_owned);
            let prop = lookup::owner(ctx.root, schema_path, "required")
                .and_then(|o| lookup::object_view(ctx.root, o, Unions::Skip).prop(&name))
                .or_else(|| {
                    let object = lookup::schema_at(ctx.root, ctx.instance, &here)?;
                    lookup::object_view(ctx.root, object, Unions::Selected(value)).prop(&name)
                });
            // The bounds the user's schema gives a missing number, so that
            // the model can pick a valid value.
            let given = lookup::owner(ctx.given, schema_path, "required")
                .and_then(|o| lookup::object_view(ctx.given, o, Unions::Skip).prop(&name));
            let expected = given
                .and_then(|g| stated_bounds(ctx.given, g).or_else(|| stated_string(ctx.given, g)))
                .or_else(|| {
                    prop.and_then(|p| lookup::describe(ctx.root, p))
                        .map(|d| format!("Expected {d}."))
                })
                .unwrap_or_else(|| "Expected a value.".to_owned());
            out.push(Line::new(
                path::child(&here, &name),
                "required",
                "Missing required field",
                MISSING,
                &expected,
            ));
        }
        Kind::AdditionalProperties { unexpected } => {
            let owner = lookup::owner(ctx.root, schema_path, "additionalProperties");
            let known = Known::declared_by(owner);
            unknown_keys(
                &here,
                value,
                unexpected,
                &known,
                "additionalProperties",
                out,
            );
        }
        Kind::UnevaluatedProperties { unexpected } => {
            let known = lookup::owner(ctx.root, schema_path, "unevaluatedProperties")
                .map(|o| Known::evaluated_by(ctx.root, o))
                .unwrap_or_default();
            unknown_keys(
                &here,
                value,
                unexpected,
                &known,
                "unevaluatedProperties",
                out,
            );
        }
        Kind::PropertyNames { error } => {
            let key = error
                .instance()
                .as_str()
                .map_or_else(|| compact(error.instance()), str::to_owned);
            let inner = single(ctx, error).unwrap_or_else(|| fallback(error.kind().keyword()));
            out.push(Line::new(
                path::child(&here, &key),
                "propertyNames",
                &format!(
                    "Invalid field name \"{key}\" ({})",
                    lower_first(&inner.problem)
                ),
                &sent(value.get(&key)),
                &inner.expected,
            ));
        }
        Kind::FalseSchema
            if schema_path.ends_with("/additionalProperties")
                || schema_path.ends_with("/unevaluatedProperties")
                || schema_path.ends_with("/propertyNames") =>
        {
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
                unknown_keys(
                    &here,
                    object,
                    &unexpected,
                    &known,
                    "additionalProperties",
                    out,
                );
            }
        }
        Kind::OneOfNotValid { context } => {
            phrase_choice(ctx, union::choose(ctx, err, context, "oneOf"), out);
        }
        Kind::AnyOf { context } => {
            phrase_choice(ctx, union::choose(ctx, err, context, "anyOf"), out);
        }
        _ => {
            let p = single(ctx, err).unwrap_or_else(|| fallback(err.kind().keyword()));
            out.push(Line::new(
                here,
                keyword_of(err.kind()),
                &p.problem,
                &sent(Some(value)),
                &p.expected,
            ));
        }
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
fn fallback(keyword: &str) -> Parts {
    let keyword: String = keyword
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '$' || *c == '_' || *c == '-')
        .take(40)
        .collect();
    Parts {
        problem: "Invalid value".to_owned(),
        expected: format!("Expected a value that satisfies the schema's '{keyword}' rule."),
    }
}

/// `n thing` / `n things`.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Problem and expectation for a kind about one value (everything but
/// required, unknown keys, property names and unions).
pub(crate) fn single(ctx: &Ctx, err: &ValidationError<'_>) -> Option<Parts> {
    let value: &Value = err.instance();
    let schema_path = err.schema_path().as_str();
    let owner = |kw: &str| lookup::owner(ctx.root, schema_path, kw);
    match err.kind() {
        Kind::Type { kind } => {
            let names: Vec<String> = match owner("type").and_then(|o| o.get("type")) {
                Some(Value::String(t)) => vec![t.clone()],
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => match kind {
                    TypeKind::Single(t) => vec![t.to_string()],
                    TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
                },
            };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            parts(
                "Wrong type",
                format!("Expected {}.", lookup::type_phrase(&names)),
            )
        }
        Kind::MinLength { limit } => {
            let exact = owner("minLength")
                .and_then(|o| o.get("maxLength"))
                .and_then(Value::as_u64)
                == Some(*limit);
            let bound = if exact { "exactly" } else { "at least" };
            parts(
                "Too short",
                format!(
                    "Expected {bound} {}.",
                    count(*limit, "character", "characters")
                ),
            )
        }
        Kind::MaxLength { limit } => {
            let exact = owner("maxLength")
                .and_then(|o| o.get("minLength"))
                .and_then(Value::as_u64)
                == Some(*limit);
            let bound = if exact { "exactly" } else { "at most" };
            parts(
                "Too long",
                format!(
                    "Expected {bound} {}.",
                    count(*limit, "character", "characters")
                ),
            )
        }
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
        Kind::MinItems { limit } => {
            let exact = owner("minItems")
                .and_then(|o| o.get("maxItems"))
                .and_then(Value::as_u64)
                == Some(*limit);
            let bound = if exact { "exactly" } else { "at least" };
            parts(
                "Too few items",
                format!("Expected {bound} {}.", count(*limit, "item", "items")),
            )
        }
        Kind::MaxItems { limit } => {
            let exact = owner("maxItems")
                .and_then(|o| o.get("minItems"))
                .and_then(Value::as_u64)
                == Some(*limit);
            let bound = if exact { "exactly" } else { "at most" };
            parts(
                "Too many items",
                format!("Expected {bound} {}.", count(*limit, "item", "items")),
            )
        }
        Kind::AdditionalItems { limit } => parts(
            "Too many items",
            format!(
                "Expected at most {}.",
                count(*limit as u64, "item", "items")
            ),
        ),
        Kind::UnevaluatedItems { .. } => {
            let defined = owner("unevaluatedItems")
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
        Kind::Enum { options } => {
            let opts: Vec<&Value> = match &**options {
                Value::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            parts("Invalid value", expected_pinned(value, &opts, &[]))
        }
        Kind::Constant { expected_value } => parts(
            "Invalid value",
            expected_pinned(value, &[&**expected_value], &[]),
        ),
        Kind::Pattern { pattern } => parts(
            "Does not match the pattern",
            format!("Expected a string matching the pattern '{pattern}'."),
        ),
        Kind::BacktrackLimitExceeded { .. } | Kind::RegexEngineFailure { .. } => {
            let pattern = owner("pattern")
                .and_then(|o| o.get("pattern"))
                .and_then(Value::as_str)?;
            parts(
                "Could not be checked against the pattern",
                format!("Expected a shorter or simpler string matching the pattern '{pattern}'."),
            )
        }
        Kind::Format { format } => {
            let (label, expected) = format_phrase(format);
            parts(format!("Invalid {label} format"), expected)
        }
        Kind::MultipleOf { .. } => {
            let m = owner("multipleOf")
                .and_then(|o| o.get("multipleOf"))
                .map(compact)?;
            parts(
                format!("Not a multiple of {m}"),
                format!("Expected a multiple of {m}."),
            )
        }
        Kind::UniqueItems => {
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
        Kind::Contains => {
            let o = ["contains", "minContains", "maxContains"]
                .into_iter()
                .find_map(owner)
                .filter(|o| o.get("contains").is_some());
            let min = o
                .and_then(|o| o.get("minContains"))
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let max = o.and_then(|o| o.get("maxContains")).and_then(Value::as_u64);
            let (how_many, singular) = match max {
                None if min == 1 => ("at least one item".to_owned(), true),
                None => (format!("at least {min} items"), false),
                Some(max) if max == min => {
                    (format!("exactly {}", count(max, "item", "items")), max == 1)
                }
                Some(max) if min == 0 => {
                    (format!("at most {}", count(max, "item", "items")), max == 1)
                }
                Some(max) => (format!("from {min} to {max} items"), false),
            };
            let what = o
                .and_then(|o| o.get("contains"))
                .and_then(|c| lookup::describe(ctx.root, c))
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
        Kind::Not { schema } => {
            let expected = match lookup::describe(ctx.root, schema) {
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
            let segs = path::segments(ctx.instance, err.instance_path().as_str());
            let expected = match segs.last() {
                Some(Seg::Index(_)) => "Remove this item.",
                Some(Seg::Key(_)) => "Remove this field.",
                None => "Expected no value.",
            };
            parts("Not allowed", expected)
        }
        Kind::OneOfMultipleValid { .. } => {
            let desc = owner("oneOf")
                .and_then(|o| o.get("oneOf"))
                .and_then(Value::as_array)
                .and_then(|b| lookup::describe_branches(ctx.root, b, 0));
            let tail = desc.map_or_else(String::new, |d| format!(" ({d})"));
            parts(
                "Matches more than one allowed shape",
                format!("Expected a value that matches exactly one of the allowed shapes{tail}."),
            )
        }
        Kind::ContentEncoding { content_encoding } => parts(
            "Invalid encoding",
            format!("Expected {}-encoded text.", clean(content_encoding)),
        ),
        Kind::FromUtf8 { .. } => {
            let enc = owner("contentEncoding")
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

/// `Expected an integer >= 0.` / `Expected a number > 0 and <= 100.`: the
/// failing bound (of `keyword`) with the other side's bound when the user's
/// schema states one.
fn range(ctx: &Ctx, schema_path: &str, keyword: &str, failed: (&str, &Value)) -> String {
    let noun_owner = lookup::owner(ctx.root, schema_path, keyword);
    let other_owner = lookup::owner_loose(ctx.given, schema_path, keyword);
    bounds_phrase(noun_owner, other_owner, failed)
}

/// `Expected an integer >= 1 and <= 10000.` for a number schema that states
/// a bound (the lower one first); `None` for any other schema.
fn stated_bounds(root: &Value, schema: &Value) -> Option<String> {
    let number = lookup::members(root, schema).into_iter().find(|m| {
        matches!(
            m.get("type").and_then(Value::as_str),
            Some("integer" | "number")
        )
    })?;
    let failed = [
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ]
    .into_iter()
    .find_map(|(kw, op)| {
        number
            .get(kw)
            .filter(|v| v.is_number() && !is_64_bit_limit(v))
            .map(|v| (op, v))
    })?;
    Some(bounds_phrase(Some(number), Some(number), failed))
}

/// What a missing string must look like, from the user's schema: its
/// `format`'s expectation with an example, else its `pattern`; `None` for a
/// string with neither, or a value that is not a string.
fn stated_string(root: &Value, schema: &Value) -> Option<String> {
    let string = lookup::members(root, schema)
        .into_iter()
        .find(|m| m.get("type").and_then(Value::as_str) == Some("string"))?;
    if let Some(format) = string.get("format").and_then(Value::as_str) {
        return Some(format_phrase(format).1);
    }
    string
        .get("pattern")
        .and_then(Value::as_str)
        .map(|pattern| format!("Expected a string matching the pattern '{pattern}'."))
}

/// Whether `v` is `i64::MIN`, `i64::MAX` or `u64::MAX`.
fn is_64_bit_limit(v: &Value) -> bool {
    v.as_i64().is_some_and(|n| n == i64::MIN || n == i64::MAX) || v.as_u64() == Some(u64::MAX)
}

fn bounds_phrase(
    noun_owner: Option<&Value>,
    owner: Option<&Value>,
    failed: (&str, &Value),
) -> String {
    let lower_ops = [("minimum", ">="), ("exclusiveMinimum", ">")];
    let upper_ops = [("maximum", "<="), ("exclusiveMaximum", "<")];
    let failed_is_lower = failed.0.starts_with('>');
    let other_side = if failed_is_lower {
        upper_ops
    } else {
        lower_ops
    };
    // The other side is left out when it is only a 64-bit type's limit
    // (`u64`'s maximum, written out by the derived schemas): it tells the
    // model nothing.
    let other = owner.and_then(|o| {
        other_side.iter().find_map(|(kw, op)| {
            o.get(*kw)
                .filter(|v| v.is_number() && !is_64_bit_limit(v))
                .map(|v| (*op, v))
        })
    });
    let noun = match noun_owner.map(|o| o.get("type")) {
        Some(Some(Value::String(t))) if t == "integer" => "an integer",
        Some(Some(Value::Array(ts)))
            if ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number") =>
        {
            "an integer"
        }
        _ => "a number",
    };
    let (lo, hi) = if failed_is_lower {
        (Some(failed), other)
    } else {
        (other, Some(failed))
    };
    let bounds: Vec<String> = [lo, hi]
        .into_iter()
        .flatten()
        .map(|(op, v)| format!("{op} {}", compact(v)))
        .collect();
    format!("Expected {noun} {}.", bounds.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_singular_or_plural() {
        assert_eq!(count(1, "character", "characters"), "1 character");
        assert_eq!(count(0, "item", "items"), "0 items");
        assert_eq!(count(2, "field", "fields"), "2 fields");
    }

    #[test]
    fn ranges_name_both_bounds_when_the_schema_has_them() {
        fn range(o: Option<&Value>, failed: (&str, &Value)) -> String {
            bounds_phrase(o, o, failed)
        }
        let o = json!({"type": "integer", "minimum": 1, "maximum": 100});
        assert_eq!(
            range(Some(&o), (">=", &json!(1))),
            "Expected an integer >= 1 and <= 100."
        );
        assert_eq!(
            range(Some(&o), ("<=", &json!(100))),
            "Expected an integer >= 1 and <= 100."
        );
        let o = json!({"exclusiveMinimum": 0.5});
        assert_eq!(
            range(Some(&o), (">", &json!(0.5))),
            "Expected a number > 0.5."
        );
        assert_eq!(range(None, ("<", &json!(10))), "Expected a number < 10.");
        let o = json!({"type": ["integer", "null"], "maximum": 3});
        assert_eq!(
            range(Some(&o), ("<=", &json!(3))),
            "Expected an integer <= 3."
        );
        let checked = json!({"type": "integer", "minimum": 0, "maximum": 255});
        let given = json!({"type": "integer", "minimum": 0});
        assert_eq!(
            bounds_phrase(Some(&checked), Some(&given), (">=", &json!(0))),
            "Expected an integer >= 0.",
            "a bound the user did not write is not shown beside the failing one"
        );
    }

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
