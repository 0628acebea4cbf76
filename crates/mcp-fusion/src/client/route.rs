//! Dotted names: `billing.get_invoice` → tool `billing`, `{"action":
//! "get_invoice", …}` (the grouped exposition of the router).

use serde_json::{Map, Value};

use super::error::FusionClientError;
use crate::json::{json_type, type_noun};

/// Where a call goes ([`FusionClient::route`](super::FusionClient::route)):
/// the MCP tool name, and the action to put under the discriminator key, if
/// any.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Route {
    /// The tool name sent in `tools/call`.
    pub tool: String,
    /// The action for a grouped tool; `None` sends the arguments unchanged.
    pub action: Option<String>,
}

/// Resolves `name` to a [`Route`].
///
/// - A name without a dot, or a name that is itself a listed tool, is called
///   as it is (a listed name wins over the dotted split).
/// - Otherwise, when the tool list is known, the name is split at the dot
///   after its LONGEST listed prefix: `finance.billing.get_invoice` → tool
///   `finance.billing` (a gateway's namespaced group), action `get_invoice`;
///   with only `a` listed, `a.b.c` → tool `a`, action `b.c`.
/// - Otherwise (the list is unknown, or it lists neither the name nor any
///   prefix of it), the name is split at its FIRST dot: `a.b.c` → tool `a`,
///   action `b.c`, provided both parts are non-empty. A server lists only the
///   tools this caller may see (an anonymous `tools/list` hides a group whose
///   actions need scopes), so a group missing from the list is still reached
///   through its discriminator; the server then answers for it itself (HTTP
///   401 or 403 naming the scopes, an `AUTH_REQUIRED` result). When the
///   server has no tool of that first part either,
///   [`FusionClient::call`](super::FusionClient::call) sends the name as it
///   is (see [`unlisted`]).
///
/// `listed` is `None` when the tool list is unknown (listing failed).
pub(crate) fn route<'a, I>(name: &str, listed: Option<I>) -> Route
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    let as_is = Route {
        tool: name.to_owned(),
        action: None,
    };
    let Some((tool, action)) = name.split_once('.') else {
        return as_is;
    };
    if tool.is_empty() || action.is_empty() {
        return as_is;
    }
    if let Some(listed) = listed {
        if listed.clone().into_iter().any(|t| t == name) {
            return as_is;
        }
        let longest = name
            .match_indices('.')
            .map(|(at, _)| (&name[..at], &name[at + 1..]))
            .filter(|(tool, action)| !tool.is_empty() && !action.is_empty())
            .rev()
            .find(|(tool, _)| listed.clone().into_iter().any(|t| t == *tool));
        if let Some((tool, action)) = longest {
            return Route {
                tool: tool.to_owned(),
                action: Some(action.to_owned()),
            };
        }
    }
    Route {
        tool: tool.to_owned(),
        action: Some(action.to_owned()),
    }
}

/// Whether the known tool list `listed` names neither the dotted `name`
/// nor any prefix of it: a tool a server does not list (tool search lists
/// only `search_tools`; a gateway, its own namespaces), which
/// [`FusionClient::call`](super::FusionClient::call) sends as it is when the
/// first-dot split names no tool of the server.
pub(crate) fn unlisted<'a, I>(name: &str, listed: I) -> bool
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    name.contains('.')
        && !std::iter::once(name.len())
            .chain(name.match_indices('.').map(|(at, _)| at))
            .any(|end| listed.clone().into_iter().any(|t| t == &name[..end]))
}

/// The `arguments` object for `route`: `args` (a JSON object, or `null` for
/// none) with the action written under `discriminator` LAST, so that a
/// caller's own member of that name cannot redirect the call.
///
/// Returns `Ok(None)` (no `arguments` member) for `null` args on an ungrouped
/// route, and [`FusionClientError::InvalidArguments`] when `args` is neither an
/// object nor `null`.
pub(crate) fn build_arguments(
    args: Value,
    route: &Route,
    discriminator: &str,
) -> Result<Option<Map<String, Value>>, FusionClientError> {
    let mut map = match args {
        Value::Object(map) => Some(map),
        Value::Null => None,
        other => {
            return Err(FusionClientError::InvalidArguments(format!(
                "tool arguments must be a JSON object, got {}",
                type_noun(json_type(&other))
            )));
        }
    };
    if let Some(action) = &route.action {
        map.get_or_insert_with(Map::new)
            .insert(discriminator.to_owned(), Value::String(action.clone()));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NONE: Option<[&str; 0]> = None;

    #[test]
    fn splits_at_the_first_dot() {
        assert_eq!(
            route("billing.get_invoice", NONE),
            Route {
                tool: "billing".into(),
                action: Some("get_invoice".into())
            }
        );
        assert_eq!(route("a.b.c", NONE).action.as_deref(), Some("b.c"));
        assert_eq!(route("plain", NONE).action, None);
        assert_eq!(route(".x", NONE).tool, ".x");
        assert_eq!(route("x.", NONE).tool, "x.");
    }

    #[test]
    fn a_listed_name_wins_over_the_split() {
        let listed = Some(["billing", "files.read"]);
        assert_eq!(route("files.read", listed).action, None);
        assert_eq!(route("billing.pay", listed).action.as_deref(), Some("pay"));
    }

    #[test]
    fn a_name_unlisted_with_every_prefix_is_split_at_the_first_dot() {
        // An anonymous `tools/list` hides the group `billing`; its actions
        // are still reached through the discriminator.
        let listed = Some(["billing_health"]);
        assert_eq!(
            route("billing.get_invoice", listed),
            Route {
                tool: "billing".into(),
                action: Some("get_invoice".into())
            }
        );
        assert!(unlisted("billing.get_invoice", ["billing_health"]));
        assert!(unlisted("pay.charge_eur", ["search_tools", "health"]));
        assert!(!unlisted("billing.get_invoice", ["billing"]));
        assert!(!unlisted("files.read", ["files.read"]));
        assert!(!unlisted("plain", ["other"]));
        // An empty list is a known list too.
        assert_eq!(route("x.y", Some([""; 0])).action.as_deref(), Some("y"));
        // Empty parts are never split.
        assert_eq!(route(".x", listed).tool, ".x");
        assert_eq!(route("x.", listed).action, None);
    }

    #[test]
    fn the_longest_listed_prefix_is_the_tool() {
        // A gateway lists a namespaced group, `finance.billing`.
        let listed = Some(["finance.billing", "finance.billing_health", "finance"]);
        let routed = route("finance.billing.get_invoice", listed);
        assert_eq!(routed.tool, "finance.billing");
        assert_eq!(routed.action.as_deref(), Some("get_invoice"));
        let routed = route("finance.other", listed);
        assert_eq!(routed.tool, "finance");
        assert_eq!(routed.action.as_deref(), Some("other"));
    }

    #[test]
    fn routing_key_is_applied_last() {
        let route = route("billing.get_invoice", NONE);
        let args = build_arguments(json!({"action": "delete_all", "id": 1}), &route, "action")
            .unwrap()
            .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"action": "get_invoice", "id": 1})
        );
        let args = build_arguments(Value::Null, &route, "op").unwrap().unwrap();
        assert_eq!(Value::Object(args), json!({"op": "get_invoice"}));
    }

    #[test]
    fn non_object_arguments_are_refused() {
        let route = route("echo", NONE);
        assert_eq!(
            build_arguments(Value::Null, &route, "action").unwrap(),
            None
        );
        let err = build_arguments(json!([1]), &route, "action").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid arguments: tool arguments must be a JSON object, got an array"
        );
    }
}
