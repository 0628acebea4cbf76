//! Routing a `tools/call`: tool name → tool → discriminator → action (wire
//! contract §5: `MISSING_DISCRIMINATOR`, `UNKNOWN_ACTION`).

use serde_json::{Map, Value};

use super::registry::{RegisteredAction, RegisteredTool, Registry};
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

fn pick_recovery(tool: &RegisteredTool, field: &str, shows: Shows<'_>) -> String {
    let example = tool
        .actions
        .iter()
        .find(|a| shows(a))
        .unwrap_or(&tool.actions[0])
        .key
        .as_deref()
        .unwrap_or_default();
    format!(
        "Set \"{field}\" to one of the actions in available_actions, without the \"{}.\" prefix (e.g. \"{field}\": \"{example}\"), and call {} again.",
        tool.name, tool.name
    )
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
    /// valid one the caller sees (`shows`). Its `message`, and its `data`:
    /// `{"tool", "closest"?, "valid_tools"}`.
    pub(crate) fn unknown_tool(
        &self,
        sent: &str,
        dotted: Option<(usize, Option<usize>)>,
        shows: Shows<'_>,
    ) -> (String, Value) {
        let visible = |tool: &RegisteredTool| tool.actions.iter().any(shows);
        let names: Vec<&str> = self
            .tools()
            .iter()
            .filter(|t| visible(t))
            .map(|t| t.name.as_str())
            .collect();
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
                "Unknown tool \"{name}\": the action {name} is called through the tool \"{near}\" with \"{field}\": \"{key}\" in its arguments. Valid tools: {}.",
                names.join(", ")
            ),
            (Some(near), None) => format!(
                "Unknown tool \"{name}\". Did you mean \"{near}\"? Valid tools: {}.",
                names.join(", ")
            ),
            (None, _) => format!(
                "Unknown tool \"{name}\". Valid tools: {}.",
                names.join(", ")
            ),
        };
        let mut data = serde_json::json!({ "tool": name, "valid_tools": names });
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
        let err = match miss {
            Miss::NotString(sent) => not_a_string(self, field, sent, shows),
            Miss::Missing => missing(self, field, args, shows),
            Miss::Unknown(key) => unknown_action(self, field, key, shows),
        };
        err.actions(
            self.actions
                .iter()
                .filter(|a| shows(a))
                .map(|a| a.dotted.clone()),
        )
    }
}

/// The `MISSING_DISCRIMINATOR` of a discriminator `field` of `tool` sent
/// as a JSON `sent` other than a string.
fn not_a_string(tool: &RegisteredTool, field: &str, sent: &str, shows: Shows<'_>) -> ToolError {
    let article = crate::text::article(sent);
    ToolError::new(
        ErrorCode::MissingDiscriminator,
        format!(
            "The field \"{field}\" must be a string naming an action of {}, but {article} {sent} was sent.",
            tool.name
        ),
    )
    .suggest(pick_recovery(tool, field, shows))
}

/// The `MISSING_DISCRIMINATOR` of a call of `tool` without its
/// discriminator `field`: the one action the other fields of `args` fit,
/// when there is one.
fn missing(
    tool: &RegisteredTool,
    field: &str,
    args: &Map<String, Value>,
    shows: Shows<'_>,
) -> ToolError {
    let recovery = match fitting_actions(tool, args, shows)[..] {
        [only] => format!(
            "Did you mean \"{only}\" ({}.{only})? The fields you sent fit it. {}",
            tool.name,
            pick_recovery(tool, field, shows)
        ),
        _ => pick_recovery(tool, field, shows),
    };
    ToolError::new(
        ErrorCode::MissingDiscriminator,
        format!(
            "The field \"{field}\" is missing: {} needs it to know which action to run.",
            tool.name
        ),
    )
    .suggest(recovery)
}

/// The `UNKNOWN_ACTION` of a call of `tool` whose discriminator `field` is
/// `key`, no action's: the closest shown action by name or description.
fn unknown_action(tool: &RegisteredTool, field: &str, key: &str, shows: Shows<'_>) -> ToolError {
    let keys = tool
        .actions
        .iter()
        .filter(|a| shows(a))
        .filter_map(|a| a.key.as_deref());
    // The dotted name from available_actions sent as the value: match
    // its action part, so that the recovery names it.
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
    let near = closest(bare, keys).or_else(|| by_description(bare, &described));
    let recovery = match near {
        Some(near) => format!(
            "Did you mean \"{near}\" ({}.{near})? {}",
            tool.name,
            pick_recovery(tool, field, shows)
        ),
        None => pick_recovery(tool, field, shows),
    };
    ToolError::new(
        ErrorCode::UnknownAction,
        format!("{} has no action \"{key}\".", tool.name),
    )
    .suggest(recovery)
}
