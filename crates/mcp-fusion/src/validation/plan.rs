//! The phrasing of one action's schema, resolved once when its validator is
//! built ([`Plan::new`]), so that a failing call looks its lines up instead
//! of walking the schema through its maps:
//!
//! - per keyword location (`/properties/amount/minimum`, the canonical
//!   schema location a validator error carries), the sentences a failure
//!   there gets: the bound with its other side and the type noun, the
//!   length, the type, the pattern, the format with its example, the pinned
//!   values, the expectation of each required field;
//! - per schema the field lines are ordered through, its properties in
//!   schema order (their rank) and the schema each leads to.
//!
//! A lookup is a binary search over the sorted locations and an index per
//! path segment: no hashing. What the plan does not hold (a schema whose
//! properties depend on the instance through `oneOf`/`anyOf`, a location
//! reached only through a `$ref` the validator names differently, keywords
//! phrased from the instance) is phrased by the walk in [`super::phrase`] and
//! [`super::lookup`]; every text the plan holds is written by the same
//! functions ([`super::expect`]) from the same schemas, so the two agree to
//! the byte (the tests below compare them).

use std::borrow::Cow;
use std::collections::HashMap;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

use super::expect::{
    Parts, bounds_phrase, format_parts, limit_expected, multiple_of_parts, parts, pattern_expected,
    pinned_expected, required_expected, type_expected, type_kind_names, wrong_type,
};
use super::lookup::{self, Unions};
use super::path::Seg;
use super::subschemas::{ONE_SCHEMA, SCHEMA_ARRAYS, SCHEMA_MAPS};

/// How deep the plan follows nested schemas; deeper ones are walked.
const MAX_DEPTH: usize = 64;

/// One action's phrasing, resolved from its schema (see the module
/// documentation). Empty for [`Plan::default`]: every line is then walked.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Keyword locations, sorted, and what a failure there is phrased as.
    keywords: Box<[(Box<str>, Phrasing)]>,
    /// The schemas lines are ordered through; the root schema is node 0.
    nodes: Box<[Node]>,
}

/// What a failure at one keyword location is phrased as.
#[derive(Debug)]
enum Phrasing {
    /// `type`: the expectation (`Expected a string or null.`).
    Type(Box<str>),
    /// `minLength`, `maxLength`, `minItems`, `maxItems`: the limit the text
    /// was written for, and the expectation.
    Limit { limit: u64, expected: Box<str> },
    /// `minimum`, `maximum` and their exclusive forms: the limit the text was
    /// written for, and the expectation with the type noun and both bounds.
    Bound { limit: Value, expected: Box<str> },
    /// `pattern` / `format`: the pattern or format name the text was written
    /// for, the problem and the expectation.
    Named {
        name: Box<str>,
        problem: Box<str>,
        expected: Box<str>,
    },
    /// `multipleOf`: problem and expectation.
    Fixed {
        problem: Box<str>,
        expected: Box<str>,
    },
    /// `enum` / `const`: the expectation without the suggestion.
    Pinned(Box<str>),
    /// `required`: each required name the plan could phrase, and its
    /// expectation.
    Required(Box<[(Box<str>, Box<str>)]>),
}

/// A schema the lines are ordered through.
#[derive(Debug)]
enum Node {
    /// Its properties depend on the instance (a `oneOf`/`anyOf` among its
    /// members): ranked by the walk.
    Walked,
    /// Its properties are fixed by the schema.
    Fixed {
        /// Declared properties in schema order (first declaration wins) and
        /// the node of each one's schema.
        props: Box<[(Box<str>, u32)]>,
        /// The node of the `additionalProperties` schema, when an object.
        extra: Option<u32>,
        /// The nodes of each `prefixItems` list among its members.
        prefix: Box<[Box<[u32]>]>,
        /// The node of the `items` schema, when an object.
        items: Option<u32>,
    },
}

