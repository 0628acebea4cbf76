//! [`Transforms`]: the transforms and the filter of one mounted server or
//! gateway upstream, applied to the tools it lists.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::Value;

use super::transformed::GroupArguments;
use super::{ToolTransform, TransformError, Transformed};

/// Which of a server's tools are shown; the others are neither listed nor
/// callable through the mount or the gateway.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum ToolFilter {
    /// Every tool (the default).
    #[default]
    All,
    /// Only the tools of these names (the server's own names).
    Allow(Vec<String>),
    /// Every tool but those of these names (the server's own names).
    Deny(Vec<String>),
    /// The tools for which the function holds, given the tool as the server
    /// lists it.
    Predicate(Arc<dyn Fn(&Tool) -> bool + Send + Sync>),
}

impl ToolFilter {
    /// Whether `tool` is shown.
    pub fn shows(&self, tool: &Tool) -> bool {
        match self {
            ToolFilter::All => true,
            ToolFilter::Allow(names) => names.iter().any(|n| *n == tool.name),
            ToolFilter::Deny(names) => !names.iter().any(|n| *n == tool.name),
            ToolFilter::Predicate(shows) => shows(tool),
        }
    }
}

/// Lists compare by their names, predicates by identity (the same
/// function, shared).
impl PartialEq for ToolFilter {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ToolFilter::All, ToolFilter::All) => true,
            (ToolFilter::Allow(a), ToolFilter::Allow(b))
            | (ToolFilter::Deny(a), ToolFilter::Deny(b)) => a == b,
            (ToolFilter::Predicate(a), ToolFilter::Predicate(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for ToolFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolFilter::All => f.write_str("All"),
            ToolFilter::Allow(names) => f.debug_tuple("Allow").field(names).finish(),
            ToolFilter::Deny(names) => f.debug_tuple("Deny").field(names).finish(),
            ToolFilter::Predicate(_) => f.write_str("Predicate(..)"),
        }
    }
}

/// How the tools of a mounted server
/// ([`Mount`](crate::server::Mount)) or a gateway upstream
/// (`UpstreamConfig::transforms`) are shown: a [`ToolFilter`], then for each
/// tool named, a [`ToolTransform`]. Tools are named by the server's own
/// names throughout. Default: every tool as it is.
///
/// ```
/// use mcp_fusion::capability::{ToolTransform, Transforms};
/// use serde_json::json;
///
/// let transforms = Transforms::new()
///     .deny(["delete_customer"])
///     .tool("charge", ToolTransform::new().rename("bill").hide("currency", json!("EUR")));
/// # let _ = transforms;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Transforms {
    /// The transforms, by the tool's own name, in the order given.
    pub tools: Vec<(String, ToolTransform)>,
    /// Which tools are shown. Default [`ToolFilter::All`].
    pub filter: ToolFilter,
}

impl Transforms {
    /// No transform: every tool as it is.
    pub fn new() -> Self {
        Transforms::default()
    }

