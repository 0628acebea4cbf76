//! Routing a `tools/call`: tool name → tool → discriminator → action (wire
//! contract §5: `MISSING_DISCRIMINATOR`, `UNKNOWN_ACTION`).

use serde_json::{Map, Value};

use super::registry::{RegisteredAction, RegisteredTool, Registry};
use crate::capability::tool_search::{SEARCH_TOOL, ToolSearch};
use crate::error::{ErrorCode, ToolError};
use crate::json::json_type;
use crate::suggest::{by_description, closest, under_namespace};
use crate::text::cut_chars;

/// Where a call's name (and a group's discriminator) leads: the one
/// name→action lookup of a `tools/call` ([`Registry::find`]), made before
/// anything else on the call's way reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Found {
    /// The action: its tool's index and its own inside the tool.
    Action { tool: usize, action: usize },
    /// A tool of that name, whose call names none of its actions.
    NoAction { tool: usize, miss: Miss },
    /// No tool of that name. `dotted`, when the part before the name's
    /// first dot is a tool (`billing.get_invoice`): that tool, and the
    /// action whose key is the rest, when it has one.
    NoTool {
        dotted: Option<(usize, Option<usize>)>,
    },
}

/// Why the call of a group names none of its actions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Miss {
    /// The discriminator is missing, or a blank string.
    Missing,
    /// The discriminator is not a string: the JSON type sent.
    NotString(&'static str),
    /// The discriminator names no action: the key sent.
    Unknown(String),
}

#[cfg(test)]
thread_local! {
    /// How many lookups [`Registry::find`] made on this thread (for the
    /// tests that a call is looked up once).
    static FINDS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many lookups [`Registry::find`] made on this thread.
#[cfg(test)]
pub(crate) fn finds() -> usize {
    FINDS.with(std::cell::Cell::get)
}

/// Which actions the caller sees (the lists' filter): errors name only those.
pub(crate) type Shows<'s> = &'s dyn Fn(&RegisteredAction) -> bool;

/// The failure of a call whose discriminator names no action of `tool`
/// (`code`: `MISSING_DISCRIMINATOR` or `UNKNOWN_ACTION`): `message`, then
/// the next step (wire contract §2.1) and the recovery, naming `near` when an
/// action is near what was sent (`fits`: because the fields sent fit it), and
/// the actions the caller sees (`shows`).
fn discriminator_error(
    code: ErrorCode,
    message: String,
    (tool, field): (&RegisteredTool, &str),
    near: Option<(&str, bool)>,
    shows: Shows<'_>,
) -> ToolError {
    let name = &tool.name;
    let (next_step, recovery) = match near {
        Some((near, fits)) => (
            format!(
                "Set \"{field}\" to \"{near}\", keep your other arguments, and call {name} again."
            ),
            format!(
                "Did you mean \"{near}\"?{} Use an action from available_actions, without the \"{name}.\" prefix.",
                if fits {
                    " The fields you sent fit it."
                } else {
                    ""
                }
            ),
        ),
        None => {
            let example = tool
                .actions
                .iter()
                .find(|a| shows(a))
                .unwrap_or(&tool.actions[0])
                .key
                .as_deref()
                .unwrap_or_default();
            (
                format!(
                    "Set \"{field}\" to an action from available_actions, keep your other arguments, and call {name} again."
                ),
                format!(
                    "Use an action from available_actions, without the \"{name}.\" prefix (e.g. \"{field}\": \"{example}\")."
                ),
            )
        }
    };
    let shown = tool
        .actions
        .iter()
        .filter(|a| shows(a))
        .map(|a| a.dotted.clone());
    ToolError::new(code, message)
        .next_step(next_step)
        .suggest(recovery)
        .actions(shown)
}

/// The keys of the actions of `tool` whose input schema declares every
/// field of `args` (none when `args` is empty).
fn fitting_actions<'t>(
    tool: &'t RegisteredTool,
    args: &Map<String, Value>,
    shows: Shows<'_>,
) -> Vec<&'t str> {
    if args.is_empty() {
        return Vec::new();
    }
    tool.actions
        .iter()
        .filter(|a| shows(a))
        .filter(|a| args.keys().all(|k| a.fields.contains(k)))
        .filter_map(|a| a.key.as_deref())
        .collect()
}

impl Registry {
    /// Where a call of tool `name` with `args` leads ([`Found`]): the tool
    /// by its name, a group's action by its discriminator (a blank string
    /// is a missing one), or, for a name no tool has, the tool and action
    /// its dotted parts name.
    pub(crate) fn find(&self, name: &str, args: Option<&Map<String, Value>>) -> Found {
        #[cfg(test)]
        FINDS.with(|finds| finds.set(finds.get() + 1));
        let Some(&index) = self.index_of(name) else {
            let dotted = name.split_once('.').and_then(|(group, key)| {
                let &tool = self.index_of(group)?;
                Some((tool, self.tools()[tool].action_index(key)))
            });
            return Found::NoTool { dotted };
        };
        let tool = &self.tools()[index];
        let Some(field) = tool.discriminator.as_deref() else {
            return Found::Action {
                tool: index,
                action: 0,
            };
        };
        let miss = match args.and_then(|args| args.get(field)) {
            None => Miss::Missing,
            Some(Value::String(key)) if key.trim().is_empty() => Miss::Missing,
            Some(Value::String(key)) => match tool.action_index(key) {
                Some(action) => {
                    return Found::Action {
                        tool: index,
                        action,
                    };
                }
                None => Miss::Unknown(key.clone()),
            },
            Some(other) => Miss::NotString(json_type(other)),
        };
        Found::NoAction { tool: index, miss }
    }