impl Plan {
    /// Resolves the phrasing of `root` (the schema as compiled) and `given`
    /// (the schema as the user gave it, which holds the bounds shown).
    pub(crate) fn new(root: &Value, given: &Value) -> Self {
        let mut keywords = Vec::new();
        let mut pointer = String::new();
        let schemas = Schemas { root, given };
        collect_keywords(schemas, root, &mut pointer, 0, &mut keywords);
        keywords.sort_by(|a, b| a.0.cmp(&b.0));
        keywords.dedup_by(|a, b| a.0 == b.0);
        let mut builder = NodeBuilder {
            root,
            seen: HashMap::new(),
            nodes: Vec::new(),
        };
        builder.node(root, 0);
        Plan {
            keywords: keywords.into_boxed_slice(),
            nodes: builder.nodes.into_boxed_slice(),
        }
    }

    fn at(&self, schema_path: &str) -> Option<&Phrasing> {
        self.keywords
            .binary_search_by(|(k, _)| k.as_ref().cmp(schema_path))
            .ok()
            .map(|i| &self.keywords[i].1)
    }

    /// The problem and expectation of a failure of `kind` at the keyword
    /// location `schema_path`, for the value `value`; `None` when the plan
    /// does not hold them (the walk phrases the line).
    pub(crate) fn single<'p>(
        &'p self,
        kind: &Kind,
        value: &Value,
        schema_path: &str,
    ) -> Option<Parts<'p>> {
        let phrasing = self.at(schema_path)?;
        match (kind, phrasing) {
            (Kind::Type { kind }, Phrasing::Type(expected)) => {
                let names = type_kind_names(kind);
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                wrong_type(&**expected, value, &names)
            }
            (Kind::MinLength { limit: l }, Phrasing::Limit { limit, expected }) if l == limit => {
                parts("Too short", &**expected)
            }
            (Kind::MaxLength { limit: l }, Phrasing::Limit { limit, expected }) if l == limit => {
                parts("Too long", &**expected)
            }
            (Kind::MinItems { limit: l }, Phrasing::Limit { limit, expected }) if l == limit => {
                parts("Too few items", &**expected)
            }
            (Kind::MaxItems { limit: l }, Phrasing::Limit { limit, expected }) if l == limit => {
                parts("Too many items", &**expected)
            }
            (
                Kind::Minimum { limit: l } | Kind::ExclusiveMinimum { limit: l },
                Phrasing::Bound { limit, expected },
            ) if l == limit => parts("Too small", &**expected),
            (
                Kind::Maximum { limit: l } | Kind::ExclusiveMaximum { limit: l },
                Phrasing::Bound { limit, expected },
            ) if l == limit => parts("Too large", &**expected),
            (
                Kind::Pattern { pattern: name } | Kind::Format { format: name },
                Phrasing::Named {
                    name: planned,
                    problem,
                    expected,
                },
            ) if **planned == **name => parts(&**problem, &**expected),
            (Kind::MultipleOf { .. }, Phrasing::Fixed { problem, expected }) => {
                parts(&**problem, &**expected)
            }
            (Kind::Enum { options }, Phrasing::Pinned(expected)) => {
                let opts: Vec<&Value> = match &**options {
                    Value::Array(items) => items.iter().collect(),
                    other => vec![other],
                };
                Some(pinned_parts(expected, value, &opts))
            }
            (Kind::Constant { expected_value }, Phrasing::Pinned(expected)) => {
                Some(pinned_parts(expected, value, &[&**expected_value]))
            }
            _ => None,
        }
    }

    /// The expectation of the missing field `name` for a `required` failure
    /// at `schema_path`, when the plan holds it.
    pub(crate) fn required(&self, schema_path: &str, name: &str) -> Option<&str> {
        match self.at(schema_path)? {
            Phrasing::Required(fields) => {
                fields.iter().find(|(n, _)| &**n == name).map(|(_, e)| &**e)
            }
            _ => None,
        }
    }

    /// The sort key of a line at `segs` in `instance`, as
    /// [`lookup::rank_key`] gives it, when every schema on the way has fixed
    /// properties; `None` otherwise (the walk ranks the line).
    pub(crate) fn rank_key(&self, instance: &Value, segs: &[Seg]) -> Option<Vec<usize>> {
        // `None`: the path left what the schema declares.
        let mut at: Option<u32> = Some(0);
        let mut key = Vec::with_capacity(segs.len());
        for (depth, seg) in segs.iter().enumerate() {
            let node = match at {
                Some(n) => match self.nodes.get(n as usize)? {
                    Node::Walked => return None,
                    Node::Fixed {
                        props,
                        extra,
                        prefix,
                        items,
                    } => Some((props, *extra, prefix, *items)),
                },
                None => None,
            };
            let (rank, next) = match seg {
                Seg::Key(name) => {
                    let known = node.and_then(|(props, ..)| {
                        props
                            .iter()
                            .position(|(n, _)| **n == **name)
                            .map(|r| (r, props[r].1))
                    });
                    match known {
                        Some((r, sub)) => (r, Some(sub)),
                        None => {
                            let base = node.map_or(0, |(props, ..)| props.len());
                            let pos = super::path::value_at(instance, &segs[..depth])
                                .and_then(Value::as_object)
                                .and_then(|m| m.keys().position(|k| k == name))
                                .unwrap_or(usize::MAX - base);
                            (base + pos, node.and_then(|(_, extra, ..)| extra))
                        }
                    }
                }
                Seg::Index(i) => {
                    let sub = node.and_then(|(_, _, prefix, items)| {
                        prefix.iter().find_map(|p| p.get(*i).copied()).or(items)
                    });
                    (*i, sub)
                }
            };
            key.push(rank);
            at = next;
        }
        Some(key)
    }
}

