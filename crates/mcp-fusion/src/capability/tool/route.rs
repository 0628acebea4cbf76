//! Routing a `tools/call`: tool name → tool → discriminator → action (wire
//! contract §5: `MISSING_DISCRIMINATOR`, `UNKNOWN_ACTION`).

use serde_json::{Map, Value};

use super::registry::{RegisteredAction, RegisteredTool, Registry};
use crate::error::{ErrorCode, ToolError};
use crate::json::json_type;
use crate::suggest::{by_description, closest, under_namespace};
use crate::text::cut_chars;

/// Why a call could not be routed to an action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RouteError {
    /// No tool has that name: a JSON-RPC error -32602 (MCP), not a tool result.
    UnknownTool {
        /// Names the tool, the closest valid one and every valid one.
        message: String,
        /// `{"tool", "closest"?, "valid_tools"}`.
        data: Value,
    },
    /// The tool exists but the call names no valid action: a tool result.
    Envelope(Box<ToolError>),
}

/// A routed call: its action and its arguments without the discriminator.
pub(crate) struct Routed<'a> {
    pub tool: &'a RegisteredTool,
    pub action: &'a RegisteredAction,
    pub args: Map<String, Value>,
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
    /// Routes a call of tool `name` with `args`; the errors name only the
    /// tools and actions the caller sees (`shows`).
    pub fn route(
        &self,
        name: &str,
        args: Option<Map<String, Value>>,
        shows: Shows<'_>,
    ) -> Result<Routed<'_>, RouteError> {
        let Some(tool) = self.tool(name) else {
            return Err(self.unknown_tool(name, shows));
        };
        let mut args = args.unwrap_or_default();
        let Some(field) = tool.discriminator.as_deref() else {
            return Ok(Routed {
                tool,
                action: &tool.actions[0],
                args,
            });
        };
        let value = args.remove(field);
        let key = match &value {
            None => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                let sent = json_type(other);
                let article = crate::text::article(sent);
                return Err(RouteError::Envelope(Box::new(discriminator_error(
                    ErrorCode::MissingDiscriminator,
                    format!(
                        "The field \"{field}\" must be a string naming an action of {}, but {article} {sent} was sent.",
                        tool.name
                    ),
                    (tool, field),
                    None,
                    shows,
                ))));
            }
        };
        let Some(key) = key else {
            let near = match fitting_actions(tool, &args, shows)[..] {
                [only] => Some((only, true)),
                _ => None,
            };
            return Err(RouteError::Envelope(Box::new(discriminator_error(
                ErrorCode::MissingDiscriminator,
                format!(
                    "The field \"{field}\" is missing: {} needs it to know which action to run.",
                    tool.name
                ),
                (tool, field),
                near,
                shows,
            ))));
        };
        let Some(action) = tool.action(key) else {
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
            return Err(RouteError::Envelope(Box::new(discriminator_error(
                ErrorCode::UnknownAction,
                format!("{} has no action \"{key}\".", tool.name),
                (tool, field),
                near.map(|near| (near, false)),
                shows,
            ))));
        };
        Ok(Routed { tool, action, args })
    }

    /// The error for a call of `sent`, a name no tool has: it names the
    /// closest valid tool and every valid one the caller sees (`shows`).
    pub(crate) fn unknown_tool(&self, sent: &str, shows: Shows<'_>) -> RouteError {
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
        let near = sent
            .split_once('.')
            .and_then(|(group, _)| {
                self.tool(group)
                    .filter(|t| visible(t))
                    .map(|t| t.name.as_str())
            })
            .or_else(|| closest(sent, names.iter().copied()))
            .or_else(|| under_namespace(sent, names.iter().copied()));
        // `billing.get_invoice` named as a tool: say how to call the action.
        let action = sent.split_once('.').and_then(|(group, key)| {
            let tool = self.tool(group)?;
            let action = tool.action(key).filter(|a| shows(a))?;
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
        RouteError::UnknownTool { message, data }
    }
}
