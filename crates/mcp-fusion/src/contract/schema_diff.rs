//! Field-level differences between two JSON Schemas of one action (input or
//! output), following local `$ref`s into nested objects and array items. The
//! rules (each a [`Kind`], whose severity depends on the [`Side`]) are in
//! `schema_rules.rs` and `docs/contracts.md`.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::schema_rules::{HANDLED, Kind, LOWER_BOUNDS, SHAPES, Side, TEXTS, UPPER_BOUNDS};
use super::schema_summary::{cut, enum_values, resolve, summarize, type_set, values_text};
use crate::error::ChangeSeverity;
use crate::json::{compact, required_of, schema_type, value_text};

/// One field-level change, before it is placed in a tool and an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldDelta {
    pub field: String,
    pub severity: ChangeSeverity,
    pub old: Option<String>,
    pub new: Option<String>,
    pub description: String,
}

/// How deep nested schemas are followed.
const MAX_DEPTH: usize = 32;

/// Every field-level change from `old` to `new` (two whole schemas of the
/// same side of one action), in schema order: the object's own changes,
/// then its fields by name.
pub(crate) fn diff_schemas(old: &Value, new: &Value, side: Side) -> Vec<FieldDelta> {
    let mut walker = Walker {
        old_root: old,
        new_root: new,
        side,
        out: Vec::new(),
        seen_refs: HashSet::new(),
    };
    walker.compare("", old, new, 0);
    walker.out
}

/// The properties of an object in the old and the new schema, and which
/// of them each requires.
struct Props<'p> {
    old: &'p serde_json::Map<String, Value>,
    new: &'p serde_json::Map<String, Value>,
    old_required: BTreeSet<&'p str>,
    new_required: BTreeSet<&'p str>,
}

struct Walker<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    side: Side,
    out: Vec<FieldDelta>,
    /// `$ref` pairs already compared, so that recursive types end.
    seen_refs: HashSet<(String, String)>,
}

