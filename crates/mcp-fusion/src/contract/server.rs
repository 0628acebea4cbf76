//! [`ServerContract`]: every tool of a server, from a built server or from
//! any server's `tools/list`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::action::{ActionContract, non_blank};
use super::canonical::digest_of;
use super::error::ContractError;
use super::tool::ToolContract;
use crate::capability::{ActionListing, ToolListing};
use crate::tool_meta::{ACTIONS_META_KEY, DISCRIMINATOR_META_KEY};

/// The contract of a whole server: every tool, by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerContract {
    /// Every tool, by name.
    pub tools: BTreeMap<String, ToolContract>,
}

impl ServerContract {
    /// `sha256:<hex>` of the canonical JSON of `{tool name: tool digest}`:
    /// equal digests mean equal contracts.
    pub fn digest(&self) -> String {
        let tools: Map<String, Value> = self
            .tools
            .iter()
            .map(|(name, tool)| (name.clone(), json!(tool.digest())))
            .collect();
        digest_of(&Value::Object(tools))
    }

    /// How many actions all tools have together.
    pub fn action_count(&self) -> usize {
        self.tools.values().map(|t| t.actions.len()).sum()
    }

    /// The contract of the given listings (a built server's
    /// [`FusionServer::listings`](crate::FusionServer::listings)); a built
    /// server's own is [`ServerContract::of_server`].
    pub fn from_listings(listings: &[ToolListing]) -> Self {
        let tools = listings
            .iter()
            .map(|listing| {
                let actions = listing
                    .actions
                    .iter()
                    .map(|a| (a.name.clone(), from_action_listing(a)))
                    .collect();
                let tool = ToolContract {
                    name: listing.name.clone(),
                    description: non_blank(Some(&listing.description)),
                    discriminator: listing.discriminator.clone(),
                    actions,
                };
                (listing.name.clone(), tool)
            })
            .collect();
        ServerContract { tools }
    }

    /// The contract of what a server listed (`tools/list`), as the MCP
    /// client hands it out (`model::Tool`): each tool is
    /// serialized to its MCP JSON form and read by
    /// [`from_tools_json`](Self::from_tools_json).
    ///
    /// # Errors
    /// As [`from_tools_json`](Self::from_tools_json).
    pub fn from_tools(tools: &[rmcp::model::Tool]) -> Result<Self, ContractError> {
        let values = tools
            .iter()
            .map(|tool| {
                serde_json::to_value(tool).map_err(|e| {
                    ContractError::malformed(format!("tool \"{}\"", tool.name), e.to_string())
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_tools_json(&values)
    }

    /// The contract of `tools/list` entries in their MCP JSON form (`{"name",
    /// "description"?, "inputSchema", "outputSchema"?, "annotations"?,
    /// "_meta"?}`), from any MCP server:
    ///
    /// - a tool whose `_meta["mcp-fusion/actions"]` is an array (an
    ///   mcp-fusion server) has one action per entry, each with its own
    ///   schema and settings, and the discriminator of
    ///   `_meta["mcp-fusion/discriminator"]`;
    /// - any other tool is one action named after the tool: its description,
    ///   schemas and annotations (MCP defaults for missing hints: not
    ///   read-only, destructive, not idempotent), no scopes, no guards.
    ///
    /// # Errors
    /// [`ContractError::Malformed`] for an entry of the wrong shape (it says
    /// which tool and which member), [`ContractError::DuplicateTool`] and
    /// [`ContractError::DuplicateAction`] for repeated names.
    pub fn from_tools_json(tools: &[Value]) -> Result<Self, ContractError> {
        let mut contract = ServerContract::default();
        for (index, value) in tools.iter().enumerate() {
            let tool = tool_from_json(value, index)?;
            if contract.tools.contains_key(&tool.name) {
                return Err(ContractError::DuplicateTool(tool.name));
            }
            contract.tools.insert(tool.name.clone(), tool);
        }
        Ok(contract)
    }
}

fn from_action_listing(listing: &ActionListing) -> ActionContract {
    ActionContract {
        name: listing.name.clone(),
        description: listing.description.clone(),
        input_schema: listing.input_schema.clone(),
        output_schema: listing.output_schema.clone(),
        annotations: listing.annotations,
        deprecated: listing.deprecated.clone(),
        required_scopes: listing.required_scopes.clone(),
        guards: listing.guards.clone(),
        presenter: listing.presenter.clone(),
        results: listing.results.clone(),
    }
    .canonical()
}

fn tool_from_json(value: &Value, index: usize) -> Result<ToolContract, ContractError> {
    let object = value.as_object().ok_or_else(|| {
        ContractError::malformed(
            format!("tool {index} of tools/list"),
            "expected a JSON object",
        )
    })?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            ContractError::malformed(format!("tool {index} of tools/list"), "has no name")
        })?;
    let at = format!("tool \"{name}\"");
    let description = match object.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => non_blank(Some(s)),
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"description\" must be a string",
            ));
        }
    };
    let meta = object.get("_meta").and_then(Value::as_object);
    let listed_actions = meta.and_then(|m| m.get(ACTIONS_META_KEY));
    let Some(listed_actions) = listed_actions else {
        let action = foreign_action(name, description.as_deref(), object, &at)?;
        return Ok(ToolContract {
            name: name.to_owned(),
            description,
            discriminator: None,
            actions: BTreeMap::from([(name.to_owned(), action)]),
        });
    };
    let entries = listed_actions.as_array().ok_or_else(|| {
        ContractError::malformed(
            &at,
            format!("_meta[\"{ACTIONS_META_KEY}\"] must be an array"),
        )
    })?;
    let discriminator = match meta.and_then(|m| m.get(DISCRIMINATOR_META_KEY)) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(ContractError::malformed(
                &at,
                format!("_meta[\"{DISCRIMINATOR_META_KEY}\"] must be a string"),
            ));
        }
    };
    let mut actions = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        let entry_at = format!("{at}, action {i} of _meta[\"{ACTIONS_META_KEY}\"]");
        let action_name = entry
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| ContractError::malformed(&entry_at, "has no name"))?;
        let action = ActionContract::from_json(action_name, entry, &entry_at)?;
        if actions.insert(action_name.to_owned(), action).is_some() {
            return Err(ContractError::DuplicateAction {
                tool: name.to_owned(),
                action: action_name.to_owned(),
            });
        }
    }
    Ok(ToolContract {
        name: name.to_owned(),
        description,
        discriminator,
        actions,
    })
}

/// A tool of a server that does not list its actions: one action.
fn foreign_action(
    name: &str,
    description: Option<&str>,
    object: &Map<String, Value>,
    at: &str,
) -> Result<ActionContract, ContractError> {
    let hint = |key: &str, default: bool| -> Result<bool, ContractError> {
        match object.get("annotations").and_then(|a| a.get(key)) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ContractError::malformed(
                at,
                format!("\"annotations.{key}\" must be true or false"),
            )),
        }
    };
    let mut entry = Map::new();
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = object.get(key) {
            entry.insert(key.into(), schema.clone());
        }
    }
    entry.insert(
        "annotations".into(),
        json!({
            "readOnlyHint": hint("readOnlyHint", false)?,
            "destructiveHint": hint("destructiveHint", true)?,
            "idempotentHint": hint("idempotentHint", false)?,
        }),
    );
    if let Some(description) = description {
        entry.insert("description".into(), json!(description));
    }
    ActionContract::from_json(name, &Value::Object(entry), at)
}
