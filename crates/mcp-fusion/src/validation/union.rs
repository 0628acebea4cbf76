//! `oneOf` / `anyOf` that no branch matched: pick what to tell the model.
//!
//! 1. Tagged union (every branch pins the same property, e.g. `model`, to a
//!    `const`/`enum`): a missing or unknown tag is ONE line at the tag's path
//!    listing the valid tags; a known tag reports that branch's own errors.
//! 2. Every branch pins the value itself (schemars' documented unit enums):
//!    one line like `enum`.
//! 3. Otherwise the branches whose type fits the value compete: the one with
//!    the fewest errors (first on ties) reports its errors; when no branch's
//!    type fits, one `Wrong type … Expected a string or null.` line (or
//!    `No branch matched … Expected one of: …` when a branch pins values).

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
use serde_json::Value;

use super::expect::{spelled, type_kind_names};
use super::line::{Ctx, Line, expected_pinned};
use super::lookup;
use super::path::{self, Seg};
use super::sent::{MISSING, sent};

/// What to tell the model about a union no branch matched.
pub(crate) enum Choice<'e> {
    /// One line about the union itself.
    Line(Line),
    /// The errors of the branch the value was meant for, to be phrased one
    /// by one.
    Branch(&'e [ValidationError<'static>]),
}

/// Chooses what to report for a `oneOf` (`keyword` = `"oneOf"`) or `anyOf`
/// error whose branches failed with the per-branch errors `context`.
pub(crate) fn choose<'e>(
    ctx: &Ctx,
    err: &ValidationError<'_>,
    context: &'e [Vec<ValidationError<'static>>],
    keyword: &'static str,
) -> Choice<'e> {
    let here = path::segments(ctx.instance, err.instance_path().as_str());
    let value: &Value = err.instance();
    let branches = lookup::owner(ctx.root, err.schema_path().as_str(), keyword)
        .and_then(|o| o.get(keyword))
        .and_then(Value::as_array)
        .filter(|b| b.len() == context.len());
    if let Some(branches) = branches {
        if let Some(choice) = by_tag(ctx, &here, value, branches, context) {
            return choice;
        }
        if let Some(all) = lookup::pinned_union(ctx.root, branches) {
            let described = lookup::described_options(ctx.root, branches);
            let (expected, fix) = expected_pinned(value, &all, &described);
            return Choice::Line(
                Line::new(here, "enum", "Invalid value", &sent(Some(value)), &expected)
                    .fixing(value, fix),
            );
        }
    }
    let path = err.instance_path().as_str();
    let best = context
        .iter()
        .enumerate()
        .filter(|(_, errors)| !errors.is_empty() && !type_misfit(path, errors))
        .min_by_key(|(i, errors)| (errors.len(), *i))
        .map(|(i, _)| i);
    if let Some(i) = best {
        return Choice::Branch(&context[i]);
    }
    let descs = descriptions(ctx, branches, context);
    // Every branch wants another type (`Option<String>` sent a number): the
    // same line as a plain type error, naming the types.
    let only_types = context.iter().all(|errors| type_misfit(path, errors))
        && !descs.is_empty()
        && descs
            .iter()
            .all(|d| !d.starts_with("one of") && !d.starts_with("exactly"));
    if only_types {
        let names: Vec<String> = context
            .iter()
            .flatten()
            .filter(|e| e.instance_path().as_str() == path)
            .filter_map(|e| match e.kind() {
                Kind::Type { kind } => Some(type_kind_names(kind)),
                _ => None,
            })
            .flatten()
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        return Choice::Line(
            Line::new(
                here,
                "type",
                "Wrong type",
                &sent(Some(value)),
                &format!("Expected {}.", lookup::or_list(&descs)),
            )
            .fixing(value, spelled(value, &names)),
        );
    }
    let expected = if descs.is_empty() {
        "Expected a value that matches one of the allowed shapes.".to_owned()
    } else {
        format!("Expected {}.", lookup::one_of_descriptions(&descs))
    };
    Choice::Line(Line::new(
        here,
        keyword,
        "No branch matched",
        &sent(Some(value)),
        &expected,
    ))
}

/// Whether `errors` (a branch's) say the value at `path` is of another type
/// than the branch's (or that the branch is `false`).
fn type_misfit(path: &str, errors: &[ValidationError<'static>]) -> bool {
    errors.iter().any(|e| {
        e.instance_path().as_str() == path
            && matches!(e.kind(), Kind::Type { .. } | Kind::FalseSchema)
    })
}

/// For a tagged union (each branch pins a tag field), what the tag says:
/// the missing or unknown tag's line, or the errors of the branch it names;
/// `None` when the value is not a tagged object (or its branch passed).
fn by_tag<'e>(
    ctx: &Ctx,
    here: &[Seg],
    value: &Value,
    branches: &[Value],
    context: &'e [Vec<ValidationError<'static>>],
) -> Option<Choice<'e>> {
    if value.is_object()
        && let Some(tag) = lookup::union_tag(ctx.root, branches)
    {
        let tags = tag.all_values();
        match value.get(tag.name) {
            None => {
                return Some(Choice::Line(Line::new(
                    path::child(here, tag.name),
                    "required",
                    "Missing required field",
                    MISSING,
                    &format!("Expected {}.", lookup::pinned_phrase(&tags)),
                )));
            }
            Some(sent_tag) => match tag.branch_for(sent_tag) {
                Some(i) if !context[i].is_empty() => return Some(Choice::Branch(&context[i])),
                Some(_) => {}
                None => {
                    let (expected, fix) = expected_pinned(sent_tag, &tags, &[]);
                    return Some(Choice::Line(
                        Line::new(
                            path::child(here, tag.name),
                            "enum",
                            "Invalid value",
                            &sent(Some(sent_tag)),
                            &expected,
                        )
                        .fixing(sent_tag, fix),
                    ));
                }
            },
        }
    }
    None
}

/// What each branch is, described (or the type its type error wants),
/// without repeats.
fn descriptions(
    ctx: &Ctx,
    branches: Option<&Vec<Value>>,
    context: &[Vec<ValidationError<'static>>],
) -> Vec<String> {
    let mut descs: Vec<String> = Vec::new();
    for (i, errors) in context.iter().enumerate() {
        let d = branches
            .and_then(|b| lookup::describe(ctx.root, &b[i]))
            .or_else(|| errors.iter().find_map(type_wanted));
        if let Some(d) = d
            && !descs.contains(&d)
        {
            descs.push(d);
        }
    }
    descs
}

/// The type a branch's type error asks for (`a string`, `an integer or null`).
fn type_wanted(e: &ValidationError<'_>) -> Option<String> {
    let Kind::Type { kind } = e.kind() else {
        return None;
    };
    let names: Vec<&str> = match kind {
        TypeKind::Single(t) => vec![t.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    };
    Some(lookup::type_phrase(&names))
}