/// The parts of an `enum`/`const` failure: the planned expectation and the
/// suggestion for `value` among `options`, which is the fix.
fn pinned_parts<'p>(expected: &'p str, value: &Value, options: &[&Value]) -> Parts<'p> {
    let suggestion = super::expect::did_you_mean(value, options, &[]);
    Parts {
        problem: Cow::Borrowed("Invalid value"),
        expected: suggestion.after(|| Cow::Borrowed(expected)),
        fix: suggestion.option,
    }
}

/// Appends `token` to the JSON Pointer `pointer`, escaped (RFC 6901 §3).
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The two forms of the schema a plan is made of: `root` as compiled and
/// `given` as the user gave it (which holds the bounds shown).
#[derive(Clone, Copy)]
struct Schemas<'a> {
    root: &'a Value,
    given: &'a Value,
}

/// Adds the phrasings of `schema` (at `pointer` in the compiled root) and
/// of every schema below it.
fn collect_keywords(
    schemas: Schemas<'_>,
    schema: &Value,
    pointer: &mut String,
    depth: usize,
    out: &mut Vec<(Box<str>, Phrasing)>,
) {
    let Value::Object(map) = schema else { return };
    let Schemas { root, given } = schemas;
    // The walk finds a keyword's schema by its pointer: only a schema the
    // pointer leads back to is planned.
    if depth > MAX_DEPTH
        || !crate::json::pointer(root, pointer).is_some_and(|s| std::ptr::eq(s, schema))
    {
        return;
    }
    let given_here = crate::json::pointer(given, pointer);
    for (keyword, value) in map {
        if let Some(phrasing) = phrasing(schemas, schema, given_here, keyword, value) {
            let mut at = pointer.clone();
            push_token(&mut at, keyword);
            out.push((at.into_boxed_str(), phrasing));
        }
    }
    let len = pointer.len();
    for kw in ONE_SCHEMA {
        if let Some(sub) = map.get(kw) {
            push_token(pointer, kw);
            collect_keywords(schemas, sub, pointer, depth + 1, out);
            pointer.truncate(len);
        }
    }
    for kw in SCHEMA_ARRAYS {
        if let Some(Value::Array(subs)) = map.get(kw) {
            for (i, sub) in subs.iter().enumerate() {
                push_token(pointer, kw);
                push_token(pointer, &i.to_string());
                collect_keywords(schemas, sub, pointer, depth + 1, out);
                pointer.truncate(len);
            }
        }
    }
    for kw in SCHEMA_MAPS {
        if let Some(Value::Object(subs)) = map.get(kw) {
            for (name, sub) in subs {
                push_token(pointer, kw);
                push_token(pointer, name);
                collect_keywords(schemas, sub, pointer, depth + 1, out);
                pointer.truncate(len);
            }
        }
    }
}

