//! Reading the action's own schema while phrasing: local `$ref`s, the schema
//! that owns a failed keyword, the properties an object declares, and a short
//! description of what a schema accepts (`a string`, `one of: 'a', 'b'`).
//!
//! Every lookup is best-effort: `None` makes the phrasing fall back to what the
//! validator's error itself carries.

use serde_json::Value;

use super::path::Seg;
use super::sent::quote_option;
use crate::json::type_noun;

/// How many `$ref`/`allOf` hops a lookup follows before giving up (cycles).
const MAX_HOPS: usize = 32;

/// The schema a local reference (`#`, `#/$defs/Name`) names in `root`.
/// Remote references are never followed (`None`).
pub(crate) fn local_ref<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let fragment = reference.strip_prefix('#')?;
    crate::json::pointer(root, &percent_decode(fragment))
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The schema that holds `keyword` for an error whose canonical schema
/// location is `schema_path` (`/$defs/Line/properties/qty/minimum` → the
/// `qty` schema). `None` when the location does not lead to such a schema.
pub(crate) fn owner<'s>(root: &'s Value, schema_path: &str, keyword: &str) -> Option<&'s Value> {
    let found = crate::json::pointer(root, before_last_segment(schema_path, keyword)?)?;
    found.get(keyword).is_some().then_some(found)
}

/// The part of the pointer `schema_path` before its last segment equal to
/// `keyword` (without the `/` between them), or `None` when no segment is.
fn before_last_segment<'p>(schema_path: &'p str, keyword: &str) -> Option<&'p str> {
    let mut end = schema_path.len();
    loop {
        let start = schema_path[..end].rfind('/').map_or(0, |slash| slash + 1);
        if &schema_path[start..end] == keyword {
            return Some(&schema_path[..start.saturating_sub(1)]);
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}

/// Like [`owner`], without requiring the schema found to hold `keyword`
/// (to read a schema the keyword was added to before compiling).
pub(crate) fn owner_loose<'s>(
    root: &'s Value,
    schema_path: &str,
    keyword: &str,
) -> Option<&'s Value> {
    crate::json::pointer(root, before_last_segment(schema_path, keyword)?)
}

/// `schema` and every schema it brings in unconditionally: its local `$ref`
/// target and its `allOf` members, recursively, `schema` first.
pub(crate) fn members<'s>(root: &'s Value, schema: &'s Value) -> Vec<&'s Value> {
    let mut out = Vec::with_capacity(4);
    collect_members(root, schema, 0, &mut out);
    out
}

fn collect_members<'s>(root: &'s Value, schema: &'s Value, hops: usize, out: &mut Vec<&'s Value>) {
    if hops > MAX_HOPS || !schema.is_object() || out.iter().any(|m| std::ptr::eq(*m, schema)) {
        return;
    }
    out.push(schema);
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local_ref(root, r))
    {
        collect_members(root, target, hops + 1, out);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for m in all {
            collect_members(root, m, hops + 1, out);
        }
    }
}

/// Which `oneOf`/`anyOf` branches an [`ObjectView`] takes properties from.
#[derive(Clone, Copy)]
pub(crate) enum Unions<'i> {
    /// None: only the schema, its `$ref` and `allOf`.
    Skip,
    /// Every branch (properties only, not their `required`): the names any
    /// branch knows, for naming known keys.
    All,
    /// The one branch that applies to this instance, when one can be told
    /// apart: the branch a tag property selects, or the only branch that
    /// accepts objects (`Option<Struct>` is `anyOf: [{$ref}, {type: null}]`).
    Selected(&'i Value),
}

/// The properties an object schema declares, in schema order, and the names it requires.
pub(crate) struct ObjectView<'s> {
    /// Declared properties, first declaration wins, in schema order.
    pub props: Vec<(&'s str, &'s Value)>,
    /// Required names.
    pub required: Vec<&'s str>,
}

impl<'s> ObjectView<'s> {
    /// The schema of property `name`, if declared.
    pub fn prop(&self, name: &str) -> Option<&'s Value> {
        self.props.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// The position of property `name` in schema order, if declared.
    pub fn rank(&self, name: &str) -> Option<usize> {
        self.props.iter().position(|(n, _)| *n == name)
    }

    fn add(&mut self, schema: &'s Value, with_required: bool) {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                if self.rank(name).is_none() {
                    self.props.push((name.as_str(), sub));
                }
            }
        }
        if with_required && let Some(req) = schema.get("required").and_then(Value::as_array) {
            for name in req.iter().filter_map(Value::as_str) {
                if !self.required.contains(&name) {
                    self.required.push(name);
                }
            }
        }
    }
}