/// The path of field `name` of the object at `parent`.
fn child(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

impl Walker<'_> {
    /// The field as deltas name it: the path, `(root)` for the input,
    /// `(output)` / `(output).path` for the output.
    fn field(&self, path: &str) -> String {
        match (self.side, path.is_empty()) {
            (Side::Input, true) => String::from("(root)"),
            (Side::Input, false) => path.to_owned(),
            (Side::Output, true) => String::from("(output)"),
            (Side::Output, false) => format!("(output).{path}"),
        }
    }

    /// The subject of a sentence: `Field "p"`, `Output field "p"`, `The
    /// input`, `The output`.
    fn subject(&self, path: &str) -> String {
        match (self.side, path.is_empty()) {
            (Side::Input, true) => String::from("The input"),
            (Side::Input, false) => format!("Field \"{path}\""),
            (Side::Output, true) => String::from("The output"),
            (Side::Output, false) => format!("Output field \"{path}\""),
        }
    }

    fn push(
        &mut self,
        path: &str,
        kind: Kind,
        old: Option<String>,
        new: Option<String>,
        description: String,
    ) {
        self.out.push(FieldDelta {
            field: self.field(path),
            severity: kind.severity(self.side),
            old: old.map(|v| cut(&v)),
            new: new.map(|v| cut(&v)),
            description,
        });
    }

    fn compare(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if let (Some(a), Some(b)) = (
            old.get("$ref").and_then(Value::as_str),
            new.get("$ref").and_then(Value::as_str),
        ) && !self.seen_refs.insert((a.to_owned(), b.to_owned()))
        {
            return;
        }
        let old_resolved = resolve(old, self.old_root);
        let new_resolved = resolve(new, self.new_root);
        let (old, new) = (old_resolved.as_ref(), new_resolved.as_ref());
        if old == new && old.get("$ref").is_none() && !has_refs(old) {
            return;
        }
        let (Some(old_map), Some(new_map)) = (old.as_object(), new.as_object()) else {
            if old != new {
                let subject = self.subject(path);
                self.push(
                    path,
                    Kind::Other,
                    Some(compact(old)),
                    Some(compact(new)),
                    format!("{subject}: its schema changed."),
                );
            }
            return;
        };
        if !self.compare_types(path, old, new) {
            return;
        }
        self.compare_values(path, old, new);
        self.compare_bounds(path, old, new);
        self.compare_shapes(path, old, new);
        self.compare_texts(path, old, new);
        self.compare_flags(path, old, new);
        self.compare_additional(path, old, new, depth);
        self.compare_properties(path, old, new, depth);
        self.compare_items(path, old, new, depth);
        self.compare_unions(path, old, new, depth);
        let mut others: BTreeSet<&String> = old_map.keys().collect();
        others.extend(new_map.keys());
        for key in others {
            let key = key.as_str();
            if HANDLED.contains(&key)
                || LOWER_BOUNDS.contains(&key)
                || UPPER_BOUNDS.contains(&key)
                || TEXTS.contains(&key)
                || old.get(key) == new.get(key)
            {
                continue;
            }
            let subject = self.subject(path);
            self.push(
                path,
                Kind::Other,
                old.get(key).map(compact),
                new.get(key).map(compact),
                format!("{subject}: the schema keyword \"{key}\" changed."),
            );
        }
    }

    /// The type rule. Returns false when the type changed so much that the
    /// rest of the two schemas is not worth comparing.
    fn compare_types(&mut self, path: &str, old: &Value, new: &Value) -> bool {
        let (old_types, new_types) = (type_set(old), type_set(new));
        if old_types == new_types {
            return true;
        }
        let name = |t: &Option<Vec<String>>| t.as_ref().map_or("any".to_owned(), |t| t.join("|"));
        let (from, to) = (name(&old_types), name(&new_types));
        let subject = self.subject(path);
        let widened = match (&old_types, &new_types) {
            (Some(a), Some(b)) => a
                .iter()
                .all(|t| b.contains(t) || (t == "integer" && b.iter().any(|u| u == "number"))),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if widened {
            self.push(
                path,
                Kind::TypeWidened,
                Some(from.clone()),
                Some(to.clone()),
                format!("{subject} now accepts more types: {to} instead of {from}."),
            );
            true
        } else {
            self.push(
                path,
                Kind::TypeChanged,
                Some(from.clone()),
                Some(to.clone()),
                format!("{subject} changed type from {from} to {to}."),
            );
            false
        }
    }

    /// `enum` and `const`.
    fn compare_values(&mut self, path: &str, old: &Value, new: &Value) {
        let subject = self.subject(path);
        match (
            enum_values(old, self.old_root),
            enum_values(new, self.new_root),
        ) {
            (Some(a), Some(b)) if a != b => {
                let removed: Vec<Value> = a.iter().filter(|v| !b.contains(v)).cloned().collect();
                let added: Vec<Value> = b.iter().filter(|v| !a.contains(v)).cloned().collect();
                let (from, to) = (values_text(&a), values_text(&b));
                if !removed.is_empty() {
                    // One value swapped for another in the same place: say
                    // which one replaces it, so that the model can switch.
                    let replaced_by = match (&removed[..], &added[..]) {
                        ([gone], [new_value])
                            if a.iter().position(|v| v == gone)
                                == b.iter().position(|v| v == new_value) =>
                        {
                            format!(
                                "; {} took its place",
                                quoted(std::slice::from_ref(new_value))
                            )
                        }
                        _ => String::new(),
                    };
                    self.push(
                        path,
                        Kind::EnumRemoved,
                        Some(from.clone()),
                        Some(to.clone()),
                        format!(
                            "{subject} no longer accepts {}{replaced_by}.",
                            quoted(&removed)
                        ),
                    );
                }
                if !added.is_empty() {
                    self.push(
                        path,
                        Kind::EnumAdded,
                        Some(from),
                        Some(to),
                        format!("{subject} now also accepts {}.", quoted(&added)),
                    );
                }
            }
            (None, Some(b)) => self.push(
                path,
                Kind::Restricted,
                Some(summarize(old, self.old_root)),
                Some(format!("enum {}", values_text(&b))),
                format!("{subject} now accepts only {}.", quoted(&b)),
            ),
            (Some(a), None) => self.push(
                path,
                Kind::Unrestricted,
                Some(format!("enum {}", values_text(&a))),
                Some(summarize(new, self.new_root)),
                format!("{subject} is no longer limited to a list of values."),
            ),
            _ => {}
        }
    }

    /// Numeric bounds: lengths, ranges, item and property counts.
    fn compare_bounds(&mut self, path: &str, old: &Value, new: &Value) {
        let subject = self.subject(path);
        for (keys, lower) in [(&LOWER_BOUNDS, true), (&UPPER_BOUNDS, false)] {
            for key in keys.iter() {
                let (a, b) = (old.get(*key), new.get(*key));
                let number = |v: Option<&Value>| v.and_then(Value::as_f64);
                let (kind, sentence) = match (number(a), number(b)) {
                    (Some(x), Some(y)) if x != y => {
                        let raised = y > x;
                        let tighter = raised == lower;
                        let verb = if raised { "raised" } else { "lowered" };
                        let kind = if tighter {
                            Kind::Tightened
                        } else {
                            Kind::Loosened
                        };
                        (kind, format!("{subject}: {key} {verb}"))
                    }
                    (None, Some(_)) => (Kind::Tightened, format!("{subject}: {key} added")),
                    (Some(_), None) => (Kind::Loosened, format!("{subject}: {key} removed")),
                    _ => continue,
                };
                let describe = if kind == Kind::Tightened {
                    "fewer values are accepted"
                } else {
                    "more values are accepted"
                };
                self.push(
                    path,
                    kind,
                    a.map(value_text),
                    b.map(value_text),
                    format!("{sentence}; {describe}."),
                );
            }
        }
        let unique = |s: &Value| s.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        if unique(old) != unique(new) {
            let (kind, sentence) = if unique(new) {
                (Kind::Tightened, "now requires unique items")
            } else {
                (Kind::Loosened, "no longer requires unique items")
            };
            self.push(
                path,
                kind,
                Some(unique(old).to_string()),
                Some(unique(new).to_string()),
                format!("{subject} {sentence}."),
            );
        }
    }

    /// `pattern`, `format`, `multipleOf`.
    fn compare_shapes(&mut self, path: &str, old: &Value, new: &Value) {
        let subject = self.subject(path);
        for key in SHAPES {
            let (a, b) = (old.get(key), new.get(key));
            let (kind, verb) = match (a, b) {
                (Some(x), Some(y)) if x != y => (Kind::Restated, "changed"),
                (None, Some(_)) => (Kind::Tightened, "added"),
                (Some(_), None) => (Kind::Loosened, "removed"),
                _ => continue,
            };
            self.push(
                path,
                kind,
                a.map(value_text),
                b.map(value_text),
                format!("{subject}: {key} {verb}."),
            );
        }
    }

    /// Description, title, examples: cosmetic.
    fn compare_texts(&mut self, path: &str, old: &Value, new: &Value) {
        let subject = self.subject(path);
        for key in TEXTS {
            let (a, b) = (old.get(key), new.get(key));
            if a != b {
                self.push(
                    path,
                    Kind::Text,
                    a.map(value_text),
                    b.map(value_text),
                    format!("{subject}: {key} changed."),
                );
            }
        }
    }

    /// `deprecated` and `default`.
    fn compare_flags(&mut self, path: &str, old: &Value, new: &Value) {
        let subject = self.subject(path);
        let deprecated = |s: &Value| s.get("deprecated").and_then(Value::as_bool) == Some(true);
        match (deprecated(old), deprecated(new)) {
            (false, true) => self.push(
                path,
                Kind::Deprecated,
                None,
                None,
                format!("{subject} is now deprecated."),
            ),
            (true, false) => self.push(
                path,
                Kind::Undeprecated,
                None,
                None,
                format!("{subject} is no longer deprecated."),
            ),
            _ => {}
        }
        let (a, b) = (old.get("default"), new.get("default"));
        if a != b {
            self.push(
                path,
                Kind::Other,
                a.map(compact),
                b.map(compact),
                format!("{subject}: the default value changed."),
            );
        }
    }

    /// `additionalProperties`: unknown keys accepted or not, or the schema of
    /// a map's values (path `p.*`).
    fn compare_additional(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        let is_object = |s: &Value| {
            s.get("properties").is_some()
                || type_set(s).is_some_and(|t| t.iter().any(|t| t == "object"))
        };
        if !is_object(old) && !is_object(new) {
            return;
        }
        let subject = self.subject(path);
        let (a, b) = (
            old.get("additionalProperties"),
            new.get("additionalProperties"),
        );
        if a == b {
            return;
        }
        // Absent means any key is accepted, like `true`.
        let open = |v: Option<&Value>| !matches!(v, Some(Value::Bool(false)));
        match (a, b) {
            (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => {
                self.compare(&child(path, "*"), x, y, depth + 1);
            }
            _ if open(a) && !open(b) => self.push(
                path,
                Kind::Tightened,
                a.map(compact).or(Some("true".into())),
                b.map(compact),
                format!("{subject} no longer accepts unknown keys."),
            ),
            _ if !open(a) && open(b) => self.push(
                path,
                Kind::Loosened,
                a.map(compact),
                b.map(compact).or(Some("true".into())),
                format!("{subject} now accepts unknown keys."),
            ),
            (_, Some(Value::Object(_))) => self.push(
                path,
                Kind::Tightened,
                a.map(compact).or(Some("true".into())),
                b.map(compact),
                format!("{subject}: the values of unknown keys are now checked."),
            ),
            _ => self.push(
                path,
                Kind::Loosened,
                a.map(compact),
                b.map(compact).or(Some("true".into())),
                format!("{subject}: the values of unknown keys are no longer checked."),
            ),
        }
    }

    /// The fields of an object: removed, added, renamed, required or not,
    /// then each kept field's own schema.
    fn compare_properties(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        let empty = serde_json::Map::new();
        let props = Props {
            old: old
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
            new: new
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
            old_required: required_of(old).collect(),
            new_required: required_of(new).collect(),
        };
        let mut removed: Vec<&String> = props
            .old
            .keys()
            .filter(|k| !props.new.contains_key(*k))
            .collect();
        let mut added: Vec<&String> = props
            .new
            .keys()
            .filter(|k| !props.old.contains_key(*k))
            .collect();
        removed.sort();
        added.sort();
        let renamed = self.renames(&props, &removed, &added);
        self.report_removed(path, &props, &removed, &renamed);
        self.report_added(path, &props, &added, &renamed);
        self.compare_kept(path, &props, depth);
    }

    /// The removed fields taken as renamed: each to the added field of the
    /// same kind (not newly required) whose schema is the same, else whose
    /// name is closest.
    fn renames<'p>(
        &self,
        props: &Props<'p>,
        removed: &[&'p String],
        added: &[&'p String],
    ) -> Vec<(&'p String, &'p String)> {
        let (old_props, new_props) = (props.old, props.new);
        let mut renamed: Vec<(&String, &String)> = Vec::new();
        for name in removed {
            let old_schema = &old_props[*name];
            let old_kind = kind_of(old_schema, self.old_root);
            let was_required = props.old_required.contains(name.as_str());
            let candidates = added.iter().filter(|new_name| {
                !renamed.iter().any(|(_, taken)| taken == *new_name)
                    && kind_of(&new_props[**new_name], self.new_root) == old_kind
                    && (was_required || !props.new_required.contains(new_name.as_str()))
            });
            let best = candidates.max_by(|x, y| {
                let score = |n: &&String| {
                    let same = without_texts(&resolve(&new_props[*n], self.new_root))
                        == without_texts(&resolve(old_schema, self.old_root));
                    (same, strsim::normalized_levenshtein(name, n))
                };
                // Higher score wins; on a tie the name that sorts first.
                score(x)
                    .partial_cmp(&score(y))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| y.cmp(x))
            });
            if let Some(new_name) = best {
                renamed.push((name, new_name));
            }
        }

        renamed
    }

    /// The deltas of the removed fields: renamed, or removed.
    fn report_removed(
        &mut self,
        path: &str,
        props: &Props<'_>,
        removed: &[&String],
        renamed: &[(&String, &String)],
    ) {
        let (old_props, new_props) = (props.old, props.new);
        for name in removed {
            let field = child(path, name);
            let subject = self.subject(&field);
            if let Some((_, new_name)) = renamed.iter().find(|(old, _)| old == name) {
                let new_field = child(path, new_name);
                self.push(
                    &field,
                    Kind::Renamed,
                    Some(summarize(&old_props[*name], self.old_root)),
                    Some(summarize(&new_props[*new_name], self.new_root)),
                    format!("{subject} was renamed to \"{new_field}\"."),
                );
                continue;
            }
            let required = props.old_required.contains(name.as_str());
            let note = if required { " (it was required)" } else { "" };
            self.push(
                &field,
                Kind::Removed { required },
                Some(summarize(&old_props[*name], self.old_root)),
                None,
                format!("{subject} was removed{note}."),
            );
        }
    }

    /// The deltas of the added fields that are not a renamed one.
    fn report_added(
        &mut self,
        path: &str,
        props: &Props<'_>,
        added: &[&String],
        renamed: &[(&String, &String)],
    ) {
        for name in added {
            if renamed.iter().any(|(_, new_name)| new_name == name) {
                continue;
            }
            let field = child(path, name);
            let required = props.new_required.contains(name.as_str());
            let description = match (self.side, required) {
                (Side::Input, true) => format!("Required field \"{field}\" was added."),
                (Side::Input, false) => format!("Optional field \"{field}\" was added."),
                (Side::Output, _) => format!("Output field \"{field}\" was added."),
            };
            self.push(
                &field,
                Kind::Added { required },
                None,
                Some(summarize(&props.new[*name], self.new_root)),
                description,
            );
        }
    }

    /// The fields both schemas have: became required or optional, then
    /// each one's own schema.
    fn compare_kept(&mut self, path: &str, props: &Props<'_>, depth: usize) {
        let (old_props, new_props) = (props.old, props.new);
        let (old_required, new_required) = (&props.old_required, &props.new_required);
        let mut kept: Vec<&String> = old_props
            .keys()
            .filter(|k| new_props.contains_key(*k))
            .collect();
        kept.sort();
        for name in kept {
            let field = child(path, name);
            let subject = self.subject(&field);
            let (was, is) = (
                old_required.contains(name.as_str()),
                new_required.contains(name.as_str()),
            );
            if !was && is {
                self.push(
                    &field,
                    Kind::BecameRequired,
                    Some("optional".into()),
                    Some("required".into()),
                    format!("{subject} is now required."),
                );
            } else if was && !is {
                self.push(
                    &field,
                    Kind::BecameOptional,
                    Some("required".into()),
                    Some("optional".into()),
                    format!("{subject} is no longer required."),
                );
            }
            self.compare(&field, &old_props[name], &new_props[name], depth + 1);
        }
    }

    /// The items of an array (path `p[]`).
    fn compare_items(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        match (old.get("items"), new.get("items")) {
            (Some(a), Some(b)) => self.compare(&format!("{path}[]"), a, b, depth + 1),
            (None, Some(b)) => {
                let subject = self.subject(path);
                self.push(
                    path,
                    Kind::Tightened,
                    None,
                    Some(summarize(b, self.new_root)),
                    format!("{subject}: its items are now checked."),
                );
            }
            (Some(a), None) => {
                let subject = self.subject(path);
                self.push(
                    path,
                    Kind::Loosened,
                    Some(summarize(a, self.old_root)),
                    None,
                    format!("{subject}: its items are no longer checked."),
                );
            }
            (None, None) => {}
        }
    }

    /// `anyOf`, `oneOf`, `allOf`: branch by branch when both have as many
    /// branches, else one change. Unions of constants were compared as enums.
    fn compare_unions(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        let constants = |s: &Value, root: &Value| {
            s.get("enum").is_none() && s.get("const").is_none() && enum_values(s, root).is_some()
        };
        if constants(old, self.old_root) && constants(new, self.new_root) {
            return;
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            let (a, b) = (old.get(key), new.get(key));
            if a == b {
                continue;
            }
            match (a.and_then(Value::as_array), b.and_then(Value::as_array)) {
                (Some(x), Some(y)) if x.len() == y.len() => {
                    for (old_branch, new_branch) in x.iter().zip(y) {
                        self.compare(path, old_branch, new_branch, depth + 1);
                    }
                }
                _ => {
                    let subject = self.subject(path);
                    self.push(
                        path,
                        Kind::Other,
                        Some(summarize(old, self.old_root)),
                        Some(summarize(new, self.new_root)),
                        format!("{subject}: the alternatives it accepts ({key}) changed."),
                    );
                }
            }
        }
    }
}

/// What a field holds, for rename detection: its type set, else the types of
/// its enum / const values, else its kind of union, else `any`.
fn kind_of(schema: &Value, root: &Value) -> Vec<String> {
    let schema = resolve(schema, root);
    if let Some(types) = type_set(&schema) {
        return types;
    }
    if let Some(values) = enum_values(&schema, root) {
        let types: BTreeSet<String> = values.iter().map(|v| schema_type(v).to_owned()).collect();
        return types.into_iter().collect();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if schema.get(key).is_some() {
            return vec![key.to_owned()];
        }
    }
    vec![String::from("any")]
}

/// `schema` without its description, title and examples.
fn without_texts(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        for key in TEXTS {
            object.remove(key);
        }
    }
    schema
}

/// Whether `schema` holds a `$ref` anywhere (two equal schemas with
/// references may still point at different definitions).
fn has_refs(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_refs),
        Value::Array(items) => items.iter().any(has_refs),
        _ => false,
    }
}

/// Values quoted and joined: `"week"`, `"day", "week"`.
fn quoted(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| format!("\"{}\"", value_text(v)))
        .collect::<Vec<_>>()
        .join(", ")
}