/// What a failure of `keyword` (whose value is `value`) in `schema` is
/// phrased as, written as [`super::phrase`] writes it; `None` for a keyword
/// the plan leaves to the walk. `given_here` is the same schema in the schema
/// as the user gave it.
fn phrasing(
    schemas: Schemas<'_>,
    schema: &Value,
    given_here: Option<&Value>,
    keyword: &str,
    value: &Value,
) -> Option<Phrasing> {
    let other = |kw: &str| schema.get(kw).and_then(Value::as_u64);
    let limit = |plain: &str, other_kw: &str, one: &str, many: &str| {
        let limit = value.as_u64()?;
        Some(Phrasing::Limit {
            limit,
            expected: limit_expected(limit, other(other_kw), plain, one, many).into(),
        })
    };
    let bound = |op: &str| {
        if !value.is_number() {
            return None;
        }
        Some(Phrasing::Bound {
            limit: value.clone(),
            expected: bounds_phrase(Some(schema), given_here, (op, value)).into(),
        })
    };
    match keyword {
        "type" => type_phrasing(value),
        "minLength" => limit("at least", "maxLength", "character", "characters"),
        "maxLength" => limit("at most", "minLength", "character", "characters"),
        "minItems" => limit("at least", "maxItems", "item", "items"),
        "maxItems" => limit("at most", "minItems", "item", "items"),
        "minimum" => bound(">="),
        "exclusiveMinimum" => bound(">"),
        "maximum" => bound("<="),
        "exclusiveMaximum" => bound("<"),
        "pattern" | "format" => named_phrasing(keyword, value),
        "multipleOf" => {
            let (problem, expected) = multiple_of_parts(value);
            Some(Phrasing::Fixed {
                problem: problem.into(),
                expected: expected.into(),
            })
        }
        "enum" => {
            let options: Vec<&Value> = value.as_array()?.iter().collect();
            Some(Phrasing::Pinned(pinned_expected(&options).into()))
        }
        "const" => Some(Phrasing::Pinned(pinned_expected(&[value]).into())),
        "required" => required_phrasing(schemas, schema, given_here, value),
        _ => None,
    }
}

/// `type`: the types `value` names.
fn type_phrasing(value: &Value) -> Option<Phrasing> {
    let names: Vec<&str> = match value {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    Some(Phrasing::Type(type_expected(&names).into()))
}

/// `pattern` or `format` (`keyword`): phrased with the pattern or format
/// `value` names.
fn named_phrasing(keyword: &str, value: &Value) -> Option<Phrasing> {
    match keyword {
        "pattern" => {
            let pattern = value.as_str()?;
            Some(Phrasing::Named {
                name: pattern.into(),
                problem: "Does not match the pattern".into(),
                expected: pattern_expected(pattern).into(),
            })
        }
        "format" => {
            let format = value.as_str()?;
            let (problem, expected) = format_parts(format);
            Some(Phrasing::Named {
                name: format.into(),
                problem: problem.into(),
                expected: expected.into(),
            })
        }
        _ => None,
    }
}

/// `required`: the expectation of each field `value` lists that `schema`
/// declares (`given_here` the same schema as the user gave it).
fn required_phrasing(
    schemas: Schemas<'_>,
    schema: &Value,
    given_here: Option<&Value>,
    value: &Value,
) -> Option<Phrasing> {
    let Schemas { root, given } = schemas;
    let view = lookup::object_view(root, schema, Unions::Skip);
    let given_view = given_here
        .filter(|g| g.get("required").is_some())
        .map(|g| lookup::object_view(given, g, Unions::Skip));
    let fields: Vec<(Box<str>, Box<str>)> = value
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter_map(|name| {
            let given_prop = given_view.as_ref().and_then(|v| v.prop(name));
            // Without the property declared here, the walk reads the
            // schema that applies to the instance.
            let prop = view.prop(name)?;
            let expected = required_expected(given, given_prop, root, Some(prop));
            Some((name.into(), expected.into()))
        })
        .collect();
    Some(Phrasing::Required(fields.into_boxed_slice()))
}

/// Builds the [`Node`]s of the schemas lines are ordered through.
struct NodeBuilder<'s> {
    root: &'s Value,
    /// Nodes already made, by schema address (a `$ref` may lead back).
    seen: HashMap<*const Value, u32>,
    nodes: Vec<Node>,
}