    /// The error for a call of `sent`, a name no tool has (`dotted` as
    /// [`Found::NoTool`] has it): it names the closest valid tool and every
    /// valid one the caller sees (`shows`); with tool `search` on, the
    /// closest among all of them but, as valid, only those `tools/list`
    /// shows, and how to find the others. Its `message`, and its `data`:
    /// `{"tool", "closest"?, "valid_tools"}`.
    pub(crate) fn unknown_tool(
        &self,
        sent: &str,
        dotted: Option<(usize, Option<usize>)>,
        shows: Shows<'_>,
        search: Option<&ToolSearch>,
    ) -> (String, Value) {
        let visible = |tool: &RegisteredTool| tool.actions.iter().any(shows);
        let names: Vec<&str> = self
            .tools()
            .iter()
            .filter(|t| visible(t))
            .map(|t| t.name.as_str())
            .collect();
        let listed: Vec<&str> = match search {
            Some(search) => names.iter().copied().filter(|n| search.lists(n)).collect(),
            None => names.clone(),
        };
        let valid = match search {
            Some(_) => format!(
                "Listed tools: {}; find the others with {SEARCH_TOOL}, giving a few words of what you want to do.",
                listed.join(", ")
            ),
            None => format!("Valid tools: {}.", names.join(", ")),
        };
        // Echoed at most 100 characters long, like every name the model sent.
        let name = &*cut_chars(sent, 100, "…");
        // A dotted action name sent as a tool name: suggest its group.
        let dotted = dotted.map(|(tool, action)| {
            let tool = &*self.tools()[tool];
            (tool, action.map(|a| &tool.actions[a]))
        });
        let near = dotted
            .map(|(tool, _)| tool)
            .filter(|tool| visible(tool))
            .map(|tool| tool.name.as_str())
            .or_else(|| closest(sent, names.iter().copied()))
            .or_else(|| under_namespace(sent, names.iter().copied()));
        // `billing.get_invoice` named as a tool: say how to call the action.
        let action = dotted.and_then(|(tool, action)| {
            let action = action.filter(|a| shows(a))?;
            Some((tool.discriminator.as_deref()?, action.key.as_deref()?))
        });
        let message = match (near, action) {
            (Some(near), Some((field, key))) => format!(
                "Unknown tool \"{name}\": the action {name} is called through the tool \"{near}\" with \"{field}\": \"{key}\" in its arguments. {valid}"
            ),
            (Some(near), None) => {
                format!("Unknown tool \"{name}\". Did you mean \"{near}\"? {valid}")
            }
            (None, _) => format!("Unknown tool \"{name}\". {valid}"),
        };
        let mut data = serde_json::json!({ "tool": name, "valid_tools": listed });
        if let Some(near) = near {
            data["closest"] = Value::String(near.to_owned());
        }
        (message, data)
    }
}

impl RegisteredTool {
    /// The `MISSING_DISCRIMINATOR` or `UNKNOWN_ACTION` of a call of this
    /// group that names none of its actions (`miss`), with `args` its
    /// arguments without the discriminator; it names only the actions the
    /// caller sees (`shows`).
    pub(crate) fn miss_error(
        &self,
        miss: &Miss,
        args: &Map<String, Value>,
        shows: Shows<'_>,
    ) -> ToolError {
        let field = self.discriminator.as_deref().unwrap_or_default();
        let name = &self.name;
        let (code, message, near) = match miss {
            Miss::NotString(sent) => {
                let article = crate::text::article(sent);
                let message = format!(
                    "The field \"{field}\" must be a string naming an action of {name}, but {article} {sent} was sent."
                );
                (ErrorCode::MissingDiscriminator, message, None)
            }
            Miss::Missing => {
                let message = format!(
                    "The field \"{field}\" is missing: {name} needs it to know which action to run."
                );
                let near = match fitting_actions(self, args, shows)[..] {
                    [only] => Some((only, true)),
                    _ => None,
                };
                (ErrorCode::MissingDiscriminator, message, near)
            }
            Miss::Unknown(key) => {
                let message = format!("{name} has no action \"{key}\".");
                let near = near_action(self, key, shows).map(|near| (near, false));
                (ErrorCode::UnknownAction, message, near)
            }
        };
        discriminator_error(code, message, (self, field), near, shows)
    }
}

/// The shown action of `tool` nearest to `key`, an action no action has:
/// by name (a dotted name from available_actions sent as the value is
/// matched by its action part), else by description.
fn near_action<'t>(tool: &'t RegisteredTool, key: &str, shows: Shows<'_>) -> Option<&'t str> {
    let keys = tool
        .actions
        .iter()
        .filter(|a| shows(a))
        .filter_map(|a| a.key.as_deref());
    let bare = key
        .strip_prefix(tool.name.as_str())
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(key);
    let described: Vec<(&str, &str)> = tool
        .actions
        .iter()
        .filter(|a| shows(a))
        .filter_map(|a| Some((a.key.as_deref()?, a.description.as_str())))
        .collect();
    closest(bare, keys).or_else(|| by_description(bare, &described))
}