/// The object view of `schema`: its properties and required names, through
/// `$ref` and `allOf`, and through `oneOf`/`anyOf` branches as `unions` says.
pub(crate) fn object_view<'s>(
    root: &'s Value,
    schema: &'s Value,
    unions: Unions<'_>,
) -> ObjectView<'s> {
    let mut view = ObjectView {
        props: Vec::with_capacity(8),
        required: Vec::with_capacity(8),
    };
    let ms = members(root, schema);
    for m in &ms {
        view.add(m, true);
    }
    for m in &ms {
        for kw in ["oneOf", "anyOf"] {
            let Some(branches) = m.get(kw).and_then(Value::as_array) else {
                continue;
            };
            match unions {
                Unions::Skip => {}
                Unions::All => {
                    for b in branches {
                        for bm in members(root, b) {
                            view.add(bm, false);
                        }
                    }
                }
                Unions::Selected(instance) => {
                    if let Some(i) = selected_branch(root, branches, instance) {
                        for bm in members(root, &branches[i]) {
                            view.add(bm, true);
                        }
                    }
                }
            }
        }
    }
    view
}

/// The values a schema pins its instance to with `const` or `enum`, if it does.
pub(crate) fn pinned_values<'s>(root: &'s Value, schema: &'s Value) -> Option<Vec<&'s Value>> {
    for m in members(root, schema) {
        if let Some(c) = m.get("const") {
            return Some(vec![c]);
        }
        if let Some(options) = m.get("enum").and_then(Value::as_array) {
            return Some(options.iter().collect());
        }
    }
    None
}

/// Every value the branches of a union pin, without repeats, when each
/// branch pins values; `None` when one does not.
pub(crate) fn pinned_union<'s>(root: &'s Value, branches: &'s [Value]) -> Option<Vec<&'s Value>> {
    let mut all: Vec<&Value> = Vec::new();
    for branch in branches {
        for v in pinned_values(root, branch)? {
            if !all.contains(&v) {
                all.push(v);
            }
        }
    }
    Some(all)
}

/// `(value, description)` for each branch of a union that pins one string
/// value and describes it (schemars' documented unit enums:
/// `{"const": "void", "description": "Cancelled; nothing is owed."}`).
pub(crate) fn described_options<'s>(
    root: &'s Value,
    branches: &'s [Value],
) -> Vec<(&'s str, &'s str)> {
    branches
        .iter()
        .filter_map(|b| {
            let value = match pinned_values(root, b)?.as_slice() {
                [one] => one.as_str()?,
                _ => return None,
            };
            let description = members(root, b)
                .into_iter()
                .find_map(|m| m.get("description").and_then(Value::as_str))?;
            Some((value, description))
        })
        .collect()
}

/// A tagged union: every branch pins the property `name` to its own values.
pub(crate) struct Tag<'s> {
    /// The tag property.
    pub name: &'s str,
    /// The values each branch accepts for the tag, branch by branch.
    pub values: Vec<Vec<&'s Value>>,
}

impl<'s> Tag<'s> {
    /// Every tag value, in branch order, without repeats.
    pub fn all_values(&self) -> Vec<&'s Value> {
        let mut out: Vec<&Value> = Vec::new();
        for v in self.values.iter().flatten() {
            if !out.contains(v) {
                out.push(v);
            }
        }
        out
    }

    /// The first branch whose tag values hold `value`.
    pub fn branch_for(&self, value: &Value) -> Option<usize> {
        self.values.iter().position(|vs| vs.contains(&value))
    }
}

/// The tag of a `oneOf`/`anyOf` whose branches are objects that each pin one
/// property (the same in all) to a `const` or an `enum`, e.g. `model`.
pub(crate) fn union_tag<'s>(root: &'s Value, branches: &'s [Value]) -> Option<Tag<'s>> {
    let views: Vec<ObjectView> = branches
        .iter()
        .map(|b| object_view(root, b, Unions::Skip))
        .collect();
    let first = views.first()?;
    first.props.iter().find_map(|(name, _)| {
        let values = views
            .iter()
            .map(|v| v.prop(name).and_then(|s| pinned_values(root, s)))
            .collect::<Option<Vec<_>>>()?;
        Some(Tag { name, values })
    })
}