impl<'s> NodeBuilder<'s> {
    /// The node of `schema`, made once.
    fn node(&mut self, schema: &'s Value, depth: usize) -> u32 {
        if let Some(&n) = self.seen.get(&std::ptr::from_ref(schema)) {
            return n;
        }
        let n = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(Node::Walked);
        self.seen.insert(std::ptr::from_ref(schema), n);
        let root = self.root;
        let members = lookup::members(root, schema);
        let has_union = members.iter().any(|m| {
            ["oneOf", "anyOf"]
                .into_iter()
                .any(|kw| m.get(kw).is_some_and(Value::is_array))
        });
        if has_union || depth > MAX_DEPTH || n == u32::MAX {
            return n;
        }
        let view = lookup::object_view(root, schema, Unions::Skip);
        let props: Vec<(Box<str>, u32)> = view
            .props
            .iter()
            .map(|(name, sub)| ((*name).into(), self.node(sub, depth + 1)))
            .collect();
        let extra = lookup::extra_props_schema(root, schema).map(|s| self.node(s, depth + 1));
        let prefix: Vec<Box<[u32]>> = members
            .iter()
            .filter_map(|m| m.get("prefixItems").and_then(Value::as_array))
            .map(|list| list.iter().map(|s| self.node(s, depth + 1)).collect())
            .collect();
        let items = members
            .iter()
            .find_map(|m| m.get("items").filter(|s| s.is_object()))
            .map(|s| self.node(s, depth + 1));
        self.nodes[n as usize] = Node::Fixed {
            props: props.into_boxed_slice(),
            extra,
            prefix: prefix.into_boxed_slice(),
            items,
        };
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonschema::Draft;
    use serde_json::json;

    /// The schema of the tests: nested objects, a `$ref`'d array item, an
    /// integer format whose range is added when compiling, an enum, a
    /// tagged union.
    fn schema() -> Value {
        json!({
            "type": "object",
            "$defs": {
                "Line": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "pattern": "^sku_[0-9]+$"},
                        "qty": {"type": "integer", "minimum": 1, "maximum": 10}
                    },
                    "required": ["sku", "qty"]
                }
            },
            "properties": {
                "customer": {
                    "type": "object",
                    "properties": {
                        "email": {"type": "string", "format": "email"},
                        "name": {"type": "string", "minLength": 2, "maxLength": 2}
                    },
                    "required": ["email"]
                },
                "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}, "maxItems": 2},
                "status": {"enum": ["open", "paid"]},
                "amount": {"type": "integer", "format": "uint32", "minimum": 1},
                "pricing": {"oneOf": [
                    {"properties": {"model": {"const": "flat"}, "amount": {"type": "integer"}}},
                    {"properties": {"model": {"const": "tiered"}, "tiers": {"type": "array"}}}
                ]}
            },
            "required": ["amount"]
        })
    }

    /// `(schema location, planned "problem | expected")` of each error of
    /// `args`, the phrasing `None` where the plan holds none.
    fn planned(args: &Value) -> Vec<(String, Option<String>)> {
        let given = schema();
        let checked = super::super::int_bounds::with_integer_bounds(&given);
        let plan = Plan::new(&checked, &given);
        let compiled = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&checked)
            .expect("the schema compiles");
        compiled
            .iter_errors(args)
            .map(|e| {
                let at = e.schema_path().as_str().to_owned();
                let phrased = plan
                    .single(e.kind(), e.instance(), &at)
                    .map(|p| format!("{} | {}", p.problem, p.expected));
                (at, phrased)
            })
            .collect()
    }

    fn at(location: &str, phrased: &str) -> (String, Option<String>) {
        (location.to_owned(), Some(phrased.to_owned()))
    }

    #[test]
    fn nested_and_referenced_keywords_are_looked_up() {
        let args = json!({
            "customer": {"email": "nope", "name": "abc"},
            "lines": [{"sku": "x", "qty": 0}, {"sku": "sku_1", "qty": 11}, {"sku": "sku_2", "qty": 1}],
            "status": "opne",
            "amount": 0
        });
        let mut got = planned(&args);
        got.sort();
        let mut want = vec![
            at(
                "/properties/customer/properties/email/format",
                "Invalid email format | Expected a valid email address.",
            ),
            at(
                "/properties/customer/properties/name/maxLength",
                "Too long | Expected exactly 2 characters.",
            ),
            at(
                "/$defs/Line/properties/sku/pattern",
                "Does not match the pattern | Expected a string matching the pattern '^sku_[0-9]+$'.",
            ),
            at(
                "/$defs/Line/properties/qty/minimum",
                "Too small | Expected an integer >= 1 and <= 10.",
            ),
            at(
                "/$defs/Line/properties/qty/maximum",
                "Too large | Expected an integer >= 1 and <= 10.",
            ),
            at(
                "/properties/lines/maxItems",
                "Too many items | Expected at most 2 items.",
            ),
            at(
                "/properties/status/enum",
                "Invalid value | Did you mean 'open'?",
            ),
            at(
                "/properties/amount/minimum",
                "Too small | Expected an integer >= 1.",
            ),
        ];
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn a_limit_other_than_the_planned_one_is_left_to_the_walk() {
        let given = schema();
        let plan = Plan::new(&given, &given);
        let kind = Kind::Minimum { limit: json!(2) };
        assert!(
            plan.single(&kind, &json!(0), "/properties/amount/minimum")
                .is_none()
        );
        let kind = Kind::Minimum { limit: json!(1) };
        let parts = plan
            .single(&kind, &json!(0), "/properties/amount/minimum")
            .expect("planned");
        assert_eq!(parts.expected, "Expected an integer >= 1.");
        assert!(
            plan.single(&kind, &json!(0), "/properties/amount/maximum")
                .is_none(),
            "no maximum is written there"
        );
    }

    #[test]
    fn required_fields_are_phrased_from_the_schema_the_user_gave() {
        let given = schema();
        let checked = super::super::int_bounds::with_integer_bounds(&given);
        let plan = Plan::new(&checked, &given);
        assert_eq!(
            plan.required("/required", "amount"),
            Some("Expected an integer >= 1."),
            "the added u32 maximum is not shown"
        );
        assert_eq!(
            plan.required("/$defs/Line/required", "sku"),
            Some("Expected a string matching the pattern '^sku_[0-9]+$'.")
        );
        assert_eq!(
            plan.required("/properties/customer/required", "email"),
            Some("Expected a valid email address.")
        );
        assert_eq!(plan.required("/required", "status"), None);
    }

    #[test]
    fn rank_keys_match_the_walk_and_unions_are_left_to_it() {
        let root = schema();
        let plan = Plan::new(&root, &root);
        let instance = json!({
            "zz": 1,
            "lines": [{"qty": 1, "extra": 2}],
            "customer": {"name": "a", "x": 1},
            "pricing": {"model": "flat"}
        });
        let key = |s: &str| Seg::Key(s.to_owned());
        let paths = [
            vec![key("amount")],
            vec![key("customer"), key("name")],
            vec![key("customer"), key("x")],
            vec![key("lines"), Seg::Index(0), key("qty")],
            vec![key("lines"), Seg::Index(0), key("extra")],
            vec![key("lines"), Seg::Index(3), key("sku")],
            vec![key("zz")],
            vec![key("nowhere"), key("deeper")],
        ];
        for segs in &paths {
            let walked =
                lookup::rank_key(&root, &instance, segs, &mut lookup::RankViews::default());
            assert_eq!(plan.rank_key(&instance, segs), Some(walked), "{segs:?}");
        }
        assert_eq!(
            plan.rank_key(&instance, &[key("customer"), key("name")]),
            Some(vec![0, 1])
        );
        assert_eq!(
            plan.rank_key(&instance, &[key("pricing"), key("model")]),
            None,
            "a union's properties depend on the instance"
        );
    }
}