    /// Whether it shows every tool as it is (no transform, no filter).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && matches!(self.filter, ToolFilter::All)
    }

    /// Transforms the tool named `tool` (its own name) with `transform`; a
    /// second transform of the same tool replaces the first.
    pub fn tool(mut self, tool: impl Into<String>, transform: ToolTransform) -> Self {
        let tool = tool.into();
        self.tools.retain(|(name, _)| *name != tool);
        self.tools.push((tool, transform));
        self
    }

    /// Shows only the tools named (their own names).
    pub fn allow<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.filter = ToolFilter::Allow(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Shows every tool but those named (their own names).
    pub fn deny<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.filter = ToolFilter::Deny(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Shows the tools for which `shows` holds.
    pub fn filter(mut self, shows: impl Fn(&Tool) -> bool + Send + Sync + 'static) -> Self {
        self.filter = ToolFilter::Predicate(Arc::new(shows));
        self
    }

    /// Checks what can be checked without the tools: each new name usable,
    /// no two tools renamed to one name, no argument hidden twice.
    ///
    /// # Errors
    /// [`TransformError::BadName`], [`TransformError::NameTaken`],
    /// [`TransformError::HiddenTwice`].
    pub fn check(&self) -> Result<(), TransformError> {
        let mut names = HashSet::new();
        for (tool, transform) in &self.tools {
            if let Some(name) = &transform.name {
                if !usable_name(name) {
                    return Err(TransformError::BadName {
                        tool: tool.clone(),
                        name: name.clone(),
                    });
                }
                if !names.insert(name.as_str()) {
                    return Err(TransformError::NameTaken {
                        tool: tool.clone(),
                        name: name.clone(),
                    });
                }
            }
            let mut hidden = HashSet::new();
            for (argument, _) in &transform.hidden {
                if !hidden.insert(argument.as_str()) {
                    return Err(TransformError::HiddenTwice {
                        tool: tool.clone(),
                        argument: argument.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The first transform of a tool `tools` does not have (by its own name).
    ///
    /// # Errors
    /// [`TransformError::NoSuchTool`].
    pub fn check_tools(&self, tools: &[Tool]) -> Result<(), TransformError> {
        match self
            .tools
            .iter()
            .find(|(name, _)| !tools.iter().any(|t| t.name == *name))
        {
            Some((name, _)) => Err(TransformError::NoSuchTool { tool: name.clone() }),
            None => Ok(()),
        }
    }

    /// `tools` (as the server lists them, in its order) as they are shown:
    /// those the filter shows, each with its transform. A transform of a
    /// tool `tools` does not have is ignored (see
    /// [`check_tools`](Self::check_tools)).
    ///
    /// # Errors
    /// The errors of [`check`](Self::check);
    /// [`TransformError::NameTaken`] for a tool listed under a name another
    /// shown tool has; [`TransformError::NoSuchArgument`] for a hidden
    /// argument its tool's `inputSchema.properties` does not have.
    pub fn apply(&self, tools: &[Tool]) -> Result<Vec<Transformed>, TransformError> {
        self.check()?;
        let mut shown = Vec::new();
        for tool in tools.iter().filter(|t| self.filter.shows(t)) {
            let transform = self
                .tools
                .iter()
                .find(|(name, _)| *name == tool.name)
                .map(|(_, transform)| transform);
            shown.push(transformed(tool, transform)?);
        }
        let mut names = HashSet::new();
        for item in &shown {
            if !names.insert(item.tool.name.as_ref()) {
                let renamed = shown
                    .iter()
                    .find(|t| t.tool.name == item.tool.name && t.source != t.tool.name)
                    .unwrap_or(item);
                return Err(TransformError::NameTaken {
                    tool: renamed.source.clone(),
                    name: renamed.tool.name.to_string(),
                });
            }
        }
        Ok(shown)
    }
}

/// Whether `name` may be a transformed tool's name.
fn usable_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `tool` as `transform` shows it.
fn transformed(
    tool: &Tool,
    transform: Option<&ToolTransform>,
) -> Result<Transformed, TransformError> {
    let source = tool.name.to_string();
    let mut listed = tool.clone();
    let Some(transform) = transform else {
        return Ok(Transformed {
            tool: listed,
            source,
            hidden: Vec::new(),
            actions: None,
        });
    };
    if let Some(name) = &transform.name {
        listed.name = name.clone().into();
    }
    if let Some(description) = &transform.description {
        listed.description = Some(description.clone().into());
    }
    if !transform.hidden.is_empty() {
        let discriminator = tool
            .meta
            .as_ref()
            .and_then(|meta| meta.get(crate::tool_meta::DISCRIMINATOR_META_KEY))
            .and_then(Value::as_str);
        let mut schema = (*listed.input_schema).clone();
        for (argument, _) in &transform.hidden {
            if discriminator == Some(argument.as_str()) {
                return Err(TransformError::HidesDiscriminator {
                    tool: source,
                    argument: argument.clone(),
                });
            }
            let removed = schema
                .get_mut("properties")
                .and_then(Value::as_object_mut)
                .and_then(|properties| properties.remove(argument));
            if removed.is_none() {
                return Err(TransformError::NoSuchArgument {
                    tool: source,
                    argument: argument.clone(),
                });
            }
            if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
                required.retain(|r| r.as_str() != Some(argument));
                if required.is_empty() {
                    schema.remove("required");
                }
            }
        }
        listed.input_schema = Arc::new(schema);
    }
    Ok(Transformed {
        tool: listed,
        source,
        hidden: transform.hidden.clone(),
        actions: group_arguments(tool),
    })
}

/// A group's discriminator and the arguments of each of its actions, read
/// from its `_meta` as any mcp-fusion server lists them; `None` for a plain
/// tool.
fn group_arguments(tool: &Tool) -> Option<GroupArguments> {
    let listing = crate::listing::ToolListing::of_foreign(tool);
    let discriminator = listing.discriminator?;
    let takes = listing
        .actions
        .into_iter()
        .map(|action| {
            let arguments = action
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().cloned().collect())
                .unwrap_or_default();
            (action.name, arguments)
        })
        .collect();
    Some(GroupArguments {
        discriminator,
        takes,
    })
}