/// The branch of a union that applies to the object `instance`: the one its
/// tag selects, else the only branch that accepts objects at all.
fn selected_branch(root: &Value, branches: &[Value], instance: &Value) -> Option<usize> {
    if let Some(tag) = union_tag(root, branches) {
        return tag.branch_for(instance.get(tag.name)?);
    }
    let mut objects = branches.iter().enumerate().filter(|(_, b)| {
        let types = type_names(root, b);
        b.is_object() && (types.is_empty() || types.contains(&"object"))
    });
    match (objects.next(), objects.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

/// The `type` names of `schema` (through `$ref`/`allOf`), in schema order.
pub(crate) fn type_names<'s>(root: &'s Value, schema: &'s Value) -> Vec<&'s str> {
    for m in members(root, schema) {
        match m.get("type") {
            Some(Value::String(t)) => return vec![t.as_str()],
            Some(Value::Array(ts)) => return ts.iter().filter_map(Value::as_str).collect(),
            _ => {}
        }
    }
    Vec::new()
}

/// Several type names as one phrase: `a string`, `a string or null`,
/// `a string, an integer or null` (null always last).
pub(crate) fn type_phrase(names: &[&str]) -> String {
    let mut ordered: Vec<&str> = names.iter().copied().filter(|n| *n != "null").collect();
    if names.contains(&"null") {
        ordered.push("null");
    }
    or_list(&ordered.iter().map(|n| type_noun(n)).collect::<Vec<_>>())
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `'a', 'b', 3`: values as the model should type them, comma-separated.
pub(crate) fn options_list(values: &[&Value]) -> String {
    values
        .iter()
        .map(|v| quote_option(v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a value must be to match `values`: `exactly 'x'` or `one of: 'a', 'b'`.
pub(crate) fn pinned_phrase(values: &[&Value]) -> String {
    match values {
        [one] => format!("exactly {}", quote_option(one)),
        _ => format!("one of: {}", options_list(values)),
    }
}

/// A short description of what `schema` accepts, to follow `Expected `:
/// `a string`, `an integer or null`, `exactly 'flat'`, `one of: 'a', 'b'`.
/// `None` when nothing short can be said.
pub(crate) fn describe(root: &Value, schema: &Value) -> Option<String> {
    describe_at(root, schema, 0)
}

fn describe_at(root: &Value, schema: &Value, depth: usize) -> Option<String> {
    if depth > 4 {
        return None;
    }
    if let Some(values) = pinned_values(root, schema) {
        return Some(pinned_phrase(&values));
    }
    let ms = members(root, schema);
    // A union of pinned values (a documented enum, `"type": "string"` beside
    // it) is named by its values, not its type.
    for m in &ms {
        for kw in ["oneOf", "anyOf"] {
            if let Some(values) = m
                .get(kw)
                .and_then(Value::as_array)
                .and_then(|branches| pinned_union(root, branches))
            {
                return Some(pinned_phrase(&values));
            }
        }
    }
    let types = type_names(root, schema);
    if !types.is_empty() {
        return Some(type_phrase(&types));
    }
    for m in &ms {
        for kw in ["oneOf", "anyOf"] {
            if let Some(branches) = m.get(kw).and_then(Value::as_array) {
                return describe_branches(root, branches, depth + 1);
            }
        }
    }
    for m in &ms {
        if m.get("properties").is_some() || m.get("additionalProperties").is_some() {
            return Some(type_noun("object"));
        }
        if m.get("items").is_some() || m.get("prefixItems").is_some() {
            return Some(type_noun("array"));
        }
    }
    None
}

/// What the branches of a union accept together: `one of: 'a', 'b'` when each
/// pins values, else their descriptions (`an object or null`,
/// `one of: exactly 'x', a string`).
pub(crate) fn describe_branches(root: &Value, branches: &[Value], depth: usize) -> Option<String> {
    if let Some(all) = pinned_union(root, branches) {
        return Some(pinned_phrase(&all));
    }
    let mut descs: Vec<String> = Vec::new();
    for b in branches {
        let d = describe_at(root, b, depth)?;
        if !descs.contains(&d) {
            descs.push(d);
        }
    }
    Some(one_of_descriptions(&descs))
}

/// `X` for one description, `one of: X, Y` for several (a nested `one of: `
/// or `exactly ` is folded into the list).
pub(crate) fn one_of_descriptions(descs: &[String]) -> String {
    match descs {
        [one] => one.clone(),
        _ => {
            let flat: Vec<&str> = descs
                .iter()
                .map(|d| {
                    d.strip_prefix("one of: ")
                        .or_else(|| d.strip_prefix("exactly "))
                        .unwrap_or(d)
                })
                .collect();
            format!("one of: {}", flat.join(", "))
        }
    }
}

/// The properties used to order lines: the branch that applies first, then
/// whatever any other branch declares.
fn ranking_view<'s>(root: &'s Value, schema: &'s Value, value: Option<&Value>) -> ObjectView<'s> {
    let mut view = match value {
        Some(v) => object_view(root, schema, Unions::Selected(v)),
        None => object_view(root, schema, Unions::Skip),
    };
    for (name, sub) in object_view(root, schema, Unions::All).props {
        if view.rank(name).is_none() {
            view.props.push((name, sub));
        }
    }
    view
}

/// The ranking views already built while ordering one validation's lines,
/// by schema and instance value: the lines of one object share its view.
#[derive(Default)]
pub(crate) struct RankViews<'s> {
    built: Vec<(*const Value, Option<*const Value>, ObjectView<'s>)>,
}

impl<'s> RankViews<'s> {
    /// [`ranking_view`] of `schema` for `value`, built once.
    fn get(
        &mut self,
        root: &'s Value,
        schema: &'s Value,
        value: Option<&Value>,
    ) -> &ObjectView<'s> {
        let key = (std::ptr::from_ref(schema), value.map(std::ptr::from_ref));
        let at = match self.built.iter().position(|(s, v, _)| (*s, *v) == key) {
            Some(at) => at,
            None => {
                self.built
                    .push((key.0, key.1, ranking_view(root, schema, value)));
                self.built.len() - 1
            }
        };
        &self.built[at].2
    }
}

/// A sort key for a line at `segs`: per segment, the property's position in
/// schema order (unknown keys after every known one, in input order), or the
/// array index. Lines sort by this key, shorter (outer) paths first. `views`
/// keeps the object views built, for the next lines of the same validation.
pub(crate) fn rank_key<'s>(
    root: &'s Value,
    instance: &Value,
    segs: &[Seg],
    views: &mut RankViews<'s>,
) -> Vec<usize> {
    let mut key = Vec::with_capacity(segs.len());
    let mut schema = Some(root);
    let mut value = Some(instance);
    for seg in segs {
        let (rank, next) = match seg {
            Seg::Key(name) => {
                let view = schema.map(|s| views.get(root, s, value));
                let known = view.and_then(|v| v.rank(name).map(|r| (r, v.prop(name))));
                let base = view.map_or(0, |v| v.props.len());
                match known {
                    Some((r, sub)) => (r, sub),
                    None => {
                        let pos = value
                            .and_then(Value::as_object)
                            .and_then(|m| m.keys().position(|k| k == name))
                            .unwrap_or(usize::MAX - base);
                        let extra = schema.and_then(|s| extra_props_schema(root, s));
                        (base + pos, extra)
                    }
                }
            }
            Seg::Index(i) => (*i, schema.and_then(|s| item_schema(root, s, *i))),
        };
        key.push(rank);
        value = value.and_then(|v| super::path::step(v, seg));
        schema = next;
    }
    key
}

/// The schema that applies at `segs` in `instance`, following declared
/// properties, `additionalProperties` schemas, array items, and the union
/// branch that applies. `None` when the path leaves what the schema declares.
pub(crate) fn schema_at<'s>(root: &'s Value, instance: &Value, segs: &[Seg]) -> Option<&'s Value> {
    let mut schema = root;
    let mut value = Some(instance);
    for seg in segs {
        schema = match seg {
            Seg::Key(name) => {
                let view = match value {
                    Some(v) => object_view(root, schema, Unions::Selected(v)),
                    None => object_view(root, schema, Unions::Skip),
                };
                view.prop(name)
                    .or_else(|| extra_props_schema(root, schema))?
            }
            Seg::Index(i) => item_schema(root, schema, *i)?,
        };
        value = value.and_then(|v| super::path::step(v, seg));
    }
    Some(schema)
}

/// The schema of values under keys an object schema does not declare, when it is an object.
pub(crate) fn extra_props_schema<'s>(root: &'s Value, schema: &'s Value) -> Option<&'s Value> {
    members(root, schema)
        .into_iter()
        .find_map(|m| m.get("additionalProperties").filter(|a| a.is_object()))
}

/// The schema of element `i` of an array schema (`prefixItems`, then `items`).
pub(crate) fn item_schema<'s>(root: &'s Value, schema: &'s Value, i: usize) -> Option<&'s Value> {
    let ms = members(root, schema);
    ms.iter()
        .find_map(|m| {
            m.get("prefixItems")
                .and_then(Value::as_array)
                .and_then(|p| p.get(i))
        })
        .or_else(|| {
            ms.iter()
                .find_map(|m| m.get("items").filter(|s| s.is_object()))
        })
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_pointer_before_a_keyword_segment() {
        let before = super::before_last_segment;
        assert_eq!(
            before("/properties/amount/minimum", "minimum"),
            Some("/properties/amount")
        );
        assert_eq!(before("/minimum", "minimum"), Some(""));
        assert_eq!(before("minimum", "minimum"), Some(""));
        assert_eq!(
            before("/a/minimum/b/minimum", "minimum"),
            Some("/a/minimum/b")
        );
        assert_eq!(before("/a/xminimum", "minimum"), None);
        assert_eq!(before("", "minimum"), None);
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn owner_finds_the_schema_holding_the_keyword() {
        let root = json!({"$defs": {"L": {"properties": {"qty": {"minimum": 0}}}}});
        let o = owner(&root, "/$defs/L/properties/qty/minimum", "minimum").unwrap();
        assert_eq!(o, &json!({"minimum": 0}));
        assert!(owner(&root, "/$defs/L/properties/qty/minimum", "maximum").is_none());
        let root = json!({"required": ["a"]});
        assert_eq!(owner(&root, "/required", "required"), Some(&root));
    }

    #[test]
    fn local_refs_resolve_and_remote_ones_do_not() {
        let root = json!({"$defs": {"A b": {"type": "string"}}});
        assert_eq!(
            local_ref(&root, "#/$defs/A%20b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(local_ref(&root, "#"), Some(&root));
        assert!(local_ref(&root, "https://example.com/s.json").is_none());
    }

    #[test]
    fn type_phrases_put_null_last() {
        assert_eq!(type_phrase(&["string"]), "a string");
        assert_eq!(type_phrase(&["null", "string"]), "a string or null");
        assert_eq!(
            type_phrase(&["string", "integer", "null"]),
            "a string, an integer or null"
        );
    }

    #[test]
    fn describe_follows_refs_and_unions() {
        let root = json!({
            "$defs": {"S": {"type": "string", "enum": ["a", "b"]}, "O": {"properties": {}}},
            "properties": {
                "s": {"$ref": "#/$defs/S"},
                "o": {"anyOf": [{"$ref": "#/$defs/O"}, {"type": "null"}]},
                "c": {"oneOf": [{"const": "x"}, {"const": "y"}]},
                "n": {"const": 3},
                "free": {}
            }
        });
        let p = |n: &str| &root["properties"][n];
        assert_eq!(describe(&root, p("s")).unwrap(), "one of: 'a', 'b'");
        assert_eq!(describe(&root, p("o")).unwrap(), "one of: an object, null");
        assert_eq!(describe(&root, p("c")).unwrap(), "one of: 'x', 'y'");
        assert_eq!(describe(&root, p("n")).unwrap(), "exactly 3");
        assert_eq!(describe(&root, p("free")), None);
    }

    #[test]
    fn tags_are_found_when_every_branch_pins_the_same_property() {
        let branches = json!([
            {"properties": {"kind": {"const": "a"}, "x": {}}},
            {"properties": {"kind": {"enum": ["b", "c"]}, "y": {}}}
        ]);
        let root = json!({});
        let tag = union_tag(&root, branches.as_array().unwrap()).unwrap();
        assert_eq!(tag.name, "kind");
        assert_eq!(
            tag.all_values(),
            vec![&json!("a"), &json!("b"), &json!("c")]
        );
        assert_eq!(tag.branch_for(&json!("c")), Some(1));
        let untagged = json!([{"properties": {"x": {}}}, {"properties": {"x": {"const": 1}}}]);
        assert!(union_tag(&root, untagged.as_array().unwrap()).is_none());
    }

    #[test]
    fn rank_keys_follow_schema_order_then_input_order() {
        let root =
            json!({"properties": {"b": {}, "a": {"items": {"properties": {"z": {}, "y": {}}}}}});
        let inst = json!({"x": 1, "a": [{"y": 1}], "w": 2});
        let k = |segs: Vec<Seg>| rank_key(&root, &inst, &segs, &mut RankViews::default());
        assert_eq!(k(vec![Seg::Key("b".into())]), vec![0]);
        assert_eq!(
            k(vec![
                Seg::Key("a".into()),
                Seg::Index(0),
                Seg::Key("y".into())
            ]),
            vec![1, 0, 1]
        );
        assert_eq!(k(vec![Seg::Key("x".into())]), vec![2]);
        assert_eq!(k(vec![Seg::Key("w".into())]), vec![4]);
    }
}
