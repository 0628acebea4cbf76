//! Instance locations: JSON Pointers from the validator turned into the dotted
//! field paths of wire contract §4 (`items.2.price`, `(root)`).

use serde_json::Value;

/// The name of the whole input in a field line.
pub(crate) const ROOT: &str = "(root)";

/// One step into a JSON instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A property of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
}

/// The segments of the JSON Pointer `pointer`, read against `instance`: a
/// numeric token is an index only where the instance holds an array there
/// (an object may have a key `"2"`).
pub(crate) fn segments(instance: &Value, pointer: &str) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    // The value at `out[..stepped]`: stepped into only when a numeric token
    // asks whether it is an array (a key lookup hashes the key).
    let mut here = Some(instance);
    let mut stepped = 0;
    for raw in pointer.split('/').skip(1) {
        let token = crate::json::pointer_token(raw);
        let seg = match token.parse::<usize>() {
            Ok(i) => {
                for seg in &out[stepped..] {
                    here = here.and_then(|v| step(v, seg));
                }
                stepped = out.len();
                match here {
                    Some(Value::Array(_)) => Seg::Index(i),
                    _ => Seg::Key(token.into_owned()),
                }
            }
            Err(_) => Seg::Key(token.into_owned()),
        };
        out.push(seg);
    }
    out
}

/// The value one step below `value`, if there is one.
pub(crate) fn step<'v>(value: &'v Value, seg: &Seg) -> Option<&'v Value> {
    match (value, seg) {
        (Value::Object(map), Seg::Key(k)) => map.get(k),
        (Value::Array(items), Seg::Index(i)) => items.get(*i),
        _ => None,
    }
}

/// The value at `segs` in `instance`, if there is one.
pub(crate) fn value_at<'v>(instance: &'v Value, segs: &[Seg]) -> Option<&'v Value> {
    segs.iter().try_fold(instance, |v, seg| step(v, seg))
}

/// The value at `segs` in `instance`, to change, if there is one.
pub(crate) fn value_at_mut<'v>(instance: &'v mut Value, segs: &[Seg]) -> Option<&'v mut Value> {
    segs.iter().try_fold(instance, |v, seg| match (v, seg) {
        (Value::Object(map), Seg::Key(k)) => map.get_mut(k),
        (Value::Array(items), Seg::Index(i)) => items.get_mut(*i),
        _ => None,
    })
}

/// The dotted form of `segs` (`orders.1.lines`), or `(root)` when empty.
/// Segments are joined as they are: a key holding a dot is not quoted.
pub(crate) fn dotted(segs: &[Seg]) -> String {
    if segs.is_empty() {
        return ROOT.to_owned();
    }
    let mut out = String::new();
    for (i, seg) in segs.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match seg {
            Seg::Key(k) => out.push_str(k),
            Seg::Index(n) => out.push_str(&n.to_string()),
        }
    }
    out
}

/// `segs` with one more key.
pub(crate) fn child(segs: &[Seg], key: &str) -> Vec<Seg> {
    let mut out = segs.to_vec();
    out.push(Seg::Key(key.to_owned()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_become_dotted_paths() {
        let inst = json!({"items": [{"price": 1}, {"price": 2}, {"price": 3}]});
        let segs = segments(&inst, "/items/2/price");
        assert_eq!(
            segs,
            vec![
                Seg::Key("items".into()),
                Seg::Index(2),
                Seg::Key("price".into())
            ]
        );
        assert_eq!(dotted(&segs), "items.2.price");
        assert_eq!(dotted(&segments(&inst, "")), "(root)");
    }

    #[test]
    fn numeric_keys_of_objects_stay_keys_and_escapes_are_undone() {
        let inst = json!({"2": {"a/b": {"c~d": 1}}});
        let segs = segments(&inst, "/2/a~1b/c~0d");
        assert_eq!(segs[0], Seg::Key("2".into()));
        assert_eq!(dotted(&segs), "2.a/b.c~d");
    }

    #[test]
    fn child_appends_a_key() {
        let segs = child(&[Seg::Index(0)], "name");
        assert_eq!(dotted(&segs), "0.name");
    }
}
